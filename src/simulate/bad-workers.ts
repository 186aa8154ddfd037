import { valuesOf } from "../params/params.js";
import { createRng, type Rng } from "../core/rng.js";
import { optionParamsOf } from "../params/option-names.js";
import { perturb, update } from "../spsa/math.js";
import { stepScales } from "../spsa/adaptive.js";
import { drawBatch, drawSpan, paramsAt } from "../spsa/option-batches.js";
import { BatchSteps } from "../spsa/batch-step.js";
import { nextDraw, type SharedDraw } from "./shared-draws.js";
import { EvidenceLedger, nextSuspect } from "../spsa/worker-evidence.js";
import type { EvidenceBatch } from "../types/evidence.js";
import { replayChainWithout, replayIterations, type RecordedIteration } from "../spsa/undo-replay.js";
import { eloBetween } from "./engine-model.js";
import { playGames } from "./game-model.js";
import type { Problem } from "./problem.js";
import type { Pentanomial } from "../types/play.js";
import type {
  AppliedBatch,
  IterationResult,
  MeasuredIteration,
  SpsaMathConfig,
  SpsaParam,
  Values,
} from "../types/spsa.js";

/**
 * A run with a fleet of workers in the simulator (docs/bad-workers.md): the master's math, its
 * evidence about each worker and its quarantine, exactly as the master runs them
 * (src/spsa/worker-evidence.ts, src/master/worker-review.ts), on a synthetic engine whose games
 * are played in pairs on openings that favour one colour. A worker is honest or one of the liars
 * of the issue: "targeted" reads each batch's signs and reports every game won by whichever side
 * pushed one parameter up; "plus-wins" reports every game won by plus. Each batch goes to a
 * worker drawn by its share of the claims; a batch of a worker set aside is held and its games
 * go to another worker, and its batches θ held are taken out of θ when it is flagged. Every batch's games come from a generator of their own (run seed and the
 * batch's place in the run), so a run with a liar and the clean run of the same seed play the
 * same honest games wherever their θ agree.
 */

/**
 * A targeted liar with `drawRate` reports that share of its pairs drawn, like an honest worker, and
 * the others won by the side it favours. The liars of issue 55, who know the tests:
 *
 * - `mixing`: on `sweeps` of its batches (0.25) every game won by the side that pushed `target`
 *   up; on the others pairs drawn from what the pool reported so far, so its draws, score and
 *   pairs look like the pool's;
 * - `framing`: every pair split won/lost but one drawn/won for the side that pushed `target` up (a
 *   net of ±1 per batch: a batch spread far below an honest worker's, which made the honest
 *   worker's z's look extreme when they were scaled by the pool's spread); with `sweepWhenHeld`
 *   it sweeps for its side once another worker is set aside (it reads `held_at`).
 */
export type Behaviour =
  | { kind: "honest"; drawRate?: number }
  | { kind: "targeted"; target: string; drawRate?: number }
  | { kind: "plus-wins" }
  | { kind: "mixing"; target: string; sweeps?: number }
  | { kind: "framing"; target: string; sweepWhenHeld?: boolean };

export interface SimWorker {
  name: string;
  /** Its weight in the draw of who claims a batch. */
  share: number;
  behaviour: Behaviour;
  /** Playing from this share of the run's games until that one (default: all of it). */
  from?: number;
  until?: number;
}

export interface FleetRun {
  mode: "build" | "options";
  problem: Problem;
  gains: SpsaMathConfig;
  gamesPerIteration: number;
  /** Games per batch; a list: each batch's size drawn from it (a real build-mode run's sizes are mixed). */
  batchGames: number | readonly number[];
  /**
   * UCI-option mode: every batch its own draw, as before shared draws (the master's first half
   * shares them: drawSpan).
   */
  ownDraws?: boolean;
  budget: number;
  workers: readonly SimWorker[];
  /**
   * The master sets the batches of the workers it flags aside, and takes those θ holds out of it
   * (false: it only flags).
   */
  quarantine: boolean;
  seed: string;
  /**
   * Standard deviation, in Elo, of what an opening gives white: a pair's two games are correlated
   * as on a real book.
   */
  openingSd: number;
  /** UCI-option mode's windows of consecutive reports (the master's: max(32, games per iteration)). */
  stratumGames: number;
}

