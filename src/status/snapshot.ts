import { optionPilotProgress, type OptionPilotProgress } from "../db/option-pilot.js";
import { runGainGames } from "../db/gain-blocks.js";
import { gamesThrough } from "../spsa/gain-block-plan.js";
import { gainStatus, type GainStatus } from "./gain-status.js";
import type postgres from "postgres";
import { readPlayedWith } from "../db/iterations.js";
import {
  gamesPerMinute,
  iterationSummary,
  pilotIterations,
  storedGainPlan,
  rateWindowMinutes,
  etaSeconds,
  recentIterations,
  runTotals,
  thetaAfterIterations,
  verificationResults,
  type IterationSummary,
  type RunRecord,
  type RunTotals,
  type VerificationResult,
} from "../db/run-status.js";
import { countFaultedGames } from "../db/faulted-games.js";
import { runLeaseOwner } from "../db/runs.js";
import { readShipCheck, type ShipCheckRow } from "../db/ship-checks.js";
import { describeShipCheck } from "../verification/ship-text.js";
import { readTransfers } from "../db/transfers.js";
import { summarizeTransfers, type TransferSummary } from "../verification/transfer-text.js";
import { describeLimits } from "../play/time-control.js";
import {
  perturbationProgress,
  storedThetaEvery,
  storedThetas,
  type PerturbationProgress,
} from "../db/option-progress.js";
import { builtValue, DEFAULT_ELO_CAP } from "../spsa/math.js";
import { samplePositions } from "./sampling.js";
import { batchElo, type EloPoint } from "./batch-elo.js";
import { moveHistogram, type MoveBin } from "./move-histogram.js";
import { readRunWorkers, type RunWorker, type RunWorkers, type StaleWorkers } from "./run-workers.js";
import type { IterationSettings } from "../types/config.js";
import { DEFAULT_GAIN } from "../config/config.js";
import type { Values } from "../types/spsa.js";

/** One parameter: where it started, where it is, its bounds and its path. */
export interface ParameterStatus {
  name: string;
  type: "int" | "float" | null;
  start: number;
  now: number;
  /** The value an engine built now gets (ints rounded), as `spsa export` writes it. */
  built: number;
  /** min, max and step as the latest iteration recorded them; null before any iteration. */
  min: number | null;
  max: number | null;
  step: number | null;
  frozen: boolean;
  /** (now − start) / step. */
  steps: number | null;
  /** θ after `iteration` completed iterations (0: the start), sampled evenly over the run. */
  history: { iteration: number; value: number }[];
}

/** All of a run's parameters in a few numbers, whatever their count: what `parameters` leaves out of a large run. */
export interface ParameterSummary {
  count: number;
  /** θ now differs from the start. */
  moved: number;
  frozen: number;
  /**
   * Moves (now − start) in steps, counted in bins (src/status/move-histogram.ts); frozen parameters
   * and those without a recorded step left out.
   */
  histogram: MoveBin[];
  /**
   * What `parameters` lists: every parameter by name, the `parameters.length` that moved most (by
   * |Δ steps|, the most first), or those the dashboard chose.
   */
  listed: "all" | "most moved" | "chosen";
}

