import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { spawnEngine } from "../../src/play/engine-spawn.js";

const saved = { ...process.env };
afterEach(() => {
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
  Object.assign(process.env, saved);
});

describe("an engine's environment", () => {
  it("has no database URL, no libpq variable and no secret of this tool (a fake engine dumps what it got)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "engine-env-"));
    const dump = join(dir, "env");
    const engine = join(dir, "engine.sh");
    writeFileSync(engine, `#!/bin/sh\nenv > '${dump}.tmp' && mv '${dump}.tmp' '${dump}'\n`);
    chmodSync(engine, 0o755);
    Object.assign(process.env, {
      DATABASE_URL: "postgres://spsa:db-secret@localhost/postgres",
      PGPASSWORD: "pg-secret",
      PGHOST: "/var/tmp/spsa-pg-x",
      SPSA_DASHBOARD_TOKEN: "token-secret",
      SPSA_HOME: "/somewhere",
      GITHUB_TOKEN: "gh-secret",
      ENGINE_KEEPS_THIS: "kept",
    });
    const { child } = await spawnEngine(engine, [], { onText: () => {} });
    await new Promise((resolve) => child.once("exit", resolve));
    expect(existsSync(dump)).toBe(true);
    const env = readFileSync(dump, "utf8");
    expect(env).toContain("ENGINE_KEEPS_THIS=kept");
    expect(env).toContain("PATH=");
    for (const secret of ["db-secret", "pg-secret", "token-secret", "gh-secret", "PGHOST", "SPSA_HOME", "DATABASE_URL"])
      expect(env).not.toContain(secret);
  });
});