export interface FleetResult {
  /** θ at the run's end. */
  theta: Values;
  /** Each flag: the worker, its batches and games reported until then, and why. */
  flags: { worker: string; batches: number; games: number; reason: string }[];
  /**
   * θ recomputed from the run's record without the flagged workers' batches, as spsa undo replays
   * it: θ itself when the replay is faithful (the flagged ones' batches were taken out when flagged).
   */
  replayed: Values;
  /** Reported and applied batches per worker. */
  reported: Map<string, number>;
  applied: Map<string, number>;
  /**
   * Per worker, the largest severity (its worst test against that test's limit, of the tests it
   * had enough games for) at any look while it was not set aside: how close an honest worker came to a flag.
   */
  peaks: Map<string, number>;
}

interface PlayedBatch extends EvidenceBatch {
  /** The batch's place in the run: its games' generator. */
  slot: string;
}

export function runFleet(run: FleetRun): FleetResult {
  return run.mode === "build" ? buildFleet(run) : optionFleet(run);
}

/** Build mode with the barrier: iteration k's batches, then the evidence, then (no suspect) its step. */
function buildFleet(run: FleetRun): FleetResult {
  const state = new FleetState(run);
  const iterations = Math.floor(run.budget / run.gamesPerIteration);
  const cfg = run.gains;
  let params: SpsaParam[] = run.problem.params.map((p) => ({ ...p }));
  const history: MeasuredIteration[] = [];
  const recorded: (RecordedIteration & { batches: PlayedBatch[] })[] = [];
  const names = params.map((p) => p.name);
  for (let k = 1; k <= iterations; k++) {
    const adaptive = cfg.adaptive;
    const scaleNow = () => (adaptive && adaptive.mode !== "off" ? stepScales(history, names, adaptive) : undefined);
    let scale = scaleNow();
    const perturbation = perturb(params, cfg, k, createRng(`${run.seed}:${k}`));
    const progress = (k - 1) / iterations;
    let batches: PlayedBatch[] = [];
    const sizes = createRng(`sizes:${run.seed}:${k}`);
    for (let before = 0, games = 0; before < run.gamesPerIteration; before += games) {
      games = Math.min(batchSize(run, sizes), run.gamesPerIteration - before);
      batches.push(
        state.play(`${k}:${before}`, games, perturbation.signs, perturbation.plus, perturbation.minus, progress),
      );
    }
    // The evidence before the step: a suspect's batches of this iteration are played again by others.
    for (;;) {
      const suspect = state.judge(batches);
      if (!suspect) break;
      state.rebuild(recorded.map((r) => r.batches));
      if (!run.quarantine) continue;
      // Every completed step taken again without the flagged workers' batches, as the undo takes them.
      const flagged = state.flagged();
      const kept = recorded.map((r) => ({
        ...r,
        outcome: sumResults(r.batches.filter((b) => !flagged.has(b.worker))),
      }));
      const replayed = replayIterations(valuesOf(run.problem.params), kept);
      const now = replayed.at(-1)?.theta ?? valuesOf(run.problem.params);
      params = params.map((p) => ({ ...p, value: now[p.name] ?? p.value }));
      replayed.forEach((step, i) => (history[i] = { elo: step.measured?.elo ?? 0, result: kept[i]!.outcome }));
      // This iteration's step takes the scale the corrected history gives, as the master's open iterations do.
      scale = scaleNow();
      batches = batches.map((b) =>
        b.worker === suspect
          ? state.play(`${b.slot}:again`, b.games, perturbation.signs, perturbation.plus, perturbation.minus, progress)
          : b,
      );
    }
    for (const b of batches) state.countApplied(b.worker);
    const result = sumResults(batches);
    const played = { ak: perturbation.ak, plus: perturbation.plus, minus: perturbation.minus, ...(scale && { scale }) };
    const { newValues, elo } = update(params, played, result, cfg);
    history.push({ elo, result });
    recorded.push({
      number: k,
      ak: perturbation.ak,
      base: valuesOf(params),
      plus: perturbation.plus,
      minus: perturbation.minus,
      settings: settingsOf(params, cfg, scale),
      outcome: result,
      batches,
    });
    params = params.map((p) => ({ ...p, value: newValues[p.name] ?? p.value }));
  }
  const flagged = state.flagged();
  const start = valuesOf(run.problem.params);
  const replay = replayIterations(
    start,
    recorded.map((r) => ({ ...r, outcome: sumResults(r.batches.filter((b) => !flagged.has(b.worker))) })),
  );
  return state.result(valuesOf(params), replay.at(-1)?.theta ?? start);
}

