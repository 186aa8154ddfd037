import type { ParamEntry } from "./params-writer.js";
import { proposeRange } from "./from-constants.js";

/**
 * params.toml entries from an engine's `uci` reply (`spsa init --engine`): every spin option
 * but those that set up the engine rather than its play (hash, threads, tablebases, …).
 */

/**
 * Kinds of option that configure the engine or the user's session, not its play: never
 * proposed. Matched on the name's words (split at spaces, underscores and camelCase), so
 * `Number of Threads`, `EvalHash` and `Bitbases Cache Size` are caught as well as `Threads`,
 * while a tunable such as `BETA_PRUNE_MAX_DEPTH` or `TIME_HARD_FACTOR` is not.
 */
const SETUP_KINDS: { kind: string; matches: (words: readonly string[], lower: string) => boolean }[] = [
  { kind: "a GUI's UCI_ option", matches: (_, lower) => lower.startsWith("uci_") },
  {
    kind: "threads",
    matches: (words) => hasAny(words, ["threads", "thread", "cpus", "cpu", "cores", "processors", "smp"]),
  },
  { kind: "hash or cache size", matches: (words) => hasAny(words, ["hash", "cache", "memory", "mb", "transposition"]) },
  {
    kind: "endgame tablebases",
    matches: (words) =>
      hasAny(words, ["syzygy", "tablebase", "tablebases", "bitbase", "bitbases", "egtb", "nalimov", "gaviota"]),
  },
  { kind: "multi-PV", matches: (words, lower) => words.includes("multipv") || /multi[ _-]?pv/.test(lower) },
  // A limit named by its own words only: Search Depth, Max Nodes, Depth Limit, Search Time.
  {
    kind: "search limit",
    matches: (words) =>
      words.every((w) => SEARCH_LIMIT_WORDS.has(w)) &&
      hasAny(words, ["depth", "nodes", "time", "movetime", "ply", "plies"]),
  },
  {
    kind: "time management",
    matches: (words) => TIME_SETUP.has(words.join(" ")) || hasAny(words, ["overhead", "nodestime", "latency"]),
  },
  { kind: "pondering", matches: (words) => hasAny(words, ["ponder"]) },
  { kind: "playing strength limit", matches: (words) => hasAny(words, ["skill", "elo", "handicap"]) },
  { kind: "opening book", matches: (words) => hasAny(words, ["book", "ownbook"]) },
  // Not "file": an open file is a chess term (ROOK_OPEN_FILE_BONUS).
  {
    kind: "files and logs",
    matches: (words) =>
      words[0] === "log" || hasAny(words, ["path", "directory", "folder", "logging", "debug", "verbose", "verbosity"]),
  },
];
const SEARCH_LIMIT_WORDS = new Set([
  "search",
  "max",
  "maximum",
  "fixed",
  "limit",
  "depth",
  "nodes",
  "time",
  "movetime",
  "ply",
  "plies",
  "per",
  "move",
]);
const TIME_SETUP = new Set(["minimum thinking time", "slow mover"]);

function hasAny(words: readonly string[], wanted: readonly string[]): boolean {
  return wanted.some((w) => words.includes(w));
}

/** `Number of Threads` → number, of, threads; `EvalHash` → eval, hash; `LMR_MIN_DEPTH` → lmr, min, depth. */
function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "");
}

/** Why an option is left out as engine set-up, or undefined for a candidate tunable. */
export function setupKind(name: string): string | undefined {
  const words = wordsOf(name);
  const lower = name.toLowerCase();
  return SETUP_KINDS.find((k) => k.matches(words, lower))?.kind;
}

const SPIN = /^option name (.+?) type spin default (-?\d+) min (-?\d+) max (-?\d+)\s*$/;

export function paramsFromUciOptions(
  lines: readonly string[],
  engine: string,
): { entries: ParamEntry[]; skipped: string[] } {
  const entries: ParamEntry[] = [];
  const skipped: string[] = [];
  const taken = new Set<string>();
  for (const line of lines) {
    const name = /^option name (.+?) type /.exec(line)?.[1];
    if (name === undefined) continue;
    if (!/ type spin /.test(line)) continue; // check, combo, string and button options are no numbers to tune
    const kind = setupKind(name);
    if (kind !== undefined) {
      skipped.push(`${name}: sets up the engine, not its play (${kind})`);
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
