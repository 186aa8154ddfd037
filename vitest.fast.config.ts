import { defineConfig } from "vitest/config";

/**
 * `npm run test:fast`: the inner loop's tier, the unit tests of pure code: no Postgres (no
 * global setup: a file that asks for a database fails here), no cargo build, no engine or CLI
 * process. They run in `npm test` too. A new test of pure code belongs in this list
 * (docs/development.md, "Test speed").
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
  "test/spsa/*.test.ts",
  "test/stats/*.test.ts",
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

export default defineConfig({
  test: { include: FAST, testTimeout: 120_000, maxWorkers: 2, minWorkers: 1, reporters: ["default", "./test/support/slowest-files.ts"] },
});
