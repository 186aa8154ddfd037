import { valuesOf } from "../params/params.js";
import { gains, perturb, scoreToElo, update } from "../spsa/math.js";
import { createRng } from "../core/rng.js";
import { stepScales } from "../spsa/adaptive.js";
import { previousMove, tailAverage } from "../spsa/trajectory.js";
import { nextDraw, type SharedDraw } from "./shared-draws.js";
import { drawBatch, drawSpan } from "../spsa/option-batches.js";
import { BatchSteps } from "../spsa/batch-step.js";
import { pilotMeasure, pilotScales, spreadSquared, widenedGains } from "../spsa/pilot.js";
import { pilotIterationsOf, type PilotBatch } from "../spsa/option-pilot.js";
import { eloBetween, eloLeft, type EngineModel } from "./engine-model.js";
import { playGames, plusVsMinus, type IterationPlay } from "./game-model.js";
import { referenceOutcome } from "./reference-mode.js";
import {
  isReferenceResult,
  type SpsaMathConfig,
  type SpsaParam,
  type Values,
  type MeasuredIteration,
  type DrawnBatch,
  type PilotIteration,
} from "../types/spsa.js";
import type { Problem } from "./problem.js";

/** A completed iteration as a study of other adaptations sees it: also each parameter's gradient. */
export type StudiedIteration = MeasuredIteration & { gradient: Values };

/**
 * Per-parameter factors on a_k from the completed iterations, for a run of `maxIterations` (a
 * study's alternative to src/spsa/adaptive.ts).
 */
export type StepScales = (
  history: readonly StudiedIteration[],
  names: readonly string[],
  maxIterations: number,
) => Values;

/** Elo left after each update, against the games played so far. */
export interface Trace {
  games: number[];
  eloLeft: number[];
  final: Values;
  /** With a tail average as `final`: θ after the last update (the ship check's other candidate). */
  unaveraged?: Values;
}

export interface Tuner {
  name: string;
  /** Tunes `problem` with at most `budget` games; the same seed gives the same run. */
  run(problem: Problem, budget: number, seed: string): Trace;
}

/**
 * The project's master: barrier iterations of `gamesPerIteration` games, perturbed and
 * updated by src/spsa/math.ts exactly as `spsa master` does (draws seeded by run seed and k,
 * the trajectory of base θ for the self-correcting schedule and momentum). The budget's number
 * of iterations is the run's max_iterations, as a user would set it; `gainsFor` gives the
 * math's config for it, whose adaptive gains (or `scalesFor`, for a study) scale each step. With
 * `averageTail`, the final values (the trace's last point) are the
 * master's final output: θ averaged over that share of the last iterations. `play` plays an
 * iteration's games (reference mode: src/simulate/reference-mode.ts). With plus-vs-minus games
 * the adaptive gains' curvature pilot runs as the master runs it (src/master/pilot.ts): its
 * iterations play θ+ and θ− each against θ₀, and its factor scales the later steps.
 * `staleness` d > 0 is build mode's iterations in flight at their steady state
 * (src/spsa/in-flight.ts): iteration k is drawn from θ after the steps of 1..k − 1 − d, with the
 * adaptive scales of the iterations completed by then, and its step moves the θ of k − 1's step;
 * the iterations after the pilot wait for it, as the master's do.
 */
