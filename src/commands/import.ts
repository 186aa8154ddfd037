import { DEFAULT_C_END } from "../config/config.js";
import { readInputFile } from "../core/input-file.js";
import { InputError } from "../core/errors.js";
import {
  formatParamsToml,
  writeParamsFile,
  type ParamEntry,
  type ParamsOutputOptions,
} from "../params/params-writer.js";
import { parseToolLines } from "../export/tool-formats.js";
import { optionalConfig } from "./database-options.js";
import { DEFAULT_PARAMS_FILE } from "./master.js";

export interface ImportCommandOptions extends ParamsOutputOptions {
  config?: string;
  /** OpenBench or fishtest SPSA input lines. */
  file: string;
}

/**
 * `spsa import FILE`: OpenBench or fishtest SPSA lines into a params.toml. Their c_end is in
 * parameter units; step = c_end / [spsa] c_end of config.toml, so that the perturbation at
 * the last iteration is the one the lines asked for (12 digits: 0.15 / 1.5 is 0.1, not 0.09999999999999999).
 */
export async function importCommand(options: ImportCommandOptions): Promise<void> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const spsa = optionalConfig(options.config)?.spsa;
  const cEnd = spsa?.cEnd ?? DEFAULT_C_END;
  const lines = parseToolLines(readInputFile(options.file, "file"), options.file);
  if (lines.length === 0) throw new InputError(options.file, "holds no parameter lines");
  const entries: ParamEntry[] = lines.map(({ param }) => ({
    ...param,
    step: Number((param.cEnd / cEnd).toPrecision(12)),
    stepNote: `c_end ${param.cEnd} / [spsa] c_end ${cEnd}`,
  }));
  const rEnds = [...new Set(lines.map((l) => l.param.rEnd))];
  const header = [
    `Imported by spsa import from ${options.file} (${[...new Set(lines.map((l) => l.format))].join(" and ")} lines).`,
    `step = the line's c_end / [spsa] c_end (${cEnd}); r_end of the lines: ${rEnds.join(", ")} (one ` +
      `r_end per run here: [spsa] r_end${spsa ? ` = ${spsa.rEnd}` : ""}).`,
    "constant = the table name: add constant and index where the engine's constant is named otherwise.",
  ];
  const out = options.out ?? DEFAULT_PARAMS_FILE;
  writeParamsFile(out, formatParamsToml(header, entries), options.force ?? false);
  log(`${out}: ${entries.length} parameters from ${options.file}`);
}
