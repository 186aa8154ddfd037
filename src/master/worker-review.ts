import { hostname } from "node:os";
import {
  appliedCount,
  iterationReports,
  optionReports,
  type OptionReportRecord,
  type ReportRecord,
} from "../db/recorded-batches.js";
import { holdOpenIterationBatches, latestDecisions, recordDecision, saveReview } from "../db/worker-decisions.js";
import { setAsideWorkers, type SetAsideWorker } from "../db/set-aside-workers.js";
import { holdReportedBatches } from "./undo-worker.js";
import { EvidenceLedger, nextSuspect } from "../spsa/worker-evidence.js";
import type { DatabaseHandle } from "../postgres/database-handle.js";
import { signsOfBits } from "../spsa/option-batches.js";
import type { WorkerEvidence } from "../types/evidence.js";
import type { OptionList } from "../types/spsa.js";

/**
 * The master's look at its workers (docs/bad-workers.md): it keeps each worker's evidence
 * (src/spsa/worker-evidence.ts) from the batches it takes, stratum by stratum, and when a worker
 * passes a limit it records the worker as a suspect, says so in its log, and from then on sets
 * the worker's batches aside (src/db/worker-decisions.ts) until an operator decides. The
 * evidence is kept in memory and grows by each new stratum's batches (linear in the parameters);
 * it is read again from the rows when the master starts, when the set of workers set aside
 * changes, and after an undo. The latest evidence is stored for spsa status and the dashboard.
 */

/** UCI-option mode compares workers over windows of at least this many consecutive applied games. */
export const STRATUM_MIN_GAMES = 32;

interface ReviewOptions {
  /** Every read and write of the review is retried through outages. */
  db: DatabaseHandle;
  runId: number;
  /** The run's parameters, in the order the evidence lists them. */
  names: readonly string[];
  log: (line: string) => void;
}

abstract class WorkerReview {
  protected ledger: EvidenceLedger;
  protected setAside = new Set<string>();
  protected accepted = new Set<string>();
  /** The workers whose latest decision is the master's suspicion. */
  private suspects: string[] = [];
  protected readonly who = `master (pid ${process.pid} on ${hostname()})`;

  constructor(protected readonly options: ReviewOptions) {
    this.ledger = new EvidenceLedger(options.names, this.setAside);
  }

  /** The decisions as they stand; true when they differ from the evidence's (an operator decided meanwhile). */
  protected async readDecisions(): Promise<boolean> {
    const rows = await this.options.db.retrying((sql) => latestDecisions(sql, this.options.runId));
    const setAside = new Set(rows.filter((r) => r.decision !== "accepted").map((r) => r.workerName));
    const accepted = new Set(rows.filter((r) => r.decision === "accepted").map((r) => r.workerName));
    this.suspects = rows.filter((r) => r.decision === "suspect").map((r) => r.workerName);
    const changed = !sameSet(setAside, this.setAside) || !sameSet(accepted, this.accepted);
    this.setAside = setAside;
    this.accepted = accepted;
    return changed;
  }

  /**
   * When the master starts: a suspect's batches that θ still holds are taken out (a master
   * stopped between recording a suspicion and taking them out, or one of a version before that).
   */
  protected async holdSuspects(): Promise<void> {
    if (this.suspects.length === 0) return;
    const aside = await this.asideWorkers();
    for (const suspect of this.suspects) await this.holdReported(suspect, aside);
  }

  /** Evidence from the rows, with the workers set aside as the decisions say. */
  protected async rebuild(): Promise<void> {
    this.ledger = new EvidenceLedger(this.options.names, new Set(this.setAside));
    for (const stratum of await this.strataFromRows()) this.ledger.add(stratum);
  }

  /** The strata of the rows, in order (an iterable: a large run's signs are decoded a stratum at a time). */
  protected abstract strataFromRows(): Promise<Iterable<ReportRecord[]>>;

