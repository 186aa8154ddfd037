import { InvalidArgumentError } from "commander";
import type { SprtBounds } from "../types/play.js";

/** Argument parsers shared by the spsa and compete programs. */

export function parseInteger(text: string): number {
  const value = Number(text);
  // Number("") is 0: an empty argument is no integer.
  if (text.trim() === "" || !Number.isInteger(value))
    throw new InvalidArgumentError(`expected an integer, got "${text}"`);
  return value;
}

/** A count that may be 0 (e.g. --max-replays 0: never replay). */
export function parseCount(text: string): number {
  const value = parseInteger(text);
  if (value < 0) throw new InvalidArgumentError(`expected 0 or more, got "${text}"`);
  return value;
}

/** An id or a count that starts at 1. */
export function parsePositiveInteger(text: string): number {
  const value = parseInteger(text);
  if (value < 1) throw new InvalidArgumentError(`expected a positive integer, got "${text}"`);
  return value;
}

/** `A,B, C`: the names, blanks left out. */
export function parseNames(text: string): string[] {
  return text
    .split(",")
    .map((n) => n.trim())
    .filter((n) => n !== "");
}

export function parseNumber(text: string): number {
  const value = Number(text);
  if (text.trim() === "" || !Number.isFinite(value)) throw new InvalidArgumentError(`expected a number, got "${text}"`);
  return value;
}

export function parseSprt(values: string[]): SprtBounds {
  const numbers = values.map(parseNumber);
  const [elo0, elo1, alpha, beta] = numbers;
  if (numbers.length !== 4 || elo0 === undefined || elo1 === undefined || alpha === undefined || beta === undefined) {
    throw new InvalidArgumentError("--sprt takes four numbers: elo0 elo1 alpha beta");
  }
  if (!(elo1 > elo0) || !(alpha > 0 && alpha < 1) || !(beta > 0 && beta < 1)) {
    throw new InvalidArgumentError("--sprt needs elo1 > elo0 and 0 < alpha, beta < 1");
  }
  return { elo0, elo1, alpha, beta };
}

/** Commander's collector for a repeatable option. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** A UCI option as `NAME=VALUE`. */
export function parseOption(text: string): [string, string] {
  const at = text.indexOf("=");
  if (at < 1) throw new InvalidArgumentError(`UCI options are NAME=VALUE, got "${text}"`);
  return [text.slice(0, at).trim(), text.slice(at + 1).trim()];
}
