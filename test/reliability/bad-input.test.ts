import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyMigrations, connect } from "../../src/postgres/connection.js";
import { compete, ROOT, spsa } from "../support/cli.js";
import { freshDatabase } from "../support/database.js";

/**
 * Bad input of every kind, through the real CLI: each case exits non-zero with a message
 * naming the file and line or key (or the flag), writes no row and changes no file.
 */

const GOOD_PARAMS = `# a comment that must survive
[LMR_MIN_DEPTH]
value = 3
min = 1
max = 6
step = 1
`;

interface Case {
  name: string;
  command: "spsa" | "compete";
  args: (dir: string) => string[];
  files?: Record<string, string>;
  /** Extra environment, e.g. SPSA_HOME inside the case's folder so that its snapshot covers it. */
  env?: (dir: string) => Record<string, string>;
  message: RegExp;
}

const masterArgs = (dir: string) => [
  "--config",
  join(dir, "config.toml"),
  "master",
  "--params",
  join(dir, "params.toml"),
  "--name",
  "bad",
];

const configCase = (name: string, config: string, message: RegExp): Case => ({
  name,
  command: "spsa",
  args: masterArgs,
  files: { "config.toml": config },
  message,
});
const paramsCase = (name: string, params: string, message: RegExp): Case => ({
  name,
  command: "spsa",
  args: masterArgs,
  files: { "params.toml": params },
  message,
});
const constantsCase = (name: string, constants: string, message: RegExp): Case => ({
  name,
  command: "spsa",
  args: masterArgs,
  files: { "engine/src/engine_constants.rs": constants },
  message,
});
const typedCase = (name: string, constants: string, params: string, message: RegExp): Case => ({
  name,
  command: "spsa",
  args: masterArgs,
  files: { "engine/src/engine_constants.rs": constants, "params.toml": params },
  message,
});
const param = (name: string, min: number | string, max: number | string, extra = "") =>
  `[${name}]\n${extra}value = ${min}\nmin = ${min}\nmax = ${max}\nstep = 1\n`;
const flagCase = (name: string, command: Case["command"], args: string[], message: RegExp): Case => ({
  name,
  command,
  args: () => args,
  message,
});

