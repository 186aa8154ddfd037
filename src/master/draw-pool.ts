import type postgres from "postgres";
import { lockOptionCarrier } from "../db/iteration-lock.js";
import { drawPoolState, insertOpenBatch, insertPerturbation } from "../db/draw-pool-rows.js";
import type { OptionRunRow } from "../db/option-run.js";
import { pilotDrawState } from "../db/option-pilot.js";
import { currentTheta, type CachedTheta } from "./cached-theta.js";
import { activeGameSlots } from "../db/workers.js";
import { drawBatch, drawSpan, paramsAt, signBits } from "../spsa/option-batches.js";
import { GAIN_BLOCK_GAMES, gainBlockPlan, nextGainDraw } from "../spsa/gain-block-plan.js";
import { widenedGains } from "../spsa/pilot.js";
import { gainGamesGivenOut } from "../db/gain-blocks.js";
import { runStartTheta } from "../db/runs.js";
import type { Values } from "../types/spsa.js";
import { WORK_CHANNEL } from "../postgres/channels.js";

/**
 * The master draws every batch's perturbation (a worker only reads it: docs/security.md,
 * "Worker machine"). It keeps a small pool of open batches drawn ahead of the workers from
 * the θ of the moment: enough that every game slot it sees can claim at once, and one more
 * for the time until its next poll. A batch waits in the pool about one batch's time, so its
 * draw is that much older when it is applied than a draw at claim would be
 * (docs/uci-options.md measures what that costs).
 */

/**
 * Drawn batches the pool holds for `slots` game slots and batches of `batchGames`: ⌈slots / batch⌉
 * + 1, from 2 to 64.
 */
export function poolSize(slots: number, batchGames: number): number {
  return Math.min(64, Math.max(2, Math.ceil(slots / batchGames) + 1));
}

/**
 * Tops the pool up: new open batches of `batchGames` (fewer for the last of the run's games or
 * of a shared draw), their draws from the run's θ of now (θ after the batches applied so far,
 * recorded as drawn_from) at their place in the gain schedule: in the run's first half one draw
 * for the batches of the rest of an iteration, drawn together (drawSpan; docs/uci-options.md,
 * "Shared draws"), else one per batch; until the pool
 * is full or every game of the run is given out (while the curvature pilot is on, every game of
 * the pilot: src/master/option-pilot.ts). Between the tuner's draws, where the run's plan puts
 * them (src/spsa/gain-block-plan.ts), gain blocks: θ of now against θ₀, placed in the
 * gain schedule by the tuner's games only. A batch that expired or was refused is not
 * reopened (its draw stays with it, unapplied); its games are given out again here. Under the
 * run's row and the carrier iteration's fold lock (lockOptionCarrier), so one master's polls
 * never draw twice. Returns the batches drawn.
 */
export async function topUpDraws(
  sql: postgres.Sql,
  run: OptionRunRow & { seed: string },
  targetGames: number,
  batchGames: number,
  cached?: CachedTheta,
): Promise<number> {
  const slots = await activeGameSlots(sql);
  const drawn = await sql.begin(async (tx) => {
    if (!(await lockOptionCarrier(tx, run))) return 0;
    const { open, allocated } = await drawPoolState(tx, run.iterationId);
    const wanted = poolSize(slots, batchGames) - open;
    if (wanted <= 0 || allocated >= targetGames) return 0;
    const pilotGames = run.pilotGames ?? 0;
    const plan = gainBlockPlan(targetGames, pilotGames, run.gainShare ?? 0);
    let gained = plan.blocks > 0 ? await gainGamesGivenOut(tx, run.runId) : 0;
    // The tuner's games given out: the place of its next draw in the gain schedule.
    let tuned = allocated - gained;
    // The curvature pilot's games first, and alone: nothing else is drawn until its measure is
    // stored (src/master/option-pilot.ts).
    const pilot = pilotGames > 0 ? await pilotDrawState(tx, run.runId) : undefined;
    const piloting = pilot !== undefined && !pilot.measured;
    const until = piloting ? Math.min(plan.tunerGames, tuned + pilotGames - pilot.allocated) : plan.tunerGames;
    if (tuned >= until && !(plan.blocks > 0 && nextGainDraw(plan, tuned, gained).gain)) return 0;
    // θ only when drawing, and the cached one while it is current: a large run's θ is the biggest read of a poll.
    const { theta, applied } = await currentTheta(tx, run, cached);
    const params = paramsAt(run, theta);
    let count = 0;
    while (count < wanted) {
      const next = nextGainDraw(plan, tuned, gained);
      if (next.gain) {
        await drawGainBlock(tx, run, { theta, applied, at: tuned + gained });
        gained += GAIN_BLOCK_GAMES;
        count++;
        continue;
      }
      if (tuned >= until || next.games === 0) break;
      // A shared draw's batches are drawn together (the pilot's batches each have their own draw).
      const span = piloting ? batchGames : drawSpan(tuned, plan.tunerGames, batchGames, run.gamesPerIteration);
      const drawEnd = Math.min(until, tuned + span, tuned + next.games);
      let draw: { number: number; drawn: ReturnType<typeof drawBatch> } | undefined;
      for (; tuned < drawEnd; count++) {
        const games = Math.min(batchGames, drawEnd - tuned);
        const batchId = await insertOpenBatch(tx, run.iterationId, games, tuned);
        // The first batch row's id numbers the draw: unique in the run, so its signs are its own.
        draw ??= {
          number: batchId,
          drawn: drawBatch(params, widenedGains(run.gains, pilot?.factor), {
            seed: run.seed,
            drawNumber: batchId,
            gamesBefore: tuned,
            gamesPerIteration: run.gamesPerIteration,
          }),
        };
        await insertPerturbation(tx, run.names, {
          batchId,
          runId: run.runId,
          drawNumber: draw.number,
          games,
          k: draw.drawn.k,
          ck: draw.drawn.ck,
          ak: draw.drawn.ak,
          drawnFrom: applied,
          signs: signBits(run.names, draw.drawn.signs),
          plus: draw.drawn.plus,
          minus: draw.drawn.minus,
          // A pilot's batch plays θ+ and θ− each against θ₀, the θ of now (no batch moves θ before
          // the pilot is measured).
          ...(piloting && { reference: theta }),
        });
        tuned += games;
      }
    }
    return count;
  });
  if (drawn > 0) await sql`select pg_notify(${WORK_CHANNEL}, '')`;
  return drawn;
}

/**
 * A gain block (src/spsa/gain-block-plan.ts) in the pilot's form: plus and minus both θ of now,
 * each against θ₀, so a worker plays it as it plays a pilot's batch; `at` (its games_before) is
 * the run's games given out before it, where the gain's reading places it. Its draw moves nothing:
 * no signs, no step (k, c_k and a_k 0).
 */
async function drawGainBlock(
  tx: postgres.TransactionSql,
  run: OptionRunRow,
  block: { theta: Values; applied: number; at: number },
): Promise<void> {
  const start = await runStartTheta(tx, run.runId);
  const batchId = await insertOpenBatch(tx, run.iterationId, GAIN_BLOCK_GAMES, block.at);
  await insertPerturbation(tx, run.names, {
    batchId,
    runId: run.runId,
    drawNumber: batchId,
    games: GAIN_BLOCK_GAMES,
    k: 0,
    ck: 0,
    ak: 0,
    drawnFrom: block.applied,
    signs: signBits(run.names, {}),
    plus: block.theta,
    minus: block.theta,
    reference: start,
    gain: true,
  });
}
