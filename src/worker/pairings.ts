import type { EngineRole, PlusMinus } from "../types/engines.js";
import type { PairEngine } from "./runner-player.js";

/** One game pair of a unit: its first engine (plus, or in reference mode θ+ or θ−) against the second. */
export interface Pairing {
  side: PlusMinus;
  engines: [PairEngine, PairEngine];
}

/**
 * The game pairs of one unit, all on one opening at one time per move: plus against minus, or
 * in reference mode (four games) θ+ against the reference and θ− against the reference; in a
 * UCI-option run's curvature pilot the reference is the run's binary with θ₀'s options.
 */
export function pairingsOf(
  [plus, minus, reference]: string[],
  engineOptions?: { plus: Record<string, number>; minus: Record<string, number>; reference?: Record<string, number> },
): Pairing[] {
  const engine = (role: EngineRole, path: string): PairEngine => {
    const options = engineOptions?.[role];
    return { role, path, ...(options && { options }) };
  };
  const against = reference ?? (engineOptions?.reference && plus);
  if (against === undefined) return [{ side: "plus", engines: [engine("plus", plus!), engine("minus", minus!)] }];
  return [
    { side: "plus", engines: [engine("plus", plus!), engine("reference", against)] },
    { side: "minus", engines: [engine("minus", minus!), engine("reference", against)] },
  ];
}