/** What `spsa status` shows and `--json` prints; the dashboard's run page starts from it too. */
export interface RunStatus {
  run: { name: string; status: string; seed: string; createdAt: string; completedAt: string | null };
  /**
   * Reference mode (docs/reference-mode.md): the engine θ+ and θ− each play, "start" (θ₀) or
   * its path as configured, and once built or taken where it is and its sha256; null: plus
   * against minus. Each of `recent` then has both sides' results against it.
   */
  reference: { engine: string; path: string | null; sha256: string | null } | null;
  /**
   * The master that has the run's lease (src/master/run-lease.ts): its host, pid, since when, its
   * last heartbeat (`lapsed`: it missed them); null: none runs it.
   */
  master: { host: string; pid: number | null; since: string; secondsAgo: number; lapsed: boolean } | null;
  iteration: {
    /** The latest iteration started (0: none yet). */
    latest: number;
    completed: number;
    max: number;
    latestStatus: IterationSummary["status"] | null;
    /**
     * The iteration being played, as the master's progress line names it: the oldest one not
     * complete (steps are applied in order), or the latest when all are; 0: none yet.
     */
    current: number;
    /** Iterations opened after `current` while it plays (docs/in-flight.md): latest − current. */
    ahead: number;
    /** Of `current`. */
    gamesPlayed: number;
    targetGames: number;
  };
  games: {
    total: number;
    /**
     * Over the rate window (rateWindowMinutes: 10 minutes up to an hour as the run ages), or the
     * part of it the run has been playing, to its latest report (rateSeconds).
     */
    perMinute: number;
    rateSeconds: number;
    /**
     * From the first iteration's start (`startedAt`; null before one) to the last completion (or
     * now while running).
     */
    overallPerMinute: number;
    startedAt: string | null;
    /**
     * Seconds to max_iterations (a UCI-option run: to its game budget) at perMinute, counted down
     * from the latest report so it does not grow between reports; null when nothing is being
     * played or the run is over.
     */
    etaSeconds: number | null;
    /**
     * Seconds to the end of the open iteration, the same way; null on a UCI-option run (its one
     * iteration is the run) or with none open.
     */
    iterationEtaSeconds: number | null;
  };
  /**
   * What the run waits for, when it waits: no master, the master building engines, no worker
   * claiming games; null: it plays (or is over).
   */
  waiting: string | null;
  faults: number;
  /** The engines' faults by kind: crashes, their own time losses (overruns), illegal moves. */
  faultKinds: RunTotals["faultKinds"];
  /** Games an engine fault decided that were kept (spsa export --faulted writes them). */
  faultedGamesKept: number;
  /**
   * Over the run: time losses scored for delays outside the engines (a busy machine), games
   * replayed for them, pairs out of replays.
   */
  delays: { losses: number; replays: number; replayLimitPairs: number };
  /**
   * Over the run: batches workers gave back because a binary was unsigned or not signed by a key
   * they trust (docs/signing.md).
   */
  binariesRefused: number;
  /** The latest iterations, newest first. */
  recent: IterationStatus[];
  /**
   * The curvature pilot (docs/adaptive-gains.md): the run's first iterations, where θ+ and θ− each
   * played θ₀ (their results in `reference`), shown apart from the plus-vs-minus Elo (each of
   * `recent` says whether it is one: `pilot`); empty without one.
   */
  pilot: IterationStatus[];
  /**
   * A UCI-option run's curvature pilot (src/master/option-pilot.ts): its batches' games of θ+ and
   * θ− against θ₀ so far and, once they are all in, its measure; null without one.
   */
  optionPilot: OptionPilotProgress | null;
  /**
   * A UCI-option run's Elo gained so far (θ now against θ₀, from its gain blocks), what the rest of
   * its budget is projected to add, and the stop rule (docs/gain-so-far.md); null without a reading.
   */
  gain: GainStatus | null;
  /**
   * The run's workers, each with its games in this run, its evidence against the pool and a verdict
   * (docs/bad-workers.md), the latest to report first; stale ones are in `staleWorkers`.
   */
  workers: RunWorker[];
  /** The workers that reported nothing for STALE_MINUTES before the run's latest report, in one line; null: none. */
  staleWorkers: StaleWorkers | null;
  /**
   * The master's latest look at the run's workers (null: none yet), over how many strata, and the
   * workers under suspicion now.
   */
  workerReview: Pick<RunWorkers, "reviewedAt" | "strata" | "suspects">;
  /**
   * A UCI-option run's batches (null for a rebuild-mode run): its one iteration only
   * carries the games, θ moves with every report. Its parameters' history is then θ after
   * 0, 1, … applied batches.
   */
  perturbations: PerturbationProgress | null;
  /**
   * A UCI-option run's Elo over windows of `windowGames` games of its applied batches
   * (src/status/batch-elo.ts), the latest first; null for a rebuild-mode run.
   */
  eloWindows: { windowGames: number; recent: EloPoint[] } | null;
  /** The parameters listed (parameterSummary.listed says which), each with its history. */
  parameters: ParameterStatus[];
  parameterSummary: ParameterSummary;
  /** The run's latest verifications (spsa verify, and the ship check's matches), newest first. */
  verifications: VerificationStatus[];
  /** The ship check (docs/ship-check.md), with its line in words (`summary`); null: the run has none. */
  ship: ShipStatus | null;
  /**
   * Transfer in the run (docs/ship-check.md): its transfers' counts, the report (per parameter
   * the gradient at the tuning and the ship limits with standard errors, the correlation of
   * their score differences) and its line (`summary`); null: the run has none.
   */
  transfer: TransferSummary | null;
}

