import { configDefaults, defineConfig } from "vitest/config";
import SlowFirstSequencer from "./test/support/slow-first.js";

/**
 * Files that run alone, each after all the others: the CPU hog of busy-machine would make
 * every other file's games late; stockfish's check of its measured overshoot,
 * outside-delay's count of replays (a 100 ms margin) and engine-process's quiet reads (a
 * crash seen before the first drain at 250 ms) must not share the two cores with another
 * file's games. Everything else shares them (docs/development.md, "Test speed").
 */
const ALONE = [
  "test/reliability/busy-machine.test.ts",
  "test/play/stockfish.test.ts",
  "test/play/outside-delay.test.ts",
  "test/play/engine-process.test.ts",
];

/**
 * The unit tests of pure code: no Postgres, no cargo build, no engine or CLI process. They run
 * in two worker threads reused from file to file (nothing to isolate, and a fork and its imports
 * per file cost more than most of these files' tests), and on their own as `npm run test:fast`
 * (vitest.fast.config.ts, without the global setup: a file here that asks for a database fails
 * there). A new test of pure code belongs in this list.
 */
export const FAST = [
  "test/architecture/*.test.ts",
  "test/core/rng.test.ts",
  "test/core/side-by-side.test.ts",
  "test/core/status-line.test.ts",
  "test/dashboard/access.test.ts",
  "test/dashboard/rate-buckets.test.ts",
  "test/engine-build/target-check.test.ts",
  "test/export/faulted-pgn.test.ts",
  "test/master/iteration-builds.test.ts",
  "test/master/progress.test.ts",
  "test/master/reference-conflict.test.ts",
  "test/params/*.test.ts",
  "test/play/adjudication.test.ts",
  "test/play/book.test.ts",
  "test/play/chess-internals.test.ts",
  "test/play/clock.test.ts",
  "test/play/forfeit-cause.test.ts",
  "test/play/loop-lag.test.ts",
  "test/play/pair-tally.test.ts",
  "test/play/pgn.test.ts",
  "test/play/position.test.ts",
  "test/play/quiet-reads.test.ts",
  "test/play/uci-info.test.ts",
  "test/postgres/connection-url.test.ts",
  "test/postgres/listen.test.ts",
  "test/postgres/outage-log.test.ts",
  "test/postgres/poll-backoff.test.ts",
  "test/rust-constants/literal.test.ts",
  "test/rust-constants/macro.test.ts",
  "test/rust-constants/rust-types.test.ts",
  "test/signing/key-file.test.ts",
  "test/signing/options-signature.test.ts",
  "test/simulate/async-tuner.test.ts",
  "test/simulate/bad-workers.test.ts",
  "test/simulate/fit-model.test.ts",
  "test/simulate/in-flight.test.ts",
  "test/simulate/limit.test.ts",
  "test/spsa/*.test.ts",
  "test/stats/*.test.ts",
  "test/status/gain-status.test.ts",
  "test/status/move-histogram.test.ts",
  "test/status/sparkline.test.ts",
  "test/status/texel-render.test.ts",
  "test/texel/error.test.ts",
  "test/texel/local-search.test.ts",
  "test/texel/positions.test.ts",
  "test/verification/*.test.ts",
  "test/verify/limits.test.ts",
  "test/worker/batch-tally.test.ts",
  "test/worker/delay-guard.test.ts",
  "test/worker/time-factor.test.ts",
];

/** What every project runs with (not `extends: true`: that would run the global setup once per project). */
const common = { testTimeout: 120_000, hookTimeout: 180_000, pool: "forks" as const };

export default defineConfig({
  test: {
    // Four files at a time on two cores: a file waits much of its time (leases, polls, process
    // starts, a master's steps), and with two at a time the cores sat partly idle (docs/
    // development.md, "Test speed"). The timed tests allow for a busy machine (margins, outside
    // delays); the files that cannot share the cores run alone at the end (ALONE).
    maxWorkers: 4,
    minWorkers: 1,
    // The unit tier's pool (FAST): its threads are reused from file to file, which made that tier
    // cost 25 s of CPU instead of 50. minThreads equals maxThreads: with fewer kept, vitest 3.2's
    // pool rejected "Terminating worker thread" as it retired an idle one. The forks of the other
    // tiers stay one per file: reused, a fork of the shared tier kept running what its earlier
    // files left behind, and a whole run cost about the same.
    poolOptions: { threads: { isolate: false, minThreads: 2, maxThreads: 2 } },
    sequence: { sequencer: SlowFirstSequencer },
    // Starts the shared test server and migrates the template every file's database copies.
    globalSetup: ["test/support/global-setup.ts"],
    // The default reporter, and at the end the slowest files and the sum of all files' times.
    reporters: ["default", "./test/support/slowest-files.ts"],
    projects: [
      { test: { ...common, name: "unit", include: FAST, pool: "threads" } },
      {
        test: {
          ...common,
          name: "shared",
          include: ["test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, ...ALONE, ...FAST],
        },
      },
      // One project per file, each its own group: groups run one after another.
      ...ALONE.map((file, index) => ({
        test: { ...common, name: `alone-${index + 1}`, include: [file], sequence: { groupOrder: index + 1 } },
      })),
    ],
  },
});
