import { availableParallelism, cpus } from "node:os";

/** What the machine is doing besides this process, measured at start. */
export interface MachineLoad {
  cores: number;
  /** Cores' worth of CPU time other processes used during the sample (0 to cores). */
  busyCores: number;
}

export interface ConcurrencyChoice {
  concurrency: number;
  /** Why, for the worker's log and spsa_worker.concurrency_note. */
  note: string;
}

/**
 * The worker's default games at once (pure): one per core, less one core for a master in
 * the same process (its builds and its database server), less the cores other work kept
 * busy at start (a core counts once it is more than half busy); at least one. A game whose
 * engine waits for a core loses on time for a delay it did not cause.
 */
export function defaultConcurrency(load: MachineLoad, masterBeside: boolean): ConcurrencyChoice {
  const forMaster = masterBeside ? 1 : 0;
  const busy = Math.round(Math.min(load.cores, Math.max(0, load.busyCores)));
  const concurrency = Math.max(1, load.cores - forMaster - busy);
  const reasons = [
    `${load.cores} cores`,
    ...(masterBeside ? ["1 left for the master"] : []),
    `${load.busyCores.toFixed(1)} busy with other work at start`,
  ];
  return { concurrency, note: `default ${concurrency} (${reasons.join(", ")}; -c to choose)` };
}

/**
 * Samples the machine's CPU for `ms`: the busy time of all cores less this process's own,
 * in cores. A short sample sees what runs now, unlike the load average's minute-long memory.
 */
export async function measureLoad(ms = 500): Promise<MachineLoad> {
  const total = () =>
    cpus().reduce(
      (sum, cpu) => ({
        busy: sum.busy + cpu.times.user + cpu.times.nice + cpu.times.sys + cpu.times.irq,
        idle: sum.idle + cpu.times.idle,
      }),
      { busy: 0, idle: 0 },
    );
  const before = total();
  const ownBefore = process.cpuUsage();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const after = total();
  const own = process.cpuUsage(ownBefore);
  const cores = availableParallelism();
  const busy = after.busy - before.busy - (own.user + own.system) / 1000;
  const elapsed = after.busy - before.busy + (after.idle - before.idle);
  return { cores, busyCores: elapsed > 0 ? Math.max(0, (busy / elapsed) * cpus().length) : 0 };
}
