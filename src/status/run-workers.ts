import type postgres from "postgres";
import { latestDecisions, readReview, setAsideCounts, type DecisionRow } from "../db/worker-decisions.js";
import { setAsideWorkers } from "../db/set-aside-workers.js";
import {
  gamesPerMinute,
  listRunWorkers,
  playingWorkers,
  refusingWorkers,
  type RunWorkerRow,
} from "../db/run-status.js";
import type { WorkerDecisionKind, WorkerEvidence } from "../types/evidence.js";

/**
 * A worker of the run as spsa status and the dashboard show it: its games in this run (the
 * master's counts, spsa_run_worker), what its process reported about itself, its evidence against
 * the pool (docs/bad-workers.md), the decision about it and a plain verdict.
 */
export type RunWorker = Pick<
  RunWorkerRow,
  | "name"
  | "host"
  | "concurrency"
  | "concurrencyNote"
  | "measuredNps"
  | "timeFactor"
  | "batches"
  | "games"
  | "draws"
  | "engineFaults"
  | "delayLosses"
  | "replays"
  | "replayLimitPairs"
> & {
  /** Plus's wins and minus's wins (its losses) in this run's counted games. */
  wins: number;
  losses: number;
  /** Its games per minute in this run over the rate window. */
  gamesPerMinute: number;
  /** Its last report counted in this run and the seconds since; null: none counted. */
  lastSeen: string | null;
  secondsAgo: number | null;
  /** The master's latest evidence about it; null when it has none (no batch in the evidence yet). */
  evidence: WorkerEvidence | null;
  /** The latest decision about it in this run, who made it and when; null: none. */
  decision: { kind: WorkerDecisionKind; reason: string; by: string; at: string } | null;
  /** Its batches held by the master, and taken out of θ by undos. */
  held: number;
  undone: number;
  /** Its batches given back unplayed in this run (spsa_refuse_batch), evidence of a worker keeping games from others. */
  refused: number;
  verdict: string;
  /**
   * The batches of the run it holds now (claimed, not reported: it is playing them), their games and
   * iterations, and since when; null: none. A worker playing its first batch is listed by this alone.
   */
  playing: Playing | null;
};

/** A worker's claimed batches of the run (src/db/run-status.ts playingWorkers). */
export interface Playing {
  batchIds: number[];
  games: number;
  iterations: number[];
  since: string;
  seconds: number;
}

/** Workers of the run that reported nothing for STALE_MINUTES before its latest report, in one line. */
export interface StaleWorkers {
  /** STALE_MINUTES. */
  minutes: number;
  count: number;
  games: number;
  /** The first few names, the latest seen first. */
  names: string[];
  /** The latest report of any of them. */
  lastSeen: string;
}

export interface RunWorkers {
  /** When the master last looked (null: never, e.g. a run from before this existed), and over how many strata. */
  reviewedAt: string | null;
  strata: number;
  /** The run's workers but the stale ones, the latest to report first. */
  workers: RunWorker[];
  /** null: none. */
  stale: StaleWorkers | null;
  /** The workers under suspicion now: `suspect worker NAME: <reason>`. */
  suspects: { worker: string; reason: string; since: string }[];
}

/**
 * A worker that reported nothing in the run for this long before its latest report is folded into
 * the stale line (unless a decision names it).
 */
export const STALE_MINUTES = 30;

/** Names the stale line lists. */
const STALE_NAMES = 3;

/**
 * The run's workers with their games, evidence and decisions, in a few small queries (one row per
 * worker of the run). `keepStale`: every worker in `workers`, none folded into the stale line.
 */
