import type { Param } from "../params/params.js";
import { iterationsToTransfer, readTransfers } from "../db/transfers.js";
import { runningTransfers, type VerificationRow } from "../db/verifications.js";
import {
  lookAtOutcome,
  openVerification,
  waitForOutcome,
  type VerificationSetup,
  type FinishedVerification,
} from "../verification/verification.js";
import { summarizeTransfers } from "../verification/transfer-text.js";
import { describeLimits } from "../play/time-control.js";
import { crashPoint } from "./crash-points.js";
import type { MasterContext } from "./run-setup.js";

/**
 * Transfer in the run (docs/ship-check.md): every `[ship] transfer_every`th iteration's own plus
 * and minus, already built and signed, also play `transfer_games` at the ship limits, through
 * the workers like any verification (in a carrier run of its own). Their games are counted apart: the step
 * never waits for them nor reads them. Workers claim the oldest open iteration first, so a
 * transfer queued when its iteration opens is played after that iteration's games and before
 * the next one's: neither kind of game starves the other.
 */

/**
 * Queues the transfers of the open iterations that are due one and have none (a restarted master
 * queues what a kill left out).
 */
export async function queueTransfers(master: MasterContext, params: Param[]): Promise<void> {
  const { options, run, db, log } = master;
  const ship = options.config.ship;
  if (!ship || ship.transfer.every === 0) return;
  const match: VerificationSetup = {
    ...transferMatch(master, params),
    games: ship.transfer.games,
    limits: ship.limits,
    sprt: undefined,
  };
  const due = await db.retrying((sql) => iterationsToTransfer(sql, run.id, ship.transfer.every));
  for (const it of due) {
    const k = it.iterationNumber;
    const compared = {
      fromLabel: `iteration ${k} minus`,
      toLabel: `iteration ${k} plus`,
      fromValues: it.minusParameters,
      toValues: it.plusParameters,
    };
    const engines = {
      plus: { path: it.plusEnginePath, sha256: it.plusEngineSha256 },
      minus: { path: it.minusEnginePath, sha256: it.minusEngineSha256 },
    };
    // One transaction, unique per iteration: a kill before it commits leaves nothing, after it the transfer is found.
    const row = await db.retrying(() =>
      openVerification(match, run, compared, engines, { transferIterationId: it.id }),
    );
    log(
      `iteration ${k}: transfer queued, ${ship.transfer.games} games of its plus vs minus at ` +
        `${describeLimits(ship.limits)} (verification ${row.id})`,
    );
  }
}

/**
 * One look at each transfer still playing, without waiting: folds its games, and closes it once
 * they are all in. Called at every poll of the master, so a run without transfers asks nothing
 * (one whose `transfer_every` was turned off has its last transfers waited for at its end).
 */
export async function lookAtTransfers({ options, run, db }: MasterContext, log: (line: string) => void): Promise<void> {
  if (!options.config.ship?.transfer.every) return;
  for (const row of await db.retrying((sql) => runningTransfers(sql, run.id))) {
    const look = await lookAtOutcome({ db }, row);
    if (look.result) logDone(look.row, look.result, log);
    else if (look.row.gamesPlayed > 0) crashPoint("transfer-playing");
  }
}

/** At the run's end: waits for the transfers still playing, then says what they measured. */
export async function finishTransfers(master: MasterContext, params: Param[]): Promise<void> {
  const { run, db, log } = master;
  for (const row of await db.retrying((sql) => runningTransfers(sql, run.id))) {
    log(
      `waiting for the transfer ${row.toLabel} vs ${row.fromLabel}, at ${row.gamesPlayed} of ` +
        `${row.targetGames} games (verification ${row.id})`,
    );
    // Its last line gives the transfer's games; the line above names it.
    await waitForOutcome(transferMatch(master, params), row, log, (played) => {
      if (played.gamesPlayed > 0) crashPoint("transfer-playing");
    });
  }
  const summary = summarizeTransfers(
    await db.retrying((sql) => readTransfers(sql, run.id)),
    params.map((p) => p.name),
  );
  if (summary) log(summary.summary);
}

function transferMatch(
  { options, db }: MasterContext,
  params: Param[],
): Pick<VerificationSetup, "db" | "config" | "params" | "signingKey"> {
  return { db, config: options.config, params, signingKey: options.signingKey };
}

function logDone(row: VerificationRow, result: FinishedVerification, log: (line: string) => void): void {
  log(
    `transfer ${row.toLabel} vs ${row.fromLabel}: +${result.wins} -${result.losses} ` +
      `=${result.draws} at the ship limits (not in the step)`,
  );
}
