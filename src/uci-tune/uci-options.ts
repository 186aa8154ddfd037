import type { ParamEntry } from "../export/params-writer.js";
import { proposeRange } from "../export/constants-to-params.js";

/**
 * params.toml entries from an engine's `uci` reply (`spsa init --engine`): every spin option
 * but those that set up the engine rather than its play (hash, threads, tablebases, …).
 */

/** Options that configure the engine or the user's session, not its play: never tuned. */
const SETUP_OPTIONS = new Set(["hash", "threads", "multipv", "move overhead", "minimum thinking time", "slow mover", "nodestime", "skill level"]);
const SETUP_PREFIXES = ["uci_", "syzygy"];

const SPIN = /^option name (.+?) type spin default (-?\d+) min (-?\d+) max (-?\d+)\s*$/;

export function paramsFromUciOptions(lines: readonly string[], engine: string): { entries: ParamEntry[]; skipped: string[] } {
  const entries: ParamEntry[] = [];
  const skipped: string[] = [];
  const taken = new Set<string>();
  for (const line of lines) {
    const name = /^option name (.+?) type /.exec(line)?.[1];
    if (name === undefined) continue;
    if (!/ type spin /.test(line)) continue; // check, combo, string and button options are no numbers to tune
    const lower = name.toLowerCase();
    if (SETUP_OPTIONS.has(lower) || SETUP_PREFIXES.some((prefix) => lower.startsWith(prefix))) {
      skipped.push(`${name}: sets up the engine, not its play`);
      continue;
    }
    const spin = SPIN.exec(line);
    if (!spin) {
      skipped.push(`${name}: cannot read "${line}"`);
      continue;
    }
    const [value, low, high] = [Number(spin[2]), Number(spin[3]), Number(spin[4])];
    if (low >= high) {
      skipped.push(`${name}: its range [${low}, ${high}] holds one value`);
      continue;
    }
    // A table name and default constant must be an identifier: other characters become _.
    const param = name.replace(/[^A-Za-z0-9_]/g, "_").replace(/^(?=\d)/, "_");
    if (taken.has(param)) {
      skipped.push(`${name}: the parameter name ${param} is taken by another option`);
      continue;
    }
    taken.add(param);
    entries.push({
      name: param,
      type: "int",
      value,
      ...proposeRange(value, true, [low, high]),
      option: name,
      about: [`${engine}: option ${name}, spin ${value} in [${low}, ${high}]`],
      boundsNote: "proposed: half to twice the default, within the option's range; edit",
      stepNote: "proposed: 1/20 of [min, max]",
    });
  }
  return { entries, skipped };
}
