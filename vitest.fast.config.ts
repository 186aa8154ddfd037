import { defineConfig } from "vitest/config";
import { FAST } from "./vitest.config.js";

/**
 * `npm run test:fast`: the inner loop's tier, the unit tests of pure code (FAST in
 * vitest.config.ts), without the global setup: no Postgres, no cargo, no engine or CLI process.
 */
export default defineConfig({
  test: {
    include: FAST,
    isolate: false,
    testTimeout: 120_000,
    maxWorkers: 2,
    minWorkers: 1,
    reporters: ["default", "./test/support/slowest-files.ts"],
  },
});
