import { plural } from "../core/plural.js";
import { printable } from "../core/printable.js";
import type { WorkerDecisionKind } from "../types/evidence.js";
import type { RunWorker } from "./run-workers.js";
import { shortTime, table } from "./text-format.js";

/**
 * What `spsa workers` shows and says (docs/bad-workers.md): the run's workers with their state,
 * and what an operator's decision about one did.
 */

/** One line per worker of the run: its batches and games, those set aside, and its state. */
export function renderWorkerList(run: { name: string; status: string }, workers: readonly RunWorker[]): string[] {
  return [
    `run "${run.name}" (${run.status}): ${plural(workers.length, "worker")}; batches and games: reported in the ` +
      `run; held: set aside by the master; undone: taken out of θ by spsa undo; refused: given back unplayed`,
    ...table(
      ["worker", "batches", "games", "held", "undone", "refused", "state"],
      workers.map((w) => [
        printable(w.name),
        String(w.batches),
        String(w.games),
        String(w.held),
        String(w.undone),
        String(w.refused),
        stateOf(w),
      ]),
      "no worker has reported a batch in this run",
    ),
  ];
}

/** flagged, rejected, accepted, set aside (same machine), or the verdict of a worker nobody decided about. */
function stateOf(w: RunWorker): string {
  const d = w.decision;
  if (d?.kind === "suspect")
    return `flagged since ${shortTime(d.at)}: its batches are held (spsa workers accept|reject ${printable(w.name)})`;
  if (d?.kind === "rejected") return `rejected by ${printable(d.by)} at ${shortTime(d.at)}: its batches are held`;
  const accepted = d?.kind === "accepted" ? `accepted by ${printable(d.by)} at ${shortTime(d.at)}; ` : "";
  if (w.verdict.startsWith("held: ")) return `set aside: ${w.verdict.slice("held: ".length)}`;
  return `${accepted}${w.verdict.replace(/^accepted; /, "")}`;
}

/** What a decision about a worker met and changed, as `spsa workers accept|reject` says it. */
export interface DecisionContext {
  runName: string;
  /** The run's status: "active" (a master folds it, now or when it resumes), "complete" or "stopped". */
  status: string;
  worker: string;
  decision: "accepted" | "rejected";
  who: string;
  /** The worker's latest decision before this one. */
  before: { decision: WorkerDecisionKind; at: Date } | undefined;
  /** Its reported batches θ still holds, and those set aside. */
  inTheta: { batches: number; games: number };
  held: number;
}

/** One line: the decision recorded, what it changes in the run, and what it does not. */
export function describeDecision(c: DecisionContext): string {
  const name = printable(c.worker);
  const was = c.before ? `was ${c.before.decision} since ${c.before.at.toISOString()}` : "nobody had flagged it";
  const head = `run "${c.runName}": worker ${name} ${c.decision} by ${c.who} (${was})`;
  const inTheta =
    c.inTheta.batches === 0
      ? "none of its batches is in θ"
      : `its ${plural(c.inTheta.batches, "batch", "batches")} (${plural(c.inTheta.games, "game")}) counted before ` +
        `stay in θ`;
  const undo = `spsa undo --worker ${name} --name ${c.runName}`;
  const held = c.held > 0 ? `; its ${plural(c.held, "held batch", "held batches")} stay out of θ` : "";
  if (c.status !== "active") {
    return c.decision === "rejected"
      ? `${head}, which changes nothing by itself: the run is ${c.status}, no master folds it again, and ` +
          `${inTheta}${c.inTheta.batches > 0 ? `: ${undo} shows what taking them out would change` : ""}`
      : `${head}, which changes nothing: the run is ${c.status} and no master folds it again${held}`;
  }
  if (c.decision === "rejected") {
    const from =
      c.before?.decision === "suspect" || c.before?.decision === "rejected"
        ? "its batches stay set aside in this run"
        : "the master sets its batches aside from its next fold on (in build mode those of iterations not " +
          "stepped yet too)";
    return (
      `${head}: ${from}; ${inTheta}` +
      `${c.inTheta.batches > 0 ? `: take them out with ${undo} (without --yes it shows what it would change)` : ""}` +
      `; revoke its machine's URL with spsa db worker-url --name MACHINE --revoke`
    );
  }
  if (c.before?.decision === "suspect" || c.before?.decision === "rejected")
    return `${head}: the master applies its batches again and does not flag it again in this run${held}`;
  return (
    `${head}: this changes nothing now: the master goes on applying its batches, and will not flag it ` + `in this run`
  );
}
