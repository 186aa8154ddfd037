import type postgres from "postgres";
import { lockOpenIteration } from "../db/iteration-lock.js";
import { pilotMeasureState, playedPilotBatches, recordPilot } from "../db/option-pilot.js";
import type { OptionRunRow } from "../db/option-run.js";
import { pilotIterationsOf } from "../spsa/option-pilot.js";
import { pilotMeasure, spreadSquared } from "../spsa/pilot.js";
import type { TuningConfig } from "../types/config.js";
import type { OptionPilotRecord } from "../types/spsa.js";
import { pilotIterations } from "../spsa/pilot.js";

/**
 * The curvature pilot in UCI-option mode (docs/uci-options.md, "The curvature pilot"): the run's
 * first `[spsa] adapt_pilot` iterations' worth of games are batches that play θ+ and θ− each
 * against θ₀, the same binary with θ₀'s option values, which the master records with the draw
 * (src/master/draw-pool.ts) for the worker to check against the signed bounds as it checks plus
 * and minus. The master draws nothing more until they are all played; then it measures them as
 * build mode measures its pilot iterations (src/spsa/option-pilot.ts) and stores the measure,
 * whose factor raises the step scale of every batch it applies from then on
 * (src/master/apply-reports.ts). The pilot's games are counted in the run; they move θ no step.
 */

/**
 * Games of the pilot a new run plays: build mode's pilot iterations (none where build mode has
 * none) × games per iteration.
 */
export function optionPilotGames(config: TuningConfig): number {
  return pilotIterations(config) * config.games.gamesPerIteration;
}

/**
 * Once the pilot's games are all played (and its batches folded: a suspect worker's were set aside
 * and are drawn again), measures them and stores the measure, under the carrier iteration's fold
 * lock, once. Returns the measure when this call stored it.
 */
export async function measureOptionPilot(
  sql: postgres.Sql,
  run: Pick<OptionRunRow, "runId" | "iterationId" | "names" | "parameters" | "pilotGames" | "gamesPerIteration">,
): Promise<OptionPilotRecord | undefined> {
  const pilotGames = run.pilotGames ?? 0;
  if (pilotGames === 0) return undefined;
  return sql.begin(async (tx) => {
    if (!(await lockOpenIteration(tx, run.iterationId))) return undefined;
    const state = await pilotMeasureState(tx, run.runId, run.iterationId);
    if (state.measured || state.unfolded > 0) return undefined;
    const played = await playedPilotBatches(tx, run.runId, run.names);
    const games = played.reduce((sum, b) => sum + b.games, 0);
    if (games < pilotGames) return undefined;
    const steps = Object.fromEntries(run.names.map((name) => [name, run.parameters[name]?.step ?? 1]));
    const batches = played.map((b) => ({
      games: b.games,
      outcome: b.outcome,
      spreadSquared: spreadSquared(steps, b.plus, b.minus),
    }));
    // All of them pooled into one: the results the status shows.
    const [all] = pilotIterationsOf(batches, Number.POSITIVE_INFINITY);
    if (!all) return undefined;
    const record: OptionPilotRecord = {
      ...pilotMeasure(pilotIterationsOf(batches, run.gamesPerIteration)),
      games,
      outcome: all.outcome,
    };
    return (await recordPilot(tx, run.runId, record)) ? record : undefined;
  });
}