/** UCI-option mode: each batch drawn from θ of its claim and applied at once, the evidence by windows of reports. */
function optionFleet(run: FleetRun): FleetResult {
  const state = new FleetState(run);
  const cfg = run.gains;
  // The simulated engine's options are named as its parameters.
  const parameters = optionParamsOf(
    run.problem.params.map((p) => ({ ...p, option: p.name })),
    "the simulated problem",
  );
  const list = { parameters, names: run.problem.params.map((p) => p.name) };
  let theta = valuesOf(run.problem.params);
  const chain = { ...list, gains: cfg, gamesPerIteration: run.gamesPerIteration, seed: run.seed };
  const start = { applied: 0, theta: valuesOf(run.problem.params), recent: [] };
  // The fleet plays no curvature pilot: no factor on the adaptive scales.
  let steps = new BatchSteps({ gains: cfg, gamesPerIteration: run.gamesPerIteration }, undefined);
  let applied: AppliedBatch[] = [];
  const strata: PlayedBatch[][] = [];
  let open: PlayedBatch[] = [];
  let batchNumber = 0;
  let shared: SharedDraw<ReturnType<typeof drawBatch>> | undefined;
  const sizes = createRng(`sizes:${run.seed}`);
  for (let drawn = 0; drawn < run.budget;) {
    const games = Math.min(batchSize(run, sizes), run.budget - drawn);
    const size = run.ownDraws ? games : drawSpan(drawn, run.budget, games, run.gamesPerIteration);
    batchNumber++;
    shared = nextDraw(shared, size, batchNumber, () =>
      drawBatch(paramsAt(list, theta), cfg, {
        seed: run.seed,
        drawNumber: batchNumber,
        gamesBefore: drawn,
        gamesPerIteration: run.gamesPerIteration,
      }),
    );
    const draw = shared.drawn;
    const batch = state.play(`b${batchNumber}`, games, draw.signs, draw.plus, draw.minus, drawn / run.budget);
    shared.left -= games;
    // A held batch is not applied; the pool draws its games again.
    if (state.held(batch)) continue;
    drawn += games;
    const result = resultOf(batch);
    const { update: step, scale } = steps.step(paramsAt(list, theta), {
      ...draw,
      games,
      result,
      drawNumber: shared.number,
    });
    theta = { ...theta, ...step.newValues };
    applied.push({
      appliedNumber: applied.length + 1,
      batchNumber,
      drawNumber: shared.number,
      workerName: batch.worker,
      games,
      gamesBefore: drawn - games,
      drawnFrom: null,
      k: draw.k,
      ck: draw.ck,
      ak: draw.ak,
      signs: "",
      stepScale: scale ?? null,
      result,
      elo: step.elo,
      played: { plus: draw.plus, minus: draw.minus },
      thetaAfter: null,
    });
    state.countApplied(batch.worker);
    open.push(batch);
    if (open.reduce((n, b) => n + b.games, 0) < run.stratumGames) continue;
    strata.push(open);
    // A suspect leaves the pool: the others are judged again without it.
    const flags = state.flags.length;
    for (let suspect = state.judge(open); suspect !== undefined; suspect = state.judge([])) state.rebuild(strata);
    open = [];
    if (state.flags.length > flags && run.quarantine) {
      // The chain without the flagged workers' batches, as the undo replays it; the next batches are drawn from its θ.
      const flagged = state.flagged();
      const edit = replayChainWithout(chain, start, applied, (b) => flagged.has(b.workerName ?? ""), Infinity);
      const moved = new Map(edit.rewritten.map((r) => [r.batchNumber, r]));
      applied = applied
        .filter((b) => !flagged.has(b.workerName ?? ""))
        .map((b) => {
          const place = moved.get(b.batchNumber);
          return place ? { ...b, appliedNumber: place.appliedNumber, stepScale: place.stepScale } : b;
        });
      theta = edit.theta;
      steps = new BatchSteps(
        { gains: cfg, gamesPerIteration: run.gamesPerIteration },
        undefined,
        applied.map((b) => ({ ...b.result, drawNumber: b.drawNumber })),
      );
      shared = undefined;
    }
  }
  const flagged = state.flagged();
  const replay = replayChainWithout(chain, start, applied, (b) => flagged.has(b.workerName ?? ""), Infinity);
  return state.result(theta, replay.theta);
}

