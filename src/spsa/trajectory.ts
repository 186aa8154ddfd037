import type { SpsaParams, Trajectory, Values } from "../types/spsa.js";

/** Bounds on one correction of the self-correcting schedule: SCSPSA moves a_k by at most 25 %. */
export const SC_MAX_FACTOR = 1.25;
export const SC_MIN_FACTOR = 0.75;
/**
 * Drift ratio at which a block keeps a_k as it is. The ratio |Σ moves|² / Σ |move|² is about 1
 * when θ only wanders (the noise of a random walk: near the optimum) and about the block's
 * length when every move points the same way (far from it).
 */
export const SC_NEUTRAL_DRIFT = 2;

/**
 * The self-correcting schedule's c_k: c_0·exp(2k/N)/√k, falling then rising again so late
 * iterations measure a slope above the noise; c_0 is chosen so c_N = cEnd (steps).
 */
export function selfCorrectingCk(cEnd: number, k: number, N: number): number {
  const c0 = (cEnd * Math.sqrt(N)) / Math.exp(2);
  return (c0 * Math.exp((2 * k) / N)) / Math.sqrt(k);
}

/**
 * The factor on the starting a for iteration k: 1 until iteration 2L + 1 (L the block length,
 * SCSPSA's A), then after every block of L iterations multiplied by √(drift ratio / neutral),
 * kept within [SC_MIN_FACTOR, SC_MAX_FACTOR]: θ still drifting means it is far from the optimum
 * (larger steps), θ wandering means it is near (smaller steps). The ratio is over all parameters
 * that are not frozen, in step units. Needs θ of iterations 1..k.
 */
export function selfCorrectingFactor(
  params: SpsaParams,
  trajectory: Trajectory,
  k: number,
  blockLength: number,
): number {
  if (trajectory.length < k)
    throw new RangeError(`the self-correcting schedule needs θ of iterations 1..${k}, got ${trajectory.length}`);
  const L = Math.max(1, Math.round(blockLength));
  const moving = params.filter((p) => !p.frozen);
  let factor = 1;
  // θ_b (entry b) is θ after b moves; a block ends at move b = 2L, 3L, … ≤ k − 1.
  const steps = moving.map((p) => `${p.name}/${p.step}`).join(",");
  for (let b = 2 * L; b <= k - 1; b += L) factor *= blockCorrection(moving, steps, trajectory, b, L);
  return factor;
}

/**
 * One block's correction. A long run's simulation asks for every past block at every
 * iteration, so corrections are remembered per trajectory array: a trajectory only grows, and
 * a block's entries are fixed once later ones exist.
 */
function blockCorrection(moving: SpsaParams, steps: string, trajectory: Trajectory, b: number, L: number): number {
  const key = `${L}:${b}:${steps}`;
  let memo = corrections.get(trajectory);
  if (memo === undefined) corrections.set(trajectory, (memo = new Map()));
  const known = memo.get(key);
  if (known !== undefined) return known;
  let net = 0;
  let squares = 0;
  for (const p of moving) {
    const at = (j: number) => (trajectory[j]?.[p.name] ?? p.value) / p.step;
    net += (at(b) - at(b - L)) ** 2;
    for (let j = b - L; j < b; j++) squares += (at(j + 1) - at(j)) ** 2;
  }
  const correction =
    squares === 0 ? 1 : clip(Math.sqrt(net / squares / SC_NEUTRAL_DRIFT), SC_MIN_FACTOR, SC_MAX_FACTOR);
  memo.set(key, correction);
  return correction;
}

const corrections = new WeakMap<Trajectory, Map<string, number>>();

/** θ_k − θ_{k−1} per parameter (0 at the first iteration and for a parameter new since). */
export function previousMove(trajectory: Trajectory, k: number): Values {
  const now = trajectory[k - 1];
  const before = trajectory[k - 2];
  if (now === undefined) throw new RangeError(`momentum needs θ of iterations 1..${k}, got ${trajectory.length}`);
  return Object.fromEntries(
    Object.entries(now).map(([name, value]) => [name, before?.[name] === undefined ? 0 : value - before[name]]),
  );
}

/**
 * Polyak–Ruppert tail averaging: the mean of θ over the last ⌈fraction·n⌉ of the n points of
 * `thetas` (θ after each iteration, the final θ last). A parameter is averaged over the points
 * that have it. fraction 0 gives the final θ.
 */
export function tailAverage(thetas: Trajectory, fraction: number): Values {
  const last = thetas.at(-1);
  if (last === undefined) throw new RangeError("cannot average an empty trajectory");
  const tail = thetas.slice(thetas.length - Math.max(1, Math.ceil(fraction * thetas.length)));
  return Object.fromEntries(
    Object.keys(last).map((name) => {
      const values = tail.map((theta) => theta[name]).filter((v): v is number => v !== undefined);
      return [name, values.reduce((s, v) => s + v, 0) / values.length];
    }),
  );
}

function clip(x: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, x));
}