  /**
   * Looks at the evidence: the worker furthest past a limit (if any) is recorded as a suspect and
   * set aside, and named in the log. Stores the evidence. Returns the suspect's name.
   */
  protected async judge(): Promise<string | undefined> {
    const evidence = this.ledger.evidence();
    const suspect = nextSuspect(evidence, this.setAside, this.accepted);
    await this.options.db.retrying((sql) => saveReview(sql, this.options.runId, evidence, this.ledger.strata));
    if (!suspect) return undefined;
    await this.flag(suspect);
    return suspect.worker;
  }

  /** Every name set aside: the suspects and the other names of their machines. */
  protected asideWorkers(): Promise<SetAsideWorker[]> {
    return this.options.db.retrying((sql) => setAsideWorkers(sql, this.options.runId));
  }

  /**
   * The batches of `suspect` and its machine's other names (in `aside`) that θ holds are held too,
   * and θ recomputed without them (holdReportedBatches): taken out now, not by an undo at the run's end.
   */
  protected async holdReported(suspect: string, aside: readonly SetAsideWorker[]): Promise<void> {
    const names = aside.filter((a) => a.because === suspect).map((a) => a.name);
    const held = await this.options.db.retrying((sql) => holdReportedBatches(sql, this.options.runId, names));
    if (held)
      this.options.log(
        `${held.batches} batches (${held.games} games) that θ held of ${suspect} taken out of it: θ recomputed ` +
          `without them (spsa workers accept ${suspect} gives them back)`,
      );
  }

  private async flag(suspect: WorkerEvidence): Promise<void> {
    const reason = suspect.suspicion ?? "past a limit";
    await this.options.db.retrying((sql) =>
      recordDecision(sql, {
        runId: this.options.runId,
        workerName: suspect.worker,
        decision: "suspect",
        reason,
        who: this.who,
        evidence: suspect,
      }),
    );
    this.setAside.add(suspect.worker);
    this.options.log(
      `suspect worker ${suspect.worker}: ${reason}; its batches are set aside until you decide ` +
        `(spsa workers accept|reject ${suspect.worker}, docs/bad-workers.md)`,
    );
  }
}

/**
 * Build mode: a stratum is an iteration. Before the master applies an iteration's step, its
 * batches join the evidence; a worker found a suspect then has its batches in the open
 * iterations held and their games played again, and the step waits for them.
 */
export class BuildReview extends WorkerReview {
  static async start(options: ReviewOptions): Promise<BuildReview> {
    const review = new BuildReview(options);
    await review.readDecisions();
    await review.holdSuspects();
    await review.rebuild();
    return review;
  }

  protected async strataFromRows(): Promise<ReportRecord[][]> {
    return byIteration(await this.options.db.retrying((sql) => iterationReports(sql, this.options.runId)));
  }

  /**
   * Before iteration `number`'s step: true to apply it, false when batches were set aside (the
   * iteration waits for their games).
   */
  async beforeStep(number: number): Promise<boolean> {
    if (await this.readDecisions()) await this.rebuild();
    for (;;) {
      this.ledger.add(await this.options.db.retrying((sql) => iterationReports(sql, this.options.runId, number)));
      const suspect = await this.judge();
      if (suspect === undefined) return true;
      const aside = await this.asideWorkers();
      const held = await this.options.db.retrying((sql) =>
        holdOpenIterationBatches(
          sql,
          this.options.runId,
          aside.map((a) => a.name),
        ),
      );
      // Then its batches of the iterations stepped: their steps are taken again without them.
      await this.holdReported(suspect, aside);
      // The evidence of the iterations stepped, without the suspect in the pool; this one joins it when it is complete.
      await this.rebuild();
      if (held > 0) {
        this.options.log(
          `${held} batches of workers under suspicion set aside in iterations not stepped yet; ` +
            `their games are played again`,
        );
        return false;
      }
    }
  }
}

/**
 * UCI-option mode: a stratum is a window of at least STRATUM_MIN_GAMES (or an iteration's games)
 * of consecutive applied batches. After each fold the master adds the batches applied since;
 * a suspect's next batches are held by the fold (the pool draws their games again). Reports
 * keep their signs as stored until their stratum joins the evidence (at 10,000 parameters a
 * signs object is hundreds of KB).
 */