/** The fleet, the master's evidence and its flags. */
class FleetState {
  readonly flags: FleetResult["flags"] = [];
  private ledger: EvidenceLedger;
  private readonly setAside = new Set<string>();
  private readonly reported = new Map<string, number>();
  private readonly reportedGames = new Map<string, number>();
  private readonly applied = new Map<string, number>();
  private readonly peaks = new Map<string, number>();
  private readonly claims: Rng;
  /** The pairs the honest workers reported so far: what a mixing liar copies. */
  private readonly honestPairs: Pentanomial = [0, 0, 0, 0, 0];

  constructor(private readonly run: FleetRun) {
    this.ledger = new EvidenceLedger(
      run.problem.params.map((p) => p.name),
      this.setAside,
    );
    this.claims = createRng(`claims:${run.seed}`);
  }

  /**
   * A batch claimed and reported: by a worker drawn by share among those playing now (a held one
   * counts as reported, not applied).
   */
  play(slot: string, games: number, signs: Values, plus: Values, minus: Values, progress: number): PlayedBatch {
    const playing = this.run.workers.filter((w) => progress >= (w.from ?? 0) && progress < (w.until ?? 1));
    if (this.run.quarantine && playing.every((w) => this.setAside.has(w.name)))
      throw new Error(
        `no worker left to play at ${progress}: all are set aside (${this.flags.map((f) => `${f.worker}: ${f.reason}`).join("; ")})`,
      );
    const pick = this.claims.next() * playing.reduce((s, w) => s + w.share, 0);
    let worker = playing[playing.length - 1]!;
    for (let acc = 0, i = 0; i < playing.length; i++) {
      acc += playing[i]!.share;
      if (pick < acc) {
        worker = playing[i]!;
        break;
      }
    }
    this.reported.set(worker.name, (this.reported.get(worker.name) ?? 0) + 1);
    this.reportedGames.set(worker.name, (this.reportedGames.get(worker.name) ?? 0) + games);
    const counts = this.report(worker, slot, games, signs, eloBetween(this.run.problem.model, plus, minus));
    if (worker.behaviour.kind === "honest") counts.pairs.forEach((n, i) => (this.honestPairs[i]! += n));
    // Build mode: a held batch's games go to another worker at once (UCI-option mode draws them again).
    if (this.run.mode === "build" && this.held({ worker: worker.name }))
      return this.play(`${slot}:held`, games, signs, plus, minus, progress);
    return { worker: worker.name, games, signs, slot, ...counts };
  }

  flagged(): Set<string> {
    return new Set(this.flags.map((f) => f.worker));
  }

  held(batch: { worker: string }): boolean {
    return this.run.quarantine && this.setAside.has(batch.worker);
  }

