import { valuesOf, type Param } from "../params/params.js";
import { recordedParams, settingsOf } from "../config/iteration-settings.js";
import { completeIteration, outcomeOf, readTrajectory, type IterationRow } from "../db/iterations.js";
import { runParameters } from "../db/runs.js";
import { gainMeasure, pooledResult, update } from "../spsa/math.js";
import { previousMove } from "../spsa/trajectory.js";
import { outcomeText, resultText } from "../spsa/outcome-text.js";
import type { IterationOutcome, Values } from "../types/spsa.js";
import { crashPoint } from "./crash-points.js";
import { syncParamsFile, type MasterContext } from "./run-setup.js";

/**
 * Applies the step of a played iteration, the oldest open one: θ as the database holds it moved,
 * written to params.toml; the parameters at the new θ. A gain iteration completes with θ as it
 * is (its plus and minus are both θ: no update could be taken), its Elo θ's against θ₀.
 */
export async function finishIteration(
  { options, run, db, log }: MasterContext,
  params: Param[],
  iteration: IterationRow,
  iterations: number,
): Promise<Param[]> {
  const { config, paramsFile } = options;
  const k = iteration.iterationNumber;
  // The update uses only what the iteration recorded (today's files may differ from what was
  // played), and moves θ as the database holds it: the step measured around the iteration's base
  // θ, which an iteration opened in flight drew before the steps of the iterations still playing then.
  const settings = iteration.settings ?? settingsOf(config, params);
  const played = { ak: iteration.ak, plus: iteration.plusParameters, minus: iteration.minusParameters };
  // Plus against minus, or (its row names a reference engine) both sides against the reference.
  const counts = outcomeOf(iteration);
  // The trajectory of the tuner's iterations through this one (its base last): a gain iteration is not among them.
  const trajectory =
    (settings.spsa.momentum ?? 0) > 0 && !settings.gain
      ? await db.retrying((sql) => readTrajectory(sql, run.id, k))
      : undefined;
  const previous = trajectory && previousMove(trajectory, trajectory.length);
  const step = (stored: Values, scale: Values | undefined) => {
    // Parameters added since the run started have no θ in the database yet: they keep their value.
    const theta = { ...valuesOf(params), ...stored };
    if (settings.gain) return { ...gainMeasure(counts, settings.spsa.eloCap), newValues: theta };
    const updated = update(
      recordedParams(settings, theta),
      { ...played, ...(scale && { scale }) },
      counts,
      settings.spsa,
      previous,
    );
    return { ...updated, newValues: { ...theta, ...updated.newValues } };
  };
  const result = await db.retrying(() =>
    options.lease.transaction((tx) =>
      completeIteration(tx, {
        runId: run.id,
        iterationId: iteration.id,
        step,
        finalIteration: k >= iterations,
      }),
    ),
  );
  crashPoint("iteration-committed");
  // Not applied: the iteration was completed already (a commit retried after its answer was
  // lost, or another master on this run). θ is then what the database holds.
  if (result) {
    log(iterationLine(k, counts, result.elo, settings.spsa.eloCap, opponentOf(run, iteration)));
  } else {
    log(`iteration ${k} was already complete in the database: θ taken from there`);
  }
  const theta = result ? result.newValues : await db.retrying((sql) => runParameters(sql, run.id));
  const next = withTheta(params, theta);
  syncParamsFile(paramsFile, valuesOf(next), () => {});
  return next;
}

/**
 * What an iteration's sides played: each other, the run's reference engine, θ₀ in the curvature
 * pilot, or θ₀ in a gain iteration.
 */
function opponentOf(run: MasterContext["run"], iteration: IterationRow): Opponent {
  if (iteration.settings?.gain) return "gain";
  if (iteration.referenceEngineSha256 === null) return "minus";
  return run.reference === null ? "θ₀" : "reference";
}

type Opponent = "minus" | "reference" | "θ₀" | "gain";

/**
 * The master's line for an applied step: `iteration 4: +9 -8 =7, Elo 7.2 (plus vs minus)`; a
 * curvature pilot's `iteration 1 (curvature pilot): θ+ +2 -5 =1, θ− +3 -3 =2 vs θ₀, Elo of θ+ over θ−
 * -137.0 (each against θ₀)`; a gain iteration's `iteration 9 (gain): θ +5 -3 =8 vs θ₀, Elo of θ over
 * θ₀ +43.7 (no step)`; an Elo at ±elo_cap says it was capped there.
 */
export function iterationLine(
  k: number,
  counts: IterationOutcome,
  elo: number,
  eloCap: number,
  opponent: Opponent,
): string {
  const capped = Math.abs(elo) >= eloCap ? `; capped at ±${eloCap} by [spsa] elo_cap, the games measured more` : "";
  if (opponent === "gain")
    return (
      `iteration ${k} (gain): θ ${resultText(pooledResult(counts))} vs θ₀, Elo of θ over θ₀ ` +
      `${elo.toFixed(1)} (no step${capped})`
    );
  if (opponent === "θ₀")
    return (
      `iteration ${k} (curvature pilot): ${outcomeText(counts, "θ₀")}, Elo of θ+ over θ− ` +
      `${elo.toFixed(1)} (each against θ₀${capped})`
    );
  const measured = opponent === "minus" ? "plus vs minus" : "θ+ vs reference − θ− vs reference";
  return `iteration ${k}: ${outcomeText(counts)}, Elo ${elo.toFixed(1)} (${measured}${capped})`;
}

/** The parameters at θ (a parameter θ lacks keeps its value). */
export function withTheta(params: readonly Param[], theta: Values): Param[] {
  return params.map((p) => ({ ...p, value: theta[p.name] ?? p.value }));
}
