import { Command } from "commander";
import { runCommand } from "./run.js";
import { packageVersion } from "./version.js";

export function buildCompeteProgram(): Command {
  const program = new Command("compete")
    .description("Play engine matches, or work for an SPSA run with --spsa")
    .version(packageVersion());
  return program;
}

export async function main(argv: string[]): Promise<void> {
  await runCommand(async () => {
    await buildCompeteProgram().parseAsync(argv);
  });
}
