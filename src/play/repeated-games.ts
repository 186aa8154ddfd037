import { InputError } from "../core/errors.js";
import { bookOpenings, type Book } from "./book.js";
import type { PlayLimits, SearchLimits } from "../types/play.js";

/** The flag of a limit under which engines repeat their games (`--nodes 2000`), or undefined for a clock. */
export function deterministicLimit(limits: SearchLimits | PlayLimits): string | undefined {
  if ("nodes" in limits) return `--nodes ${limits.nodes}`;
  if ("depth" in limits) return `--depth ${limits.depth}`;
  return undefined;
}

/**
 * At a fixed node count or depth the engines play the same game from the same opening and
 * colours, so game pairs beyond the book's distinct openings would replay earlier games and
 * the error bars would count each copy as new evidence: refused, naming the ways out.
 */
export function refuseRepeatedGames(match: {
  games: number;
  book: Book;
  bookFile: string;
  limits: SearchLimits | PlayLimits;
  /** The option that set the games (`-g/--games`). */
  flag: string;
  /** `--random-plies` is a way out (compete). */
  randomPlies?: boolean;
}): void {
  const fixed = deterministicLimit(match.limits);
  if (fixed === undefined) return;
  const distinct = new Set(bookOpenings(match.book).map((opening) => opening.fen)).size;
  const pairs = Math.ceil(match.games / 2);
  if (pairs <= distinct) return;
  throw new InputError(
    match.flag,
    `${match.games} games at ${fixed} need ${pairs} distinct openings (one per game pair), but ` +
      `${match.bookFile} has ${distinct}: ` +
      `at a fixed node count or depth the engines repeat their games, so the games past ` +
      `${2 * distinct} would replay earlier ones and the error bars would count them as new. ` +
      `Play at most ${2 * distinct} games, use a bigger book (the default one has 50,000 openings), ` +
      `${match.randomPlies ? "add --random-plies, " : ""}or play on a clock`,
  );
}