const CASES: Case[] = [
  configCase("config: TOML syntax", "[spsa]\na = = 1\n", /config\.toml:2: TOML syntax error/),
  configCase(
    "config: unknown section",
    "[spssa]\n",
    /config\.toml: \[spssa\] \(line 1\): unknown key \(did you mean `spsa`\?\)/,
  ),
  configCase(
    "config: unknown key",
    "[games]\nbatch_sise = 4\n",
    /\[games\]\.batch_sise \(line 2\): unknown key \(did you mean `batch_size`\?\)/,
  ),
  configCase("config: wrong type", '[spsa]\nalpha = "fast"\n', /\[spsa\]\.alpha \(line 2\): must be a number/),
  configCase(
    "config: c = inf",
    "[spsa]\nc = inf\n",
    /config\.toml: \[spsa\]\.c \(line 2\): must be a finite number, got inf/,
  ),
  configCase(
    "config: alpha = nan",
    "[spsa]\nalpha = nan\n",
    /config\.toml: \[spsa\]\.alpha \(line 2\): must be a finite number, got nan/,
  ),
  configCase("config: negative c", "[spsa]\nc = -0.5\n", /\[spsa\]\.c \(line 2\): must be > 0/),
  configCase("config: alpha above 1", "[spsa]\nalpha = 2\n", /\[spsa\]\.alpha \(line 2\): must be <= 1/),
  configCase(
    "config: zero iterations",
    "[spsa]\nmax_iterations = 0\n",
    /\[spsa\]\.max_iterations \(line 2\): must be >= 1/,
  ),
  configCase(
    "config: timehigh < timelow",
    "[time_control]\ntimelow = 0.5\ntimehigh = 0.1\n",
    /\[time_control\]\.timehigh \(line 3\): must be >= timelow \(0\.5\), got 0\.1/,
  ),
  configCase(
    "config: nodes 0",
    "[time_control]\nnodes = 0\n",
    /\[time_control\]\.nodes \(line 2\): must be >= 1, got 0/,
  ),
  configCase(
    "config: nodes a float",
    "[time_control]\nnodes = 1500.5\n",
    /\[time_control\]\.nodes \(line 2\): must be an integer, got 1500\.5/,
  ),
  configCase(
    "config: depth a string",
    '[time_control]\ndepth = "deep"\n',
    /\[time_control\]\.depth \(line 2\): must be a number, got "deep"/,
  ),
  configCase(
    "config: nodes and depth",
    "[time_control]\nnodes = 2000\ndepth = 6\n",
    /\[time_control\]\.depth \(line 3\): set either nodes or depth, not both/,
  ),
  configCase(
    "config: timelow with nodes",
    "[time_control]\ntimelow = 0.05\nnodes = 2000\n",
    /\[time_control\]\.timelow \(line 2\): applies only to timed games; remove it, or remove nodes \(games are played at nodes = 2000\)/,
  ),
  configCase(
    "config: reference_nps with depth",
    "[time_control]\ndepth = 6\nreference_nps = 1000000\n",
    /\[time_control\]\.reference_nps \(line 3\): applies only to timed games; remove it, or remove depth/,
  ),
  configCase(
    "config: reference_nps 0",
    "[time_control]\nreference_nps = 0\n",
    /\[time_control\]\.reference_nps \(line 2\): must be > 0, got 0/,
  ),
  configCase(
    "config: odd games",
    "[games]\ngames_per_iteration = 7\n",
    /\[games\]\.games_per_iteration \(line 2\): must be even/,
  ),
  configCase("config: missing book", '[games]\nbook = "missing.epd"\n', /\[games\]\.book \(line 2\): file not found/),
  configCase(
    "config: cargo args not strings",
    "[build]\ncargo_args = 5\n",
    /\[build\]\.cargo_args \(line 2\): must be an array of strings/,
  ),
  configCase(
    "config: missing engine crate",
    '[build]\nengine_dir = "nowhere"\n',
    /nowhere\/src\/engine_constants\.rs: cannot read the constants file/,
  ),
  paramsCase("params: TOML syntax", "[P\nvalue = 1\n", /params\.toml:1: TOML syntax error/),
  paramsCase(
    "params: min > max",
    "[LMR_MIN_DEPTH]\nvalue = 3\nmin = 6\nmax = 1\nstep = 1\n",
    /params\.toml: \[LMR_MIN_DEPTH\]\.min \(line 3\): min \(6\) is greater than max \(1\)/,
  ),
  paramsCase(
    "params: value out of bounds",
    "[LMR_MIN_DEPTH]\nvalue = 9\nmin = 1\nmax = 6\nstep = 1\n",
    /\[LMR_MIN_DEPTH\]\.value \(line 2\): 9 is outside \[1, 6\]/,
  ),
  paramsCase(
    "params: zero step",
    "[LMR_MIN_DEPTH]\nvalue = 3\nmin = 1\nmax = 6\nstep = 0\n",
    /\[LMR_MIN_DEPTH\]\.step \(line 5\): must be > 0/,
  ),
  paramsCase(
    "params: min = -inf",
    "[LMR_MIN_DEPTH]\nvalue = 3\nmin = -inf\nmax = 6\nstep = 1\n",
    /params\.toml: \[LMR_MIN_DEPTH\]\.min \(line 3\): must be a finite number, got -inf/,
  ),
  paramsCase(
    "params: max = inf",
    "[LMR_MIN_DEPTH]\nvalue = 3\nmin = 1\nmax = inf\nstep = 1\n",
    /params\.toml: \[LMR_MIN_DEPTH\]\.max \(line 4\): must be a finite number, got inf/,
  ),
  paramsCase(
    "params: step = inf",
    "[LMR_MIN_DEPTH]\nvalue = 3\nmin = 1\nmax = 6\nstep = +inf\n",
    /params\.toml: \[LMR_MIN_DEPTH\]\.step \(line 5\): must be a finite number, got inf/,
  ),
  paramsCase(
    "params: value = nan",
    "[LMR_MIN_DEPTH]\nvalue = nan\nmin = 1\nmax = 6\nstep = 1\n",
    /params\.toml: \[LMR_MIN_DEPTH\]\.value \(line 2\): must be a finite number, got nan/,
  ),
  paramsCase(
    "params: unknown key",
    `${GOOD_PARAMS}vlaue = 2\n`,
    /\[LMR_MIN_DEPTH\]\.vlaue \(line 7\): unknown key \(did you mean `value`\?\)/,
  ),
  paramsCase(
    "params: wrong type",
    "[LMR_MIN_DEPTH]\nvalue = [3]\nmin = 1\nmax = 6\nstep = 1\n",
    /\[LMR_MIN_DEPTH\]\.value \(line 2\): must be a number/,
  ),
  paramsCase(
    "params: duplicate target",
    `${GOOD_PARAMS}[AGAIN]\nconstant = "LMR_MIN_DEPTH"\nvalue = 3\nmin = 1\nmax = 6\nstep = 1\n`,
    /\[AGAIN\] \(line 7\): targets LMR_MIN_DEPTH, which parameter LMR_MIN_DEPTH already targets/,
  ),
  paramsCase(
    "params: bad type name",
    `${GOOD_PARAMS}type = "double"\n`,
    /\[LMR_MIN_DEPTH\]\.type \(line 7\): must be one of "int", "float"/,
  ),
  paramsCase("params: empty", "", /params\.toml: defines no parameters/),
  paramsCase(
    "params: missing constant",
    "[LMR_MIN_DPETH]\nvalue = 3\nmin = 1\nmax = 6\nstep = 1\n",
    /params\.toml: \[LMR_MIN_DPETH\] \(line 1\): no constant LMR_MIN_DPETH in \S*engine_constants\.rs \(did you mean `LMR_MIN_DEPTH`\?\); without constant = "…", a table's name is its constant/,
  ),
  constantsCase(
    "constants: derived constant",
    "pub const LMR_MIN_DEPTH: u8 = OTHER + 1;\npub const OTHER: u8 = 2;\n",
    /engine_constants\.rs:1: parameter LMR_MIN_DEPTH \(constant LMR_MIN_DEPTH\): LMR_MIN_DEPTH is not a literal: it is an expression \(`OTHER \+ 1`\)/,
  ),
  constantsCase(
    "constants: defined twice",
    "pub const LMR_MIN_DEPTH: u8 = 3;\npub const LMR_MIN_DEPTH: u8 = 4;\n",
    /engine_constants\.rs:1: parameter LMR_MIN_DEPTH \(constant LMR_MIN_DEPTH\): constant LMR_MIN_DEPTH is defined 2 times \(lines 1, 2\)/,
  ),
  constantsCase(
    "constants: const fn value",
    "pub const LMR_MIN_DEPTH: u8 = depth(3);\n",
    /engine_constants\.rs:1: parameter LMR_MIN_DEPTH \(constant LMR_MIN_DEPTH\): LMR_MIN_DEPTH is not a literal: it is built by a function call \(`depth\(3\)`\)/,
  ),
  constantsCase(
    "constants: float literal for an int param",
    "pub const LMR_MIN_DEPTH: f64 = 3.5;\n",
    /engine_constants\.rs:1: parameter LMR_MIN_DEPTH \(constant LMR_MIN_DEPTH\): LMR_MIN_DEPTH is a float literal \(`3\.5`\) but the parameter's type is "int"/,
  ),
  constantsCase(
    "constants: a bool",
    "pub const LMR_MIN_DEPTH: bool = false;\n",
    /engine_constants\.rs:1: parameter LMR_MIN_DEPTH \(constant LMR_MIN_DEPTH\): LMR_MIN_DEPTH is a bool \(`false`\), not a number/,
  ),
  constantsCase(
    "constants: N of a const generic",
    "pub fn pick<const LMR_MIN_DEPTH: usize>() -> usize { LMR_MIN_DEPTH }\npub const AFTER: i32 = 42;\n",
    /params\.toml: \[LMR_MIN_DEPTH\] \(line 2\): no constant LMR_MIN_DEPTH in \S*engine_constants\.rs;/,
  ),
  paramsCase(
    "ranges: u8 max 300",
    param("LMR_MIN_DEPTH", 1, 300),
    /engine_constants\.rs:1: parameter LMR_MIN_DEPTH \(constant LMR_MIN_DEPTH\): max = 300 is outside u8 \(0 to 255\)/,
  ),
  paramsCase(
    "ranges: u8 min -5",
    param("LMR_MIN_DEPTH", -5, 6),
    /engine_constants\.rs:1: parameter LMR_MIN_DEPTH \(constant LMR_MIN_DEPTH\): min = -5 is outside u8 \(0 to 255\)/,
  ),
  typedCase(
    "ranges: f32 overflow through an alias",
    "pub type Ratio = f32;\npub const LMR_MIN_DEPTH: u8 = 3;\npub const RATIO: Ratio = 0.5;\n",
    `${GOOD_PARAMS}${param("RATIO", 0, "1e39", 'type = "float"\n')}`,
    /engine_constants\.rs:3: parameter RATIO \(constant RATIO\): max = 1e\+39 is outside f32/,
  ),
  {
    ...typedCase(
      "ranges: an alias from another module of the crate",
      "use crate::types::Score;\npub const LMR_MIN_DEPTH: u8 = 3;\npub const PAIR: (Score, Score) = (1, 2);\n",
      `${GOOD_PARAMS}${param("PAIR_EG", 0, 40000, 'constant = "PAIR"\nindex = 1\n')}`,
      /engine_constants\.rs:3: parameter PAIR_EG \(constant PAIR\[1\]\): max = 40000 is outside i16 \(-32768 to 32767\)/,
    ),
    files: {
      "engine/src/engine_constants.rs":
        "use crate::types::Score;\npub const LMR_MIN_DEPTH: u8 = 3;\npub const PAIR: (Score, Score) = (1, 2);\n",
      "engine/src/types.rs": "pub type Score = i16;\n",
      "params.toml": `${GOOD_PARAMS}${param("PAIR_EG", 0, 40000, 'constant = "PAIR"\nindex = 1\n')}`,
    },
  },
  typedCase(
    "ranges: an alias nowhere in the crate",
    "use other_crate::Eval;\npub const LMR_MIN_DEPTH: Eval = 3;\n",
    GOOD_PARAMS,
    /engine_constants\.rs:2: .*no `type Eval = …;` was found in the crate; state it in params\.toml, e\.g\. rust_type = "i32"/,
  ),
  typedCase(
    "ranges: every bad parameter at once",
    "pub type Score = i32;\npub const LMR_MIN_DEPTH: u8 = 3;\npub const KNIGHT_VALUE_PAIR: (Score, Score) = (320, 300);\npub const BIG: i64 = 1;\n",
    `${param("LMR_MIN_DEPTH", 1, 300)}${param("KNIGHT", 0, 900, 'constant = "KNIGHT_VALUE"\nindex = 0\n')}${param("BIG", 0, "9.007199254740992e15")}`,
    new RegExp(
      [
        "^error: .*params\\.toml: \\[KNIGHT\\]\\.constant \\(line 7\\): no constant KNIGHT_VALUE in \\S*engine_constants\\.rs \\(did you mean `KNIGHT_VALUE_PAIR`\\?\\)",
        "error: .*engine_constants\\.rs:2: parameter LMR_MIN_DEPTH \\(constant LMR_MIN_DEPTH\\): max = 300 is outside u8 \\(0 to 255\\)",
        "error: .*engine_constants\\.rs:4: parameter BIG \\(constant BIG\\): \\[min, max\\] = \\[0, 9007199254740992\\] reaches integers outside the range a float64 holds exactly",
      ].join("\n"),
    ),
  ),
  typedCase(
    "params: four mistakes, all named in one run",
    [
      "pub const LMR_MIN_DEPTH: u8 = 3;",
      "pub const NULL_MOVE_MIN_DEPTH: u8 = 2;",
      "pub const KNIGHT_VALUE: i32 = 320;",
      "pub const ROOK_VALUE: i32 = 500;",
      "",
    ].join("\n"),
    [
      "[LMR_MIN_DEPTH]\nvalue = 3\nmin = 6\nmax = 1\nstep = 1\n",
      "[NULL_MOVE_MIN_DEPTH]\nvalue = 40\nmin = 1\nmax = 8\nstep = 1\n",
      "[BISHOP_VALUE]\nvalue = 330\nmin = 200\nmax = 400\nstep = 10\n",
      "[ROOK_VALUE]\nvalue = 500\nmin = 300\nmax = 700\nstep = 0\n",
    ].join(""),
    new RegExp(
      [
        "^error: .*/params\\.toml: \\[LMR_MIN_DEPTH\\]\\.min \\(line 3\\): min \\(6\\) is greater than max \\(1\\)",
        "error: .*/params\\.toml: \\[NULL_MOVE_MIN_DEPTH\\]\\.value \\(line 7\\): 40 is outside \\[1, 8\\]",
        "error: .*/params\\.toml: \\[BISHOP_VALUE\\] \\(line 11\\): no constant BISHOP_VALUE in \\S*/engine_constants\\.rs",
        "error: .*/params\\.toml: \\[ROOK_VALUE\\]\\.step \\(line 20\\): must be > 0, got 0$",
      ].join("(?:.*)\n"),
    ),
  ),
  {
    ...paramsCase(
      "demo: a range that does not fit",
      param("LMR_MIN_DEPTH", 1, 300),
      /engine_constants\.rs:1: .*max = 300 is outside u8/,
    ),
    args: (dir) => ["--config", join(dir, "config.toml"), "demo", "--params", join(dir, "params.toml")],
    env: (dir) => ({ SPSA_HOME: join(dir, "home") }),
  },
  flagCase("flag: unknown option", "spsa", ["master", "--iterations", "3"], /unknown option '--iterations'/),
  flagCase("flag: bad demo integer", "spsa", ["demo", "--games", "many"], /expected an integer, got "many"/),
  flagCase("flag: unknown command", "spsa", ["mastr"], /unknown command 'mastr'/),
  ...["-1", "1.5", ""].map((bad) =>
    flagCase(
      `flag: --max-replays "${bad}"`,
      "compete",
      ["a", "b", "-g", "2", "--outside-delay", "replay", "--max-replays", bad],
      /--max-replays <n>' argument '.*' is invalid. expected (0 or more|an integer)/,
    ),
  ),
  flagCase(
    "flag: missing config file",
    "spsa",
    ["--config", "/nonexistent/config.toml", "master"],
    /^error: \/nonexistent\/config\.toml: file not found/,
  ),
  flagCase(
    "flag: worker concurrency 0",
    "compete",
    ["--spsa", "-c", "0"],
    /-c\/--concurrency: must be a positive integer/,
  ),
  flagCase(
    "flag: odd batch size",
    "compete",
    ["--spsa", "-c", "1", "--batch-size", "3"],
    /--batch-size: must be an even integer/,
  ),
  flagCase(
    "book: empty file",
    "compete",
    ["--spsa", "-c", "1", "--book", join(ROOT, "test", "fixtures", "bad-books", "empty.epd")],
    /empty\.epd: the book has no openings/,
  ),
  flagCase(
    "book: bad FEN",
    "compete",
    ["--spsa", "-c", "1", "--book", join(ROOT, "test", "fixtures", "bad-books", "bad-fen.epd")],
    /bad-fen\.epd:2: bad FEN "[^"]+ x KQkq - 0 1": Invalid FEN: side-to-move is invalid/,
  ),
  flagCase(
    "book: bad PGN",
    "compete",
    ["--spsa", "-c", "1", "--book", join(ROOT, "test", "fixtures", "bad-books", "bad-moves.pgn")],
    /bad-moves\.pgn:1: bad PGN game: Invalid move in PGN: Ke3/,
  ),
];

