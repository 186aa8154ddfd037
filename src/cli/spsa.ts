import { Command } from "commander";
import type { ConfigFile } from "./options.js";
import { runCommand } from "./run.js";
import { addDbCommands } from "./spsa-db.js";
import { addImportCommand, addInitCommand } from "./spsa-params.js";
import { addTexelCommand, addTexelDataCommand } from "./spsa-texel.js";
import { addDemoCommand, addMasterCommand, addSimulateCommand, addVerifyCommand } from "./spsa-tuning.js";
import { addDashboardCommand, addExportCommand, addStatusCommand } from "./spsa-views.js";
import { addKeyCommand, addUndoCommand, addWorkersCommands } from "./spsa-workers.js";
import { packageVersion } from "./version.js";

// Command modules are imported lazily so that `--help` does not load drizzle and postgres.

/** Each adds its command or command group to spsa; in this order `spsa --help` lists them. */
const COMMANDS: ((program: Command, config: ConfigFile) => void)[] = [
  addMasterCommand,
  addDemoCommand,
  addSimulateCommand,
  addVerifyCommand,
  addStatusCommand,
  addDashboardCommand,
  addExportCommand,
  addTexelDataCommand,
  addTexelCommand,
  addImportCommand,
  addInitCommand,
  addKeyCommand,
  addWorkersCommands,
  addUndoCommand,
  addDbCommands,
];

export function buildSpsaProgram(): Command {
  const program = new Command("spsa")
    .description("SPSA tuning of chess engine constants, coordinated through Postgres")
    .version(packageVersion())
    .option("--config <file>", "config file (default: config.toml, optional for db commands)")
    .option("--verbose", "on an error, print its stack trace too (as SPSA_DEBUG=1 or DEBUG do)")
    .showHelpAfterError()
    .exitOverride();
  const config: ConfigFile = () => program.opts<{ config?: string }>().config;
  for (const add of COMMANDS) add(program, config);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  await runCommand(async () => {
    await buildSpsaProgram().parseAsync(argv);
  }, argv);
}
