import { randomUUID, type KeyObject } from "node:crypto";
import { hostname } from "node:os";
import { obtainBinary, UntrustedBinaryError, type SignedBinary } from "../engine-build/binary-store.js";
import type { EngineCache } from "../engine-build/engine-cache.js";
import { UntrustedOptionsError, verifiedDraw } from "../signing/options-signature.js";
import { drawOptions } from "../params/option-names.js";
import {
  claimBatch,
  expireLeases,
  heartbeat,
  refuseBatch,
  releaseClaims,
  reportBatch,
  type ReportOutcome,
} from "../db/batches.js";
import { anyRunActive } from "../db/runs.js";
import { FAULTED_GAME_LIMITS, type FaultedGame } from "../db/faulted-games.js";
import { PollBackoff } from "../postgres/poll-backoff.js";
import { databaseOutage } from "../postgres/retry.js";
import { DatabaseHandle } from "../postgres/database-handle.js";
import { stoppedDuringOutage } from "../postgres/outage-log.js";
import { describeDatabase, type Database } from "../postgres/connection.js";
import { claimWorkerName, recordConcurrency, recordSpeed, type WorkerSession } from "../db/workers.js";
import { DatabaseError, InputError } from "../core/errors.js";
import { StatusLine } from "../core/status-line.js";
import { byCounter, ENGINE_FAULT_COUNTERS, FAULT_COUNTERS, type FaultCounts } from "../types/faults.js";
import { delayRemedy, engineFaults } from "../play/faults.js";
import { plural } from "../core/plural.js";
import { runOpenings, type Opening } from "../play/book.js";
import { seededRng, uniform, type Rng } from "../core/rng.js";
import { ENGINE_ROLES, type EngineRole, type PlusMinus } from "../types/engines.js";
import type { SearchLimits } from "../types/play.js";
import { BatchTally } from "./batch-tally.js";
import { knownLists, withOptionList, type PlayableBatch } from "./option-draw.js";
import { DelayGuard } from "./delay-guard.js";
import { faultedGames } from "./faulted-games.js";
import { describeHolder, holderAlive } from "./name-holder.js";
import { heartbeatInterval } from "../core/holder.js";
import type { PairEngine, PairPlayer } from "./runner-player.js";
import { MAX_TIME_FACTOR, MIN_TIME_FACTOR, scaledMovetime, timeFactor } from "./time-factor.js";

export interface WorkerOptions {
  database: Database;
  player: PairPlayer;
  name: string;
  /** Take the name even from a live worker (which stops at its next heartbeat). */
  force?: boolean;
  concurrency: number;
  /** How a default concurrency was chosen, for the log and spsa_worker.concurrency_note. */
  concurrencyNote?: string;
  /** Games per claim (even). */
  batchSize: number;
  leaseSeconds: number;
  /** Opening positions to draw from. */
  openings: readonly Opening[];
  /** The only folder whose files it executes (`cache.dir`): its own, 0700, the binaries it hashed written there by sha256, bounded. */
  cache: EngineCache;
  /** The master keys whose signed binaries this worker runs (read at each batch: a local master may make its key later). */
  trustedKeys: () => KeyObject[];
  /** The longest wait between claims while idle (the cap of the polling backoff). */
  pollIntervalMs: number;
  /** Stop after this many games (for scripts and tests). */
  maxGames?: number;
  /** Stop after this long without work. */
  idleExitMs?: number;
  signal?: AbortSignal;
  log?: (line: string) => void;
  status?: StatusLine;
  /** Seed for openings and times; default random. */
  seed?: string;
}

export interface WorkerSummary {
  games: number;
  batches: number;
  /** Reports refused because the batch's lease had expired. */
  refused: number;
  /** Batches given back because their binaries were not signed by a trusted key. */
  binariesRefused: number;
}

/** After a stop, how long the worker may still spend on the database: reporting what it finished, returning the rest. */
const STOP_PATIENCE_MS = 2_000;
/** While idle, how often the worker looks whether any run is open (to say why it waits). */
const OPEN_RUN_CHECK_MS = 30_000;

/**
 * A worker: claims batches of games, plays them as pairs through the runner, and reports
 * each batch once. It keeps enough batches in flight to keep `concurrency` games running,
 * heartbeats their leases, and waits for work by polling with a backoff (no LISTEN: one
 * connection, no session state, so it can go through a pooler in transaction mode).
 *
 * A stop (`signal`, the name taken over, or a failure) ends the games in flight at once,
 * scores none of them, reports the batches that had finished, and returns the others to the
 * pool (spsa_release_claims), all within STOP_PATIENCE_MS of database time; what the database
 * could not take back then stays claimed until its lease ends, and the stop throws a
 * DatabaseError saying so.
 */
