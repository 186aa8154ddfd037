/**
 * Shared draws in the simulator (docs/uci-options.md, "Shared draws"): in the first half of a
 * UCI-option run, one draw played by an iteration's worth of consecutive batches, so that the
 * adaptive scale reads it as one sample (pooledByDraw) while workers still claim, and the
 * master judges, batches of batch_size.
 */

/** A draw that batches play in turn: its first batch's number, and its games not yet given out. */
export interface SharedDraw<D> {
  drawn: D;
  number: number;
  left: number;
}

/** The draw the next batch plays: the current one while it has games left, else `draw()`'s, for `games` games. */
export function nextDraw<D>(
  current: SharedDraw<D> | undefined,
  games: number,
  number: number,
  draw: () => D,
): SharedDraw<D> {
  return current !== undefined && current.left > 0 ? current : { drawn: draw(), number, left: games };
}
