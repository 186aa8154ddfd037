import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // Files run one at a time: they start real engines, cargo and Postgres, and the timed
    // ones (clocks, forfeits) must not share two cores with a tuning run of another file.
    pool: "forks",
    fileParallelism: false,
  },
});
