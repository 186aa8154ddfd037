import { Command } from "commander";
import { runCommand } from "./run.js";
import { packageVersion } from "./version.js";

export function buildSpsaProgram(): Command {
  const program = new Command("spsa")
    .description("SPSA tuning of chess engine constants, coordinated through Postgres")
    .version(packageVersion());
  return program;
}

export async function main(argv: string[]): Promise<void> {
  await runCommand(async () => {
    await buildSpsaProgram().parseAsync(argv);
  });
}