describe("bad input", () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let sql: postgres.Sql;
  const dirs: string[] = [];

  beforeAll(async () => {
    database = await freshDatabase();
    await applyMigrations(database.url);
    sql = connect(database.url, 1);
  });
  afterAll(async () => {
    await sql.end();
    await database.drop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** A working setup (config, params, a one-constant engine crate) with the case's files on top. */
  function setupFor(testCase: Case): string {
    const dir = mkdtempSync(join(tmpdir(), "spsa-bad-"));
    dirs.push(dir);
    const files: Record<string, string> = {
      "config.toml": `[build]\nengine_dir = "engine"\noutput_dir = "builds"\n`,
      "params.toml": GOOD_PARAMS,
      "engine/Cargo.toml": `[package]\nname = "tiny"\nversion = "0.1.0"\nedition = "2021"\n`,
      "engine/src/main.rs": 'mod engine_constants;\nfn main() { println!("{}", engine_constants::LMR_MIN_DEPTH); }\n',
      "engine/src/engine_constants.rs": "pub const LMR_MIN_DEPTH: u8 = 3;\n",
      ...testCase.files,
    };
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), content);
    }
    return dir;
  }

  function snapshot(dir: string): Record<string, string> {
    const result: Record<string, string> = {};
    const walk = (folder: string) => {
      for (const name of readdirSync(folder)) {
        const full = join(folder, name);
        if (statSync(full).isDirectory()) walk(full);
        else result[full] = readFileSync(full, "utf8");
      }
    };
    walk(dir);
    return result;
  }

  it.each(CASES.map((c) => [c.name, c] as const))("%s", async (_name, testCase) => {
    const dir = setupFor(testCase);
    const before = snapshot(dir);
    const run = testCase.command === "spsa" ? spsa : compete;
    const result = await run(testCase.args(dir), {
      env: { DATABASE_URL: database.url, ...testCase.env?.(dir) },
      cwd: dir,
    });
    // Every case is the user's mistake: InputError or a usage error, exit status 2.
    expect(result.exitCode, result.all).toBe(2);
    expect(result.stderr).toMatch(testCase.message);
    // A case about its own files names them by their full path, first thing on the line.
    if (testCase.files) expect(result.stderr.startsWith(`error: ${dir}/`), result.stderr).toBe(true);
    expect(snapshot(dir)).toEqual(before);
    const [rows] =
      await sql`select (select count(*) from spsa_run)::int as runs, (select count(*) from spsa_iteration)::int as iterations`;
    expect(rows).toEqual({ runs: 0, iterations: 0 });
  });
});
