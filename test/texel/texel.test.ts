import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BatchEngine } from "../../src/texel/batch-engine.js";
import { parsePositions } from "../../src/texel/positions.js";
import { ROOT, spsa } from "../support/cli.js";
import { freshDatabase } from "../support/database.js";
import { buildMinnow } from "../support/minnow.js";
import { connect } from "../../src/postgres/connection.js";

const PGN = join(ROOT, "test", "fixtures", "books", "rusty-rival-match.pgn");

describe("spsa texel on the real minnow", () => {
  let engine: string;
  let dir: string;
  let database: { url: string; drop: () => Promise<void> };
  let env: Record<string, string>;

  beforeAll(async () => {
    engine = await buildMinnow();
    database = await freshDatabase();
    env = { DATABASE_URL: database.url };
    dir = mkdtempSync(join(tmpdir(), "texel-"));
  });
  afterAll(async () => {
    await database?.drop();
  });

  it("evalbatch scores from white's view, and options change the scores without a rebuild", async () => {
    const batch = await BatchEngine.start(engine);
    try {
      const fens = [
        "4k3/8/8/8/8/8/8/3QK3 w - - 0 1",
        "3qk3/8/8/8/8/8/8/4K3 b - - 0 1",
        "4k3/8/8/8/3q3Q/8/8/4K3 b - - 0 1",
      ];
      const plain = await batch.evaluate(fens, "static");
      expect(plain[0]).toBeGreaterThan(500);
      expect(plain[1]).toBe(-plain[0]!); // the colour-mirrored position
      const both = await batch.evaluate(fens.slice(2), "both");
      expect(both[1]).toBeLessThan(both[0]! - 500); // black to move takes the hanging queen
      batch.setOptions(
        new Map([
          ["QUEEN_VALUE_MG", 1500],
          ["QUEEN_VALUE_EG", 1500],
        ]),
      );
      const richer = await batch.evaluate(fens.slice(0, 1), "static");
      expect(richer[0]).toBeGreaterThan(plain[0]! + 300);
    } finally {
      await batch.close();
    }
  });

  it("a batch the engine holds is scored again without its FENs, as a full batch would score it", async () => {
    const batch = await BatchEngine.start(engine);
    try {
      expect(batch.rescores).toBe(true);
      const fens = ["4k3/8/8/8/8/8/8/3QK3 w - - 0 1", "r3k3/8/8/8/8/8/8/4K3 b - - 0 1"];
      const first = await batch.evaluate(fens, "static");
      batch.setOptions(
        new Map([
          ["QUEEN_VALUE_MG", 1500],
          ["QUEEN_VALUE_EG", 1500],
          ["ROOK_VALUE_MG", 300],
          ["ROOK_VALUE_EG", 300],
        ]),
      );
      const again = await batch.evaluate(fens, "static"); // the same array: `evalbatch static again`
      const resent = await batch.evaluate([...fens], "static"); // a copy: the FENs are sent
      expect([...again]).toEqual([...resent]);
      expect(again[0]).toBeGreaterThan(first[0]! + 300);
      expect(again[1]).toBeGreaterThan(first[1]! + 100); // black's rook is worth less
    } finally {
      await batch.close();
    }
  });

  it("an engine without `again` gets its FENs every time", async () => {
    const batch = await BatchEngine.start(join(ROOT, "test", "fixtures", "engines", "evalbatch-plain.mjs"));
    try {
      expect(batch.rescores).toBe(false);
      const fens = ["4k3/8/8/8/8/8/8/3QK3 w - - 0 1", "rn2k3/8/8/8/8/8/8/4K3 b - - 0 1"];
      expect([...(await batch.evaluate(fens, "static"))]).toEqual([100, -200]);
      batch.setOptions(new Map([["Bias", 7]]));
      expect([...(await batch.evaluate(fens, "static"))]).toEqual([107, -193]);
    } finally {
      await batch.close();
    }
  });

  it("texel-data writes quiet, labelled positions; texel lowers the error, rewrites params.toml and stores the run", async () => {
    const positions = join(dir, "positions.epd");
    const all = join(dir, "all.epd");
    const data = await spsa(["texel-data", PGN, "--out", all, "--skip-plies", "10"], { env });
    expect(data.exitCode, data.all).toBe(0);
    // With --engine, a folder without config.toml will do.
    const quiet = await spsa(
      ["texel-data", PGN, "--out", positions, "--skip-plies", "10", "--quiet", "--engine", engine],
      { env, cwd: dir },
    );
    expect(quiet.exitCode, quiet.all).toBe(0);
    const allCount = parsePositions(readFileSync(all, "utf8"), all).length;
    const quietCount = parsePositions(readFileSync(positions, "utf8"), positions).length;
    expect(quietCount).toBeGreaterThan(1000);
    expect(quietCount).toBeLessThan(allCount);

    // Start two evaluation terms far from minnow's values; the search must move them back.
    const params = join(dir, "params.toml");
    copyFileSync(join(ROOT, "params.toml"), params);
    const text = readFileSync(params, "utf8")
      .replace(/(\[KNIGHT_VALUE_MG\][^[]*value = )320/, "$1260")
      .replace(/(\[ROOK_VALUE_MG\][^[]*value = )480/, "$1420");
    writeFileSync(params, text);
    const run = await spsa(
      [
        "texel",
        "--positions",
        positions,
        "--params",
        params,
        "--only",
        "KNIGHT_VALUE_MG,ROOK_VALUE_MG",
        "--engine",
        engine,
        "--max-passes",
        "4",
      ],
      { env },
    );
    expect(run.exitCode, run.all).toBe(0);
    expect(run.stderr).toMatch(/pass 1 · \d+ evaluations · KNIGHT_VALUE_MG = \d+ · error 0\.\d+/);

    const after = readFileSync(params, "utf8");
    const knight = Number(/\[KNIGHT_VALUE_MG\][^[]*value = (\d+)/.exec(after)![1]);
    const rook = Number(/\[ROOK_VALUE_MG\][^[]*value = (\d+)/.exec(after)![1]);
    expect(knight).toBeGreaterThan(260);
    expect(rook).toBeGreaterThan(420);
    // Only those two value lines changed: comments and every other line are kept.
    expect(
      after
        .replace(/(\[KNIGHT_VALUE_MG\][^[]*value = )\d+/, "$1260")
        .replace(/(\[ROOK_VALUE_MG\][^[]*value = )\d+/, "$1420"),
    ).toBe(text);

    const sql = connect(database.url, 1);
    try {
      const rows =
        await sql`select method, k, error_before, error_after, positions, start_parameters, final_parameters from texel_run`;
      expect(rows).toHaveLength(1);
      const row = rows[0]!;
      expect(row.method).toBe("adaptive");
      expect(row.positions).toBe(quietCount);
      expect(row.error_after).toBeLessThan(row.error_before);
      expect(row.k).toBeGreaterThan(0.1);
      expect(row.start_parameters.KNIGHT_VALUE_MG).toBe(260);
      expect(row.final_parameters).toMatchObject({ KNIGHT_VALUE_MG: knight, ROOK_VALUE_MG: rook });
    } finally {
      await sql.end();
    }
  });

  it("the seed's local search moves one unit at a time", async () => {
    const positions = join(dir, "positions.epd");
    const params = join(dir, "params-local.toml");
    copyFileSync(join(ROOT, "params.toml"), params);
    const run = await spsa(
      [
        "texel",
        "--positions",
        positions,
        "--params",
        params,
        "--only",
        "BISHOP_VALUE_PAIR",
        "--method",
        "local",
        "--max-passes",
        "2",
        "--engine",
        engine,
        "--dry-run",
      ],
      { env },
    );
    expect(run.exitCode, run.all).toBe(0);
    const moves = [...run.stderr.matchAll(/BISHOP_VALUE_PAIR = (\d+)/g)].map((m) => Number(m[1]));
    expect(moves.length).toBeGreaterThan(0);
    let previous = 35;
    for (const value of moves) {
      expect(Math.abs(value - previous)).toBe(1);
      previous = value;
    }
    expect(readFileSync(params, "utf8")).toBe(readFileSync(join(ROOT, "params.toml"), "utf8"));
  });

  it("bad input: one line naming the file and line, or the parameter, and exit status 2", async () => {
    const bad = join(dir, "bad.epd");
    writeFileSync(bad, "8/8/8/8/8/8/8/K6k w - - 0 1 [0.5]\nnot a position\n");
    const result = await spsa(["texel", "--positions", bad, "--engine", engine], { env });
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim()).toBe(`error: ${bad}:2: expected "FEN [1.0|0.5|0.0]", got "not a position"`);

    // A line shaped like a FEN whose board chess.js rejects is bad input too, not an engine failure.
    writeFileSync(bad, "8/8/8/8/8/8/8/K6k w - - 0 1 [0.5]\n\n8/8/8/8/8/8/K6k w - - 0 1 [1.0]\n");
    const badFen = await spsa(["texel", "--positions", bad, "--engine", engine], { env });
    expect(badFen.exitCode, badFen.all).toBe(2);
    expect(badFen.stderr.trim().split("\n"), badFen.all).toHaveLength(1);
    expect(badFen.stderr).toContain(`error: ${bad}:3: bad FEN "8/8/8/8/8/8/K6k w - - 0 1": `);

    const params = join(dir, "params-option.toml");
    writeFileSync(
      params,
      readFileSync(join(ROOT, "params.toml"), "utf8").replace(
        "[KING_ATTACK_SCALE]\n",
        '[KING_ATTACK_SCALE]\noption = "KING_SCALE"\n',
      ),
    );
    const good = join(dir, "positions.epd");
    const missing = await spsa(
      ["texel", "--positions", good, "--params", params, "--only", "KING_ATTACK_SCALE", "--engine", engine],
      { env },
    );
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr.trim()).toBe(
      `error: ${params}: [KING_ATTACK_SCALE]: ${engine} has no UCI option KING_SCALE; set option = "NAME"`,
    );
  });
});
