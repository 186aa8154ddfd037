import { basename } from "node:path";
import { Command, InvalidArgumentError, Option } from "commander";
import type { EngineSpec } from "../play/engine-process.js";
import { DEFAULT_MAX_REPLAYS, OUTSIDE_DELAY_POLICIES, outsideDelayPolicy } from "../play/outside-delay.js";
import { parseTimeControl } from "../play/time-control.js";
import { depthOption, nodesOption, sprtOption, verboseOption } from "./options.js";
import { collect, parseCount, parseNumber, parseOption, parseSprt } from "./parsers.js";
import { runCommand } from "./run.js";
import { abortOnSignals } from "./stop-signals.js";
import { packageVersion } from "./version.js";

interface MatchFlags {
  games: number;
  concurrency?: number;
  timelow?: number;
  timehigh?: number;
  tc?: string;
  nodes?: number;
  depth?: number;
  book?: string;
  bookPlies?: number;
  bookOrder: "random" | "sequential";
  randomPlies?: number;
  pgn?: string;
  sprt?: string[];
  seed?: string;
  margin?: number;
  outsideDelay: (typeof OUTSIDE_DELAY_POLICIES)[number];
  maxReplays: number;
  optionA: string[];
  optionB: string[];
}

export function buildCompeteProgram(): Command {
  const program = new Command("compete")
    .description(
      "Play an engine match in game pairs (same opening, colours swapped); `compete --spsa --help` for the SPSA worker",
    )
    .version(packageVersion())
    .argument("<engineA>", "engine A: PATH or PATH:Name=Value,Name=Value (UCI options)")
    .argument("<engineB>", "engine B, as engine A")
    .requiredOption("-g, --games <n>", "games to play (even)", parseNumber)
    .option("-c, --concurrency <n>", "games at once (default: number of cores)", parseNumber);
  addMoveLimitOptions(program);
  addOpeningOptions(program);
  program
    .option("--pgn <file>", "write the games to this PGN file")
    .addOption(sprtOption())
    .option("--seed <seed>", "seed for openings and times (same seed, same schedule)");
  addTimeLossOptions(program);
  return program
    .option("--option-a <name=value>", "UCI option for engine A (repeatable)", collect, [])
    .option("--option-b <name=value>", "UCI option for engine B (repeatable)", collect, [])
    .addOption(verboseOption())
    .showHelpAfterError()
    .exitOverride()
    .action(playMatch);
}

/** How long a move may take: a time per move drawn per pair, a clock, or a fixed search. */
function addMoveLimitOptions(program: Command): void {
  program
    .option(
      "--timelow <s>",
      "lowest time per move in seconds; each pair draws one in [timelow, timehigh] (default 0.05)",
      parseNumber,
    )
    .option("--timehigh <s>", "highest time per move in seconds (default max(timelow, 0.2))", parseNumber)
    .option("--tc <tc>", "clock instead of time per move: SECONDS[+INC] or MOVES/SECONDS[+INC], e.g. 10+0.1, 40/60+0.5")
    .addOption(nodesOption())
    .addOption(depthOption());
}

/** Where each game starts: the book, how much of it, in which order, and random plies after it. */
function addOpeningOptions(program: Command): void {
  program
    .option(
      "--book <file>",
      "opening book, EPD or PGN (.gz too), or a shipped book: balanced (the default) or openings (276 named ones)",
    )
    .option("--book-plies <n>", "PGN books: play at most this many plies of each game", parseNumber)
    .option(
      "--book-order <order>",
      "random (a seeded shuffle: no opening twice until all are played) or sequential",
      "random",
    )
    .option(
      "--random-plies <n>",
      "after each opening, play this many random legal plies (varied games for Texel data)",
      parseCount,
    );
}

/** When an overrun loses on time, and what a loss to a busy machine costs. */
function addTimeLossOptions(program: Command): void {
  program
    .option("--margin <ms>", "a move may exceed its time by this much before it loses on time", parseNumber, 50)
    .addOption(
      new Option(
        "--outside-delay <policy>",
        "a game lost on time only to a delay outside the engine (a busy machine): loss, or replay it",
      )
        .choices(OUTSIDE_DELAY_POLICIES)
        .default("loss"),
    )
    .option(
      "--max-replays <n>",
      "with --outside-delay replay: replays per pair before such a loss is scored (0 or more)",
      parseCount,
      DEFAULT_MAX_REPLAYS,
    );
}

async function playMatch(engineA: string, engineB: string, flags: MatchFlags): Promise<void> {
  const { matchCommand } = await import("../commands/match.js");
  const [a, b] = engineSpecs(engineA, engineB, flags.optionA, flags.optionB);
  if (flags.bookOrder !== "random" && flags.bookOrder !== "sequential") {
    throw new InvalidArgumentError(`--book-order must be random or sequential, got "${flags.bookOrder}"`);
  }
  await matchCommand({
    engineA: a,
    engineB: b,
    games: flags.games,
    concurrency: flags.concurrency,
    timelow: flags.timelow,
    timehigh: flags.timehigh,
    tc: flags.tc === undefined ? undefined : parseTimeControl(flags.tc),
    nodes: flags.nodes,
    depth: flags.depth,
    book: flags.book,
    bookPlies: flags.bookPlies,
    bookOrder: flags.bookOrder,
    randomPlies: flags.randomPlies,
    pgn: flags.pgn,
    sprt: flags.sprt === undefined ? undefined : parseSprt(flags.sprt),
    seed: flags.seed,
    timeMarginMs: flags.margin,
    outsideDelay: outsideDelayPolicy(flags.outsideDelay, flags.maxReplays),
    signal: abortOnSignals().signal,
  });
}

/**
 * `PATH` or `PATH:Hash=16,Threads=1`, plus repeated --option-a/--option-b. Names are the
 * file names; when both are the same, " (A)" and " (B)" tell them apart.
 */
export function engineSpecs(
  textA: string,
  textB: string,
  optionsA: string[] = [],
  optionsB: string[] = [],
): [EngineSpec, EngineSpec] {
  const parse = (text: string, extra: string[]): EngineSpec => {
    const colon = text.indexOf(":");
    const hasOptions = colon > 0 && text.slice(colon + 1).includes("=");
    const path = hasOptions ? text.slice(0, colon) : text;
    const inline = hasOptions ? text.slice(colon + 1).split(",") : [];
    return { name: basename(path), path, options: Object.fromEntries([...inline, ...extra].map(parseOption)) };
  };
  const a = parse(textA, optionsA);
  const b = parse(textB, optionsB);
  if (a.name === b.name) {
    a.name += " (A)";
    b.name += " (B)";
  }
  return [a, b];
}

/** `compete --spsa …` is the SPSA worker; anything else is a match. */
export async function main(argv: string[]): Promise<void> {
  await runCommand(async () => {
    const program = argv.includes("--spsa")
      ? (await import("./compete-spsa.js")).buildWorkerProgram()
      : buildCompeteProgram();
    await program.parseAsync(argv);
  }, argv);
}
