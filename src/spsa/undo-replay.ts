import { stepScales } from "./adaptive.js";
import { gainMeasure, update } from "./math.js";
import { paramsAt } from "./option-batches.js";
import { pilotScales } from "./pilot.js";
import { BatchSteps } from "./batch-step.js";
import { replayAppliedChain } from "./option-chain.js";
import { previousMove } from "./trajectory.js";
import type { IterationSettings } from "../types/config.js";
import type {
  AppliedBatch,
  ChainRun,
  ChainEdit,
  ChainStart,
  InsertedBatch,
  IterationOutcome,
  IterationResult,
  MeasuredIteration,
  SpsaMathConfig,
  Values,
} from "../types/spsa.js";

/**
 * θ recomputed from a run's recorded rows (spsa undo, docs/bad-workers.md), pure. The master's
 * steps depend only on what the rows hold (src/spsa/in-flight.ts, src/master/apply-reports.ts),
 * so taking some batches' results out and replaying the same steps in the same order gives the
 * θ the run would have without them.
 */

/** A completed build-mode iteration as its step reads it. */
export interface RecordedIteration {
  number: number;
  ak: number;
  /** θ it was drawn from: a parameter that joined the run with it starts there. */
  base: Values;
  plus: Values;
  minus: Values;
  /** What of the config and parameters it was played with its step reads (its step scales too). */
  settings: StepSettings;
  /** Its games' counts (without the batches taken out); null when no game is left: no step. */
  outcome: IterationOutcome | null;
}

/** The recorded settings an iteration's step reads (IterationSettings has them). */
export type StepSettings = Pick<IterationSettings, "parameters" | "stepScale" | "gain" | "pilot" | "staleness"> & {
  spsa: Pick<SpsaMathConfig, "eloCap" | "maxStep" | "momentum" | "adaptive">;
};

/**
 * One replayed step: θ after it, and the Elo and gradient it measured (null: no game left, θ
 * unchanged); with adaptive gains, the step scale it took.
 */
export interface ReplayedStep {
  theta: Values;
  measured: { elo: number; gradient: Values } | null;
  stepScale?: Values;
}

/**
 * Build mode: each completed iteration's step in iteration order, as the master's finishIteration
 * takes it (the step measured around the iteration's recorded plus and minus, with its recorded
 * a_k and settings, moving the θ the step before left), from θ₀. Momentum's previous move is the
 * replayed one, as the master's would have been without the removed results; so is the adaptive
 * step scale (replayedScale): a liar's large Elo raised the scales of the honest steps after it,
 * and replayed with those scales their pull outlived the liar's push (docs/bad-workers.md).
 */
export function replayIterations(start: Values, iterations: readonly RecordedIteration[]): ReplayedStep[] {
  const thetas: Values[] = [start];
  // θ after each of the tuner's iterations: momentum's previous move skips the gain iterations.
  const tuned: Values[] = [start];
  const steps: ReplayedStep[] = [];
  // What the replayed tuner iterations measured, for the adaptive scales of those after them.
  const measuredSoFar: NumberedMeasure[] = [];
  for (const [i, it] of iterations.entries()) {
    const theta = { ...it.base, ...(thetas[i] ?? start) };
    const games = it.outcome === null ? 0 : gamesOf(it.outcome);
    const { settings } = it;
    if (it.outcome === null || games === 0 || settings.gain) {
      const measured =
        settings.gain && it.outcome !== null && games > 0 ? gainMeasure(it.outcome, settings.spsa.eloCap) : null;
      steps.push({ theta, measured });
      thetas.push(theta);
      if (!settings.gain) tuned.push(theta);
      continue;
    }
    const stepScale = replayedScale(it, measuredSoFar);
    const played = { ak: it.ak, plus: it.plus, minus: it.minus, ...(stepScale && { scale: stepScale }) };
    const previous = (settings.spsa.momentum ?? 0) > 0 ? previousMove(tuned, tuned.length) : undefined;
    const updated = update(
      paramsAt({ parameters: settings.parameters, names: Object.keys(settings.parameters) }, theta),
      played,
      it.outcome,
      settings.spsa,
      previous,
    );
    const after = { ...theta, ...updated.newValues };
    steps.push({
      theta: after,
      measured: { elo: updated.elo, gradient: updated.gradient },
      ...(stepScale && { stepScale }),
    });
    measuredSoFar.push(...tunerMeasure(it, steps.at(-1)!));
    thetas.push(after);
    tuned.push(after);
  }
  return steps;
}

/**
 * The step scales of the iterations still open (drawn, no step yet) after the completed ones were
 * replayed (`replay`, from replayIterations): what the master would draw them with now (undefined:
 * as recorded). Their steps, when they complete, take these.
 */
export function openStepScales(
  completed: readonly RecordedIteration[],
  replay: readonly ReplayedStep[],
  open: readonly RecordedIteration[],
): (Values | undefined)[] {
  const measured = completed.flatMap((it, i) => tunerMeasure(it, replay[i]));
  return open.map((it) => replayedScale(it, measured));
}

/** A replayed tuner iteration's measure, numbered (none: a gain iteration, or no game left). */
type NumberedMeasure = MeasuredIteration & { number: number };

function tunerMeasure(it: RecordedIteration, step: ReplayedStep | undefined): NumberedMeasure[] {
  return it.settings.gain || !step?.measured || it.outcome === null
    ? []
    : [{ number: it.number, elo: step.measured.elo, result: it.outcome }];
}

