import { writeFileSync, mkdtempSync, rmSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { loadParams } from "../../src/params/params.js";
import { applyMigrations, connect } from "../../src/postgres/connection.js";
import { writeSyntheticRun } from "../support/synthetic-run.js";
import type { ParamModel } from "../../src/simulate/engine-model.js";
import { createRng } from "../../src/core/rng.js";
import { spsa } from "../support/cli.js";
import { freshDatabase } from "../support/database.js";

/** `spsa simulate --from-run`: the loss model fitted to a run in the real embedded Postgres, then simulated. */
describe("spsa simulate --from-run", () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let sql: postgres.Sql;
  let env: Record<string, string>;
  let dir: string;
  const params = loadParams("params.toml");
  const curvature = 5 / 16;
  // Optima 3 steps from params.toml's values (random side, kept in bounds): the truth the fit must find.
  const rng = createRng("from-run-optima");
  const engine: ParamModel[] = params.map((p) => {
    const up = rng.next() < 0.5;
    const target = p.value + (up ? 3 : -3) * p.step;
    const optimum = target <= p.max && target >= p.min ? target : p.value - (up ? 3 : -3) * p.step;
    return { name: p.name, optimum, curvature, step: p.step, type: p.type };
  });
  const offset = Math.sqrt(
    engine.reduce((s, m, i) => s + ((m.optimum - params[i]!.value) / m.step) ** 2, 0) / engine.length,
  );

  beforeAll(async () => {
    database = await freshDatabase();
    await applyMigrations(database.url);
    sql = connect(database.url, 2);
    env = { DATABASE_URL: database.url };
    dir = mkdtempSync(join(tmpdir(), "spsa-from-run-"));
    const config = loadConfig("config.toml");
    await writeSyntheticRun(sql, {
      name: "known",
      config: { ...config, spsa: { ...config.spsa, maxIterations: 400 } },
      params,
      iterations: 400,
      workerName: "w",
      engine,
    });
  });
  afterAll(async () => {
    await sql.end();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("prints the fitted model with 95 % intervals that hold the truth, the simulate lines, and simulates with it", async () => {
    const result = await spsa(["simulate", "--from-run", "known", "--seeds", "2", "--no-anchors", "--games", "640"], {
      env,
    });
    expect(result.exitCode, result.all).toBe(0);
    const out = result.stdout;
    expect(out).toContain(
      `run "known": 400 completed iterations, 25600 games, ${params.length} parameters played apart`,
    );
    const interval = (label: string) => {
      const match = out.match(new RegExp(`${label}\\s+([\\d.e-]+) \\[<? ?([\\d.e-]+), >? ?([\\d.e-]+)\\]`));
      expect(match, `${label} in\n${out}`).not.toBeNull();
      return match!.slice(1, 4).map(Number) as [number, number, number];
    };
    const [kappa, kappaLow, kappaHigh] = interval("curvature");
    expect(kappaLow).toBeLessThanOrEqual(curvature);
    expect(kappaHigh).toBeGreaterThanOrEqual(curvature);
    expect(Math.abs(kappa / curvature - 1)).toBeLessThan(0.4);
    const [s, sLow, sHigh] = interval("offset");
    expect(sLow).toBeLessThanOrEqual(offset);
    expect(sHigh).toBeGreaterThanOrEqual(offset);
    expect(Math.abs(s / offset - 1)).toBeLessThan(0.4);
    // The simulation that follows uses the fitted model, from the run's end.
    const line = out.match(
      /simulated below: npx spsa simulate --loss-elo ([\d.]+) --loss-steps 4 --offset ([\d.]+) --draw-rate ([\d.]+)/,
    );
    expect(line, out).not.toBeNull();
    expect(out).toContain(
      `each parameter loses ${line![1]} Elo at 4 steps from an optimum ${line![2]} steps from its value`,
    );
    expect(out).toMatch(/^your config .*$/m);
  });

  it("refuses model flags with --from-run, an unknown run, and a parameters file without the run's parameters", async () => {
    const both = await spsa(["simulate", "--from-run", "known", "--offset", "3"], { env });
    expect(both.exitCode).not.toBe(0);
    expect(both.stderr).toMatch(
      /--offset.*cannot be used with option '--from-run|--from-run.*cannot be used with option '--offset/,
    );
    const unknown = await spsa(["simulate", "--from-run", "knwon"], { env });
    expect(unknown.exitCode, unknown.all).toBe(2);
    expect(unknown.stderr).toContain(`no run named "knwon"`);
    const partial = join(dir, "params.toml");
    const text = readFileSync("params.toml", "utf8");
    // params.toml without its first parameter's table.
    writeFileSync(partial, text.replace(new RegExp(`\\[${params[0]!.name}\\][\\s\\S]*?(?=\\n\\[)`), ""));
    const missing = await spsa(["simulate", "--from-run", "known", "--params", partial], { env });
    expect(missing.exitCode, missing.all).toBe(2);
    expect(missing.stderr).toContain(`has no parameter ${params[0]!.name} of run "known"`);
  });
});