/**
 * An iteration as the status shows it: `pilot` when it is one of the curvature pilot's (θ+ and θ−
 * against θ₀); `capped` when its Elo is at the cap ([spsa] elo_cap): the games measured more.
 */
export type IterationStatus = Omit<IterationSummary, "createdAt" | "completedAt"> & {
  createdAt: string;
  completedAt: string | null;
  pilot: boolean;
  capped: boolean;
};

export type ShipStatus = Omit<ShipCheckRow, "runId" | "createdAt" | "completedAt"> & {
  createdAt: string;
  completedAt: string | null;
  limitsText: string;
  summary: string;
};

/**
 * A verification as the status shows it: the view's row, its numbers as numbers, and its limits in
 * words ("tc 10+0.1").
 */
export type VerificationStatus = Pick<
  VerificationResult,
  "id" | "comparison" | "status" | "games" | "wins" | "losses" | "draws" | "verdict" | "limits"
> & {
  elo: number | null;
  eloError: number | null;
  limitsText: string;
};

export interface SnapshotOptions {
  /** History points per parameter. */
  samples: number;
  /** List every parameter; without it a run of more than `listed` lists the `listed` that moved most. */
  all?: boolean;
  /** Default LISTED_PARAMETERS. */
  listed?: number;
  /** List exactly these parameters (the dashboard's charts), whatever `all` and `listed` say. */
  only?: readonly string[];
  /**
   * History points after this one only (the θ of iteration or applied batch `historyAfter` and
   * before are left out): a page's refresh.
   */
  historyAfter?: number;
  recentCount?: number;
  now?: Date;
}

