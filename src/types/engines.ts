import type { FaultCounts } from "./faults.js";

/**
 * The engines of a run's games, by role: plus (θ+) and minus (θ−), built for each iteration
 * (a verification plays its "to" θ as plus and its "from" θ as minus), and in reference mode
 * (docs/reference-mode.md) the run's one reference engine, which θ+ and θ− each play. The game
 * runner (src/play/) knows none of this: only a pair's first and second engine. Stored columns
 * keep these words as prefixes (plus_crashes, minus_engine_sha256, reference_engine_path, …).
 */
export const ENGINE_ROLES = ["plus", "minus", "reference"] as const;
export type EngineRole = (typeof ENGINE_ROLES)[number];

/** The two engines built for an iteration (or a verification) from θ values. */
export type PlusMinus = Exclude<EngineRole, "reference">;

/**
 * The faults of each engine of a batch, in ENGINE_ROLES' order: plus and minus, and in reference
 * mode the reference engine.
 */
export type EngineFaults = readonly [FaultCounts, FaultCounts] | readonly [FaultCounts, FaultCounts, FaultCounts];

/** Games won, drawn and lost, from one engine's side. */
export interface WinDrawLoss {
  wins: number;
  draws: number;
  losses: number;
}

/** Reference mode: θ+'s and θ−'s results against the reference engine, each from its own side. */
export type ReferenceResults = Record<PlusMinus, WinDrawLoss>;
