// Preloaded with `node --import` by bench/large-tunes.mjs: at exit, writes the process's user and
// system CPU time (microseconds, process.cpuUsage) to $SPSA_CPU_FILE.
import { writeFileSync } from "node:fs";

process.on("exit", () => {
  if (process.env.SPSA_CPU_FILE) writeFileSync(process.env.SPSA_CPU_FILE, JSON.stringify(process.cpuUsage()));
});
