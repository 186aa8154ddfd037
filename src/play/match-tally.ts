import { countedFault } from "./faults.js";
import type { PairResult } from "./runner.js";
import { eloFromPentanomial, eloWithError, los, sprt, type SprtState } from "../stats/elo.js";
import { plural } from "../core/plural.js";
import { noFaults, type FaultCounts } from "../types/faults.js";
import type { PairCounts, Pentanomial, SprtBounds } from "../types/play.js";

/** Running counts of game pairs: what a worker reports for a batch, and the core of a match's tally. */
export class PairTally implements PairCounts {
  wins = 0;
  losses = 0;
  draws = 0;
  pairs: Pentanomial = [0, 0, 0, 0, 0];
  readonly faults: [FaultCounts, FaultCounts] = [noFaults(), noFaults()];
  replays = 0;
  replayLimitPairs = 0;

  get games(): number {
    return this.wins + this.losses + this.draws;
  }

  /** Faults count as losses for the faulty side (the runner scored them so), and by kind. */
  add(pair: PairResult): void {
    for (const [index, view] of pair.first.entries()) {
      if (view.outcome === "win") this.wins++;
      else if (view.outcome === "loss") this.losses++;
      else this.draws++;
      const game = pair.games[index]!;
      const own = countedFault(view.fault, game);
      const opponent = countedFault(view.opponentFault, game);
      if (own) this.faults[0][own]++;
      if (opponent) this.faults[1][opponent]++;
    }
    this.pairs[pair.pentanomial]++;
    this.replays += pair.replays;
    if (pair.replayLimitReached) this.replayLimitPairs++;
  }

  /** The counts alone, as plain data. */
  counts(): PairCounts {
    const { wins, losses, draws, pairs, faults, replays, replayLimitPairs } = this;
    return {
      wins,
      losses,
      draws,
      pairs: [...pairs],
      faults: [{ ...faults[0] }, { ...faults[1] }],
      replays,
      replayLimitPairs,
    };
  }
}

/** Running totals of a match, from engine A's side (A is each pair's first engine). */
export class MatchTally extends PairTally {
  readonly reasons = new Map<string, number>();

  constructor(readonly names: [string, string]) {
    super();
  }

  override add(pair: PairResult): void {
    super.add(pair);
    for (const { reason } of pair.games) this.reasons.set(reason, (this.reasons.get(reason) ?? 0) + 1);
  }

  sprt(bounds: SprtBounds): SprtState {
    return sprt(this.pairs, bounds);
  }

  /** One line for the live status: games, W/L/D, score, Elo ± 95 %. */
  status(total: number, bounds?: SprtBounds): string {
    const { elo, error, score } = eloFromPentanomial(this.pairs);
    const llr = bounds ? `  LLR ${this.sprt(bounds).llr.toFixed(2)}` : "";
    return (
      `games ${this.games}/${total}  +${this.wins} -${this.losses} =${this.draws}  score ` +
      `${(score * 100).toFixed(1)}%  Elo ${eloWithError(elo, error, this.pairs)}${llr}`
    );
  }

  /** The final report, several lines. */
  summary(bounds?: SprtBounds): string {
    const [a, b] = this.names;
    const { elo, error, score } = eloFromPentanomial(this.pairs);
    const lines = [
      `${a} vs ${b}: ${this.games} games, +${this.wins} -${this.losses} =${this.draws} (W/L/D for ` +
        `${a}), score ${(score * 100).toFixed(1)}%`,
      `Elo ${eloWithError(elo, error, this.pairs)}, LOS ${(los(this.wins, this.losses) * 100).toFixed(1)}%`,
      `pentanomial [LL, LD, LW+DD, DW, WW]: [${this.pairs.join(", ")}]`,
    ];
    if (bounds) {
      const state = this.sprt(bounds);
      const verdict = state.decision === "H1" ? "H1 accepted" : state.decision === "H0" ? "H0 accepted" : "undecided";
      lines.push(
        `SPRT [${bounds.elo0}, ${bounds.elo1}] alpha ${bounds.alpha} beta ${bounds.beta}: LLR ` +
          `${state.llr.toFixed(2)} (${state.lower.toFixed(2)}, ${state.upper.toFixed(2)}) ${verdict}`,
      );
    }
    const kinds = Object.keys(noFaults()) as (keyof FaultCounts)[];
    const width = Math.max(a.length, b.length);
    lines.push(`faults ${" ".repeat(Math.max(0, width - 6))} ${kinds.join(" ")}`);
    this.names.forEach((name, side) => {
      lines.push(
        `${name.padEnd(Math.max(width, 6))} ` +
          `${kinds.map((kind) => String(this.faults[side]![kind]).padStart(kind.length)).join(" ")}`,
      );
    });
    lines.push(
      `time losses: ${this.faults.map((f, side) => `${this.names[side]} ${f.timeout} own, ${f.delay} to delays outside the engine`).join("; ")}`,
    );
    if (this.replays > 0 || this.replayLimitPairs > 0) {
      const limit =
        this.replayLimitPairs > 0
          ? `; ${plural(this.replayLimitPairs, "pair")} ran out of replays (machine overloaded), ` +
            `their delay losses scored`
          : "";
      lines.push(`replayed after an outside delay: ${this.replays} games${limit}`);
    }
    const reasons = [...this.reasons].sort((x, y) => y[1] - x[1]).map(([reason, n]) => `${reason} ${n}`);
    lines.push(`endings: ${reasons.join(", ")}`);
    return lines.join("\n");
  }
}