/**
 * The step scale iteration `it` would have been drawn with on the replayed results (`measured`, in
 * iteration order): those applied then, the adaptive window's last (a long run's replay reads a
 * window per step, not the whole run).
 */
function replayedScale(it: RecordedIteration, measured: readonly NumberedMeasure[]): Values | undefined {
  const applied = it.number - 1 - (it.settings.staleness ?? 0);
  let end = measured.length;
  while (end > 0 && measured[end - 1]!.number > applied) end--;
  const window = it.settings.spsa.adaptive?.window ?? end;
  return drawnScale(it.settings, measured.slice(Math.max(0, end - window), end));
}

/**
 * An iteration's step scale from what the tuner iterations applied when it was drawn measured
 * (1..k − 1 − staleness, the window's last): the adaptive scale raised by the curvature pilot's
 * recorded factor, as src/master/open-iteration.ts draws it. A scale recorded without adaptive
 * gains is kept.
 */
export function drawnScale(
  settings: Pick<StepSettings, "stepScale" | "pilot" | "spsa">,
  applied: readonly MeasuredIteration[],
): Values | undefined {
  const { stepScale, spsa, pilot } = settings;
  const adaptive = spsa.adaptive;
  if (stepScale === undefined || adaptive === undefined || adaptive.mode === "off") return stepScale;
  const scales = stepScales(applied, Object.keys(stepScale), adaptive);
  return pilot ? pilotScales(scales, adaptive, pilot.factor) : scales;
}

/**
 * UCI-option mode: the applied chain (from θ₀, src/spsa/option-chain.ts) replayed as it stands,
 * and at the same time without the batches `removed` says: every other batch with the values it
 * played and its result, in the same order, each with the adaptive scale of the batches before
 * it in the new chain, raised by the curvature pilot's factor (as src/master/apply-reports.ts
 * applies them). The batches before the first one taken out keep their places and θ.
 */
export function replayChainWithout(
  run: ChainRun,
  start: ChainStart,
  batches: readonly AppliedBatch[],
  removed: (batch: AppliedBatch) => boolean,
  thetaEvery: number,
): ChainEdit {
  return replayChainEdited(run, start, batches, { removed, inserted: [] }, thetaEvery);
}

/**
 * The chain edited (spsa undo takes batches out, spsa workers accept puts held ones in,
 * docs/bad-workers.md), replayed as replayChainWithout replays it: each inserted batch just
 * before the chain's batch it names (in the order given), with the values it played and its
 * result, stepped as every other batch of the new chain is. A batch of the new chain drawn from
 * a θ the edit changed keeps the values it played (`played`); one drawn before the first change
 * can be drawn again.
 */
export function replayChainEdited(
  run: ChainRun,
  start: ChainStart,
  batches: readonly AppliedBatch[],
  edit: { removed: (batch: AppliedBatch) => boolean; inserted: readonly InsertedBatch[] },
  thetaEvery: number,
): ChainEdit {
  const result: ChainEdit = {
    thetaBefore: start.theta,
    theta: start.theta,
    firstChanged: null,
    removed: [],
    rewritten: [],
  };
  // The new chain's steps, each with the adaptive scale of the batches before it there, raised by the pilot.
  const steps = new BatchSteps(run, run.pilotFactor, start.recent);
  let place = start.applied;
  const placed = (
    batch: { batchNumber: number; drawnFrom: number | null },
    played: { plus: Values; minus: Values },
    scale: number | undefined,
    insertedElo?: number,
  ) => {
    if (result.firstChanged === null) return;
    const redrawable = batch.drawnFrom !== null && batch.drawnFrom < result.firstChanged;
    result.rewritten.push({
      batchNumber: batch.batchNumber,
      appliedNumber: place,
      stepScale: scale ?? 1,
      thetaAfter: place % thetaEvery === 0 ? result.theta : null,
      played: redrawable ? null : played,
      ...(insertedElo !== undefined && { insertedElo }),
    });
  };
  let next = 0;
  const insertBefore = (appliedNumber: number | null) => {
    for (; next < edit.inserted.length; next++) {
      const inserted = edit.inserted[next]!;
      if (appliedNumber !== null && (inserted.before === null || inserted.before > appliedNumber)) return;
      place += 1;
      result.firstChanged ??= place;
      const { update, scale } = steps.step(paramsAt(run, result.theta), { ...inserted, ...inserted.played });
      result.theta = update.newValues;
      placed(inserted, inserted.played, scale, update.elo);
    }
  };
  result.thetaBefore = replayAppliedChain(run, start, batches, (batch, _theta, played) => {
    insertBefore(batch.appliedNumber);
    if (edit.removed(batch)) {
      result.firstChanged ??= batch.appliedNumber;
      result.removed.push({ batchNumber: batch.batchNumber, played });
      return;
    }
    place += 1;
    const { update, scale } = steps.step(paramsAt(run, result.theta), { ...batch, ...played });
    result.theta = update.newValues;
    placed(batch, played, scale);
  });
  insertBefore(null);
  return result;
}

function gamesOf(outcome: IterationOutcome): number {
  const count = (r: IterationResult) => r.plusWins + r.minusWins + r.draws;
  return "plus" in outcome ? count(outcome.plus) + count(outcome.minus) : count(outcome);
}
