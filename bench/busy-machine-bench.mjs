#!/usr/bin/env node
// Fair games on a busy machine (issue 17), not a test: the sample engine against itself at
// -c 2, a time per move drawn in [timelow, timehigh] per pair as the SPSA worker does, with
// and without a CPU hog (one spinning process per core), under the strict rule ("loss":
// every forfeit is scored, as before issue 17) and with replays ("replay", the SPSA default
// now). Prints the time losses scored per 1,000 games (the engine's own, and delays outside
// it) and the replays. Needs `npm run build` and `cargo build --release` in engines/minnow.
//   node bench/busy-machine-bench.mjs [--games 40] [--engine PATH] [--timelow 0.02 --timehigh 0.05]
import { spawn } from "node:child_process";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createRunner } from "../dist/play/runner.js";
import { defaultBookPath, loadBook, pickOpening } from "../dist/play/book.js";
import { MatchTally } from "../dist/play/match-tally.js";
import { seededRng, uniform } from "../dist/core/rng.js";

const { values } = parseArgs({
  options: {
    games: { type: "string", default: "40" },
    engine: {
      type: "string",
      default: fileURLToPath(new URL("../engines/minnow/target/release/minnow", import.meta.url)),
    },
    concurrency: { type: "string", default: "2" },
    margin: { type: "string", default: "50" },
    timelow: { type: "string", default: "0.02" },
    timehigh: { type: "string", default: "0.05" },
  },
});
const games = Number(values.games);
const book = loadBook(defaultBookPath());
const engine = (name) => ({ name, path: values.engine });

function startHog() {
  return Array.from({ length: availableParallelism() }, () =>
    spawn(process.execPath, ["-e", "const end = Date.now() + 3_600_000; while (Date.now() < end);"], {
      stdio: "ignore",
    }),
  );
}

async function measure(outsideDelay) {
  const runner = createRunner({
    concurrency: Number(values.concurrency),
    timeMarginMs: Number(values.margin),
    outsideDelay,
  });
  const tally = new MatchTally(["a", "b"]);
  const rng = seededRng("busy-machine-bench");
  const pairs = Array.from({ length: games / 2 }, () => ({
    first: engine("a"),
    second: engine("b"),
    opening: pickOpening(book, rng),
    limits: { movetimeMs: Math.round(uniform(rng, Number(values.timelow), Number(values.timehigh)) * 1000) },
  }));
  try {
    for (const pair of await Promise.all(pairs.map((job) => runner.playPair(job)))) tally.add(pair);
  } finally {
    await runner.close();
  }
  const perMille = (n) => ((n * 1000) / tally.games).toFixed(0);
  const own = tally.faults[0].timeout + tally.faults[1].timeout;
  const delays = tally.faults[0].delay + tally.faults[1].delay;
  return `${perMille(own + delays)} time losses scored per 1,000 games (${perMille(own)} own, ${perMille(delays)} delays), ${perMille(tally.replays)} replays, ${tally.replayLimitPairs} pairs out of replays`;
}

for (const hogged of [false, true]) {
  const hog = hogged ? startHog() : [];
  try {
    for (const policy of ["loss", "replay"]) {
      const label = `${hogged ? "with hog   " : "without hog"} ${policy === "loss" ? "before (strict)" : "after (replay) "}`;
      console.log(
        `${label} ${games} games: ${await measure(policy === "loss" ? { policy } : { policy, maxReplays: 4 })}`,
      );
    }
  } finally {
    for (const child of hog) child.kill("SIGKILL");
  }
}
