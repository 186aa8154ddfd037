import { valuesOf, type Param } from "../params/params.js";
import { readThetaAfter } from "../db/iterations.js";
import { runTheta } from "../db/option-run.js";
import type { ShipCandidate, ShipMatch } from "../db/schema.js";
import {
  openShipCheck,
  readShipCheck,
  recordElimination,
  recordShipOutcome,
  type ShipCheckRow,
} from "../db/ship-checks.js";
import { findShipVerification } from "../db/verifications.js";
import {
  startVerification,
  waitForOutcome,
  type Compared,
  type FinishedVerification,
} from "../verification/verification.js";
import { loadBook, resolveBook } from "../play/book.js";
import { refuseRepeatedGames, deterministicLimit } from "../play/repeated-games.js";
import { describeLimits } from "../play/time-control.js";
import { builtValue } from "../spsa/math.js";
import { challengerWins, shipCandidates, shipVerdict } from "../spsa/ship.js";
import type { SprtBounds } from "../types/play.js";
import type { Values } from "../types/spsa.js";
import type { TuningConfig } from "../types/config.js";
import { crashPoint } from "./crash-points.js";
import type { MasterContext } from "./run-setup.js";

const START_LABEL = "start θ";
const FINAL_STAGE = "final";

/**
 * `[ship]`'s games at a node or depth limit repeat past the book's openings: refused when the
 * master starts, not after the run (src/play/repeated-games.ts).
 */
export function refuseRepeatedShipGames(config: TuningConfig): void {
  const ship = config.ship;
  if (!ship || deterministicLimit(ship.limits) === undefined) return;
  const bookFile = resolveBook(config.games.book);
  const book = loadBook(bookFile, { plies: config.games.bookPlies });
  const transfer = ship.transfer.every > 0 ? [["transfer_games", ship.transfer.games] as const] : [];
  for (const [key, games] of [
    ["max_games", ship.maxGames],
    ["elimination_games", ship.eliminationGames],
    ...transfer,
  ] as const) {
    refuseRepeatedGames({ games, book, bookFile, limits: ship.limits, flag: `${config.file}: [ship].${key}` });
  }
}

/**
 * The ship check (docs/ship-check.md), after the run's last iteration (a UCI-option run: its last
 * batch, with the final θ the one candidate): the candidates play a short elimination at the ship limits, and the one left plays the start θ under the SPRT, all
 * through the workers like `spsa verify`. Every match is a verification row naming its stage,
 * so a restarted master continues the check where it was (a match already played is read back).
 * Returns the complete check, or undefined when the run has none (no `[ship]`).
 */
export async function runShipCheck(
  { options, run, db, log }: MasterContext,
  params: Param[],
): Promise<ShipCheckRow | undefined> {
  const { config } = options;
  const existing = await db.retrying((sql) => readShipCheck(sql, run.id));
  if (existing?.status === "complete") return existing;
  let check = existing;
  if (check) {
    log(`ship check of run "${run.name}" resumed (at ${describeLimits(check.limits)}, as it started)`);
  } else {
    const ship = config.ship;
    if (!ship) return undefined;
    // A UCI-option run has no iterations: its one candidate is its final θ (docs/ship-check.md).
    const thetaAfter = await db.retrying(async (sql) =>
      config.engine.mode === "options" ? [(await runTheta(sql, run.id)).theta] : readThetaAfter(sql, run.id),
    );
    const candidates = shipCandidates({
      thetaAfter,
      tail: ship.tail,
      averageTail: config.spsa.averageTail,
      key: (values) => builtKey(params, values),
    });
    const opened = {
      runId: run.id,
      limits: ship.limits,
      sprt: ship.sprt,
      maxGames: ship.maxGames,
      eliminationGames: ship.eliminationGames,
      candidates,
    };
    check = await db.retrying((sql) => openShipCheck(sql, opened));
    log(
      `ship check of run "${run.name}" at ${describeLimits(check.limits)}: candidates ` +
        `${check.candidates.map((c) => c.label).join("; ")}`,
    );
  }
  const { id, limits } = check;
  const play = async (
    stage: string,
    compared: Compared,
    games: number,
    sprt: SprtBounds | undefined,
  ): Promise<FinishedVerification> => {
    const match = { db, config, params, signingKey: options.signingKey, games, sprt, limits, log };
    const found = await db.retrying((sql) => findShipVerification(sql, id, stage));
    const row = found ?? (await startVerification(match, run, compared, { checkId: id, stage }));
    log(
      `ship check, ${stage}: ${compared.toLabel} vs ${compared.fromLabel}, ` +
        `${found ? `resumed at ${row.gamesPlayed} games` : `up to ${games} games`} (verification ${row.id})`,
    );
    return waitForOutcome(match, row, log, (played) => {
      if (played.gamesPlayed > 0) crashPoint(stage === FINAL_STAGE ? "ship-final-waiting" : "ship-elimination-waiting");
    });
  };

  const [first, ...challengers] = check.candidates;
  if (!first) throw new Error(`ship check ${id} has no candidate`);
  let holder = first;
  const elimination: ShipMatch[] = [];
  for (const [index, challenger] of check.eliminationGames > 0 ? challengers.entries() : []) {
    const result = await play(
      `elimination ${index + 1}`,
      compare(holder, challenger),
      check.eliminationGames,
      undefined,
    );
    const winner = challengerWins(result) ? challenger : holder;
    elimination.push({
      holder: holder.label,
      challenger: challenger.label,
      verificationId: result.id,
      wins: result.wins,
      losses: result.losses,
      draws: result.draws,
      winner: winner.label,
    });
    holder = winner;
  }
  await db.retrying((sql) => recordElimination(sql, id, elimination, holder));
  log(`ship check: ${holder.label} goes on to play the start θ`);

  // A parameter that joined the run after its start has no start value: the start θ has today's.
  const start = { label: START_LABEL, values: { ...valuesOf(params), ...run.initialParameters } };
  const result = await play(FINAL_STAGE, compare(start, holder), check.maxGames, check.sprt);
  const outcome = {
    verdict: shipVerdict(result.verdict),
    elo: result.elo,
    eloError: result.eloError,
    llr: result.llr,
    games: result.games,
  };
  await db.retrying((sql) => recordShipOutcome(sql, id, outcome, true));
  const done = await db.retrying((sql) => readShipCheck(sql, run.id));
  if (!done) throw new Error(`ship check ${id} vanished`);
  return done;
}

/** `to` plays `from`: the Elo is `to`'s. */
function compare(from: ShipCandidate, to: ShipCandidate): Compared {
  return { fromLabel: from.label, toLabel: to.label, fromValues: from.values, toValues: to.values };
}

/** Two θ are one candidate when they build the same engine (ints rounded as built). */
function builtKey(params: readonly Param[], values: Values): string {
  return JSON.stringify(params.map((p) => builtValue({ ...p, value: values[p.name] ?? p.value })));
}