  countApplied(worker: string): void {
    this.applied.set(worker, (this.applied.get(worker) ?? 0) + 1);
  }

  /** The evidence with `stratum` added (not kept): the worker it flags now, if any. */
  judge(stratum: readonly PlayedBatch[]): string | undefined {
    if (stratum.length > 0) this.ledger.add(stratum);
    const evidence = this.ledger.evidence();
    for (const e of evidence)
      if (!this.setAside.has(e.worker)) this.peaks.set(e.worker, Math.max(this.peaks.get(e.worker) ?? 0, e.severity));
    const suspect = nextSuspect(evidence, this.setAside, new Set());
    if (!suspect) return undefined;
    this.setAside.add(suspect.worker);
    this.flags.push({
      worker: suspect.worker,
      batches: this.reported.get(suspect.worker) ?? 0,
      games: this.reportedGames.get(suspect.worker) ?? 0,
      reason: suspect.suspicion ?? "",
    });
    return suspect.worker;
  }

  /** The evidence read again from the strata so far (a worker was set aside); the next judge adds the open stratum. */
  rebuild(strata: readonly (readonly PlayedBatch[])[]): void {
    this.ledger = new EvidenceLedger(
      this.run.problem.params.map((p) => p.name),
      new Set(this.setAside),
    );
    for (const s of strata) this.ledger.add(s);
  }

  result(theta: Values, replayed: Values): FleetResult {
    return { theta, replayed, flags: this.flags, reported: this.reported, applied: this.applied, peaks: this.peaks };
  }

  /** What a worker reports for a batch of `games` games between plus and minus `elo` apart. */
  private report(
    worker: SimWorker,
    slot: string,
    games: number,
    signs: Values,
    elo: number,
  ): Omit<EvidenceBatch, "worker" | "games" | "signs"> {
    const behaviour = worker.behaviour;
    if (behaviour.kind === "mixing") {
      const rng = createRng(`lies:${this.run.seed}:${slot}`);
      if (rng.next() < (behaviour.sweeps ?? 0.25)) return sweep(games, (signs[behaviour.target] ?? 1) > 0);
      return copied(games, this.honestPairs, rng);
    }
    if (behaviour.kind === "framing") {
      const others = [...this.setAside].some((name) => name !== worker.name);
      if (behaviour.sweepWhenHeld && others) return sweep(games, (signs[behaviour.target] ?? 1) > 0);
      return framed(games, (signs[behaviour.target] ?? 1) > 0);
    }
    if (behaviour.kind === "targeted")
      return favour(
        games,
        (signs[behaviour.target] ?? 1) > 0,
        behaviour.drawRate ?? 0,
        createRng(`lies:${this.run.seed}:${slot}`),
      );
    if (behaviour.kind === "plus-wins") return sweep(games, true);
    const rng = createRng(`games:${this.run.seed}:${slot}`);
    const drawRate = behaviour.drawRate ?? this.run.problem.drawRate;
    const pairs: Pentanomial = [0, 0, 0, 0, 0];
    let wins = 0;
    let losses = 0;
    for (let g = 0; g < games; g += 2) {
      // The opening favours white by `bias`: plus is white in the pair's first game, black in its second.
      const bias = this.run.openingSd * gaussian(rng);
      const first = playGames(elo + bias, 1, drawRate, rng);
      const second = playGames(elo - bias, 1, drawRate, rng);
      const points = 2 * (first.plusWins + second.plusWins) + first.draws + second.draws;
      pairs[points]!++;
      wins += first.plusWins + second.plusWins;
      losses += first.minusWins + second.minusWins;
    }
    return { net: wins - losses, wins, losses, draws: games - wins - losses, pairs };
  }
}

/**
 * Pairs drawn from `pool`'s counts (uniform while it is empty); a pair of the middle cell is drawn
 * 1–1 or won/lost with even odds, an odd last game drawn.
 */