export function masterTuner(
  name: string,
  gainsFor: (maxIterations: number) => SpsaMathConfig,
  gamesPerIteration: number,
  averageTail = 0,
  scalesFor?: StepScales,
  play: IterationPlay = plusVsMinus,
  staleness = 0,
): Tuner {
  return {
    name,
    run(problem, budget, seed) {
      const iterations = Math.floor(budget / gamesPerIteration);
      const cfg = gainsFor(iterations);
      const adaptive = cfg.adaptive;
      const scales =
        scalesFor ??
        (adaptive && adaptive.mode !== "off"
          ? (h: readonly MeasuredIteration[], names: readonly string[]) => stepScales(h, names, adaptive)
          : undefined);
      const gameRng = createRng(`games:${seed}`);
      let params = problem.params;
      const trajectory = [valuesOf(params)];
      const history: StudiedIteration[] = [];
      const names = params.map((p) => p.name);
      const steps = Object.fromEntries(params.map((p) => [p.name, p.step]));
      const pilots =
        play === plusVsMinus && adaptive && adaptive.mode !== "off" && gamesPerIteration % 4 === 0
          ? (adaptive.pilot ?? 0)
          : 0;
      const pilotIterations: PilotIteration[] = [];
      const trace = startTrace(problem);
      let factor = 1;
      let drawGains = cfg;
      for (let k = 1; k <= iterations; k++) {
        // Steps applied when iteration k was opened: all but the last d, and the pilot's.
        const applied = Math.max(k - 1 - staleness, Math.min(k - 1, pilots));
        const base = params.map((p) => ({ ...p, value: trajectory[applied]?.[p.name] ?? p.value }));
        // The pilot's measure once, when its iterations are all played.
        if (k === pilots + 1 && pilotIterations.length > 0) {
          factor = pilotMeasure(pilotIterations).factor;
          drawGains = widenedGains(cfg, factor);
        }
        const perturbation = perturb(base, drawGains, k, createRng(`${seed}:${k}`), trajectory);
        const played = scales
          ? {
              ...perturbation,
              scale: pilotScales(
                scales(history.slice(0, applied), names, iterations),
                adaptive ?? { floor: 1 },
                factor,
              ),
            }
          : perturbation;
        const pilot = k <= pilots;
        const result = pilot
          ? referenceOutcome({ kind: "start" }, problem, played.plus, played.minus, gamesPerIteration, gameRng)
          : play(problem, played.plus, played.minus, gamesPerIteration, gameRng);
        if (pilot && isReferenceResult(result))
          pilotIterations.push({ outcome: result, spreadSquared: spreadSquared(steps, played.plus, played.minus) });
        const { newValues, elo, gradient } = update(params, played, result, cfg, previousMove(trajectory, k));
        if (scales) history.push({ elo, result, gradient });
        params = params.map((p) => ({ ...p, value: newValues[p.name] ?? p.value }));
        trajectory.push(valuesOf(params));
        record(trace, problem.model, k * gamesPerIteration, params);
      }
      if (averageTail > 0 && iterations > 0) {
        const averaged = tailAverage(trajectory.slice(1), averageTail);
        trace.eloLeft[trace.eloLeft.length - 1] = eloLeft(problem.model, averaged);
        trace.unaveraged = trace.final;
        trace.final = averaged;
      }
      return trace;
    },
  };
}

/**
 * UCI-option mode's asynchronous tuner, with the workers' own code (src/spsa/option-batches.ts):
 * batches of `batchGames` play the master's draws from the θ of their claim (the first half's
 * shared by the batches of an iteration, drawSpan; `ownDraws`: every batch its own, as before),
 * and each result moves the θ of its report, the adaptive scale reading one draw's batches pooled.
 * `inFlight` batches are out at once, so each result lands on a θ
 * that the `inFlight − 1` batches claimed before it have already moved (1: no staleness). With
 * adaptive gains the curvature pilot runs as the master runs it (src/master/option-pilot.ts): the
 * first pilot iterations' worth of games are batches of θ+ and θ− each against θ₀, which move θ no
 * step; nothing else is drawn until they are all in, and their factor raises every later scale.
 */
