import type { FaultKind } from "./game.js";
import type { PairResult } from "./runner.js";
import { eloFromPentanomial, los, sprt, type Pentanomial, type SprtBounds, type SprtState } from "./stats.js";

/** Faults by kind; `timeout` is the engine's own overrun, `delay` a time loss to a delay outside the engine. */
export type FaultCounts = Record<Exclude<FaultKind, "none"> | "delay", number>;

const noFaults = (): FaultCounts => ({ crash: 0, timeout: 0, illegal: 0, garbage: 0, startup: 0, delay: 0 });

/** Running totals of a match, from engine A's side (A is each pair's first engine). */
export class MatchTally {
  wins = 0;
  losses = 0;
  draws = 0;
  pairs: Pentanomial = [0, 0, 0, 0, 0];
  readonly faults: [FaultCounts, FaultCounts] = [noFaults(), noFaults()];
  readonly reasons = new Map<string, number>();
  /** Games played again after a delay outside the engine, and pairs that ran out of replays. */
  replays = 0;
  replayLimitPairs = 0;

  constructor(readonly names: [string, string]) {}

  get games(): number {
    return this.wins + this.losses + this.draws;
  }

  add(pair: PairResult): void {
    for (const [index, view] of pair.first.entries()) {
      if (view.outcome === "win") this.wins++;
      else if (view.outcome === "loss") this.losses++;
      else this.draws++;
      const game = pair.games[index]!;
      const kind = (fault: Exclude<FaultKind, "none">): keyof FaultCounts => (fault === "timeout" && game.timeForfeit?.cause === "outside" ? "delay" : fault);
      if (view.fault !== "none") this.faults[0][kind(view.fault)]++;
      if (view.opponentFault !== "none") this.faults[1][kind(view.opponentFault)]++;
      const reason = game.reason;
      this.reasons.set(reason, (this.reasons.get(reason) ?? 0) + 1);
    }
    this.pairs[pair.pentanomial]++;
    this.replays += pair.replays;
    if (pair.replayLimitReached) this.replayLimitPairs++;
  }

  sprt(bounds: SprtBounds): SprtState {
    return sprt(this.pairs, bounds);
  }

  /** One line for the live status: games, W/L/D, score, Elo ± 95 %. */
  status(total: number, bounds?: SprtBounds): string {
    const { elo, error, score } = eloFromPentanomial(this.pairs);
    const llr = bounds ? `  LLR ${this.sprt(bounds).llr.toFixed(2)}` : "";
    return `games ${this.games}/${total}  +${this.wins} -${this.losses} =${this.draws}  score ${(score * 100).toFixed(1)}%  Elo ${formatElo(elo, error)}${llr}`;
  }

  /** The final report, several lines. */
  summary(bounds?: SprtBounds): string {
    const [a, b] = this.names;
    const { elo, error, score } = eloFromPentanomial(this.pairs);
    const lines = [
      `${a} vs ${b}: ${this.games} games, +${this.wins} -${this.losses} =${this.draws} (W/L/D for ${a}), score ${(score * 100).toFixed(1)}%`,
      `Elo ${formatElo(elo, error)} (95%), LOS ${(los(this.wins, this.losses) * 100).toFixed(1)}%`,
      `pentanomial [LL, LD, LW+DD, DW, WW]: [${this.pairs.join(", ")}]`,
    ];
    if (bounds) {
      const state = this.sprt(bounds);
      const verdict = state.decision === "H1" ? "H1 accepted" : state.decision === "H0" ? "H0 accepted" : "undecided";
      lines.push(
        `SPRT [${bounds.elo0}, ${bounds.elo1}] alpha ${bounds.alpha} beta ${bounds.beta}: LLR ${state.llr.toFixed(2)} (${state.lower.toFixed(2)}, ${state.upper.toFixed(2)}) ${verdict}`,
      );
    }
    const kinds = Object.keys(noFaults()) as (keyof FaultCounts)[];
    const width = Math.max(a.length, b.length);
    lines.push(`faults ${" ".repeat(Math.max(0, width - 6))} ${kinds.join(" ")}`);
    this.names.forEach((name, side) => {
      lines.push(`${name.padEnd(Math.max(width, 6))} ${kinds.map((kind) => String(this.faults[side]![kind]).padStart(kind.length)).join(" ")}`);
    });
    lines.push(`time losses: ${this.faults.map((f, side) => `${this.names[side]} ${f.timeout} own, ${f.delay} to delays outside the engine`).join("; ")}`);
    if (this.replays > 0 || this.replayLimitPairs > 0) {
      const limit = this.replayLimitPairs > 0 ? `; ${this.replayLimitPairs} pairs ran out of replays (machine overloaded), their delay losses scored` : "";
      lines.push(`replayed after an outside delay: ${this.replays} games${limit}`);
    }
    const reasons = [...this.reasons].sort((x, y) => y[1] - x[1]).map(([reason, n]) => `${reason} ${n}`);
    lines.push(`endings: ${reasons.join(", ")}`);
    return lines.join("\n");
  }
}

function formatElo(elo: number, error: number): string {
  if (!Number.isFinite(elo)) return elo > 0 ? "+inf" : "-inf";
  return `${elo >= 0 ? "+" : ""}${elo.toFixed(1)} ± ${Number.isFinite(error) ? error.toFixed(1) : "inf"}`;
}