function copied(games: number, pool: Pentanomial, rng: Rng): Omit<EvidenceBatch, "worker" | "games" | "signs"> {
  const weights = pool.some((n) => n > 0) ? pool : [1, 1, 1, 1, 1];
  const total = weights.reduce((a, b) => a + b, 0);
  const pairs: Pentanomial = [0, 0, 0, 0, 0];
  let drawnPairs = 0;
  for (let g = 0; g + 1 < games; g += 2) {
    let pick = rng.next() * total;
    let j = 0;
    while (j < 4 && pick >= weights[j]!) pick -= weights[j++]!;
    pairs[j]!++;
    if (j === 2 && rng.next() < 0.5) drawnPairs++;
  }
  return countsOf(games, pairs, drawnPairs);
}

/** Every pair split won/lost but one drawn/won for plus (or for minus): a net of ±1. */
function framed(games: number, plusFavoured: boolean): Omit<EvidenceBatch, "worker" | "games" | "signs"> {
  const pairs: Pentanomial = [0, 0, Math.floor(games / 2) - 1, 0, 0];
  pairs[plusFavoured ? 3 : 1]++;
  return countsOf(games, pairs, 0);
}

/** A batch's counts from its pairs [LL, LD, DD, DW, WW], `drawnPairs` of the middle cell 1–1 and the rest won/lost. */
function countsOf(
  games: number,
  pairs: Pentanomial,
  drawnPairs: number,
): Omit<EvidenceBatch, "worker" | "games" | "signs"> {
  const split = pairs[2] - drawnPairs;
  const wins = 2 * pairs[4] + pairs[3] + split;
  const losses = 2 * pairs[0] + pairs[1] + split;
  return { net: wins - losses, wins, losses, draws: games - wins - losses, pairs };
}

/** Every game of the batch won by plus (or by minus). */
function sweep(games: number, plusWins: boolean): Omit<EvidenceBatch, "worker" | "games" | "signs"> {
  return favour(games, plusWins, 0, createRng(""));
}

/** Each pair drawn with probability `drawRate`, else both games won by plus (or by minus). */
function favour(
  games: number,
  plusWins: boolean,
  drawRate: number,
  rng: Rng,
): Omit<EvidenceBatch, "worker" | "games" | "signs"> {
  const pairs: Pentanomial = [0, 0, 0, 0, 0];
  for (let g = 0; g < games; g += 2) pairs[drawRate > 0 && rng.next() < drawRate ? 2 : plusWins ? 4 : 0]!++;
  const decisive = 2 * (pairs[0] + pairs[4]);
  return {
    net: plusWins ? decisive : -decisive,
    wins: plusWins ? decisive : 0,
    losses: plusWins ? 0 : decisive,
    draws: games - decisive,
    pairs,
  };
}

function batchSize(run: FleetRun, rng: Rng): number {
  const sizes = run.batchGames;
  return typeof sizes === "number" ? sizes : sizes[Math.floor(rng.next() * sizes.length)]!;
}

function resultOf(b: EvidenceBatch): IterationResult {
  return { plusWins: b.wins, minusWins: b.losses, draws: b.draws };
}

function sumResults(batches: readonly EvidenceBatch[]): IterationResult {
  return batches.reduce(
    (r, b) => ({ plusWins: r.plusWins + b.wins, minusWins: r.minusWins + b.losses, draws: r.draws + b.draws }),
    { plusWins: 0, minusWins: 0, draws: 0 },
  );
}

function settingsOf(
  params: readonly SpsaParam[],
  cfg: SpsaMathConfig,
  scale: Values | undefined,
): RecordedIteration["settings"] {
  return {
    spsa: cfg,
    parameters: Object.fromEntries(
      params.map((p) => [p.name, { min: p.min, max: p.max, step: p.step, type: p.type, frozen: p.frozen ?? false }]),
    ),
    ...(scale && { stepScale: scale }),
  };
}

/** A standard normal draw (Box–Muller). */
function gaussian(rng: Rng): number {
  return Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
}
