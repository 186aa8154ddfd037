import { Option } from "commander";
import { parseNumber } from "./parsers.js";

/**
 * Options that several commands of spsa and compete share, each defined once here (flags,
 * description, parser, default); a command adds a fresh one with `addOption`.
 */

/** spsa's global `--config`, as a command's action reads it once the arguments are parsed. */
export type ConfigFile = () => string | undefined;

/** `--params <file>`, params.toml by default; `description` says what the command does with it. */
export function paramsOption(description = "parameters file"): Option {
  return new Option("--params <file>", description).default("params.toml");
}

/** `--params` of a command that writes θ into the engine's constants. */
export const PARAMS_FOR_CONSTANTS = "parameters file (gives the constants the values go to)";

/** `--name` of a command that looks at a run: by default the run that started an iteration last. */
export function latestRunOption(): Option {
  return new Option("--name <name>", "the run (default: the run that started an iteration last)");
}

/** `--name` of a command that changes a run: it must name it. */
export function requiredRunOption(): Option {
  return new Option("--name <name>", "the run").makeOptionMandatory();
}

/** `--out <file>`: the params.toml a command writes. */
export function outParamsOption(): Option {
  return new Option("--out <file>", "the params.toml to write").default("params.toml");
}

/** `--force`: replace that params.toml. */
export function forceOption(): Option {
  return new Option("--force", "replace --out if it exists");
}

/** `--engine <path>` of the Texel commands. */
export function evalEngineOption(): Option {
  return new Option(
    "--engine <path>",
    "engine with the evalbatch command (default: the release build of [build].engine_dir)",
  );
}

/** `--sprt`: the match stops when an SPRT decides (spsa verify, compete). */
export function sprtOption(): Option {
  return new Option("--sprt <bounds...>", "stop when decided: elo0 elo1 alpha beta, e.g. --sprt 0 5 0.05 0.05");
}

/** `--nodes`: a fixed search per move instead of a time. */
export function nodesOption(): Option {
  return new Option("--nodes <n>", "search a fixed number of nodes per move").argParser(parseNumber);
}

/** `--depth`: a fixed search per move instead of a time. */
export function depthOption(): Option {
  return new Option("--depth <n>", "search to a fixed depth per move").argParser(parseNumber);
}

/** compete's `--verbose` (spsa's names the environment variables too). */
export function verboseOption(): Option {
  return new Option("--verbose", "on an error, print its stack trace too");
}
