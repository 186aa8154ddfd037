/**
 * How far a run's parameters moved, in their own steps, counted in a few bins: a screen's worth
 * whatever the run's size. By the size of the move, on either side: under 0.1 step, 0.1 to 0.5,
 * 0.5 to 1, 1 to 2, 2 or more (each bin holds its lower edge), and the unmoved apart.
 */
export interface MoveBin {
  /**
   * The move's bounds in steps: from ≤ move < to on the plus side, from < move ≤ to on the minus
   * side; null at the open ends; 0 to 0: unmoved.
   */
  from: number | null;
  to: number | null;
  count: number;
}

/** Edges of |move|, in steps, from the largest down. */
const EDGES = [2, 1, 0.5, 0.1];

/** The bins of `moves` (in steps), most negative first; empty bins are listed too. */
export function moveHistogram(moves: readonly number[]): MoveBin[] {
  const sizes = EDGES.length + 1;
  const counts = new Array<number>(2 * sizes + 1).fill(0);
  for (const move of moves) {
    const size = EDGES.findIndex((edge) => Math.abs(move) >= edge);
    const fromLargest = size === -1 ? EDGES.length : size;
    if (move === 0) counts[sizes]!++;
    else if (move < 0) counts[fromLargest]!++;
    else counts[2 * sizes - fromLargest]!++;
  }
  const bounds = (i: number): [number | null, number | null] => [
    EDGES[i] ?? 0,
    i === 0 ? null : (EDGES[i - 1] ?? null),
  ];
  const minus = Array.from({ length: sizes }, (_, i) => {
    const [low, high] = bounds(i);
    return { from: high === null ? null : -high, to: low === null || low === 0 ? 0 : -low };
  });
  const plus = Array.from({ length: sizes }, (_, i) => {
    const [low, high] = bounds(sizes - 1 - i);
    return { from: low, to: high };
  });
  return [...minus, { from: 0, to: 0 }, ...plus].map((bin, i) => ({ ...bin, count: counts[i] ?? 0 }));
}