/** Reads a run's status in a handful of index-bounded queries, run at once. */
export async function readRunStatus(sql: postgres.Sql, run: RunRecord, options: SnapshotOptions): Promise<RunStatus> {
  const now = options.now ?? new Date();
  const rateMinutes = rateWindowMinutes((now.getTime() - run.createdAt.getTime()) / 1000);
  const [
    totals,
    recent,
    played,
    perturbations,
    faultedGamesKept,
    verifications,
    windows,
    ship,
    transfers,
    master,
    runWorkers,
    pilot,
    optionPilot,
    gainGames,
  ] = await Promise.all([
    runTotals(sql, run.id, rateMinutes),
    recentIterations(sql, run.id, options.recentCount ?? 8),
    readPlayedWith(sql, { runId: run.id }),
    perturbationProgress(sql, run.id, options.recentCount ?? 8),
    countFaultedGames(sql, run.id),
    verificationResults(sql, run.name, options.recentCount ?? 8),
    batchElo(sql, run.id, { latest: options.recentCount ?? 8 }),
    readShipCheck(sql, run.id),
    readTransfers(sql, run.id),
    runLeaseOwner(sql, run.id),
    readRunWorkers(sql, run.id, rateMinutes),
    // A reference-mode run's iterations all play its reference; any other's that do are the pilot's.
    run.reference === null ? pilotIterations(sql, run.id, configuredPilots(run)) : [],
    optionPilotProgress(sql, run.id),
    runGainGames(sql, run.id),
  ]);
  const settings = played?.settings ?? null;
  const eloCap = settings?.spsa.eloCap ?? DEFAULT_ELO_CAP;
  const iterationStatus = (it: IterationSummary): IterationStatus => ({
    ...it,
    createdAt: it.createdAt.toISOString(),
    completedAt: it.completedAt?.toISOString() ?? null,
    pilot: run.reference === null && it.reference !== null && !it.gain,
    capped: it.elo !== null && Math.abs(it.elo) >= eloCap,
  });
  const latest = recent[0];
  const latestNumber = latest?.iteration ?? 0;
  // Steps are applied in order: the oldest open iteration follows the completed ones.
  const currentNumber = latestNumber > totals.completed ? totals.completed + 1 : latestNumber;
  const current =
    recent.find((it) => it.iteration === currentNumber) ??
    (currentNumber > 0 ? await iterationSummary(sql, run.id, currentNumber) : undefined) ??
    latest;
  const playing = runWorkers.workers.some((w) => w.playing !== null);
  const { listed, summary } = listParameters(run, settings, options);
  const after = options.historyAfter ?? -1;
  const history = perturbations
    ? await appliedThetaHistory(
        sql,
        run,
        perturbations.thetaApplied,
        options.samples,
        summary.listed === "all" ? "all" : listed.map((p) => p.name),
        after,
      )
    : (await thetaHistory(sql, run, latest, options.samples)).filter((point) => point.iteration > after);
  // A build-mode run's iterations include its gain iterations, as the run list counts them.
  const planned = storedGainPlan(run.config, Boolean(perturbations));
  const maxIterations =
    planned?.plan.iterations ?? settings?.spsa.maxIterations ?? configuredMaxIterations(run) ?? latestNumber;
  const perMinute = gamesPerMinute(totals.recentGames, totals.recentSeconds);
  const end = run.status === "active" ? now : (totals.lastCompleted ?? now);
  const minutes = totals.firstStarted === null ? 0 : (end.getTime() - totals.firstStarted.getTime()) / 60_000;
  const parameters = withHistory(run, listed, history);
  // A UCI-option run's one carrier iteration holds its whole budget.
  const remaining = remainingGames(
    recent,
    perturbations ? latestNumber : maxIterations,
    planned &&
      ((from) =>
        Math.max(
          0,
          gamesThrough(planned.plan, planned.gamesPerIteration, planned.plan.iterations) -
            gamesThrough(planned.plan, planned.gamesPerIteration, from),
        )),
  );
  return {
    run: {
      name: run.name,
      status: run.status,
      seed: run.seed,
      createdAt: run.createdAt.toISOString(),
      completedAt: run.completedAt?.toISOString() ?? null,
    },
    reference:
      run.reference === null ? null : { engine: run.reference, path: run.referencePath, sha256: run.referenceSha256 },
    master: master
      ? {
          host: master.host,
          pid: master.pid,
          since: master.since.toISOString(),
          secondsAgo: master.secondsSinceSeen,
          lapsed: master.lapsed,
        }
      : null,
    iteration: {
      latest: latestNumber,
      completed: totals.completed,
      max: maxIterations,
      latestStatus: latest?.status ?? null,
      current: current?.iteration ?? 0,
      ahead: latestNumber - (current?.iteration ?? 0),
      gamesPlayed: current?.gamesPlayed ?? 0,
      targetGames: current?.targetGames ?? 0,
    },
    games: {
      total: totals.games,
      perMinute,
      rateSeconds: totals.recentSeconds,
      overallPerMinute: minutes > 0 ? totals.games / minutes : 0,
      startedAt: totals.firstStarted?.toISOString() ?? null,
      etaSeconds: run.status === "active" ? etaSeconds(remaining, totals) : null,
      iterationEtaSeconds:
        run.status === "active" && !perturbations && current && current.status !== "complete"
          ? etaSeconds(current.targetGames - current.gamesPlayed, totals)
          : null,
    },
    waiting:
      run.status === "active"
        ? waitingFor(current, maxIterations, {
            master: master && { lapsed: master.lapsed, secondsAgo: master.secondsSinceSeen },
            options: Boolean(perturbations),
            playing,
          })
        : null,
    faults: totals.faults,
    faultKinds: totals.faultKinds,
    faultedGamesKept,
    delays: { losses: totals.delayLosses, replays: totals.replays, replayLimitPairs: totals.replayLimitPairs },
    binariesRefused: totals.binariesRefused,
    recent: recent.map(iterationStatus),
    pilot: pilot.map(iterationStatus),
    optionPilot: optionPilot ?? null,
    gain: gainStatus(gainGames.blocks, gainGames.played, gainGames.target, settings?.spsa.gain ?? DEFAULT_GAIN),
    workers: runWorkers.workers,
    staleWorkers: runWorkers.stale,
    workerReview: { reviewedAt: runWorkers.reviewedAt, strata: runWorkers.strata, suspects: runWorkers.suspects },
    perturbations: perturbations ?? null,
    eloWindows: windows ? { windowGames: windows.windowGames, recent: windows.windows.reverse() } : null,
    parameters,
    parameterSummary: summary,
    verifications: verifications.map((v) => ({
      id: v.id,
      comparison: v.comparison,
      status: v.status,
      games: v.games,
      wins: v.wins,
      losses: v.losses,
      draws: v.draws,
      elo: v.elo === null ? null : Number(v.elo),
      eloError: v.elo_error === null ? null : Number(v.elo_error),
      verdict: v.verdict,
      limits: v.limits,
      limitsText: describeLimits(v.limits),
    })),
    ship: ship ? shipStatus(ship) : null,
    transfer:
      summarizeTransfers(
        transfers,
        parameters.map((p) => p.name),
      ) ?? null,
  };
}

