import { Command, InvalidArgumentError } from "commander";
import { runCommand } from "./run.js";
import { packageVersion } from "./version.js";

// Command modules are imported lazily so that `--help` does not load drizzle and postgres.

export function buildSpsaProgram(): Command {
  const program = new Command("spsa")
    .description("SPSA tuning of chess engine constants, coordinated through Postgres")
    .version(packageVersion())
    .option("--config <file>", "config file (default: config.toml, optional for db commands)")
    .showHelpAfterError()
    .exitOverride();
  const config = () => program.opts<{ config?: string }>().config;

  program
    .command("master")
    .description("run or resume a tuning run: build plus/minus engines, wait for workers, update params.toml")
    .option("--params <file>", "parameters file", "params.toml")
    .option("--name <name>", "run name; another name starts another run", "main")
    .option("--fresh", "start the named run again from params.toml (the old run keeps its history)")
    .option("--seed <seed>", "seed of a new run's random draws (same seed, same perturbations)")
    .action(async (opts: { params: string; name: string; fresh?: boolean; seed?: string }) => {
      const { masterCommand } = await import("../commands/master.js");
      const abort = abortOnSignals();
      await masterCommand({ config: config(), ...opts, signal: abort.signal });
    });

  program
    .command("demo")
    .description("a real short tuning run of the sample engine: a master and a worker, then θ before and after")
    .option("--params <file>", "parameters file to start from (it is copied, not changed)", "params.toml")
    .option("--iterations <n>", "iterations", parseInteger, 3)
    .option("--games <n>", "games per iteration", parseInteger, 16)
    .option("-c, --concurrency <n>", "games at once (default: number of cores)", parseInteger)
    .action(async (opts: { params: string; iterations: number; games: number; concurrency?: number }) => {
      const { demoCommand } = await import("../commands/demo.js");
      await demoCommand({ config: config(), ...opts });
    });

  const db = program.command("db").description("manage the database (the embedded server unless DATABASE_URL is set)");
  db.command("status")
    .description("start the database if needed and report it")
    .action(async () => (await import("../commands/db.js")).dbStatus({ config: config() }));
  db.command("start")
    .description("start the embedded Postgres (it keeps running between commands)")
    .action(async () => (await import("../commands/db.js")).dbStart({ config: config() }));
  db.command("stop")
    .description("stop the embedded Postgres")
    .action(async () => (await import("../commands/db.js")).dbStop({ config: config() }));
  db.command("url")
    .description('print the database URL, e.g. psql "$(spsa db url)"')
    .action(async () => (await import("../commands/db.js")).dbUrl({ config: config() }));
  db.command("psql")
    .description("open psql on the database; extra arguments go to psql")
    .argument("[args...]", "arguments for psql, e.g. -- -c 'select * from spsa_progress'")
    .action(async (args: string[]) => (await import("../commands/db.js")).dbPsql({ config: config(), args }));
  return program;
}

export function parseInteger(text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value)) throw new InvalidArgumentError(`expected an integer, got "${text}"`);
  return value;
}

/** Ctrl-C or SIGTERM stops the command at its next safe point; a second Ctrl-C exits at once. */
export function abortOnSignals(): AbortController {
  const controller = new AbortController();
  const stop = () => {
    if (controller.signal.aborted) process.exit(130);
    process.stderr.write("\nstopping (press Ctrl-C again to exit at once)\n");
    controller.abort();
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  return controller;
}

export async function main(argv: string[]): Promise<void> {
  await runCommand(async () => {
    await buildSpsaProgram().parseAsync(argv);
  });
}
