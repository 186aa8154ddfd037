import type { SearchLimits } from "../types/play.js";

/**
 * The UCI lines whose words come from outside the runner (a run's rows, a config, an
 * engine's own option list), checked where they are written: a newline in an option name
 * would send the engine a command of its own (Stockfish's `Debug Log File` writes any
 * file), and a limit that is not a bounded whole number is not a search to run.
 */

/** What a row, a config or an engine may not put on a UCI line. */
export class UciLineError extends Error {}

/** Largest limits a `go` line carries: far beyond any real search, small enough for every engine's integer. */
export const MAX_NODES = 1e12;
export const MAX_DEPTH = 1000;
export const MAX_MOVETIME_MS = 1e9;

// eslint-disable-next-line no-control-regex -- control characters are what this refuses
const CONTROL = /[\u0000-\u001f\u007f]/;

/** `setoption name NAME value VALUE`, or UciLineError for a name or value that could say more than that. */
export function setoptionLine(name: string, value: string | number | boolean): string {
  if (name.trim() === "" || name.length > 256 || CONTROL.test(name) || /(^|\s)value(\s|$)/i.test(name)) {
    throw new UciLineError(
      `option name ${JSON.stringify(name)} is empty, longer than 256 characters, holds a control ` +
        `character or the word "value"`,
    );
  }
  if (
    typeof value === "number"
      ? !Number.isFinite(value)
      : typeof value === "string" && (value.length > 1024 || CONTROL.test(value))
  ) {
    throw new UciLineError(
      `option ${name}: value ${JSON.stringify(String(value))} is not a finite number or a line of ` +
        `at most 1024 characters without control characters`,
    );
  }
  return `setoption name ${name} value ${value}`;
}

function wholeNumber(what: string, value: unknown, max: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > max) {
    throw new UciLineError(`${what} ${JSON.stringify(value)} is not a whole number from 0 to ${max}`);
  }
  return value;
}

/** The `go` line of a fixed limit per move (a clock's line is the clock's: src/play/time-control.ts). */
export function goLine(limits: Exclude<SearchLimits, { tc: unknown }>): string {
  if ("movetimeMs" in limits) return `go movetime ${wholeNumber("movetime", limits.movetimeMs, MAX_MOVETIME_MS)}`;
  if ("nodes" in limits) return `go nodes ${wholeNumber("nodes", limits.nodes, MAX_NODES)}`;
  return `go depth ${wholeNumber("depth", limits.depth, MAX_DEPTH)}`;
}