function shipStatus({ runId: _, createdAt, completedAt, ...check }: ShipCheckRow): ShipStatus {
  return {
    ...check,
    createdAt: createdAt.toISOString(),
    completedAt: completedAt?.toISOString() ?? null,
    limitsText: describeLimits(check.limits),
    summary: describeShipCheck(check),
  };
}

/**
 * What an active run waits for, if anything (RunStatus.waiting): of the iteration being played
 * (`current`), whose games no worker has claimed (the master's counts) nor holds now (`playing`).
 */
function waitingFor(
  current: IterationSummary | undefined,
  maxIterations: number,
  {
    master,
    options,
    playing,
  }: { master: { lapsed: boolean; secondsAgo: number } | undefined; options: boolean; playing: boolean },
): string | null {
  if (!master) return "no master runs it: start spsa master to go on";
  // A master stopped (SIGSTOP, a suspended machine) builds nothing, whatever it was doing.
  if (master.lapsed)
    return (
      `its master missed its heartbeats (last seen ${Math.round(master.secondsAgo)} s ago): stopped or ` +
      `stalled; a master started now takes the run over`
    );
  if (current === undefined || current.status === "complete")
    return !options && (current?.iteration ?? 0) < maxIterations
      ? `the master is building the engines of iteration ${(current?.iteration ?? 0) + 1}`
      : null;
  if (current.gamesClaimed === 0 && current.gamesPlayed === 0 && !playing)
    return (
      `no worker has claimed games of ${options ? "the run" : `iteration ${current.iteration}`} ` +
      `yet: start one with compete --spsa`
    );
  return null;
}

/**
 * Games left to max_iterations: the open iterations' rest and the full iterations after the latest,
 * of its games each (its target_games), or as `gamesAfter` counts them (a build-mode plan with gain
 * iterations). `recent` is newest first; iterations opened ahead are among its first rows.
 */
function remainingGames(
  recent: readonly IterationSummary[],
  maxIterations: number,
  gamesAfter: ((latest: number) => number) | undefined,
): number {
  const latest = recent[0];
  if (!latest) return 0;
  const open = recent
    .filter((it) => it.status !== "complete")
    .reduce((sum, it) => sum + it.targetGames - it.gamesPlayed, 0);
  const after = gamesAfter
    ? gamesAfter(latest.iteration)
    : Math.max(0, maxIterations - latest.iteration) * latest.targetGames;
  return open + after;
}

/** The run's `[spsa] adapt_pilot` as its stored config has it (0: none, or a config from before the pilot). */
function configuredPilots(run: RunRecord): number {
  const spsa = run.config.spsa as { adaptive?: { pilot?: unknown } } | undefined;
  return typeof spsa?.adaptive?.pilot === "number" ? spsa.adaptive.pilot : 0;
}

function configuredMaxIterations(run: RunRecord): number | undefined {
  const spsa = run.config.spsa as { maxIterations?: unknown } | undefined;
  return typeof spsa?.maxIterations === "number" ? spsa.maxIterations : undefined;
}

export interface ThetaPoint {
  iteration: number;
  theta: Values;
}

/**
 * θ after 0, 1, … completed iterations, sampled: the start, then each iteration's θ after its
 * step (with iterations in flight the next one's base may be older), and the run's current θ
 * where a row has none.
 */
export async function thetaHistory(
  sql: postgres.Sql,
  run: RunRecord,
  latestIteration: IterationSummary | undefined,
  samples: number,
): Promise<ThetaPoint[]> {
  const latest = latestIteration?.iteration ?? 0;
  const points = latest === 0 ? 1 : latest + (latestIteration?.status === "complete" ? 1 : 0);
  const positions = samplePositions(points, samples);
  const after = await thetaAfterIterations(
    sql,
    run.id,
    positions.filter((x) => x > 0),
  );
  return positions.map((x) => ({
    iteration: x,
    theta: (x === 0 ? run.initialParameters : after.get(x)) ?? run.currentParameters,
  }));
}

