import { InputError } from "../core/errors.js";
import { parseToml } from "../core/toml-file.js";
import { formerElementName } from "./element-names.js";
import { parseParams, type Param } from "./params.js";

/** A table header `[name]` or array-of-tables header `[[name]]`, possibly with a trailing comment. */
const HEADER = /^\s*\[(\[?)\s*([^[\]]*?)\s*\]\]?\s*(?:#[^\n]*)?$/;
/** `value = <literal>` with optional trailing whitespace and comment (\r included). */
const VALUE_LINE = /^(\s*(?:value|"value")\s*=\s*)([^#\s][^#]*?)(\s*(?:#[^\n]*)?)$/;

/**
 * Rewrites the `value = …` line of each named parameter table in params.toml text, keeping
 * every other byte (comments, order, spacing, line endings). A name with no table of its own
 * may be the former name of a table's element (formerElementName: `KNIGHT_VALUE_0` for
 * `[KNIGHT_VALUE_MG]`, constant KNIGHT_VALUE, index 0), as a run started from an older
 * params.toml holds it. Throws an InputError when a table or its `value` key is missing. Only
 * the `[NAME]` + `value = …` layout is supported.
 */
export function updateParamValues(text: string, values: Readonly<Record<string, number>>, fileName: string): string {
  const lines = text.split("\n");
  const { pending, seenTables } = rewriteValueLines(lines, values, fileName);
  if (pending.size > 0) {
    const tables = tablesByFormerName(text, fileName);
    const again = [...pending].flatMap((name) => {
      const table = tables.get(name);
      return table === undefined || table in values ? [] : [{ name, table }];
    });
    if (again.length > 0) {
      rewriteValueLines(lines, Object.fromEntries(again.map((a) => [a.table, values[a.name] ?? Number.NaN])), fileName);
      for (const { name } of again) pending.delete(name);
    }
  }
  for (const name of pending) {
    throw new InputError(
      `${fileName}: [${name}]`,
      seenTables.has(name) ? "has no `value = …` line to update" : "table not found",
    );
  }
  return lines.join("\n");
}

/** Rewrites `lines` in place; returns the names whose value line was not found, and the tables seen. */
function rewriteValueLines(
  lines: string[],
  values: Readonly<Record<string, number>>,
  fileName: string,
): { pending: Set<string>; seenTables: Set<string> } {
  const pending = new Set(Object.keys(values));
  const seenTables = new Set<string>();
  let table: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    // Only a line whose first character is `[` can be a header, and only `v` or `"` start a value line:
    // the expressions run on those alone (a params.toml of 10,000 parameters has 70,000 lines).
    const first = line.trimStart()[0];
    const header = first === "[" ? HEADER.exec(line) : null;
    if (header) {
      // `[A.meta]` or `[[A]]` is not parameter A's table, so it ends A's table too.
      table = header[1] === "[" ? undefined : unquote(header[2] ?? "");
      if (table !== undefined) seenTables.add(table);
      continue;
    }
    const match =
      table !== undefined && (first === "v" || first === '"') && pending.has(table) ? VALUE_LINE.exec(line) : null;
    if (match && table !== undefined) {
      const value = values[table] ?? Number.NaN;
      lines[i] = `${match[1]}${formatTomlNumber(value, `${fileName}: [${table}].value`)}${match[3]}`;
      pending.delete(table);
    }
  }
  return { pending, seenTables };
}

/** Each element table's former name (formerElementName) and the table; empty when the text is no params.toml. */
function tablesByFormerName(text: string, fileName: string): Map<string, string> {
  let params: Param[];
  try {
    params = parseParams({ file: fileName, text, data: parseToml(fileName, text) });
  } catch {
    return new Map();
  }
  return new Map(
    params.flatMap((p) => {
      const former = formerElementName(p);
      return former === undefined || former === p.name ? [] : [[former, p.name] as const];
    }),
  );
}

function unquote(key: string): string {
  return /^"[^"\\]*"$/.test(key) ? key.slice(1, -1) : key;
}

/**
 * A TOML number for θ that reads back as exactly the same double: JavaScript's shortest
 * round-trip form (`0.30000000000000004`, `1e-7`, `-2.5e+300`), which is valid TOML as it
 * is, except for integers beyond 2^53, whose digits TOML would read as an integer (and
 * refuse past 2^63): those are written as floats in exponent form.
 */
export function formatTomlNumber(value: number, where: string): string {
  if (!Number.isFinite(value)) throw new InputError(where, `cannot write ${value} as a parameter value`);
  // `+ 0` turns -0 into 0.
  const number = value + 0;
  return Number.isInteger(number) && !Number.isSafeInteger(number) ? number.toExponential() : String(number);
}
