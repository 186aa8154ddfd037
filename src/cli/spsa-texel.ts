import { Command } from "commander";
import { evalEngineOption, paramsOption, type ConfigFile } from "./options.js";
import { parseInteger, parseNames } from "./parsers.js";
import { abortOnSignals } from "./stop-signals.js";

/** spsa's Texel tuning: the labelled positions, then the tuning on them. */

interface TexelDataFlags {
  out: string;
  skipPlies: number;
  quiet?: boolean;
  engine?: string;
  seed: string;
  processes?: number;
}

export function addTexelDataCommand(program: Command, config: ConfigFile): void {
  program
    .command("texel-data")
    .description("labelled positions (FEN [1.0|0.5|0.0]) from PGN games for spsa texel: deduplicated, shuffled")
    .argument("<pgn...>", "PGN files (compete --pgn output or any games)")
    .requiredOption("--out <file>", "the positions file to write")
    .option("--skip-plies <n>", "leave out each game's first N plies", parseInteger, 8)
    .option("--quiet", "keep only positions whose static evaluation equals the quiescence score (uses the engine)")
    .addOption(evalEngineOption())
    .option("--seed <seed>", "seed of the shuffle", "texel-data")
    .option("-p, --processes <n>", "engine processes for --quiet (default: number of cores)", parseInteger)
    .action(async (pgn: string[], opts: TexelDataFlags) => {
      const { texelDataCommand } = await import("../commands/texel-data.js");
      await texelDataCommand({ config: config(), pgn, ...opts });
    });
}

interface TexelFlags {
  positions: string;
  params: string;
  only?: string[];
  method: string;
  maxPasses: number;
  engine?: string;
  processes?: number;
  dryRun?: boolean;
}

export function addTexelCommand(program: Command, config: ConfigFile): void {
  program
    .command("texel")
    .description(
      "Texel tuning: fit K, then tune evaluation parameters on labelled positions; writes params.toml, stores the run",
    )
    .requiredOption("--positions <file>", "positions from spsa texel-data")
    .addOption(paramsOption())
    .option("--only <names>", "comma-separated parameters to tune (default: all not frozen)", parseNames)
    .option("--method <method>", "local (the seed's ±1 search) or adaptive (steps that grow and shrink)", "adaptive")
    .option("--max-passes <n>", "stop after this many passes over the parameters", parseInteger, 100)
    .addOption(evalEngineOption())
    .option("-p, --processes <n>", "engine processes (default: number of cores)", parseInteger)
    .option("--dry-run", "report and store the run, leave params.toml as it is")
    .action(async (opts: TexelFlags) => {
      const { texelCommand } = await import("../commands/texel.js");
      const abort = abortOnSignals();
      await texelCommand({
        config: config(),
        ...opts,
        method: opts.method as "local" | "adaptive",
        signal: abort.signal,
      });
    });
}
