#!/usr/bin/env node
// Engine start cost (not a test): what starting an engine through `setpriv --pdeathsig KILL`
// (src/play/engine-spawn.ts) adds to a direct start. Each round spawns the engine both ways,
// as a group leader like the runner does, sends `uci`, times until `uciok`, then `quit`s it.
//   node bench/engine-start.mjs --engine path/to/minnow [--starts 100]
import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { median, quantile } from "./bench-stats.mjs";

const { values } = parseArgs({
  options: {
    engine: { type: "string" },
    starts: { type: "string", default: "100" },
    setpriv: { type: "string", default: "/usr/bin/setpriv" },
  },
});
if (!values.engine) throw new Error("--engine PATH is required");
const starts = Number(values.starts);

/** Milliseconds from spawn to `uciok`. */
async function start(viaSetpriv) {
  const began = performance.now();
  const [command, args] = viaSetpriv
    ? [values.setpriv, ["--pdeathsig", "KILL", "--", values.engine]]
    : [values.engine, []];
  const child = spawn(command, args, { stdio: ["pipe", "pipe", "ignore"], detached: true });
  let text = "";
  await new Promise((resolve, reject) => {
    child.once("error", reject);
    child.stdout.on("data", (chunk) => {
      text += chunk;
      if (text.includes("uciok")) resolve();
    });
    child.stdin.write("uci\n");
  });
  const ms = performance.now() - began;
  child.stdin.write("quit\n");
  await new Promise((resolve) => child.once("exit", resolve));
  return ms;
}

const times = { direct: [], setpriv: [] };
// Interleaved, so both ways see the same machine.
for (let i = 0; i < starts; i++)
  for (const way of ["direct", "setpriv"]) times[way].push(await start(way === "setpriv"));
for (const [way, list] of Object.entries(times)) {
  console.log(
    `${way}: ${starts} starts to uciok, median ${median(list).toFixed(1)} ms, p90 ${quantile(list, 0.9).toFixed(1)} ms`,
  );
}
