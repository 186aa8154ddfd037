/**
 * Which points of a long history to read: `samples` positions spread evenly over
 * 0..total-1, both ends included, so a chart or sparkline of a 10,000-iteration run reads
 * a few hundred rows instead of all of them.
 */
export function samplePositions(total: number, samples: number): number[] {
  if (total <= 0) return [];
  if (total <= samples) return Array.from({ length: total }, (_, i) => i);
  const last = total - 1;
  const positions = Array.from({ length: samples }, (_, j) => Math.round((j * last) / (samples - 1)));
  return [...new Set(positions)];
}
