import type { ShipCheckRow } from "../db/ship-checks.js";
import { eloWithError } from "../stats/elo.js";
import { describeLimits } from "../play/time-control.js";

/** What the ship check's line says, from its row (the master's log, `spsa status`, `spsa export`). */
export type ShipSummary = Pick<
  ShipCheckRow,
  | "status"
  | "limits"
  | "sprt"
  | "maxGames"
  | "candidates"
  | "elimination"
  | "chosen"
  | "verdict"
  | "elo"
  | "eloError"
  | "llr"
  | "games"
>;

const VERDICT_WORDS = { pass: "pass (SPRT H1)", fail: "FAIL (SPRT H0)", undecided: "undecided at max_games" } as const;

export function verdictWords(verdict: keyof typeof VERDICT_WORDS): string {
  return VERDICT_WORDS[verdict];
}

/**
 * "ship check at tc 10+0.1: tail average of the last 50 of 100 iterations vs start θ, pass (SPRT H1) [0, 5],
 * Elo +6.1 ± 3.9 (95%), 8124 games, LLR 2.96; elimination: tail average … beat final θ +41 -30 =329".
 */
export function describeShipCheck(check: ShipSummary): string {
  const head = `ship check at ${describeLimits(check.limits)}`;
  const bounds = `[${check.sprt.elo0}, ${check.sprt.elo1}]`;
  const elimination = check.elimination.map(
    (m) =>
      `${m.winner === m.challenger ? `${m.challenger} beat ${m.holder}` : `${m.holder} held against ${m.challenger}`} +${m.wins} -${m.losses} =${m.draws}`,
  );
  const eliminated = elimination.length > 0 ? `; elimination: ${elimination.join(", ")}` : "";
  if (check.chosen === null)
    return `${head}: running, elimination between ${check.candidates.map((c) => c.label).join(" and ")}`;
  if (check.status !== "complete" || check.verdict === null)
    return `${head}: running, ${check.chosen} vs start θ, SPRT ${bounds} up to ${check.maxGames} games${eliminated}`;
  const elo =
    check.elo === null ? "" : `, Elo ${eloWithError(check.elo, check.eloError ?? Number.NaN, (check.games ?? 0) / 2)}`;
  const llr = check.llr === null ? "" : `, LLR ${check.llr.toFixed(2)}`;
  return (
    `${head}: ${check.chosen} vs start θ, ${verdictWords(check.verdict)} ${bounds}${elo}, ` +
    `${check.games ?? 0} games${llr}${eliminated}`
  );
}
