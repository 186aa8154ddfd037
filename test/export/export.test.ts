import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_ADAPTIVE, DEFAULT_C_END, DEFAULT_R_END, loadConfig } from "../../src/config/config.js";
import { loadParams } from "../../src/params/params.js";
import { applyMigrations, connect } from "../../src/postgres/connection.js";
import { writeSyntheticRun } from "../support/synthetic-run.js";
import { ROOT, spsa } from "../support/cli.js";
import { freshDatabase } from "../support/database.js";

describe("spsa export and spsa import", () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let sql: postgres.Sql;
  let env: Record<string, string>;
  let dir: string;
  let theta: Record<string, number>;
  const params = loadParams("params.toml");
  const builtOf = (name: string) => {
    const p = params.find((q) => q.name === name)!;
    return p.type === "int"
      ? Math.min(Math.floor(p.max), Math.max(Math.ceil(p.min), Math.round(theta[name]!)))
      : theta[name]!;
  };

  beforeAll(async () => {
    database = await freshDatabase();
    await applyMigrations(database.url);
    sql = connect(database.url, 2);
    env = { DATABASE_URL: database.url };
    dir = mkdtempSync(join(tmpdir(), "spsa-export-"));
    await writeSyntheticRun(sql, {
      name: "tuned",
      config: loadConfig("config.toml"),
      params,
      iterations: 30,
      open: true,
      workerName: "w",
    });
    const [run] = await sql<
      { theta: Record<string, number> }[]
    >`select current_parameters as theta from spsa_run where name = 'tuned'`;
    theta = run!.theta;
    // The synthetic run moves θ off params.toml, so the test can tell exported from original values.
    expect(params.filter((p) => builtOf(p.name) !== p.value).length).toBeGreaterThan(0);
  });
  afterAll(async () => {
    await sql.end();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("--constants writes the engine's constants file with θ as built, and the engine builds and holds it", async () => {
    const crate = join(dir, "minnow");
    cpSync(join(ROOT, "engines", "minnow"), crate, { recursive: true, filter: (path) => !path.includes("/target") });
    const out = join(crate, "src", "engine_constants.rs");
    const result = await spsa(["export", "--constants", out], { env });
    expect(result.exitCode, result.all).toBe(0);
    expect(result.stderr).toContain(`${out}: `);
    const original = readFileSync(join(ROOT, "engines", "minnow", "src", "engine_constants.rs"), "utf8");
    expect(readFileSync(out, "utf8")).not.toBe(original);
    // A build from nothing: not synchronous, so that this test's process still answers vitest.
    await execa("cargo", ["build", "--release", "--quiet"], {
      cwd: crate,
      env: { CARGO_TARGET_DIR: join(dir, "target") },
    });
    const uci = (await execa(join(dir, "target", "release", "minnow"), { input: "uci\nquit\n" })).stdout;
    // Every option's default is its compiled constant; float options are spin × 100.
    for (const p of params) {
      const [option, value] =
        p.type === "int" ? [p.name, builtOf(p.name)] : [`${p.name}_X100`, Math.round(builtOf(p.name) * 100)];
      expect(uci, p.name).toMatch(new RegExp(`^option name ${option} type spin default ${value} `, "m"));
    }
  });

  it("--format csv gives θ after every iteration, parameters by name", async () => {
    const result = await spsa(["export", "--name", "tuned", "--format", "csv"], { env });
    expect(result.exitCode, result.all).toBe(0);
    const [header, ...rows] = result.stdout.trim().split("\n");
    const names = params.map((p) => p.name).sort();
    expect(header).toBe(["iteration", ...names].join(","));
    // Iteration 31 is open: θ after 0 … 30 iterations.
    expect(rows.map((r) => Number(r.split(",")[0]))).toEqual(Array.from({ length: 31 }, (_, i) => i));
    expect(rows[0]).toBe(["0", ...names.map((n) => String(params.find((p) => p.name === n)!.value))].join(","));
    expect(rows[30]).toBe(["30", ...names.map((n) => String(theta[n]))].join(","));
  });

  it("--format openbench and fishtest print SPSA input lines that spsa import reads back into a params.toml", async () => {
    for (const format of ["openbench", "fishtest"] as const) {
      const result = await spsa(["export", "--format", format], { env });
      expect(result.exitCode, result.all).toBe(0);
      const lines = result.stdout.trim().split("\n");
      expect(lines).toHaveLength(params.length);
      const knight = params.find((p) => p.name === "KNIGHT_VALUE_MG")!;
      // An adaptive run exports its floor rate (r_end × adapt_floor) for tools without adaptation.
      const rEnd = Number((DEFAULT_R_END * DEFAULT_ADAPTIVE.floor).toPrecision(6));
      const expected =
        format === "openbench"
          ? `KNIGHT_VALUE_MG, int, ${builtOf("KNIGHT_VALUE_MG")}, ${knight.min}, ${knight.max}, ${knight.step * DEFAULT_C_END}, ${rEnd}`
          : `KNIGHT_VALUE_MG,${builtOf("KNIGHT_VALUE_MG")},${knight.min},${knight.max},${knight.step * DEFAULT_C_END},${rEnd}`;
      expect(lines).toContain(expected);

      const file = join(dir, `${format}.txt`);
      writeFileSync(file, `# from spsa export\n${result.stdout}`);
      const out = join(dir, `${format}.toml`);
      const imported = await spsa(["import", file, "--out", out], { env });
      expect(imported.exitCode, imported.all).toBe(0);
      const back = loadParams(out);
      for (const p of params) {
        const q = back.find((b) => b.name === p.name)!;
        expect(q, p.name).toMatchObject({ min: p.min, max: p.max, step: p.step, constant: p.name });
        expect(q.value, p.name).toBeCloseTo(builtOf(p.name), 4);
        // fishtest lines have no type: whole numbers are read as int.
        if (format === "openbench" || p.type === "int") expect(q.type, p.name).toBe(p.type);
      }
    }
  });

  it("bad input: one line naming the file and line, or the flag, exit status 2, nothing written", async () => {
    const bad = join(dir, "bad.txt");
    writeFileSync(bad, "A, int, 1, 0, 5, 1, 0.002\nB, 1, 0\n");
    const out = join(dir, "never.toml");
    const imported = await spsa(["import", bad, "--out", out]);
    expect(imported.exitCode).toBe(2);
    expect(imported.stderr.trim()).toBe(
      `error: ${bad}:2: expected 7 comma-separated fields (OpenBench: NAME, int|float, value, min, max, c_end, r_end) or 6 (fishtest: NAME,value,min,max,c_end,r_end), got 3`,
    );
    expect(() => readFileSync(out)).toThrow();
    const outside = join(dir, "outside.txt");
    writeFileSync(outside, "A,7,0,5,1,0.002\n");
    expect((await spsa(["import", outside, "--out", out])).stderr.trim()).toBe(
      `error: ${out}: [A].value (line 7): 7 is outside [0, 5]`,
    );

    const neither = await spsa(["export"], { env });
    expect(neither.exitCode).toBe(2);
    expect(neither.stderr.trim()).toBe(
      "error: spsa export: give one of --constants FILE, --format csv|openbench|fishtest or --faulted",
    );
    const format = await spsa(["export", "--format", "json"], { env });
    expect(format.stderr.trim()).toBe('error: --format: must be one of csv, openbench, fishtest, got "json"');
  });
});
