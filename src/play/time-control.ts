import { InputError } from "../core/errors.js";
import type { Color, PlayLimits, TimeControl } from "../types/play.js";

/** "10–30 ms per move", "tc 10+0.1", "1000 nodes per move", "depth 8". */
export function describeLimits(limits: PlayLimits): string {
  if ("tc" in limits) return `tc ${formatTimeControl(limits.tc)}`;
  if ("nodes" in limits) return `${limits.nodes} nodes per move`;
  if ("depth" in limits) return `depth ${limits.depth}`;
  const range =
    limits.timelowMs === limits.timehighMs ? `${limits.timelowMs}` : `${limits.timelowMs}–${limits.timehighMs}`;
  return `${range} ms per move`;
}

const TC_PATTERN = /^(?:(\d+)\/)?(\d+(?:\.\d+)?)(?:\+(\d+(?:\.\d+)?))?$/;

/** Parses `10+0.1`, `60`, `40/60+0.5` (seconds) as cutechess and fastchess write them. */
export function parseTimeControl(text: string, where = "--tc"): TimeControl {
  const match = TC_PATTERN.exec(text.trim());
  if (!match) throw new InputError(where, `expected SECONDS[+INC] or MOVES/SECONDS[+INC], got "${text}"`);
  const baseMs = Math.round(Number(match[2]) * 1000);
  const incMs = Math.round(Number(match[3] ?? 0) * 1000);
  const moves = match[1] === undefined ? undefined : Number(match[1]);
  if (baseMs <= 0 && incMs <= 0) throw new InputError(where, `no time at all in "${text}"`);
  if (moves !== undefined && moves < 1) throw new InputError(where, `moves per period must be >= 1 in "${text}"`);
  return moves === undefined ? { baseMs, incMs } : { baseMs, incMs, moves };
}

export function formatTimeControl(tc: TimeControl): string {
  const seconds = (ms: number) => String(ms / 1000);
  return `${tc.moves ? `${tc.moves}/` : ""}${seconds(tc.baseMs)}${tc.incMs ? `+${seconds(tc.incMs)}` : ""}`;
}

/**
 * Chess clock as fastchess keeps it: start at base (+ nothing), subtract the measured
 * time, forfeit below -margin, clamp to 0, then add the increment; in `moves/base` mode
 * the base is added again after each period.
 */
export class Clock {
  private readonly remaining: [number, number];
  private readonly movesMade: [number, number] = [0, 0];

  constructor(
    private readonly tc: TimeControl,
    private readonly marginMs: number,
  ) {
    this.remaining = [tc.baseMs, tc.baseMs];
  }

  remainingMs(side: Color): number {
    return this.remaining[side];
  }

  movesToGo(side: Color): number | undefined {
    return this.tc.moves === undefined ? undefined : this.tc.moves - (this.movesMade[side] % this.tc.moves);
  }

  /** The `go` command for `side` to move (side 0 is white); `movestogo` is that side's. */
  goCommand(side: Color): string {
    const togo = this.movesToGo(side);
    const [w, b] = this.remaining.map((ms) => Math.max(0, Math.round(ms)));
    return (
      `go wtime ${w} btime ${b} winc ${this.tc.incMs} binc ` +
      `${this.tc.incMs}${togo === undefined ? "" : ` movestogo ${togo}`}`
    );
  }

  /** Time the side may use before it is flagged, margin included. */
  allowedMs(side: Color): number {
    return this.remaining[side] + this.marginMs;
  }

  /** Charges a move; false when the side lost on time. */
  charge(side: Color, elapsedMs: number): boolean {
    const left = this.remaining[side] - elapsedMs;
    if (left < -this.marginMs) return false;
    this.movesMade[side]++;
    let next = Math.max(0, left) + this.tc.incMs;
    if (this.tc.moves !== undefined && this.movesMade[side] % this.tc.moves === 0) next += this.tc.baseMs;
    this.remaining[side] = next;
    return true;
  }
}
