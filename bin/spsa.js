#!/usr/bin/env node
// The command runs bundled (scripts/build.mjs). Only when a stack may be printed (--verbose,
// SPSA_DEBUG=1, DEBUG: src/cli/run.ts) does its source map name the TypeScript sources: reading
// the maps costs every start about 40 ms of CPU.
if (process.argv.includes("--verbose") || process.env.SPSA_DEBUG === "1" || process.env.DEBUG) {
  process.setSourceMapsEnabled(true);
}
const { main } = await import("../dist/bin/spsa.js");
await main(process.argv);
