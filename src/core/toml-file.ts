import { readFileSync } from "node:fs";
import { parse, TomlError } from "smol-toml";
import { InputError } from "./errors.js";

export type TomlTable = Record<string, unknown>;

export interface TomlDocument {
  file: string;
  text: string;
  data: TomlTable;
}

/** Reads and parses a TOML file; a missing file or a syntax error becomes an InputError with the line. */
export function readTomlFile(file: string): TomlDocument {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "file not found" : String(error);
    throw new InputError(file, reason);
  }
  return { file, text, data: parseToml(file, text) };
}

export function parseToml(file: string, text: string): TomlTable {
  try {
    return parse(text) as TomlTable;
  } catch (error) {
    if (error instanceof TomlError) {
      const firstLine = error.message.split("\n")[0]?.replace(/^Invalid TOML document: /, "") ?? "invalid TOML";
      throw new InputError(`${file}:${error.line}`, `TOML syntax error: ${firstLine}`);
    }
    throw error;
  }
}

/**
 * The 1-based line of `key` inside table `[table]` (or at top level when table is undefined),
 * found by scanning the text: smol-toml gives no positions for valid documents.
 */
export function lineOf(text: string, table: string | undefined, key?: string): number | undefined {
  const lines = text.split("\n");
  let inTable = table === undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? "").trim();
    const header = /^\[\s*([^\]]+?)\s*\]/.exec(line);
    if (header) {
      if (inTable && key !== undefined && table !== undefined) return undefined;
      inTable = header[1] === table || header[1] === `"${table}"`;
      if (inTable && key === undefined) return i + 1;
      continue;
    }
    if (inTable && key !== undefined && new RegExp(`^"?${escapeRegExp(key)}"?\\s*=`).test(line)) return i + 1;
  }
  return undefined;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** `file: [table].key (line N)` — the `where` of every validation error. */
export function describeKey(doc: TomlDocument, table: string | undefined, key?: string): string {
  if (table === undefined && key !== undefined) {
    // A top-level name is either `key = …` or a `[key]` table header.
    const keyLine = lineOf(doc.text, undefined, key);
    const headerLine = keyLine === undefined ? lineOf(doc.text, key) : undefined;
    return `${doc.file}: ${headerLine === undefined ? key : `[${key}]`}${lineSuffix(keyLine ?? headerLine)}`;
  }
  const path = key === undefined ? `[${table}]` : `[${table}].${key}`;
  // A missing key is reported at its table's header.
  const line = lineOf(doc.text, table, key) ?? lineOf(doc.text, table);
  return `${doc.file}: ${path}${lineSuffix(line)}`;
}

function lineSuffix(line: number | undefined): string {
  return line === undefined ? "" : ` (line ${line})`;
}

/**
 * Problems in reading order: those of `file` (`file: [table].key (line N)`) by line, then the
 * others (another file's, e.g. the constants file's) as they came.
 */
export function inFileOrder<P extends { where: string }>(problems: readonly P[], file: string): P[] {
  const rank = (p: P) => {
    if (p.where !== file && !p.where.startsWith(`${file}: `)) return Infinity;
    return Number(/\(line (\d+)\)$/.exec(p.where)?.[1] ?? 0);
  };
  return problems
    .map((p, i) => ({ p, i, rank: rank(p) }))
    .sort((x, y) => x.rank - y.rank || x.i - y.i)
    .map((x) => x.p);
}
