import type postgres from "postgres";
import { latestDecisions, readReview, setAsideCounts, setAsideWorkers, type DecisionRow } from "../db/worker-decisions.js";
import type { WorkerDecisionKind, WorkerEvidence } from "../types/evidence.js";

/** A worker of the run as spsa status and the dashboard show it (docs/bad-workers.md): its evidence, the decision about it, and a plain verdict. */
export interface WorkerVerdict {
  worker: string;
  /** The master's latest evidence about it; null when it has none (no batch in the evidence yet). */
  evidence: WorkerEvidence | null;
  /** The latest decision about it in this run, who made it and when; null: none. */
  decision: { kind: WorkerDecisionKind; reason: string; by: string; at: string } | null;
  /** Its batches held by the master, and taken out of θ by undos. */
  held: number;
  undone: number;
  verdict: string;
}

export interface RunWorkers {
  /** When the master last looked (null: never, e.g. a run from before this existed), and over how many strata. */
  reviewedAt: string | null;
  strata: number;
  workers: WorkerVerdict[];
  /** The workers under suspicion now: `suspect worker NAME: <reason>`. */
  suspects: { worker: string; reason: string; since: string }[];
}

/** The run's workers with their evidence and decisions, in a few small queries. */
export async function readRunWorkers(sql: postgres.Sql, runId: number): Promise<RunWorkers> {
  const [review, decisions, aside, counts] = await Promise.all([readReview(sql, runId), latestDecisions(sql, runId), setAsideWorkers(sql, runId), setAsideCounts(sql, runId)]);
  const names = new Set([...(review?.evidence ?? []).map((e) => e.worker), ...decisions.map((d) => d.workerName), ...aside.map((a) => a.name), ...counts.map((c) => c.workerName)]);
  const workers = [...names].sort().map((worker) => {
    const evidence = review?.evidence.find((e) => e.worker === worker) ?? null;
    const decision = decisions.find((d) => d.workerName === worker);
    const set = counts.find((c) => c.workerName === worker);
    const because = aside.find((a) => a.name === worker)?.because;
    return {
      worker,
      evidence,
      decision: decision ? decisionOf(decision) : null,
      held: set?.held ?? 0,
      undone: set?.undone ?? 0,
      verdict: verdictOf(worker, evidence, decision, because),
    };
  });
  return {
    reviewedAt: review?.reviewedAt.toISOString() ?? null,
    strata: review?.strata ?? 0,
    workers,
    suspects: decisions.filter((d) => d.decision === "suspect").map((d) => ({ worker: d.workerName, reason: d.reason, since: d.createdAt.toISOString() })),
  };
}

function decisionOf(d: DecisionRow): NonNullable<WorkerVerdict["decision"]> {
  return { kind: d.decision, reason: d.reason, by: d.decidedBy, at: d.createdAt.toISOString() };
}

/** One line a reader acts on: what the master does with the worker's batches, and why. */
function verdictOf(worker: string, evidence: WorkerEvidence | null, decision: DecisionRow | undefined, heldBecause: string | undefined): string {
  if (decision?.decision === "suspect") return "suspect: its batches are held until you decide";
  if (decision?.decision === "rejected") return "rejected: its batches are held";
  if (heldBecause !== undefined && heldBecause !== worker) return `held: same machine as ${heldBecause}`;
  const accepted = decision?.decision === "accepted" ? "accepted; " : "";
  if (!evidence || !evidence.judged) return `${accepted}too few games shared with the pool to judge`;
  if (evidence.severity >= 1) return `${accepted}past a limit`;
  return `${accepted}ok`;
}
