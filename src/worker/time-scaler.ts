import { recordSpeed, type WorkerSession } from "../db/workers.js";
import type { PlayableBatch } from "./option-draw.js";
import { MAX_TIME_FACTOR, MIN_TIME_FACTOR, timeFactor } from "./time-factor.js";
import type { WorkerOptions } from "./worker-options.js";

/** Gives a batch the factor of its times per move (see timeScaler). */
export type FactorFor = (batch: PlayableBatch, enginePath: string) => Promise<number>;

/**
 * Speed normalisation (`[time_control] reference_nps`): the engine's speed is measured
 * once per worker process, on the plus binary of the first batch whose iteration asks for
 * scaling (in build mode a binary of that iteration: its speed stands for the run's
 * engines), and each such batch's times are multiplied by reference / measured.
 */
export function timeScaler(
  options: Pick<WorkerOptions, "name" | "player" | "database">,
  session: WorkerSession,
  log: (line: string) => void,
): FactorFor {
  let measured: Promise<number | undefined> | undefined;
  let recorded: number | undefined;
  return async (batch, enginePath) => {
    if (batch.moveLimit !== null || batch.referenceNps === null) return 1;
    // A failed measurement fails its batch, and the next batch measures again.
    measured ??= options.player.measureNps(enginePath).catch((error: unknown) => {
      measured = undefined;
      throw error;
    });
    const nps = await measured;
    if (nps === undefined) {
      if (recorded === undefined)
        log(
          `worker ${options.name}: the engine reported no nps (nor nodes and time) while its speed ` +
            `was measured; times per move are not scaled`,
        );
      recorded = 1;
      return 1;
    }
    const { factor, clamped } = timeFactor(batch.referenceNps, nps);
    if (factor !== recorded) {
      recorded = factor;
      const limit = clamped
        ? ` (reference / measured is ${(batch.referenceNps / nps).toFixed(3)}, kept within ` +
          `[${MIN_TIME_FACTOR}, ${MAX_TIME_FACTOR}])`
        : "";
      log(
        `worker ${options.name}: engine speed ${Math.round(nps)} nodes/s; times per move × ` +
          `${factor.toFixed(3)} for reference_nps ${batch.referenceNps}${limit}`,
      );
      // Best effort, as recordConcurrency: the log has it too.
      recordSpeed(options.database.sql, session, nps, factor).catch(() => {});
    }
    return factor;
  };
}