export class OptionReview extends WorkerReview {
  private open: OptionReportRecord[] = [];
  private applied = 0;
  private undo = 0;

  constructor(
    options: ReviewOptions,
    private readonly list: OptionList,
    private readonly stratumGames: number,
  ) {
    super(options);
  }

  static async start(options: ReviewOptions, run: OptionList & { gamesPerIteration: number }): Promise<OptionReview> {
    const review = new OptionReview(options, run, Math.max(STRATUM_MIN_GAMES, run.gamesPerIteration));
    await review.readDecisions();
    await review.holdSuspects();
    await review.rebuild();
    return review;
  }

  protected async strataFromRows(): Promise<Iterable<ReportRecord[]>> {
    const count = await this.options.db.retrying((sql) => appliedCount(sql, this.options.runId));
    this.applied = count.applied;
    this.undo = count.undo;
    const strata = windows(await this.reports(), this.stratumGames);
    const last = strata.at(-1);
    this.open = last && gamesOf(last) < this.stratumGames ? (strata.pop() ?? []) : [];
    return this.decodedEach(strata);
  }

  /** After a fold: the batches applied since join the evidence, a window at a time. */
  async afterApply(): Promise<void> {
    const count = await this.options.db.retrying((sql) => appliedCount(sql, this.options.runId));
    // An operator decided, or an undo renumbered the chain: the evidence from the rows again.
    if ((await this.readDecisions()) || count.undo !== this.undo) {
      await this.rebuild();
      await this.judgeAll();
      return;
    }
    if (count.applied <= this.applied) return;
    const reports = await this.reports(this.applied);
    this.applied += reports.length;
    for (const report of reports) {
      this.open.push(report);
      if (gamesOf(this.open) < this.stratumGames) continue;
      this.ledger.add(this.decoded(this.open));
      this.open = [];
      // Read again from the rows, it holds every report read so far.
      if (await this.judgeAll()) return;
    }
  }

  /** The reports applied after the `after`-th (or all of them). */
  private reports(after?: number): Promise<OptionReportRecord[]> {
    return this.options.db.retrying((sql) => optionReports(sql, this.options.runId, after));
  }

  private *decodedEach(strata: readonly (readonly OptionReportRecord[])[]): Generator<ReportRecord[]> {
    for (const stratum of strata) yield this.decoded(stratum);
  }

  /** A stratum's reports with their signs by name. */
  private decoded(stratum: readonly OptionReportRecord[]): ReportRecord[] {
    return stratum.map(({ signBits, ...report }) => ({ ...report, signs: signsOfBits(this.list, signBits) }));
  }

  /**
   * Judges until no worker passes a limit: a suspect leaves the pool, and the others are measured
   * again without it. True if it read the rows again.
   */
  private async judgeAll(): Promise<boolean> {
    let rebuilt = false;
    for (let suspect = await this.judge(); suspect !== undefined; suspect = await this.judge()) {
      await this.holdReported(suspect, await this.asideWorkers());
      await this.rebuild();
      rebuilt = true;
    }
    return rebuilt;
  }
}

function gamesOf(reports: readonly { games: number }[]): number {
  return reports.reduce((n, b) => n + b.games, 0);
}

/** Reports grouped by iteration, in order. */
function byIteration(reports: readonly ReportRecord[]): ReportRecord[][] {
  const strata: ReportRecord[][] = [];
  for (const r of reports) {
    const last = strata.at(-1);
    if (last && last[0]?.iteration === r.iteration) last.push(r);
    else strata.push([r]);
  }
  return strata;
}

/** Consecutive reports in windows of at least `games` games (the last may be short). */
function windows<R extends { games: number }>(reports: readonly R[], games: number): R[][] {
  const strata: R[][] = [];
  let open: R[] = [];
  for (const r of reports) {
    open.push(r);
    if (gamesOf(open) >= games) {
      strata.push(open);
      open = [];
    }
  }
  if (open.length > 0) strata.push(open);
  return strata;
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  return a.size === b.size && [...a].every((x) => b.has(x));
}
