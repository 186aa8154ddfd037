import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { storedRunConfig } from "../../src/config/secrets.js";
import { openRun } from "../../src/db/runs.js";
import { ROOT, SPSA_BIN } from "../support/cli.js";
import { useMigratedDatabase } from "../support/database.js";

/** A config.toml whose [database] url carries a password, as a master's may. */
function configWithPassword(): ReturnType<typeof loadConfig> {
  const dir = mkdtempSync(join(tmpdir(), "run-config-"));
  const file = join(dir, "config.toml");
  const text = readFileSync(join(ROOT, "config.toml"), "utf8").replace(
    "[database]\n",
    '[database]\nurl = "postgres://spsa:hunter2-secret@db.example:5432/spsa"\n',
  );
  writeFileSync(file, text);
  return loadConfig(file);
}

describe("the stored run config", () => {
  const database = useMigratedDatabase(2);

  it("never holds [database] (its url has the password), neither stored nor served by the dashboard", async () => {
    const config = configWithPassword();
    expect(config.database.url).toContain("hunter2-secret");
    await openRun(database.sql, { name: "secretive", fresh: false, config: storedRunConfig(config), values: { X: 1 } });
    const [row] = await database.sql<
      { config: Record<string, unknown>; text: string }[]
    >`select config, config::text as text from spsa_run where name = 'secretive'`;
    expect(row?.text).not.toContain("hunter2-secret");
    expect(row?.config).not.toHaveProperty("database");
    expect(row?.config).toHaveProperty("spsa");

    const dashboard = execa("node", [SPSA_BIN, "dashboard", "--port", "0"], {
      cwd: ROOT,
      env: { DATABASE_URL: database.url },
      reject: false,
      all: true,
    });
    try {
      const base = await new Promise<string>((resolve) => {
        dashboard.stdout?.on("data", (chunk: Buffer) => {
          const match = /dashboard at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(chunk.toString());
          if (match?.[1]) resolve(match[1]);
        });
      });
      const served = await (await fetch(new URL("api/runs/secretive", base))).text();
      expect(served).toContain("secretive");
      expect(served).not.toContain("hunter2-secret");
    } finally {
      dashboard.kill("SIGTERM");
      await dashboard;
    }
  });

  it("loses the [database] of rows stored by older versions to the migration that scrubs them", async () => {
    await database.sql`insert into spsa_run (name, seed, config, initial_parameters, current_parameters)
      values ('old', 's', ${database.sql.json({ spsa: { a: 1 }, database: { url: "postgres://u:old-secret@h/db" } })}, '{}', '{}')`;
    const migration = readdirSync(join(ROOT, "migrations")).find((name) =>
      name.endsWith("_scrub_run_config_secrets.sql"),
    );
    if (!migration) throw new Error("the scrubbing migration is missing");
    await database.sql.unsafe(readFileSync(join(ROOT, "migrations", migration), "utf8"));
    const [row] = await database.sql<{ text: string }[]>`select config::text as text from spsa_run where name = 'old'`;
    expect(row?.text).toBe('{"spsa": {"a": 1}}');
  });
});
