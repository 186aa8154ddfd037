import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  DEFAULT_ADAPTIVE,
  DEFAULT_R_END,
  DEFAULT_R_END_PLAIN,
  loadConfig,
  spsaMathConfig,
} from "../../src/config/config.js";
import { shippedBook } from "../../src/play/book.js";
import { describeChanges, playedWith, settingsOf } from "../../src/config/iteration-settings.js";
import { gains } from "../../src/spsa/math.js";
import { InputError } from "../../src/core/errors.js";
import { spsa } from "../support/cli.js";

const dir = mkdtempSync(join(tmpdir(), "spsa-config-"));
let counter = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(text: string): string {
  const file = join(dir, `config-${counter++}.toml`);
  writeFileSync(file, text);
  return file;
}

function errorOf(text: string): InputError {
  try {
    loadConfig(write(text));
  } catch (error) {
    if (error instanceof InputError) return error;
    throw error;
  }
  throw new Error("expected the config to be rejected");
}

describe("config.toml", () => {
  it("loads the repository's config.toml with its documented values", () => {
    const config = loadConfig("config.toml");
    expect(config.timeControl).toEqual({ timelowMs: 50, timehighMs: 200, marginMs: 50 });
    expect(config.games.gamesPerIteration).toBe(64);
    expect(config.spsa).toMatchObject({
      cEnd: 3,
      rEnd: 0.003,
      a: undefined,
      c: undefined,
      A: undefined,
      alpha: 0.602,
      gamma: 0.101,
      eloCap: 400,
    });
    expect(config.spsa.adaptive).toEqual({ mode: "signal", window: 256, floor: 0.1667, pilot: 1, widen: 1, lift: 1.5 });
    expect(config.build.engineDir).toMatch(/engines\/minnow$/);
    expect(config.build.cargoArgs).toEqual(["build", "--release"]);
    expect(config.build.buildsAtOnce).toBe("auto");
  });

  it("fills every default from an empty file", () => {
    const config = loadConfig(write(""));
    expect(config.games.batchSize).toBe(8);
    expect(config.database.url).toBeUndefined();
    expect(config.database.pollIntervalMs).toBe(1000);
    expect(config.spsa).toMatchObject({ schedule: "standard", momentum: 0, averageTail: 0, maxStaleness: 6 });
    expect(config.outsideDelay).toEqual({ policy: "replay", maxReplays: 4 });
  });

  it("reads the policy for time losses to delays outside the engine", () => {
    expect(loadConfig(write('[time_control]\noutside_delay = "loss"\n')).outsideDelay).toEqual({ policy: "loss" });
    expect(loadConfig(write("[time_control]\nmax_replays = 0\n")).outsideDelay).toEqual({
      policy: "replay",
      maxReplays: 0,
    });
  });

  it("reads a node or depth limit and a reference speed; an iteration's settings carry them and a resumed run names their changes", () => {
    const nodes = loadConfig(write("[time_control]\nnodes = 3000\n"));
    expect(nodes.timeControl.moveLimit).toEqual({ nodes: 3000 });
    expect(loadConfig(write("[time_control]\ndepth = 7\n")).timeControl.moveLimit).toEqual({ depth: 7 });
    const scaled = loadConfig(write("[time_control]\ntimelow = 0.1\ntimehigh = 0.3\nreference_nps = 1000000\n"));
    expect(scaled.timeControl).toMatchObject({
      moveLimit: undefined,
      referenceNps: 1_000_000,
      timelowMs: 100,
      timehighMs: 300,
    });

    const timed = settingsOf(loadConfig(write("")), []);
    expect(timed).not.toHaveProperty("moveLimit");
    expect(timed).not.toHaveProperty("referenceNps");
    expect(settingsOf(nodes, [])).toMatchObject({ moveLimit: { nodes: 3000 } });
    expect(describeChanges(playedWith(loadConfig(write("")), []), playedWith(nodes, []))).toEqual([
      "[time_control] nodes: (default) → 3000",
    ]);
    // The time per move and the games are not in the settings (their columns hold them): a change is named all the same.
    expect(timed).not.toHaveProperty("timelowMs");
    expect(timed).not.toHaveProperty("gamesPerIteration");
    expect(
      describeChanges(
        playedWith(loadConfig(write("")), []),
        playedWith(loadConfig(write("[games]\ngames_per_iteration = 16\n")), []),
      ),
    ).toEqual(["[games] games_per_iteration: 64 → 16"]);
    expect(describeChanges(playedWith(nodes, []), playedWith(scaled, []))).toEqual([
      "[time_control] timelow: 0.05 → 0.1",
      "[time_control] timehigh: 0.2 → 0.3",
      "[time_control] nodes: 3000 → (default)",
      "[time_control] reference_nps: (default) → 1000000",
    ]);
  });

  it.each([
    ["a TOML syntax error, with its line", "[spsa]\na = \nb = 1\n", /config-\d+\.toml:2: TOML syntax error/],
    [
      "an unknown section, with a suggestion",
      "[spssa]\na = 1\n",
      /\[spssa\] \(line 1\): unknown key \(did you mean `spsa`\?\)/,
    ],
    [
      "an unknown key, with a suggestion",
      "[spsa]\nalpah = 0.6\n",
      /\[spsa\]\.alpah \(line 2\): unknown key \(did you mean `alpha`\?\)/,
    ],
    [
      "a string where a number belongs",
      '[spsa]\n\na = "big"\nc = 1\n',
      /\[spsa\]\.a \(line 3\): must be a number, got "big"/,
    ],
    ["a negative step size", "[spsa]\na = -1\nc = 1\n", /\[spsa\]\.a \(line 2\): must be > 0/],
    ["a without c", "[spsa]\na = 0.1\n", /\[spsa\]\.a \(line 2\): set both a and c, or neither/],
    [
      "a and c with r_end",
      "[spsa]\na = 0.1\nc = 2\nr_end = 0.003\n",
      /\[spsa\]\.r_end \(line 4\): set either a and c, or c_end and r_end, not both/,
    ],
    ["a zero r_end", "[spsa]\nr_end = 0\n", /\[spsa\]\.r_end \(line 2\): must be > 0/],
    [
      "an unknown schedule, with the choices",
      '[spsa]\nschedule = "scspsa"\n',
      /\[spsa\]\.schedule \(line 2\): must be one of "standard", "self-correcting", got "scspsa"/,
    ],
    [
      "a momentum of 1",
      "[spsa]\nmomentum = 1\n",
      /\[spsa\]\.momentum \(line 2\): must be < 1 \(at 1 a move is never forgotten\), got 1/,
    ],
    ["a negative momentum", "[spsa]\nmomentum = -0.1\n", /\[spsa\]\.momentum \(line 2\): must be >= 0/],
    [
      "momentum in UCI-option mode",
      '[engine]\nmode = "options"\n[spsa]\nmomentum = 0.5\n',
      /\[spsa\]\.momentum \(line 4\): applies only with \[engine\] mode = "build"/,
    ],
    [
      "tail averaging in UCI-option mode",
      '[engine]\nmode = "options"\n[spsa]\naverage_tail = 0.5\n',
      /\[spsa\]\.average_tail \(line 4\): applies only with \[engine\] mode = "build"/,
    ],
    [
      "the self-correcting schedule in UCI-option mode",
      '[engine]\nmode = "options"\n[spsa]\nschedule = "self-correcting"\n',
      /\[spsa\]\.schedule \(line 4\): applies only with \[engine\] mode = "build"/,
    ],
    [
      "an average_tail above 1",
      "[spsa]\naverage_tail = 1.5\n",
      /\[spsa\]\.average_tail \(line 2\): must be <= 1, got 1.5/,
    ],
    [
      "iterations in flight in UCI-option mode",
      '[engine]\nmode = "options"\n[spsa]\nmax_staleness = 2\n',
      /\[spsa\]\.max_staleness \(line 4\): applies only with \[engine\] mode = "build"/,
    ],
    ["a fractional max_staleness", "[spsa]\nmax_staleness = 1.5\n", /\[spsa\]\.max_staleness \(line 2\): .*integer/],
    ["a negative max_staleness", "[spsa]\nmax_staleness = -1\n", /\[spsa\]\.max_staleness \(line 2\): must be >= 0/],
    [
      "an engine cache of no binary",
      "[worker]\nengine_cache_files = 0\n",
      /\[worker\]\.engine_cache_files \(line 2\): must be >= 1/,
    ],
    [
      "an engine cache of no bytes",
      "[worker]\nengine_cache_mb = 0\n",
      /\[worker\]\.engine_cache_mb \(line 2\): must be > 0/,
    ],
    ["a fractional iteration count", "[spsa]\nmax_iterations = 2.5\n", /\[spsa\]\.max_iterations .*must be an integer/],
    [
      "timehigh below timelow",
      "[time_control]\ntimelow = 1.0\ntimehigh = 0.5\n",
      /\[time_control\]\.timehigh \(line 3\): must be >= timelow/,
    ],
    [
      "an unknown outside-delay policy",
      '[time_control]\noutside_delay = "forfeit"\n',
      /\[time_control\]\.outside_delay \(line 2\): must be one of "replay", "loss", got "forfeit"/,
    ],
    [
      "negative replays",
      "[time_control]\nmax_replays = -1\n",
      /\[time_control\]\.max_replays \(line 2\): must be >= 0/,
    ],
    ["an odd number of games", "[games]\ngames_per_iteration = 15\n", /games_per_iteration .*must be even/],
    ["an odd batch", "[games]\nbatch_size = 3\n", /batch_size .*must be even/],
    ["a missing book", '[games]\nbook = "nope.epd"\n', /\[games\]\.book \(line 2\): file not found/],
    ["no builds at once", "[build]\nbuilds_at_once = 0\n", /\[build\]\.builds_at_once \(line 2\): must be >= 1/],
    [
      "a fractional builds_at_once",
      "[build]\nbuilds_at_once = 1.5\n",
      /\[build\]\.builds_at_once \(line 2\): .*integer/,
    ],
    [
      "a word for builds_at_once other than auto",
      '[build]\nbuilds_at_once = "max"\n',
      /\[build\]\.builds_at_once \(line 2\): must be "auto" or a number, got "max"/,
    ],
    [
      "cargo args that are not strings",
      '[build]\ncargo_args = ["build", 3]\n',
      /\[build\]\.cargo_args .*array of strings/,
    ],
    ["a section that is not a table", "spsa = 3\n", /spsa \(line 1\): must be a table/],
    [
      "a reference engine that does not exist",
      '[spsa]\nreference = "no-such-engine"\n',
      /\[spsa\]\.reference \(line 2\): file not found: .*no-such-engine/,
    ],
    ["a reference that is a folder", '[spsa]\nreference = "."\n', /\[spsa\]\.reference \(line 2\): is not a file/],
    [
      "a reference in UCI-option mode",
      '[engine]\nmode = "options"\n[spsa]\nreference = "start"\n',
      /\[spsa\]\.reference \(line 4\): applies only with \[engine\] mode = "build"/,
    ],
    [
      "reference-mode games that are not units of four",
      '[games]\ngames_per_iteration = 18\n[spsa]\nreference = "start"\n',
      /\[games\]\.games_per_iteration \(line 2\): must be a multiple of 4 with \[spsa\] reference .*got 18/,
    ],
    [
      "a reference-mode batch that is not units of four",
      '[games]\nbatch_size = 6\n[spsa]\nreference = "start"\n',
      /\[games\]\.batch_size \(line 2\): must be a multiple of 4 with \[spsa\] reference .*got 6/,
    ],
  ])("rejects %s", (_label, text, message) => {
    const error = errorOf(text);
    expect(error.exitCode).toBe(2);
    expect(error.message).toMatch(message);
    expect(error.message).toContain(dir);
  });

  it('takes [build] builds_at_once as a number or "auto"', () => {
    expect(loadConfig(write("[build]\nbuilds_at_once = 3\n")).build.buildsAtOnce).toBe(3);
    expect(loadConfig(write('[build]\nbuilds_at_once = "auto"\n')).build.buildsAtOnce).toBe("auto");
  });

  it("derives a and c from c_end and r_end for the run's length, or takes them as set", () => {
    const derived = spsaMathConfig(
      loadConfig(write("[spsa]\nmax_iterations = 400\nc_end = 2\nr_end = 0.001\n")).spsa,
      64,
    );
    expect(gains(derived, 400).ck).toBeCloseTo(2, 12);
    expect(derived.A).toBe(40);
    expect(spsaMathConfig(loadConfig(write("[spsa]\na = 0.3\nc = 2.5\nA = 7\n")).spsa, 64)).toMatchObject({
      a: 0.3,
      c: 2.5,
      A: 7,
    });
  });

  it("takes a shipped book by name, unless a file of that name is next to the config", () => {
    expect(loadConfig(write('[games]\nbook = "openings"\n')).games.book).toBe(shippedBook("openings"));
    expect(loadConfig(write("")).games.book).toBeUndefined();
    writeFileSync(join(dir, "balanced"), "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -\n");
    expect(loadConfig(write('[games]\nbook = "balanced"\n')).games.book).toBe(join(dir, "balanced"));
  });

  it("reads the alternatives to plain SPSA and hands schedule and momentum to the math", () => {
    const config = loadConfig(write('[spsa]\nschedule = "self-correcting"\nmomentum = 0.5\naverage_tail = 0.25\n'));
    expect(config.spsa).toMatchObject({ schedule: "self-correcting", momentum: 0.5, averageTail: 0.25 });
    expect(spsaMathConfig(config.spsa, 64)).toMatchObject({ schedule: "self-correcting", momentum: 0.5 });
  });

  it("reads the gain so far's share and the stop rule, with the design's defaults, and names the file, line and key of a bad one", () => {
    expect(loadConfig(write("")).spsa.gain).toEqual({ share: 0.1, stopBelow: 2, stopEarly: false });
    expect(loadConfig(write("[spsa]\ngain_share = 0\nstop_below = 0.5\nstop_early = true\n")).spsa.gain).toEqual({
      share: 0,
      stopBelow: 0.5,
      stopEarly: true,
    });
    for (const [line, words] of [
      ["gain_share = 0.6", /\[spsa\]\.gain_share \(line 2\): must be <= 0\.5, got 0\.6/],
      ["gain_share = -0.1", /\[spsa\]\.gain_share \(line 2\): must be >= 0/],
      ["stop_below = 0", /\[spsa\]\.stop_below \(line 2\): must be > 0/],
      ['stop_early = "yes"', /\[spsa\]\.stop_early \(line 2\): must be true or false/],
    ] as const) {
      const error = errorOf(`[spsa]\n${line}\n`);
      expect(error.message, line).toMatch(words);
      expect(error.message, line).toMatch(/^\/.*\.toml: \[spsa\]\./);
    }
  });

  it("reads the adaptive gains, hands them to the math, and with adapt off defaults r_end to plain SPSA's", () => {
    expect(loadConfig(write("")).spsa).toMatchObject({ rEnd: DEFAULT_R_END, adaptive: DEFAULT_ADAPTIVE });
    const off = loadConfig(write('[spsa]\nadapt = "off"\n')).spsa;
    expect(off).toMatchObject({ rEnd: DEFAULT_R_END_PLAIN, adaptive: { mode: "off" } });
    const set = loadConfig(write("[spsa]\nadapt_window = 8\nadapt_floor = 0.5\nadapt_pilot = 2\nr_end = 0.004\n")).spsa;
    expect(spsaMathConfig(set, 64).adaptive).toEqual({
      mode: "signal",
      window: 8,
      floor: 0.5,
      pilot: 2,
      widen: 1,
      lift: 1.5,
    });
    expect(set.rEnd).toBe(0.004);
    expect(errorOf('[spsa]\nadapt = "rprop"\n').message).toMatch(/adapt/);
    expect(errorOf("[spsa]\nadapt_floor = 0\n").message).toMatch(/adapt_floor/);
    expect(errorOf("[spsa]\nadapt_window = 2.5\n").message).toMatch(/adapt_window/);
    expect(errorOf("[spsa]\nadapt_pilot = -1\n").message).toMatch(/adapt_pilot/);
    expect(errorOf("[spsa]\nadapt_widen = 1.5\n").message).toMatch(/adapt_widen/);
    expect(errorOf("[spsa]\nadapt_lift = 2.5\n").message).toMatch(/adapt_lift/);
    expect(loadConfig(write("[spsa]\nadapt_lift = 0\n")).spsa.adaptive.lift).toBe(0);
    // A resumed run says so when the adaptation changes, also against rows recorded before it existed.
    const plain = playedWith(loadConfig(write('[spsa]\nadapt = "off"\n')), []);
    const { adaptive: _, ...legacySpsa } = plain.settings.spsa;
    expect(describeChanges(plain, playedWith(loadConfig(write("")), []))).toEqual([
      "[spsa] r_end: 0.0005 → 0.003",
      "[spsa] adapt: off → signal",
    ]);
    expect(
      describeChanges(
        { ...plain, settings: { ...plain.settings, spsa: legacySpsa as typeof plain.settings.spsa } },
        plain,
      ),
    ).toEqual([
      "[spsa] adapt_window: (default) → 256",
      "[spsa] adapt_floor: (default) → 0.1667",
      "[spsa] adapt_pilot: 0 → 1",
      "[spsa] adapt_widen: 0 → 1",
      "[spsa] adapt_lift: 0 → 1.5",
    ]);
  });

  it("reads a reference engine: start, or a binary relative to the file; iterations record it and a change is named", () => {
    const engine = join(dir, "reference-engine");
    writeFileSync(engine, "#!/bin/sh\n", { mode: 0o755 });
    expect(loadConfig(write('[spsa]\nreference = "start"\n')).spsa.reference).toBe("start");
    const file = loadConfig(
      write('[games]\ngames_per_iteration = 16\nbatch_size = 4\n[spsa]\nreference = "reference-engine"\n'),
    );
    expect(file.spsa.reference).toBe(engine);
    // Absent, it is plus against minus and the settings have no key.
    const plain = settingsOf(loadConfig(write("")), []);
    expect(plain.spsa).not.toHaveProperty("reference");
    expect(settingsOf(file, []).spsa.reference).toBe(engine);
    expect(
      describeChanges(
        playedWith(loadConfig(write("")), []),
        playedWith(loadConfig(write('[spsa]\nreference = "start"\n')), []),
      ),
    ).toEqual(["[spsa] reference: (default) → start"]);
    writeFileSync(join(dir, "not-executable"), "", { mode: 0o644 });
    expect(errorOf('[spsa]\nreference = "not-executable"\n').message).toMatch(
      /\[spsa\]\.reference \(line 2\): is not executable: .*not-executable/,
    );
  });

  it("rejects a missing file by name", () => {
    expect(() => loadConfig(join(dir, "absent.toml"))).toThrow(/absent\.toml: file not found/);
  });

  it("exits 2 with a one-line message naming file and key from the CLI", async () => {
    const file = write("[spsa]\ngama = 0.1\n");
    const result = await spsa(["--config", file, "db", "url"], { env: { DATABASE_URL: "" } });
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toContain(`${file}: [spsa].gama (line 2): unknown key (did you mean \`gamma\`?)`);
  });

  describe("[ship]", () => {
    it("is off without the section, or with an empty one", () => {
      expect(loadConfig(write("[spsa]\nmax_iterations = 4\n")).ship).toBeUndefined();
      expect(loadConfig(write("[ship]\n")).ship).toBeUndefined();
      expect(loadConfig("config.toml").ship).toBeUndefined();
    });

    it("reads the ship limits and the test, with defaults", () => {
      expect(loadConfig(write('[ship]\ntc = "10+0.1"\n')).ship).toEqual({
        limits: { tc: { baseMs: 10_000, incMs: 100 } },
        sprt: { elo0: 0, elo1: 5, alpha: 0.05, beta: 0.05 },
        maxGames: 20_000,
        eliminationGames: 0,
        tail: 0.5,
        transfer: { every: 0, games: 64 },
      });
      const ship = loadConfig(
        write(
          "[spsa]\naverage_tail = 0.25\n[ship]\nnodes = 5000\nelo0 = -1\nelo1 = 3\nalpha = 0.1\nbeta = 0.2\nmax_games = 4000\nelimination_games = 0\n",
        ),
      ).ship;
      expect(ship).toEqual({
        limits: { nodes: 5000 },
        sprt: { elo0: -1, elo1: 3, alpha: 0.1, beta: 0.2 },
        maxGames: 4000,
        eliminationGames: 0,
        tail: 0.25,
        transfer: { every: 0, games: 64 },
      });
      expect(loadConfig(write("[ship]\ndepth = 9\ntail = 1\n")).ship).toMatchObject({ limits: { depth: 9 }, tail: 1 });
      expect(loadConfig(write("[ship]\ntimelow = 0.1\ntimehigh = 0.3\n")).ship?.limits).toEqual({
        timelowMs: 100,
        timehighMs: 300,
      });
    });

    it.each([
      [
        "elo1 = 5\n",
        /\[ship\]\.elo1 \(line 2\): needs the limit the engine ships with: set tc, nodes, depth or timelow\/timehigh in \[ship\]/,
      ],
      [
        "nodes = 300\ndepth = 4\n",
        /\[ship\]\.depth \(line 3\): give one kind of limit: tc, timelow\/timehigh, nodes or depth/,
      ],
      ['tc = "fast"\n', /\[ship\]\.tc \(line 2\): expected SECONDS\[\+INC\] or MOVES\/SECONDS\[\+INC\], got "fast"/],
      ["nodes = 0\n", /\[ship\]\.nodes \(line 2\): must be a whole number of at least 1, got 0/],
      ["nodes = 300\nmax_games = 7\n", /\[ship\]\.max_games \(line 3\): must be even/],
      ["nodes = 300\nelimination_games = 3\n", /\[ship\]\.elimination_games \(line 3\): must be even/],
      ["nodes = 300\nelo0 = 5\nelo1 = 5\n", /\[ship\]\.elo1 \(line 4\): must be > elo0 \(5\), got 5/],
      ["nodes = 300\nalpha = 1\n", /\[ship\]\.alpha \(line 3\): must be < 1, got 1/],
      ["nodes = 300\ntail = 0\n", /\[ship\]\.tail \(line 3\): must be > 0, got 0/],
      ["nodes = 300\nmax_game = 8\n", /\[ship\]\.max_game \(line 3\): unknown key \(did you mean `max_games`\?\)/],
      ["transfer_every = 2\n", /\[ship\]\.transfer_every \(line 2\): needs the limit the engine ships with/],
      ["nodes = 300\ntransfer_every = -1\n", /\[ship\]\.transfer_every \(line 3\): must be >= 0, got -1/],
      ["nodes = 300\ntransfer_every = 2.5\n", /\[ship\]\.transfer_every \(line 3\): must be an integer, got 2.5/],
      ["nodes = 300\ntransfer_every = 2\ntransfer_games = 9\n", /\[ship\]\.transfer_games \(line 4\): must be even/],
      [
        "nodes = 300\ntransfer_every = 2\ntransfer_games = 0\n",
        /\[ship\]\.transfer_games \(line 4\): must be >= 2, got 0/,
      ],
      [
        "nodes = 300\ntransfer_games = 8\n",
        /\[ship\]\.transfer_games \(line 3\): applies only with transfer_every > 0/,
      ],
    ])("refuses %j naming the key", (body, message) => {
      expect(errorOf(`[ship]\n${body}`).message).toMatch(message);
    });

    it("reads transfer in the run: every Nth iteration, games defaulting to the iteration's", () => {
      expect(
        loadConfig(write("[games]\ngames_per_iteration = 32\n[ship]\nnodes = 8000\ntransfer_every = 3\n")).ship
          ?.transfer,
      ).toEqual({ every: 3, games: 32 });
      expect(
        loadConfig(write("[ship]\nnodes = 8000\ntransfer_every = 1\ntransfer_games = 10\n")).ship?.transfer,
      ).toEqual({ every: 1, games: 10 });
    });

    it("reads it in UCI-option mode, where only the final θ is a candidate: elimination, tail and transfer refused", () => {
      expect(loadConfig(write('[engine]\nmode = "options"\n[ship]\nnodes = 300\n')).ship?.limits).toEqual({
        nodes: 300,
      });
      expect(errorOf('[engine]\nmode = "options"\n[ship]\nnodes = 300\nelimination_games = 8\n').message).toMatch(
        /\[ship\]\.elimination_games \(line 5\): applies only with \[engine\] mode = "build" \(a UCI-option run has no iterations/,
      );
      expect(errorOf('[engine]\nmode = "options"\n[ship]\nnodes = 300\ntransfer_every = 2\n').message).toMatch(
        /\[ship\]\.transfer_every \(line 5\): applies only with \[engine\] mode = "build"/,
      );
    });
  });
});
