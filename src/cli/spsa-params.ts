import { Command } from "commander";
import { forceOption, outParamsOption, type ConfigFile } from "./options.js";
import { parseNames } from "./parsers.js";

/** spsa's commands that write a params.toml to start from: from another tool's lines, or from an engine. */

export function addImportCommand(program: Command, config: ConfigFile): void {
  program
    .command("import")
    .description("OpenBench or fishtest SPSA input lines into a params.toml")
    .argument("<file>", "the lines")
    .addOption(outParamsOption())
    .addOption(forceOption())
    .action(async (file: string, opts: { out: string; force?: boolean }) => {
      const { importCommand } = await import("../commands/import.js");
      await importCommand({ config: config(), file, ...opts });
    });
}

interface InitFlags {
  constants?: string;
  engine?: string;
  out: string;
  force?: boolean;
  only?: string[];
  match?: string;
}

export function addInitCommand(program: Command): void {
  program
    .command("init")
    .description(
      "a starting params.toml from an engine's constants file (every number literal) or from an " +
        "engine's UCI spin options, with a proposed range and step",
    )
    .option("--constants <file>", "the engine's constants file, e.g. src/engine_constants.rs")
    .option("--engine <path>", 'an engine binary: its uci spin options, for [engine] mode = "options"')
    .addOption(outParamsOption())
    .addOption(forceOption())
    .option(
      "--only <names>",
      "comma-separated parameters to write (a constant's name: all its elements), instead of all",
      parseNames,
    )
    .option(
      "--match <regex>",
      "write the parameters whose name matches this regular expression (with --only: those too)",
    )
    .action(async (opts: InitFlags) => {
      const { initCommand } = await import("../commands/init.js");
      await initCommand(opts);
    });
}
