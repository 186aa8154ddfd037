import type { TransferRow } from "../db/transfers.js";
import { describeLimits } from "../play/time-control.js";
import {
  scoreDifference,
  spreadInSteps,
  transferReport,
  type TransferReport,
  type TransferSample,
} from "../spsa/transfer.js";

/** Transfer in the run as `spsa status` and the master show it: the counts, the report and its line. */
export interface TransferSummary {
  /** The ship limits the transfers played at (of the latest one). */
  limitsText: string;
  queued: number;
  /** Transfers whose games are all in and whose tuning iteration is stepped: the report's iterations. */
  measured: number;
  games: number;
  report: TransferReport;
  /** The line: correlation with its n, and which parameters disagree. */
  summary: string;
}

/** Undefined when the run has no transfer. `names`: the parameters, in params.toml's order. */
export function summarizeTransfers(
  rows: readonly TransferRow[],
  names: readonly string[],
): TransferSummary | undefined {
  const latest = rows.at(-1);
  if (!latest) return undefined;
  const samples = rows.filter((r) => r.status === "complete" && r.stepped).map(sampleOf);
  const report = transferReport(
    samples,
    names.filter((name) => samples.some((s) => name in s.spread)),
  );
  const limitsText = describeLimits(latest.limits);
  const games = rows.reduce((sum, r) => sum + r.ship.gamesPlayed, 0);
  return {
    limitsText,
    queued: rows.length,
    measured: samples.length,
    games,
    report,
    summary: describeTransfer(limitsText, rows.length, games, report),
  };
}

function sampleOf(row: TransferRow): TransferSample {
  const steps = Object.fromEntries(Object.entries(row.settings?.parameters ?? {}).map(([name, p]) => [name, p.step]));
  return {
    iteration: row.iterationNumber,
    spread: spreadInSteps(steps, row.plus, row.minus),
    tune: scoreDifference(row.tune),
    ship: scoreDifference(row.ship),
  };
}

/**
 * "transfer at 8000 nodes per move: 17 of 17 iterations measured (544 games); tune vs ship
 * score r = +0.31 (95% −0.18…+0.68, n 17); signs disagree on 5 of 18 parameters: A, B, …
 * (all within noise: …)".
 */
function describeTransfer(limitsText: string, queued: number, games: number, report: TransferReport): string {
  const head =
    `transfer at ${limitsText}: ${report.n} of ${queued} iterations measured (${games} ` + `games at the ship limits)`;
  if (report.n === 0) return head;
  const r =
    report.correlation === null
      ? "r not measured yet (needs 3 iterations)"
      : `tune vs ship score r = ${signed(report.correlation)}`;
  const interval = report.interval
    ? ` (95% ${signed(report.interval[0])}…${signed(report.interval[1])}, n ${report.n})`
    : ` (n ${report.n})`;
  const perturbed = report.parameters.filter((p) => p.n > 0);
  if (report.disagree.length === 0)
    return `${head}; ${r}${interval}; signs agree on all ${perturbed.length} parameters`;
  const noisy = perturbed.filter((p) => report.disagree.includes(p.name) && p.withinNoise).length;
  const noise =
    noisy === report.disagree.length
      ? "all within noise (an estimate within 1.96 s.e. of 0): per-parameter signs from this few " +
        "iterations are mostly noise, the correlation is the robust number"
      : `${noisy} of them within noise`;
  return (
    `${head}; ${r}${interval}; signs disagree on ${report.disagree.length} of ` +
    `${perturbed.length} parameters: ${report.disagree.join(", ")} (${noise})`
  );
}

function signed(x: number): string {
  return `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(2)}`;
}
