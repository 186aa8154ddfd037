import { configDefaults, defineConfig } from "vitest/config";

/**
 * Files that run alone, each after all the others: the CPU hog of busy-machine would make
 * every other file's games late; stockfish's check of its measured overshoot,
 * outside-delay's count of replays (a 100 ms margin) and engine-process's quiet reads (a
 * crash seen before the first drain at 250 ms) must not share the two cores with another
 * file's games. Everything else shares them (docs/development.md, "Test speed").
 */
const ALONE = ["test/reliability/busy-machine.test.ts", "test/play/stockfish.test.ts", "test/play/outside-delay.test.ts", "test/play/engine-process.test.ts"];

/** What every project runs with (not `extends: true`: that would run the global setup once per project). */
const common = { testTimeout: 120_000, hookTimeout: 180_000, pool: "forks" as const };

export default defineConfig({
  test: {
    // Two files at a time: most of a file's time is spent waiting on real engines, cargo and
    // Postgres, and the timed tests allow for a busy machine (margins, outside delays).
    maxWorkers: 2,
    minWorkers: 1,
    // Starts the shared test server and migrates the template every file's database copies.
    globalSetup: ["test/support/global-setup.ts"],
    // The default reporter, and at the end the slowest files and the sum of all files' times.
    reporters: ["default", "./test/support/slowest-files.ts"],
    projects: [
      { test: { ...common, name: "shared", include: ["test/**/*.test.ts"], exclude: [...configDefaults.exclude, ...ALONE] } },
      // One project per file, each its own group: groups run one after another.
      ...ALONE.map((file, index) => ({ test: { ...common, name: `alone-${index + 1}`, include: [file], sequence: { groupOrder: index + 1 } } })),
    ],
  },
});