export function asyncTuner(
  name: string,
  gainsFor: (maxIterations: number) => SpsaMathConfig,
  gamesPerIteration: number,
  batchGames: number,
  inFlight: number,
  ownDraws = false,
): Tuner {
  return {
    name,
    run(problem, budget, seed) {
      const cfg = gainsFor(Math.floor(budget / gamesPerIteration));
      const gameRng = createRng(`games:${seed}`);
      let params = problem.params;
      const trace = startTrace(problem);
      const out: { drawn: DrawnBatch; games: number; draw: number; result: ReturnType<typeof playGames> }[] = [];
      let drawnGames = 0;
      let appliedGames = 0;
      const adaptive = cfg.adaptive;
      const pilotGames =
        adaptive && adaptive.mode !== "off" && gamesPerIteration % 4 === 0 && batchGames % 4 === 0
          ? (adaptive.pilot ?? 0) * gamesPerIteration
          : 0;
      const steps = Object.fromEntries(params.map((p) => [p.name, p.step]));
      const pilot: PilotBatch[] = [];
      let batchNumber = 1;
      for (; drawnGames < Math.min(pilotGames, budget); batchNumber++) {
        const games = Math.min(batchGames, pilotGames - drawnGames);
        const drawn = drawBatch(params, cfg, {
          seed,
          drawNumber: batchNumber,
          gamesBefore: drawnGames,
          gamesPerIteration,
        });
        pilot.push({
          games,
          outcome: referenceOutcome({ kind: "start" }, problem, drawn.plus, drawn.minus, games, gameRng),
          spreadSquared: spreadSquared(steps, drawn.plus, drawn.minus),
        });
        drawnGames += games;
      }
      let factor: number | undefined;
      if (pilot.length > 0) {
        factor = pilotMeasure(pilotIterationsOf(pilot, gamesPerIteration)).factor;
        // The pilot's games count against the budget; θ is where it started.
        appliedGames = drawnGames;
        record(trace, problem.model, appliedGames, params);
      }
      // Every later batch's scale raised by the pilot's factor (none without a pilot).
      const stepper = new BatchSteps({ gains: cfg, gamesPerIteration }, factor);
      // … and every later draw widened by it (src/spsa/pilot.ts).
      const widened = widenedGains(cfg, factor);
      const applyOldest = () => {
        const batch = out.shift();
        if (!batch) return;
        const { newValues } = stepper.step(params, {
          ...batch.drawn,
          games: batch.games,
          result: batch.result,
          drawNumber: batch.draw,
        }).update;
        params = params.map((p) => ({ ...p, value: newValues[p.name] ?? p.value }));
        appliedGames += batch.games;
        record(trace, problem.model, appliedGames, params);
      };
      let shared: SharedDraw<DrawnBatch> | undefined;
      for (; drawnGames < budget; batchNumber++) {
        const games = Math.min(batchGames, budget - drawnGames);
        const span = ownDraws ? games : drawSpan(drawnGames, budget, games, gamesPerIteration);
        shared = nextDraw(shared, span, batchNumber, () =>
          drawBatch(params, widened, { seed, drawNumber: batchNumber, gamesBefore: drawnGames, gamesPerIteration }),
        );
        shared.left -= games;
        const { drawn } = shared;
        out.push({
          drawn,
          games,
          draw: shared.number,
          result: playGames(eloBetween(problem.model, drawn.plus, drawn.minus), games, problem.drawRate, gameRng),
        });
        drawnGames += games;
        if (out.length >= inFlight) applyOldest();
      }
      while (out.length > 0) applyOldest();
      return trace;
    },
  };
}

/**
 * Anchor: the seed design (chess-compete's master.py) in step units: δ = c_k steps, no
 * integer rule (ints rounded to nearest), Elo 0 outside scores 1 %–99 %, θ += a_k·s·Elo/(2δ)
 * with no cap or clip but the bounds; its config: a 1, c 0.5, A 50, 150 games per iteration.
 */
