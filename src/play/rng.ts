import { createRng, type Rng } from "../spsa/rng.js";

export type { Rng };

/** The project's one seeded generator (sfc32, see src/spsa/rng.ts): a match or batch replays from its seed. */
export function seededRng(seed: string | number): Rng {
  return createRng(String(seed));
}

/** Uniform in [low, high]. */
export function uniform(rng: Rng, low: number, high: number): number {
  return low + (high - low) * rng.next();
}
