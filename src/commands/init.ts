import { readInputFile } from "../config/input-file.js";
import { InputError } from "../errors.js";
import { paramsFromConstants } from "../export/constants-to-params.js";
import { formatParamsToml, writeParamsFile, type ParamsOutputOptions } from "../export/params-writer.js";
import { DEFAULT_PARAMS_FILE } from "./master.js";

export interface InitCommandOptions extends ParamsOutputOptions {
  /** The engine's constants file. */
  constants: string;
}

/** `spsa init`: a starting params.toml with every tunable literal of an engine's constants file. */
export async function initCommand(options: InitCommandOptions): Promise<void> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const { entries, skipped } = paramsFromConstants(readInputFile(options.constants, "constants file"), options.constants);
  if (entries.length === 0) throw new InputError(options.constants, `has no number literal to tune${skipped.length > 0 ? ` (${skipped.length} constants are not literals)` : ""}`);
  const header = [
    `Starting parameters for the SPSA tuner, written by spsa init from ${options.constants}.`,
    "Every number literal of the file is here: delete what should not be tuned, and set each min, max and step",
    "to a range you believe in (the proposals only follow the value). Keys are explained in the README (params.toml).",
  ];
  const footer = skipped.length === 0 ? [] : ["Skipped: not a number literal the tuner can rewrite.", ...skipped.map((line) => `  ${line}`)];
  const out = options.out ?? DEFAULT_PARAMS_FILE;
  writeParamsFile(out, formatParamsToml(header, entries, footer), options.force ?? false);
  log(`${out}: ${entries.length} parameters from ${options.constants}${skipped.length > 0 ? `, ${skipped.length} skipped (listed at the end)` : ""}`);
}