export function seedTuner(): Tuner {
  const cfg = { a: 1, c: 0.5, A: 50, alpha: 0.602, gamma: 0.101 };
  const gamesPerIteration = 150;
  return {
    name: "seed design (a 1, c 0.5, A 50, 150 games)",
    run(problem, budget, seed) {
      const iterations = Math.floor(budget / gamesPerIteration);
      const gameRng = createRng(`games:${seed}`);
      let params = problem.params;
      const trace = startTrace(problem);
      for (let k = 1; k <= iterations; k++) {
        const { ck, ak } = gains({ ...cfg, maxIterations: iterations }, k);
        const rng = createRng(`${seed}:${k}`);
        const signs = params.map(() => (rng.next() < 0.5 ? 1 : -1));
        const side = (sign: number) =>
          Object.fromEntries(params.map((p, i) => [p.name, built(p, p.value + sign * (signs[i] ?? 1) * ck * p.step)]));
        const result = playGames(
          eloBetween(problem.model, side(1), side(-1)),
          gamesPerIteration,
          problem.drawRate,
          gameRng,
        );
        const score = (result.plusWins + result.draws / 2) / gamesPerIteration;
        const elo = score > 0.01 && score < 0.99 ? scoreToElo(score) : 0;
        params = params.map((p, i) => ({
          ...p,
          value: clip(p.value + (ak * (signs[i] ?? 1) * elo * p.step) / (2 * ck), p.min, p.max),
        }));
        record(trace, problem.model, k * gamesPerIteration, params);
      }
      return trace;
    },
  };
}

/**
 * Anchor: fishtest's SPSA in step units. Per-parameter c_end and r_end (the perturbation and
 * learning rate at the last game pair); c = c_end·N^γ, a = r_end·c_end²·(A + N)^α with N the
 * budget's game pairs and A = N/10; each batch draws its own flips from the current θ and, when
 * it returns, θ += r_k·c_k·(wins − losses)·flip with r_k = a_k/c_k², k counted in game pairs.
 */
export function fishtestTuner(options: { cEnd: number; rEnd: number; batchGames: number }): Tuner {
  const alpha = 0.602;
  const gamma = 0.101;
  return {
    name: `fishtest (c_end ${options.cEnd} step, r_end ${options.rEnd})`,
    run(problem, budget, seed) {
      const N = Math.floor(budget / 2);
      const A = N / 10;
      const c = options.cEnd * N ** gamma;
      const a = options.rEnd * options.cEnd ** 2 * (A + N) ** alpha;
      const gameRng = createRng(`games:${seed}`);
      let params = problem.params;
      const trace = startTrace(problem);
      for (let pairs = 0; pairs < N;) {
        const batchPairs = Math.min(options.batchGames / 2, N - pairs);
        const { ck, ak } = gains({ a, c, A, alpha, gamma, maxIterations: N }, pairs + 1);
        const rng = createRng(`${seed}:${pairs}`);
        const flips = params.map(() => (rng.next() < 0.5 ? 1 : -1));
        const u = rng.next();
        const side = (sign: number) =>
          Object.fromEntries(
            params.map((p, i) => [
              p.name,
              stochasticRound(p, clip(p.value + sign * (flips[i] ?? 1) * ck * p.step, p.min, p.max), u),
            ]),
          );
        const result = playGames(
          eloBetween(problem.model, side(1), side(-1)),
          2 * batchPairs,
          problem.drawRate,
          gameRng,
        );
        const wl = result.plusWins - result.minusWins;
        params = params.map((p, i) => ({
          ...p,
          value: clip(p.value + (ak / ck) * wl * (flips[i] ?? 1) * p.step, p.min, p.max),
        }));
        pairs += batchPairs;
        record(trace, problem.model, 2 * pairs, params);
      }
      return trace;
    },
  };
}

function startTrace(problem: Problem): Trace {
  const trace: Trace = { games: [], eloLeft: [], final: {} };
  record(trace, problem.model, 0, problem.params);
  return trace;
}

function record(trace: Trace, model: EngineModel, games: number, params: readonly SpsaParam[]): void {
  trace.final = valuesOf(params);
  trace.games.push(games);
  trace.eloLeft.push(eloLeft(model, trace.final));
}

function built(p: SpsaParam, value: number): number {
  return p.type === "int" ? Math.round(value) : value;
}

function stochasticRound(p: SpsaParam, value: number, u: number): number {
  return p.type === "int" ? Math.floor(value + u) : value;
}

function clip(x: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, x));
}
