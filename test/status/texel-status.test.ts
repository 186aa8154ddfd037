import { beforeAll, describe, expect, it } from "vitest";
import { insertTexelRun, type TexelRunRow } from "../../src/db/texel-runs.js";
import type { TexelStatus } from "../../src/status/texel-status.js";
import { spsa } from "../support/cli.js";
import { useMigratedDatabase } from "../support/database.js";

const first: TexelRunRow = {
  paramsFile: "old-params.toml",
  positionsFile: "old.epd",
  positions: 14_005,
  method: "local",
  k: 0.9,
  errorBefore: 0.1,
  errorAfter: 0.095,
  startParameters: { KNIGHT_VALUE_MG: 320 },
  finalParameters: { KNIGHT_VALUE_MG: 318 },
  evaluations: 12,
  passes: 3,
  positionsPerSecond: 150_000,
  seconds: 1.2,
};

const latest: TexelRunRow = {
  paramsFile: "params.toml",
  positionsFile: "positions.epd",
  positions: 64_531,
  method: "adaptive",
  k: 1.0151,
  errorBefore: 0.083919,
  errorAfter: 0.083851,
  startParameters: {
    ROOK_VALUE_MG: 480,
    KNIGHT_VALUE_MG: 320,
    BISHOP_VALUE_EG: 310,
    LMR_BASE: 0.75,
    PAWN_VALUE_MG: 82,
  },
  finalParameters: {
    ROOK_VALUE_MG: 458,
    KNIGHT_VALUE_MG: 310,
    BISHOP_VALUE_EG: 310,
    LMR_BASE: 0.75,
    PAWN_VALUE_MG: 82,
  },
  evaluations: 176,
  passes: 14,
  positionsPerSecond: 2_030_000,
  seconds: 102.4,
};

describe("spsa status --texel", () => {
  const database = useMigratedDatabase(1);
  const env = () => ({ DATABASE_URL: database.url });
  let ids: number[];

  beforeAll(async () => {
    ids = [await insertTexelRun(database.sql, first), await insertTexelRun(database.sql, latest)];
  });

  it("--json: the latest run, its error drop and the changed parameters by name", async () => {
    const result = await spsa(["status", "--texel", "--json"], { env: env() });
    expect(result.exitCode, result.all).toBe(0);
    const status = JSON.parse(result.stdout) as TexelStatus;
    // Every stored field as inserted, plus what the status derives.
    const stored = Object.fromEntries(Object.entries(latest).filter(([key]) => !key.endsWith("Parameters")));
    expect(status).toMatchObject({ id: ids[1], ...stored, unchanged: 3 });
    expect(status.errorDrop).toBeCloseTo((0.083919 - 0.083851) / 0.083919, 12);
    expect(status.changed).toEqual([
      { name: "KNIGHT_VALUE_MG", start: 320, final: 310, change: -10 },
      { name: "ROOK_VALUE_MG", start: 480, final: 458, change: -22 },
    ]);
    expect(Date.now() - Date.parse(status.createdAt)).toBeLessThan(10 * 60_000);
  });

  it("text: the run with the given id on one screen", async () => {
    const result = await spsa(["status", "--texel", String(ids[0])], { env: env() });
    expect(result.exitCode, result.all).toBe(0);
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(new RegExp(`^Texel run ${ids[0]} \\(local, \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d\\)$`));
    expect(lines.slice(1)).toEqual([
      "old-params.toml on old.epd (14005 positions)",
      "K 0.9000, error 0.100000 → 0.095000 (5.00 % lower)",
      "12 evaluations, 3 passes, 150000 positions/s, 1.2 s",
      "",
      "parameter        start     final  change",
      "KNIGHT_VALUE_MG    320  →    318      -2",
      "0 parameters unchanged",
    ]);
  });

  it("an id no run has is bad input naming --texel and the latest id", async () => {
    const result = await spsa(["status", "--texel", "999"], { env: env() });
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim()).toBe(`error: --texel: no Texel run 999 (the latest is ${ids[1]})`);
  });

  it("an id that is not a positive integer is bad input naming --texel", async () => {
    const cases: [string, string][] = [
      ["0", 'a positive integer, got "0"'],
      ["-3", 'a positive integer, got "-3"'],
      ["abc", 'an integer, got "abc"'],
      ["1.5", 'an integer, got "1.5"'],
    ];
    for (const [id, expected] of cases) {
      const result = await spsa(["status", "--texel", id], { env: env() });
      expect(result.exitCode, id).toBe(2);
      expect(result.stderr.split("\n")[0]).toBe(
        `error: option '--texel [id]' argument '${id}' is invalid. expected ${expected}`,
      );
      expect(result.stdout).toBe("");
    }
  });

  it("--texel and --name cannot go together", async () => {
    const result = await spsa(["status", "--texel", "--name", "main"], { env: env() });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("error: option '--texel [id]' cannot be used with option '--name <name>'");
  });
});

describe("spsa status --texel on a database without Texel runs", () => {
  const database = useMigratedDatabase(1);

  it("says so in one line and fails as spsa status does without a run", async () => {
    const result = await spsa(["status", "--texel"], { env: { DATABASE_URL: database.url } });
    expect(result.exitCode).toBe(1);
    expect(result.stderr.trim()).toBe("error: no Texel run in the database: spsa texel stores one when it finishes");
  });
});
