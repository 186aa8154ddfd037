import { existsSync } from "node:fs";
import type { Param } from "./params.js";
import { formatTomlNumber } from "./params-update.js";
import { parseParams } from "./params.js";
import { parseToml } from "../core/toml-file.js";
import { writeFileAtomic } from "../core/write-atomic.js";
import { InputError } from "../core/errors.js";

/** Where a command that writes a params.toml writes it (default params.toml), and whether it may replace a file. */
export interface ParamsOutputOptions {
  out?: string;
  force?: boolean;
  log?: (line: string) => void;
}

/** One table of a generated params.toml, with the comments that say where its numbers came from. */
export interface ParamEntry {
  name: string;
  type: "int" | "float";
  value: number;
  min: number;
  max: number;
  step: number;
  /** Set when the table name is not the constant's name. */
  constant?: string;
  index?: number[];
  /** The engine's UCI option (UCI-option mode). */
  option?: string;
  /** Comment lines above the table. */
  about?: string[];
  /** Trailing comments of the min and step lines. */
  boundsNote?: string;
  stepNote?: string;
}

/** params.toml text: a comment header, then one table per entry, then trailing comment lines. */
export function formatParamsToml(
  header: readonly string[],
  entries: readonly ParamEntry[],
  footer: readonly string[] = [],
): string {
  const number = (e: ParamEntry, key: string, x: number) => formatTomlNumber(x, `[${e.name}].${key}`);
  const note = (text: string | undefined) => (text === undefined ? "" : `  # ${text}`);
  const tables = entries.map((e) =>
    [
      ...(e.about ?? []).map((line) => `# ${line}`),
      `[${e.name}]`,
      ...(e.constant === undefined ? [] : [`constant = "${e.constant}"`]),
      ...(e.index === undefined || e.index.length === 0
        ? []
        : [`index = ${e.index.length === 1 ? e.index[0] : `[${e.index.join(", ")}]`}`]),
      ...(e.option === undefined ? [] : [`option = "${e.option}"`]),
      `type = "${e.type}"`,
      `value = ${number(e, "value", e.value)}`,
      `min = ${number(e, "min", e.min)}${note(e.boundsNote)}`,
      `max = ${number(e, "max", e.max)}`,
      `step = ${number(e, "step", e.step)}${note(e.stepNote)}`,
    ].join("\n"),
  );
  const comments = (lines: readonly string[]) => lines.map((line) => (line === "" ? "#" : `# ${line}`)).join("\n");
  return `${[comments(header), ...tables, ...(footer.length > 0 ? [comments(footer)] : [])].join("\n\n")}\n`;
}

/**
 * Writes a generated params.toml after reading it back as `spsa master` would (so a file
 * this tool writes always loads), atomically, never over an existing file unless `force`.
 */
export function writeParamsFile(file: string, text: string, force: boolean): Param[] {
  if (!force && existsSync(file))
    throw new InputError(file, "already exists; choose another --out or pass --force to replace it");
  const params = parseParams({ file, text, data: parseToml(file, text) });
  writeFileAtomic(file, text, { mode: 0o644 });
  return params;
}
