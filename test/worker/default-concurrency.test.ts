import { spawn } from "node:child_process";
import { once } from "node:events";
import { availableParallelism } from "node:os";
import { describe, expect, it } from "vitest";
import { defaultConcurrency, measureLoad } from "../../src/worker/default-concurrency.js";
import { compete } from "../support/cli.js";
import { useMigratedDatabase } from "../support/database.js";

describe("a worker's default concurrency", () => {
  it("is one game per core on an idle machine, less a core for a master in the same process", () => {
    expect(defaultConcurrency({ cores: 8, busyCores: 0.2 }, false).concurrency).toBe(8);
    expect(defaultConcurrency({ cores: 8, busyCores: 0.2 }, true)).toEqual({
      concurrency: 7,
      note: "default 7 (8 cores, 1 left for the master, 0.2 busy with other work at start; -c to choose)",
    });
  });

  it("leaves the cores other work keeps busy, a core counting once more than half busy, and never goes below one", () => {
    expect(defaultConcurrency({ cores: 8, busyCores: 2.4 }, false).concurrency).toBe(6);
    expect(defaultConcurrency({ cores: 8, busyCores: 2.6 }, true).concurrency).toBe(4);
    expect(defaultConcurrency({ cores: 2, busyCores: 1 }, true).concurrency).toBe(1);
    expect(defaultConcurrency({ cores: 2, busyCores: 9 }, false).concurrency).toBe(1);
    expect(defaultConcurrency({ cores: 1, busyCores: 0 }, true).concurrency).toBe(1);
  });

  it("measures a process spinning on a core as a busy core", async () => {
    // It says when it spins (a write to a pipe is synchronous): the sample starts then, however
    // long a busy machine takes to start a process.
    const hog = spawn(
      process.execPath,
      ["-e", 'process.stdout.write("spinning\\n"); const end = Date.now() + 60_000; while (Date.now() < end);'],
      { stdio: ["ignore", "pipe", "ignore"] },
    );
    try {
      await once(hog.stdout, "data");
      const load = await measureLoad(500);
      expect(load.busyCores).toBeGreaterThan(0.7);
      expect(load.busyCores).toBeLessThanOrEqual(load.cores + 0.01);
    } finally {
      hog.kill("SIGKILL");
    }
  });
});

describe("a worker started without -c", () => {
  const database = useMigratedDatabase(1);

  it("logs the concurrency it chose and why, and records it in spsa_worker", async () => {
    const result = await compete(["--spsa", "--name", "w-default", "--idle-exit", "1"], {
      env: { DATABASE_URL: database.url },
    });
    expect(result.exitCode, result.all).toBe(0);
    const note = /^default (\d+) \(\d+ cores, \d+\.\d busy with other work at start; -c to choose\)$/;
    const [row] = await database.sql<{ concurrency: number; concurrency_note: string }[]>`
      select concurrency, concurrency_note from spsa_worker where name = 'w-default'`;
    expect(row?.concurrency_note).toMatch(note);
    expect(row?.concurrency).toBe(Number(note.exec(row!.concurrency_note)![1]));
    expect(row?.concurrency).toBeGreaterThanOrEqual(1);
    expect(row?.concurrency).toBeLessThanOrEqual(availableParallelism());
    expect(result.stderr).toContain(`worker w-default: concurrency ${row?.concurrency_note}`);
  });
});
