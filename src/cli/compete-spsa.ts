import { Command } from "commander";
import { verboseOption } from "./options.js";
import { collect, parseInteger, parseOption } from "./parsers.js";
import { abortOnSignals } from "./stop-signals.js";
import { packageVersion } from "./version.js";

interface WorkerFlags {
  spsa: true;
  concurrency?: number;
  batchSize?: number;
  name?: string;
  force?: boolean;
  config?: string;
  book?: string;
  games?: number;
  idleExit?: number;
  seed?: string;
  option: string[];
  trust: string[];
}

/** `compete --spsa`: the SPSA worker. */
export function buildWorkerProgram(): Command {
  return new Command("compete")
    .description("Work for SPSA runs: claim batches of games, play them, report the results")
    .version(packageVersion())
    .requiredOption("--spsa", "worker mode")
    .option(
      "-c, --concurrency <n>",
      "games at once (default: the cores not busy with other work at start)",
      parseInteger,
    )
    .option(
      "--batch-size <n>",
      "games per claim, even (default: [games].batch_size of config.toml, else 8)",
      parseInteger,
    )
    .option("--name <name>", "worker name shown in spsa_worker (default: host-pid)")
    .option("--force", "take --name over even from a live worker (it stops at its next heartbeat)")
    .option("--config <file>", "config.toml for the database URL, book and leases (optional)")
    .option(
      "--book <file>",
      "opening book, EPD or PGN (.gz too), or a shipped book's name (default: config's, else balanced)",
    )
    .option("--games <n>", "stop after this many games", parseInteger)
    .option("--idle-exit <seconds>", "stop after this long without work", parseInteger)
    .option("--seed <seed>", "seed for openings and times")
    .option(
      "--option <name=value>",
      "UCI option of this worker's engines, e.g. Threads=1 or SyzygyPath=/tb (repeatable; a tuned " +
        "option keeps the run's value)",
      collect,
      [],
    )
    .option(
      "--trust <key>",
      "public key of a master whose signed binaries this worker runs, as `spsa key` prints it " +
        "(repeatable; this machine's master is trusted already)",
      collect,
      [],
    )
    .addOption(verboseOption())
    .showHelpAfterError()
    .exitOverride()
    .action(runWorker);
}

async function runWorker(flags: WorkerFlags): Promise<void> {
  const { workerCommand } = await import("../commands/compete-spsa.js");
  await workerCommand({
    config: flags.config,
    concurrency: flags.concurrency,
    batchSize: flags.batchSize,
    name: flags.name,
    force: flags.force,
    book: flags.book,
    games: flags.games,
    idleExit: flags.idleExit,
    seed: flags.seed,
    engineOptions: Object.fromEntries(flags.option.map(parseOption)),
    trust: flags.trust,
    signal: abortOnSignals("the batches this worker held return to the pool when their leases end").signal,
  });
}
