/**
 * The curvature pilot of UCI-option mode, pure (docs/uci-options.md, "The curvature pilot"): the
 * run's first `pilotGames` games are batches that play θ+ and θ− each against θ₀, each batch its
 * own perturbation. Pooled into groups of an iteration's games they are build mode's pilot
 * iterations, measured by the same statistic (pilotMeasure, src/spsa/pilot.ts), and the factor
 * raises every later batch's adaptive scale as it raises build mode's (pilotScale).
 */
import { pilotScale } from "./pilot.js";
import type { IterationResult, PilotIteration, ReferenceResult, SpsaMathConfig } from "../types/spsa.js";

/**
 * A reported pilot batch: its games, θ+'s and θ−'s results against θ₀, and its spread
 * (spreadSquared of its plus and minus).
 */
export interface PilotBatch {
  games: number;
  outcome: ReferenceResult;
  spreadSquared: number;
}

/**
 * The pilot batches (in the order they were drawn) as pilot iterations: consecutive batches
 * pooled to `gamesPerIteration` games (the last group may be smaller), their results summed and
 * their spreads averaged by games. A batch of 4 games often ends at a clamped score, whose Elo
 * would understate its cost; the pooled iteration measures what one of build mode's does.
 */
export function pilotIterationsOf(batches: readonly PilotBatch[], gamesPerIteration: number): PilotIteration[] {
  const groups: PilotIteration[] = [];
  let open: { games: number; plus: IterationResult; minus: IterationResult; spread: number } | undefined;
  const close = () => {
    if (open && open.games > 0)
      groups.push({ outcome: { plus: open.plus, minus: open.minus }, spreadSquared: open.spread / open.games });
    open = undefined;
  };
  for (const batch of batches) {
    open ??= {
      games: 0,
      plus: { plusWins: 0, minusWins: 0, draws: 0 },
      minus: { plusWins: 0, minusWins: 0, draws: 0 },
      spread: 0,
    };
    add(open.plus, batch.outcome.plus);
    add(open.minus, batch.outcome.minus);
    open.games += batch.games;
    open.spread += batch.spreadSquared * batch.games;
    if (open.games >= gamesPerIteration) close();
  }
  close();
  return groups;
}

function add(sum: IterationResult, result: IterationResult): void {
  sum.plusWins += result.plusWins;
  sum.minusWins += result.minusWins;
  sum.draws += result.draws;
}

/**
 * A batch's adaptive scale (batchStepFactor) raised by the pilot's factor; unchanged without a
 * factor or adaptive gains.
 */
export function pilotBatchScale(
  scale: number | undefined,
  gains: SpsaMathConfig,
  factor: number | undefined,
): number | undefined {
  if (scale === undefined || factor === undefined || factor === 1 || !gains.adaptive) return scale;
  return pilotScale(scale, gains.adaptive, factor);
}
