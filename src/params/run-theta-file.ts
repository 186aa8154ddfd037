import { InputError } from "../core/errors.js";
import { isTable } from "../core/table-reader.js";
import { describeKey, type TomlDocument } from "../core/toml-file.js";
import { withStoredNames } from "./element-names.js";
import { readParams } from "./params.js";
import type { Values } from "../types/spsa.js";

/**
 * Where a params.toml does not hold a run's θ: each parameter the run tunes that the file has no
 * table for, or whose `value` is not the run's θ (compared exactly: the master writes θ in a form
 * that reads back as the same double, src/params/params-update.ts formatTomlNumber). A table may
 * hold the parameter under its element's new name (withStoredNames). Tables the run does not tune
 * are not looked at (a parameter joins a run when its master next starts). Empty: the file holds θ.
 *
 * Nothing in the database records which file a run's master writes (its path would not name one
 * file across machines anyway), so `spsa undo` knows the run's params file by this: it holds the
 * run's θ as the master last wrote it.
 */
export function thetaMismatches(doc: TomlDocument, theta: Values, runName: string): InputError[] {
  // The tables as the run names them; a table with a problem of its own still has its value compared.
  const tables = readParams(doc).targets.map((t) => ({
    name: t.param,
    table: t.param,
    constant: t.constant,
    index: t.index,
  }));
  const byRunName = new Map(withStoredNames(tables, theta).params.map((t) => [t.name, t.table]));
  const problems: InputError[] = [];
  for (const [name, value] of Object.entries(theta)) {
    const table = byRunName.get(name) ?? (isTable(doc.data[name]) ? name : undefined);
    if (table === undefined) {
      problems.push(new InputError(`${doc.file}: [${name}]`, `table not found; run "${runName}" tunes ${name}`));
      continue;
    }
    const written = (doc.data[table] as Record<string, unknown>).value;
    if (written === value) continue;
    problems.push(
      new InputError(
        describeKey(doc, table, "value"),
        `${typeof written === "number" ? written : "no number"}, but run "${runName}"'s θ of ${name} is ${value}`,
      ),
    );
  }
  return problems;
}
