import type postgres from "postgres";
import { lockOpenIteration } from "../db/iteration-lock.js";
import { drawPoolState, insertOpenBatch, insertPerturbation } from "../db/draw-pool-rows.js";
import type { OptionRunRow } from "../db/option-run.js";
import { pilotDrawState } from "../db/option-pilot.js";
import { currentTheta, type CachedTheta } from "./cached-theta.js";
import { activeGameSlots } from "../db/workers.js";
import { drawBatch, drawSpan, paramsAt, signBits } from "../spsa/option-batches.js";
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
 * the pilot: src/master/option-pilot.ts). A batch that expired or was refused is not
 * reopened (its draw stays with it, unapplied); its games are given out again here. Under the
 * carrier iteration's fold lock, so one master's polls never draw twice. Returns the batches drawn.
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
    if (!(await lockOpenIteration(tx, run.iterationId))) return 0;
    const { open, allocated } = await drawPoolState(tx, run.iterationId);
    const wanted = poolSize(slots, batchGames) - open;
    if (wanted <= 0 || allocated >= targetGames) return 0;
    // The curvature pilot's games first, and alone: nothing else is drawn until its measure is
    // stored (src/master/option-pilot.ts).
    const pilot = (run.pilotGames ?? 0) > 0 ? await pilotDrawState(tx, run.runId) : undefined;
    const piloting = pilot !== undefined && !pilot.measured;
    const until = piloting ? Math.min(targetGames, allocated + (run.pilotGames ?? 0) - pilot.allocated) : targetGames;
    if (allocated >= until) return 0;
    // θ only when drawing, and the cached one while it is current: a large run's θ is the biggest read of a poll.
    const { theta, applied } = await currentTheta(tx, run, cached);
    const params = paramsAt(run, theta);
    let before = allocated;
    let count = 0;
    while (count < wanted && before < until) {
      // A shared draw's batches are drawn together (the pilot's batches each have their own draw).
      const span = piloting ? batchGames : drawSpan(before, targetGames, batchGames, run.gamesPerIteration);
      const drawEnd = Math.min(until, before + span);
      let draw: { number: number; drawn: ReturnType<typeof drawBatch> } | undefined;
      for (; before < drawEnd; count++) {
        const games = Math.min(batchGames, drawEnd - before);
        const batchId = await insertOpenBatch(tx, run.iterationId, games, before);
        // The first batch row's id numbers the draw: unique in the run, so its signs are its own.
        draw ??= {
          number: batchId,
          drawn: drawBatch(params, run.gains, {
            seed: run.seed,
            drawNumber: batchId,
            gamesBefore: before,
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
        before += games;
      }
    }
    return count;
  });
  if (drawn > 0) await sql`select pg_notify(${WORK_CHANNEL}, '')`;
  return drawn;
}
