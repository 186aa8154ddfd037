/**
 * The batches an iteration's games are made into when it starts (open spsa_batch rows that
 * workers claim): `batchSize` games each, the remainder last. `workers` (the game slots of the workers seen lately)
 * is for plans that shrink the batches at an iteration's end; this one does not use it.
 */
export function planBatchSizes(targetGames: number, batchSize: number, workers: number): number[] {
  void workers;
  const sizes: number[] = [];
  for (let left = targetGames; left > 0; left -= batchSize) sizes.push(Math.min(batchSize, left));
  return sizes;
}