export async function readRunWorkers(
  sql: postgres.Sql,
  runId: number,
  rateMinutes: number,
  options: { keepStale?: boolean } = {},
): Promise<RunWorkers> {
  const [rows, playing, review, decisions, aside, counts, refusals] = await Promise.all([
    listRunWorkers(sql, runId, rateMinutes),
    playingWorkers(sql, runId),
    readReview(sql, runId),
    latestDecisions(sql, runId),
    setAsideWorkers(sql, runId),
    setAsideCounts(sql, runId),
    refusingWorkers(sql, runId),
  ]);
  // Those with counted games the latest first, then those only judged, held or decided about.
  const others = [
    ...(review?.evidence ?? []).map((e) => e.worker),
    ...decisions.map((d) => d.workerName),
    ...aside.map((a) => a.name),
    ...counts.map((c) => c.workerName),
    ...refusals.map((r) => r.name),
  ];
  // Then those playing their first batch of the run.
  const names = [...new Set([...rows.map((r) => r.name), ...playing.map((p) => p.name), ...others.sort()])];
  const all = names.map((name): RunWorker => {
    const held = playing.find((p) => p.name === name);
    const { plusWins, minusWins, recentGames, recentSeconds, lastReported, secondsAgo, ...row } = rows.find(
      (r) => r.name === name,
    ) ?? { ...noGames(name), host: held?.host ?? null, concurrency: held?.concurrency ?? null };
    const evidence = review?.evidence.find((e) => e.worker === name) ?? null;
    const decision = decisions.find((d) => d.workerName === name);
    const set = counts.find((c) => c.workerName === name);
    const because = aside.find((a) => a.name === name)?.because;
    return {
      ...row,
      wins: plusWins,
      losses: minusWins,
      gamesPerMinute: gamesPerMinute(recentGames, recentSeconds),
      lastSeen: lastReported?.toISOString() ?? null,
      secondsAgo,
      evidence,
      decision: decision ? decisionOf(decision) : null,
      held: set?.held ?? 0,
      undone: set?.undone ?? 0,
      refused: refusals.find((r) => r.name === name)?.refused ?? 0,
      verdict: verdictOf(name, row.games, evidence, decision, because),
      playing: held
        ? {
            batchIds: held.batchIds,
            games: held.games,
            iterations: held.iterations,
            since: held.since.toISOString(),
            seconds: held.seconds,
          }
        : null,
    };
  });
  // Measured from the run's latest report, so a finished run keeps the workers that played to its end.
  const latest = Math.min(...all.map((w) => w.secondsAgo ?? Infinity));
  const isStale = (w: RunWorker) =>
    !options.keepStale &&
    w.decision === null &&
    w.held === 0 &&
    w.playing === null &&
    w.secondsAgo !== null &&
    w.secondsAgo - latest > STALE_MINUTES * 60;
  const stale = all.filter(isStale);
  return {
    reviewedAt: review?.reviewedAt.toISOString() ?? null,
    strata: review?.strata ?? 0,
    workers: all.filter((w) => !isStale(w)),
    stale:
      stale.length === 0
        ? null
        : {
            minutes: STALE_MINUTES,
            count: stale.length,
            games: stale.reduce((sum, w) => sum + w.games, 0),
            names: stale.slice(0, STALE_NAMES).map((w) => w.name),
            lastSeen: stale[0]!.lastSeen!,
          },
    suspects: decisions
      .filter((d) => d.decision === "suspect")
      .map((d) => ({ worker: d.workerName, reason: d.reason, since: d.createdAt.toISOString() })),
  };
}

/** A worker judged, held or decided about that has no game counted in the run. */
function noGames(
  name: string,
): Omit<RunWorkerRow, "lastReported" | "secondsAgo"> & { lastReported: null; secondsAgo: null } {
  return {
    name,
    host: null,
    concurrency: null,
    concurrencyNote: null,
    measuredNps: null,
    timeFactor: null,
    batches: 0,
    games: 0,
    plusWins: 0,
    minusWins: 0,
    draws: 0,
    engineFaults: 0,
    delayLosses: 0,
    replays: 0,
    replayLimitPairs: 0,
    recentGames: 0,
    recentSeconds: 0,
    lastReported: null,
    secondsAgo: null,
  };
}

function decisionOf(d: DecisionRow): NonNullable<RunWorker["decision"]> {
  return { kind: d.decision, reason: d.reason, by: d.decidedBy, at: d.createdAt.toISOString() };
}

/** One line a reader acts on: what the master does with the worker's batches, and why. */
function verdictOf(
  worker: string,
  games: number,
  evidence: WorkerEvidence | null,
  decision: DecisionRow | undefined,
  heldBecause: string | undefined,
): string {
  if (decision?.decision === "suspect") return "suspect: its batches are held until you decide";
  if (decision?.decision === "rejected") return "rejected: its batches are held";
  if (heldBecause !== undefined && heldBecause !== worker) return `held: same machine as ${heldBecause}`;
  const accepted = decision?.decision === "accepted" ? "accepted; " : "";
  if (!evidence && games === 0) return `${accepted}nothing reported yet`;
  // Its own games' tests (extremes, spread) need no pool.
  if (evidence && evidence.severity >= 1) return `${accepted}past a limit`;
  // Alone in its iterations: no other worker's games to hold its own against.
  if (evidence && !evidence.judged && evidence.poolScore === null)
    return `${accepted}not judged: no other worker's games to compare with`;
  if (!evidence || !evidence.judged) return `${accepted}too few games shared with the pool to judge`;
  if (evidence.waitsFor?.length)
    return `${accepted}not judged against the pool while ${evidence.waitsFor.join(", ")} ${evidence.waitsFor.length === 1 ? "looks" : "look"} unclean by its own games`;
  return `${accepted}ok`;
}
