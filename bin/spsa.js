#!/usr/bin/env node
// The command runs bundled (scripts/build.mjs); with its source map a stack names the
// TypeScript sources (--verbose, SPSA_DEBUG=1).
process.setSourceMapsEnabled(true);
const { main } = await import("../dist/bin/spsa.js");
await main(process.argv);
