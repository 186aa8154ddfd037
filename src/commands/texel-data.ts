import { loadConfig } from "../config/config.js";
import { readInputFile } from "../core/input-file.js";
import { writeFileAtomic } from "../core/write-atomic.js";
import { InputError } from "../core/errors.js";
import { seededRng } from "../core/rng.js";
import { texelEngine } from "../texel/engine-path.js";
import { deduplicate, extractPositions, formatPositions, shuffle, type LabelledPosition } from "../texel/positions.js";
import { quietPositions } from "../texel/quiet.js";
import { DEFAULT_CONFIG_FILE } from "./database-options.js";

export interface TexelDataCommandOptions {
  config?: string;
  pgn: string[];
  out: string;
  /** Opening plies of each game left out (default 8). */
  skipPlies?: number;
  /** Keep only positions whose static evaluation equals the quiescence score (needs the engine). */
  quiet?: boolean;
  engine?: string;
  seed?: string;
  processes?: number;
  log?: (line: string) => void;
}

export interface TexelDataSummary {
  games: number;
  extracted: number;
  unique: number;
  written: number;
}

export const DEFAULT_SKIP_PLIES = 8;

/** `spsa texel-data`: labelled positions from PGN games, deduplicated, shuffled, optionally quiet only. */
export async function texelDataCommand(options: TexelDataCommandOptions): Promise<TexelDataSummary> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const skipPlies = options.skipPlies ?? DEFAULT_SKIP_PLIES;
  if (!Number.isInteger(skipPlies) || skipPlies < 0)
    throw new InputError("--skip-plies", `must be a whole number of at least 0, got ${skipPlies}`);
  if (options.pgn.length === 0) throw new InputError("texel-data", "no PGN file given");
  // The engine is resolved before the PGNs are read, so a missing build fails at once.
  const engine = options.quiet
    ? texelEngine(options.engine, () => loadConfig(options.config ?? DEFAULT_CONFIG_FILE).build)
    : undefined;
  let games = 0;
  const all: LabelledPosition[] = [];
  for (const file of options.pgn) {
    const extracted = extractPositions(readInputFile(file, "PGN file"), file, { skipPlies });
    games += extracted.games;
    all.push(...extracted.positions);
  }
  const unique = deduplicate(all);
  const kept = engine === undefined ? unique : await quietPositions(engine, unique, options.processes);
  shuffle(kept, seededRng(options.seed ?? "texel-data"));
  writeFileAtomic(options.out, formatPositions(kept), { mode: 0o644 });
  log(
    `${options.out}: ${kept.length} positions from ${games} games (${all.length} after skipping ` +
      `${skipPlies} plies and checks, ${unique.length} unique${engine === undefined ? "" : `, ${kept.length} quiet`})`,
  );
  return { games, extracted: all.length, unique: unique.length, written: kept.length };
}
