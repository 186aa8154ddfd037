import { describe, it } from "vitest";
import { startMaster, startWorker } from "./support/processes.js";
import { useRunFixture } from "./support/run-fixture.js";

const t0 = Date.now();
const stamp = (who: string, child: ReturnType<typeof startMaster>) =>
  child.all?.on("data", (chunk: Buffer) => {
    for (const line of chunk.toString().split("\n")) if (line.trim()) console.log(`${((Date.now() - t0) / 1000).toFixed(2)} ${who}: ${line.slice(0, 160)}`);
  });

describe("profile", () => {
  const run = useRunFixture({ iterations: 2, games: 8, batchSize: 2, ...(process.env.LIMIT ? { moveLimit: process.env.LIMIT } : {}) });
  it("runs", async () => {
    console.log(`${((Date.now() - t0) / 1000).toFixed(2)} start`);
    const workers = [startWorker(run.setup, run.env, "w1"), startWorker(run.setup, run.env, "w2")];
    workers.forEach((w, i) => stamp(`w${i + 1}`, w));
    const master = startMaster(run.setup, run.env, "e2e", ["--seed", "fixed"]);
    stamp("master", master);
    await master;
    console.log(`${((Date.now() - t0) / 1000).toFixed(2)} master done`);
    for (const worker of workers) worker.kill("SIGTERM");
    await Promise.all(workers);
    console.log(`${((Date.now() - t0) / 1000).toFixed(2)} workers done`);
  }, 300_000);
});
