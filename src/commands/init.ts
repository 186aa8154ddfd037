import { readInputFile } from "../core/input-file.js";
import { InputError } from "../core/errors.js";
import { paramsFromConstants } from "../params/from-constants.js";
import {
  formatParamsToml,
  writeParamsFile,
  type ParamEntry,
  type ParamsOutputOptions,
} from "../params/params-writer.js";
import { BatchEngine } from "../texel/batch-engine.js";
import { paramsFromUciOptions } from "../params/uci-options.js";
import { pickEntries, type EntryPick } from "../params/pick-entries.js";
import { DEFAULT_PARAMS_FILE } from "./master.js";

export interface InitCommandOptions extends ParamsOutputOptions, EntryPick {
  /** The engine's constants file (build mode). */
  constants?: string;
  /** An engine binary whose `uci` spin options become the parameters (UCI-option mode). */
  engine?: string;
}

/**
 * `spsa init`: a starting params.toml with every tunable literal of a constants file, or every
 * spin option of an engine; with --only or --match, those picked.
 */
export async function initCommand(options: InitCommandOptions): Promise<void> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  if ((options.constants === undefined) === (options.engine === undefined))
    throw new InputError("spsa init", "give either --constants FILE or --engine PATH");
  const source = options.engine ?? options.constants ?? "";
  const {
    entries: proposed,
    skipped,
    header,
    skippedTitle,
  } = options.engine !== undefined ? await fromEngine(options.engine) : fromConstants(source);
  const entries = pickEntries(proposed, options, source);
  const footer = skipped.length === 0 ? [] : [skippedTitle, ...skipped.map((line) => `  ${line}`)];
  const out = options.out ?? DEFAULT_PARAMS_FILE;
  writeParamsFile(out, formatParamsToml(header, entries, footer), options.force ?? false);
  const count = entries.length === proposed.length ? `${entries.length}` : `${entries.length} of ${proposed.length}`;
  log(
    `${out}: ${count} parameters from ` +
      `${source}${skipped.length > 0 ? `, ${skipped.length} skipped (listed at the end)` : ""}`,
  );
}

interface Proposal {
  entries: ParamEntry[];
  skipped: string[];
  header: string[];
  skippedTitle: string;
}

function fromConstants(file: string): Proposal {
  const { entries, skipped } = paramsFromConstants(readInputFile(file, "constants file"), file);
  if (entries.length === 0)
    throw new InputError(
      file,
      `has no number literal to tune${skipped.length > 0 ? ` (${skipped.length} constants are not literals)` : ""}`,
    );
  const header = [
    `Starting parameters for the SPSA tuner, written by spsa init from ${file}.`,
    "Every number literal of the file is here: delete what should not be tuned, and set each min, max and step",
    "to a range you believe in (the proposals only follow the value). Keys are explained in " +
      "docs/configuration.md (params.toml).",
  ];
  return { entries, skipped, header, skippedTitle: "Skipped: not a number literal the tuner can rewrite." };
}

async function fromEngine(path: string): Promise<Proposal> {
  const engine = await BatchEngine.start(path);
  let lines: string[];
  try {
    lines = await engine.optionLines();
  } finally {
    await engine.close();
  }
  const { entries, skipped } = paramsFromUciOptions(lines, path);
  if (entries.length === 0)
    throw new InputError(
      path,
      `has no spin option to tune${skipped.length > 0 ? ` (${skipped.length} skipped: ${skipped.join("; ")})` : ""}`,
    );
  const header = [
    `Starting parameters for UCI-option tuning ([engine] mode = "options"), written by spsa init from ${path}.`,
    "Every spin option of its uci reply is here, as an int in the option's own units: delete what should not be",
    "tuned, and set each min, max and step to a range you believe in (the proposals only follow the default).",
  ];
  return { entries, skipped, header, skippedTitle: "Skipped:" };
}