export async function runWorker(options: WorkerOptions): Promise<WorkerSummary> {
  const { database, name } = options;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const status = options.status ?? new StatusLine(process.stderr, 30_000);
  const rng = seededRng(options.seed ?? `${name}:${process.pid}:${Date.now()}`);
  const heartbeatMs = heartbeatInterval(options.leaseSeconds);
  const where = `${describeDatabase(database.url)}${database.embedded ? " (this checkout's embedded server)" : ""}`;
  const db = new DatabaseHandle(database.sql, log, options.signal);
  const session = await takeName(options, db, heartbeatMs, log);
  log(`worker ${name}: ${where}`);
  // Leases are the master's (each iteration's settings): beat a third of the shortest one claimed.
  let beatMs = heartbeatMs;
  if (options.concurrencyNote) log(`worker ${name}: concurrency ${options.concurrencyNote}`);

  const inFlight = new Map<number, Promise<void>>();
  // Batches this process claimed that are neither reported, refused nor given up on: a stop returns them.
  const holding = new Map<number, PlayableBatch>();
  let concurrency = options.concurrency;
  const guard = new DelayGuard(concurrency);
  const guardGames = (tally: BatchTally, games: number) => {
    const lowering = guard.observe(games + tally.replays, tally.replays + tally.delayLosses);
    if (!lowering) return;
    concurrency = lowering.to;
    options.player.setConcurrency(concurrency);
    const note = `lowered from ${lowering.from} to ${lowering.to}: ${lowering.reason}`;
    log(`worker ${name}: concurrency ${note}`);
    // Best effort: the log has it too, and a database outage must not stop the games.
    recordConcurrency(database.sql, session, concurrency, note).catch(() => {});
  };
  const factorFor = timeScaler(options, session, log);
  const summary: WorkerSummary = { games: 0, batches: 0, refused: 0, binariesRefused: 0 };
  let pendingGames = 0;
  let claimedGames = 0;
  let idleSince = Date.now();
  let wake: () => void = () => {};

  // The stop: claims and binary fetches end at once, the engines are killed (so the games in
  // flight end, unscored), and database work after it has STOP_PATIENCE_MS (`patience`).
  const stop = new AbortController();
  const patience = new AbortController();
  let patienceTimer: NodeJS.Timeout | undefined;
  const beginStop = () => {
    if (stop.signal.aborted) return;
    stop.abort();
    patienceTimer = setTimeout(() => patience.abort(), STOP_PATIENCE_MS);
    options.player.close().catch(() => {});
    wake();
  };
  options.signal?.addEventListener("abort", beginStop, { once: true });
  if (options.signal?.aborted) beginStop();
  // Claims and binary fetches end at the stop; reports, refusals and the hand-back have its patience.
  const claims = db.stoppedBy(stop.signal);
  const reports = db.stoppedBy(patience.signal);

  const poll = new PollBackoff(options.pollIntervalMs);
  const beatOnce = () => {
    // Not retried (the next beat is), but an outage it meets is said like any other.
    db.once((sql) => heartbeat(sql, session, [...inFlight.keys()]))
      .then(({ ownsName }) => {
        if (ownsName || stop.signal.aborted) return;
        log(`worker ${name}: another process took this name over (--force); stopping`);
        beginStop();
      })
      .catch(() => {});
  };
  let beat = setInterval(beatOnce, beatMs);
  const beatFor = (batch: PlayableBatch) => {
    const ms = heartbeatInterval(batch.leaseSeconds);
    if (ms >= beatMs) return;
    beatMs = ms;
    clearInterval(beat);
    beat = setInterval(beatOnce, beatMs);
  };
  const started = Date.now();
  // Iterations whose binaries this worker refused: not claimed again, as the refusal would repeat.
  const refusedIterations: number[] = [];
  let untrusted: Untrusted | undefined;
  const refuse = async (batch: PlayableBatch, error: Untrusted) => {
    refusedIterations.push(batch.iterationId);
    summary.binariesRefused++;
    // Not played: they do not count toward --games.
    claimedGames -= batch.games;
    // With no key at all the worker stops, and its error is the one line said.
    if (error.noTrustedKey) untrusted = error;
    else log(`worker ${name}: ${error.message}; batch ${batch.batchId} goes back to the pool`);
    // If even the retries fail, the batch's lease expires and it returns to the pool uncounted.
    await reports
      .retrying((sql) => refuseBatch(sql, batch.batchId, name))
      .then(
        () => holding.delete(batch.batchId),
        () => {},
      );
  };

  // Why an idle worker waits: no run open on its database at all, or none with games to hand out now.
  let noRunOpen = false;
  let runsLookedAt = Number.NEGATIVE_INFINITY;
  const lookForOpenRuns = async () => {
    if (Date.now() - runsLookedAt < OPEN_RUN_CHECK_MS) return;
    runsLookedAt = Date.now();
    noRunOpen = !(await claims.untilStopped(anyRunActive).catch(() => true));
  };
  const showStatus = (batch?: PlayableBatch) => {
    const minutes = (Date.now() - started) / 60_000;
    const waiting = noRunOpen
      ? `, waiting for work: no run is open on ${where}; a master must run on this database (point the worker at the master's with DATABASE_URL or --config)`
      : `, waiting for work on ${describeDatabase(database.url)}`;
    status.update(
      `worker ${name}: ${summary.games} games in ${summary.batches} batches, ${(summary.games / Math.max(minutes, 1e-9)).toFixed(1)} games/min` +
        (batch ? `, playing ${batch.runName} iteration ${batch.iterationNumber}` : waiting),
    );
  };

  let failure: { error: unknown } | undefined;
  try {
    while (!stop.signal.aborted) {
      if (untrusted) throw untrusted;
      const wantMore = options.maxGames === undefined || claimedGames < options.maxGames;
      let claimed: PlayableBatch | undefined;
      if (wantMore && pendingGames <= concurrency) {
        const limit = Math.min(options.batchSize, (options.maxGames ?? Infinity) - claimedGames);
        const known = knownLists();
        const batch = await claims.retrying(async (sql) => {
          // A dead worker's games are handed out again, whoever looks first.
          await expireLeases(sql);
          return claimBatch(sql, name, Math.max(2, limit - (limit % 2)), { skip: refusedIterations, known });
        });
        claimed = batch && withOptionList(batch, known);
      }
      if (claimed) {
        const batch = claimed;
        holding.set(batch.batchId, batch);
        beatFor(batch);
        idleSince = Date.now();
        poll.reset();
        noRunOpen = false;
        claimedGames += batch.games;
        pendingGames += batch.games;
        showStatus(batch);
        let unplayed = batch.games;
        const play = playBatch(options, batch, claims, rng, log, factorFor, () => {
          unplayed -= 2;
          pendingGames -= 2;
        })
          .then(async ({ tally, faulted }) => {
            // Games a stop cut short are not results: the batch goes back to the pool (handBack).
            if (stop.signal.aborted) return;
            const outcome = await reports.retrying((sql) =>
              reportBatch(sql, { batchId: batch.batchId, workerName: name, ...tally.counts(), faultedGames: faulted }),
            );
            holding.delete(batch.batchId);
            noteOutcome(log, batch, tally, outcome, summary, concurrency);
            guardGames(tally, batch.games);
            showStatus(batch);
          })
          .catch(async (error: unknown) => {
            // Cut short by the stop, or its report did not get through in time: the stop hands it back.
            if (stop.signal.aborted) return;
            if (error instanceof UntrustedBinaryError || error instanceof UntrustedOptionsError)
              return refuse(batch, error);
            // Its lease is no longer extended, so the batch returns to the pool for another try.
            holding.delete(batch.batchId);
            log(
              `batch ${batch.batchId} failed: ${(error as Error).message}; its games go back to the pool when its lease expires`,
            );
          })
          .finally(() => {
            pendingGames -= unplayed;
            inFlight.delete(batch.batchId);
            wake();
          });
        inFlight.set(batch.batchId, play);
        continue;
      }
      if (inFlight.size === 0) {
        if (!wantMore) break;
        if (options.idleExitMs !== undefined && Date.now() - idleSince >= options.idleExitMs) break;
        await lookForOpenRuns();
        showStatus();
      }
      // Sleep until a batch finishes, the next poll or a stop: soon after work was seen, up to the cap while there is none.
      const waitMs = poll.next();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, waitMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  } catch (error) {
    // A claim or fetch cut short by the stop is the stop; anything else stops the worker too.
    if (!stop.signal.aborted) failure = { error };
    beginStop();
  }
  try {
    // A batch finished before a stop is reported (within the patience), one cut short is not.
    await Promise.allSettled(inFlight.values());
    const handedBack = stop.signal.aborted ? await handBack(name, session, holding, reports) : undefined;
    if (failure) {
      if (handedBack?.batches) log(handedBack.line);
      throw failure.error;
    }
    if (handedBack?.left) throw new DatabaseError(handedBack.line);
    if (handedBack) log(handedBack.line);
  } finally {
    clearTimeout(patienceTimer);
    clearInterval(beat);
    options.signal?.removeEventListener("abort", beginStop);
    status.done();
  }
  return summary;
}

/**
 * After a stop: the batches this process still holds go back to the pool at once. The stop's
 * line, and whether batches are `left` claimed because the database could not take them back
 * in time (they come back when their leases end).
 */
async function handBack(
  name: string,
  session: WorkerSession,
  holding: ReadonlyMap<number, PlayableBatch>,
  reports: DatabaseHandle,
): Promise<{ line: string; batches: number; left: boolean }> {
  if (holding.size === 0) return { line: `worker ${name}: stopped`, batches: 0, left: false };
  try {
    const { batches, games } = await reports.retrying((sql) => releaseClaims(sql, session));
    const returned =
      batches === 0 ? "" : `; ${batchesOf(batches, games)} it had not finished or reported went back to the pool`;
    return { line: `worker ${name}: stopped${returned}`, batches, left: false };
  } catch {
    const held = [...holding.values()];
    const games = held.reduce((sum, batch) => sum + batch.games, 0);
    const lease = Math.max(...held.map((batch) => batch.leaseSeconds));
    const [stay, end, go] =
      held.length === 1 ? ["stays", "its lease ends", "returns"] : ["stay", "their leases end", "return"];
    const behind = `${batchesOf(held.length, games)} ${stay} claimed until ${end} (within ${lease} s), then ${go} to the pool`;
    const outage = databaseOutage();
    const stopped = outage
      ? stoppedDuringOutage(outage, Date.now(), behind)
      : `stopped while the database did not answer in time; ${behind}`;
    const line = `worker ${name}: ${stopped}`;
    return { line, batches: held.length, left: true };
  }
}

/** "1 batch (8 games)", "2 batches (16 games)". */
function batchesOf(batches: number, games: number): string {
  return `${batches} ${batches === 1 ? "batch" : "batches"} (${games} games)`;
}

/**
 * Takes the worker name for this process. Batches an earlier process of the name left
 * claimed (it was killed) return to the pool at once; a live holder makes this one refuse
 * to start, unless forced.
 */
async function takeName(
  options: WorkerOptions,
  db: DatabaseHandle,
  heartbeatMs: number,
  log: (line: string) => void,
): Promise<WorkerSession> {
  const { name } = options;
  const identity = {
    name,
    sessionId: randomUUID(),
    host: hostname(),
    pid: process.pid,
    concurrency: options.concurrency,
    concurrencyNote: options.concurrencyNote,
  };
  const claim = await db
    .retrying((sql) => claimWorkerName(sql, identity, (holder) => !options.force && holderAlive(holder, heartbeatMs)))
    .catch((error: unknown) => {
      // The name was registered by another database role (another worker machine's URL).
      if ((error as { code?: string }).code === "42501") throw new InputError("--name", (error as Error).message);
      throw error;
    });
  if (claim.taken) {
    throw new InputError(
      "--name",
      `worker "${name}" is running (${describeHolder(claim.holder)}); stop it, choose another name, or pass --force to take the name over`,
    );
  }
  if (claim.holder && options.force && holderAlive(claim.holder, heartbeatMs)) {
    log(
      `worker ${name}: took the name over from a live worker (${describeHolder(claim.holder)}); it stops at its next heartbeat`,
    );
  }
  const { batches, games } = claim.released;
  if (batches > 0)
    log(`worker ${name}: returned ${batches} batches (${games} games) of an earlier process of this name to the pool`);
  return identity;
}

/** Gives a batch the factor of its times per move (see timeScaler). */
type FactorFor = (batch: PlayableBatch, enginePath: string) => Promise<number>;

/**
 * Speed normalisation (`[time_control] reference_nps`): the engine's speed is measured
 * once per worker process, on the plus binary of the first batch whose iteration asks for
 * scaling (in build mode a binary of that iteration: its speed stands for the run's
 * engines), and each such batch's times are multiplied by reference / measured.
 */
function timeScaler(options: WorkerOptions, session: WorkerSession, log: (line: string) => void): FactorFor {
  let measured: Promise<number | undefined> | undefined;
  let recorded: number | undefined;
  return async (batch, enginePath) => {
    if (batch.moveLimit !== null || batch.referenceNps === null) return 1;
    // A failed measurement fails its batch, and the next batch measures again.
    measured ??= options.player.measureNps(enginePath).catch((error: unknown) => {
      measured = undefined;
      throw error;
    });
    const nps = await measured;
    if (nps === undefined) {
      if (recorded === undefined)
        log(
          `worker ${options.name}: the engine reported no nps (nor nodes and time) while its speed was measured; times per move are not scaled`,
        );
      recorded = 1;
      return 1;
    }
    const { factor, clamped } = timeFactor(batch.referenceNps, nps);
    if (factor !== recorded) {
      recorded = factor;
      const limit = clamped
        ? ` (reference / measured is ${(batch.referenceNps / nps).toFixed(3)}, kept within [${MIN_TIME_FACTOR}, ${MAX_TIME_FACTOR}])`
        : "";
      log(
        `worker ${options.name}: engine speed ${Math.round(nps)} nodes/s; times per move × ${factor.toFixed(3)} for reference_nps ${batch.referenceNps}${limit}`,
      );
      // Best effort, as recordConcurrency: the log has it too.
      recordSpeed(options.database.sql, session, nps, factor).catch(() => {});
    }
    return factor;
  };
}

/** A pair's search limits: the iteration's nodes or depth, or a time per move drawn in [timelow, timehigh] and scaled. */
function pairLimits(batch: PlayableBatch, rng: Rng, factor: number): SearchLimits {
  return batch.moveLimit ?? { movetimeMs: scaledMovetime(uniform(rng, batch.timelowMs, batch.timehighMs), factor) };
}

/**
 * The batch's binaries, as their iteration names and the master signed them: plus and minus,
 * and in reference mode the run's reference engine (signed for this iteration too: a worker
 * runs no reference that the master did not sign).
 */
function binariesOf(batch: PlayableBatch): SignedBinary[] {
  const subject = { runUid: batch.runUid, iterationNumber: batch.iterationNumber };
  const reference: SignedBinary[] =
    batch.referenceEngineSha256 === null
      ? []
      : [
          {
            ...subject,
            role: "reference",
            sha256: batch.referenceEngineSha256,
            signature: batch.referenceEngineSignature,
            path: batch.referenceEnginePath ?? "",
          },
        ];
  return [
    {
      ...subject,
      role: "plus",
      sha256: batch.plusEngineSha256,
      signature: batch.plusEngineSignature,
      path: batch.plusEnginePath,
    },
    {
      ...subject,
      role: "minus",
      sha256: batch.minusEngineSha256,
      signature: batch.minusEngineSignature,
      path: batch.minusEnginePath,
    },
    ...reference,
  ];
}

/** What the master did not sign for the worker to run or send its engines: the batch goes back to the pool. */
type Untrusted = UntrustedBinaryError | UntrustedOptionsError;

/** One game pair of a unit: its first engine (plus, or in reference mode θ+ or θ−) against the second. */
interface Pairing {
  side: PlusMinus;
  engines: [PairEngine, PairEngine];
}

/**
 * The game pairs of one unit, all on one opening at one time per move: plus against minus, or
 * in reference mode (four games) θ+ against the reference and θ− against the reference; in a
 * UCI-option run's curvature pilot the reference is the run's binary with θ₀'s options.
 */
function pairingsOf(
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

/** A played batch: its counts, and the first of its games that an engine fault decided (to be kept). */
interface PlayedBatch {
  tally: BatchTally;
  faulted: FaultedGame[];
}

async function playBatch(
  options: WorkerOptions,
  batch: PlayableBatch,
  claims: DatabaseHandle,
  rng: Rng,
  log: (line: string) => void,
  factorFor: FactorFor,
  onPair: () => void,
): Promise<PlayedBatch> {
  const keys = options.trustedKeys();
  const binaries = binariesOf(batch);
  // In use until the batch is over: no eviction (of this worker or another sharing the cache) removes them meanwhile.
  const hashes = binaries.map((binary) => binary.sha256);
  const done = await options.cache.use(hashes);
  try {
    const cached = options.cache.holds(hashes);
    const paths = await claims.retrying((sql) =>
      Promise.all(binaries.map((binary) => obtainBinary(sql, binary, keys, options.cache.dir))),
    );
    // A binary just added may take the cache beyond its bounds.
    if (!cached)
      await options.cache
        .evict()
        .catch((error: unknown) =>
          log(`worker ${options.name}: the engine cache could not be trimmed: ${(error as Error).message}`),
        );
    return await playObtained(options, batch, paths, keys, rng, factorFor, onPair);
  } finally {
    done();
  }
}

/** Plays a batch whose binaries are in the cache at `paths` (plus, minus and the reference). */
async function playObtained(
  options: WorkerOptions,
  batch: PlayableBatch,
  paths: string[],
  keys: KeyObject[],
  rng: Rng,
  factorFor: FactorFor,
  onPair: () => void,
): Promise<PlayedBatch> {
  await options.player.retire(paths);
  const factor = await factorFor(batch, paths[0]!);
  // UCI-option mode: options only from a parameter list the master signed, with values in its bounds.
  const pairings = pairingsOf(
    paths,
    batch.optionDraw && drawOptions(verifiedDraw(keys, batch.runUid, batch.optionDraw)),
  );
  const tally = new BatchTally(pairings.length > 1);
  const faulted: FaultedGame[] = [];
  const event = `${batch.runName} iteration ${batch.iterationNumber} batch ${batch.batchId}`;
  const unitGames = 2 * pairings.length;
  // A run-wide order: no two units of a run share an opening until the book is used up.
  const openings = runOpenings(options.openings, batch.runSeed, batch.firstGame, batch.games / unitGames, unitGames);
  const units = openings.map((opening) => ({ opening, limits: pairLimits(batch, rng, factor) }));
  await Promise.all(
    units.flatMap((unit, u) =>
      pairings.map(async (pairing, p) => {
        const [first, second] = pairing.engines;
        const result = await options.player.playPair({ first, second, ...unit });
        tally.add(result, pairing.side);
        // A crashing engine faults every game: hold no more than the database keeps of one worker per iteration.
        if (faulted.length < FAULTED_GAME_LIMITS.perIterationAndWorker)
          faulted.push(...faultedGames(result, u * pairings.length + p, event, new Date(), [first.role, second.role]));
        onPair();
      }),
    ),
  );
  return { tally, faulted: faulted.slice(0, FAULTED_GAME_LIMITS.perIterationAndWorker) };
}

function noteOutcome(
  log: (line: string) => void,
  batch: PlayableBatch,
  tally: BatchTally,
  outcome: ReportOutcome,
  summary: WorkerSummary,
  concurrency: number,
): void {
  if (outcome === "refused") {
    summary.refused++;
    log(`batch ${batch.batchId} was refused: its lease expired and its games went back to the pool`);
    return;
  }
  summary.games += batch.games;
  summary.batches++;
  // Plus and minus, and in reference mode the reference engine.
  const engines = tally.faults.map((counts: FaultCounts, i) => ({ name: ENGINE_ROLES[i]!, counts }));
  const faults = engines.reduce((sum, e) => sum + engineFaults(e.counts), 0);
  if (faults > 0) {
    const side = (counts: FaultCounts) => {
      const sums = byCounter(counts);
      return ENGINE_FAULT_COUNTERS.map((counter) => `${sums[counter]} ${FAULT_COUNTERS[counter]}`).join(", ");
    };
    log(
      `warning: iteration ${batch.iterationNumber} batch ${batch.batchId}: ${faults} engine faults (${engines.map((e) => `${e.name}: ${side(e.counts)}`).join("; ")})`,
    );
  }
  if (tally.replays + tally.delayLosses > 0) {
    const limit =
      tally.replayLimitPairs > 0
        ? `; ${plural(tally.replayLimitPairs, "pair")} ran out of replays: the machine is overloaded (${delayRemedy(concurrency)})`
        : "";
    log(
      `iteration ${batch.iterationNumber} batch ${batch.batchId}: delays outside the engines: ${tally.replays} games replayed, ` +
        `${tally.delayLosses} scored as time losses (${engines.map((e) => `${e.name} ${e.counts.delay}`).join(", ")})${limit}`,
    );
  }
}