/**
 * θ after 0, 1, … applied batches of a UCI-option run, of the named parameters (or all), sampled
 * among the stored ones (src/db/option-progress.ts storedThetas) up to the run's θ (after `applied`
 * batches, its theta_applied); 0 is the run's initial θ.
 */
export async function appliedThetaHistory(
  sql: postgres.Sql,
  run: RunRecord,
  applied: number,
  samples: number,
  names: readonly string[] | "all",
  after: number,
): Promise<ThetaPoint[]> {
  if (names.length === 0) return [];
  const every = await storedThetaEvery(sql, run.id);
  const stored = Math.floor(applied / every);
  const positions = samplePositions(stored + 1, samples)
    .map((k) => k * every)
    .filter((x) => x > after);
  if (positions.at(-1) !== applied && applied > after) positions.push(applied);
  const thetas = await storedThetas(
    sql,
    run.id,
    positions.filter((x) => x > 0 && x < applied),
    names,
  );
  return positions.map((x) => ({
    iteration: x,
    theta: (x === 0 ? run.initialParameters : x === applied ? run.currentParameters : thetas.get(x)) ?? {},
  }));
}

/** Parameters a status lists once a run has more: the ones that moved most. */
export const LISTED_PARAMETERS = 20;

/** Every parameter with where it started and is (no history yet), its order by name: jsonb keeps no key order. */
export function parameterRows(run: RunRecord, settings: IterationSettings | null): Omit<ParameterStatus, "history">[] {
  const entries = Object.entries(run.currentParameters).sort(([a], [b]) => (a < b ? -1 : 1));
  return entries.map(([name, now]) => {
    // A parameter that joined the run later starts where it joined (build mode: its first
    // iteration's θ, which status does not read: now).
    const start = run.initialParameters[name] ?? now;
    const s = settings?.parameters[name];
    return {
      name,
      type: s?.type ?? null,
      start,
      now,
      built: s ? builtValue({ name, value: now, ...s }) : now,
      min: s?.min ?? null,
      max: s?.max ?? null,
      step: s?.step ?? null,
      frozen: s?.frozen ?? false,
      steps: s ? (now - start) / s.step : null,
    };
  });
}

/** The parameters to list (all, the `listed` that moved most, or `only` those) and the summary of all of them. */
function listParameters(
  run: RunRecord,
  settings: IterationSettings | null,
  options: SnapshotOptions,
): { listed: Omit<ParameterStatus, "history">[]; summary: ParameterSummary } {
  const rows = parameterRows(run, settings);
  const count = options.listed ?? LISTED_PARAMETERS;
  const counted = rows.filter((p) => !p.frozen && p.steps !== null);
  const summary = {
    count: rows.length,
    moved: rows.filter((p) => p.now !== p.start).length,
    frozen: rows.filter((p) => p.frozen).length,
    histogram: moveHistogram(counted.map((p) => p.steps ?? 0)),
  };
  if (options.only) {
    const only = new Set(options.only);
    return { listed: rows.filter((p) => only.has(p.name)), summary: { ...summary, listed: "chosen" } };
  }
  if (options.all || rows.length <= count) return { listed: rows, summary: { ...summary, listed: "all" } };
  return { listed: mostMoved(rows).slice(0, count), summary: { ...summary, listed: "most moved" } };
}

/** The parameters that moved most first (by |Δ steps|, or |Δ| without a recorded step), then by name. */
export function mostMoved<T extends Pick<ParameterStatus, "name" | "steps" | "now" | "start">>(
  rows: readonly T[],
): T[] {
  const moved = (p: T) => Math.abs(p.steps ?? p.now - p.start);
  return [...rows].sort((a, b) => moved(b) - moved(a) || (a.name < b.name ? -1 : 1));
}

/** Each listed parameter with its points of `history`; one that joined the run later starts at its first. */
function withHistory(
  run: RunRecord,
  listed: readonly Omit<ParameterStatus, "history">[],
  history: readonly ThetaPoint[],
): ParameterStatus[] {
  return listed.map((p) => {
    const own = history.flatMap((point) => {
      const value = point.theta[p.name];
      return value === undefined ? [] : [{ iteration: point.iteration, value }];
    });
    const start = run.initialParameters[p.name] ?? own[0]?.value ?? p.start;
    return { ...p, start, steps: p.step === null ? null : (p.now - start) / p.step, history: own };
  });
}
