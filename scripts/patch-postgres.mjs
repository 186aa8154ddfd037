#!/usr/bin/env node
// Run by `npm install` / `npm ci` (postinstall). postgres.js 3.4.9, the newest release, has
// three open bugs that take a process down when the database restarts or kills a connection,
// which is what `spsa db stop`, a failover or an operator's pg_terminate_backend does to a
// running master or worker (docs/reliability.md):
//   - porsager/postgres#1192, #1205, #1223: a connection killed while it fetches array types
//     rejects a promise nobody holds; Node exits on the unhandled rejection.
//   - porsager/postgres#1154, #1208: a write queued for a socket that has closed runs later on
//     `null` and throws where no caller can catch it.
//   - closing or terminating a connection keeps its unsent bytes and its write timer, so the
//     next connection's startup message waits behind them (LanternOps/breeze#3225).
// Each fix below is the one proposed upstream. The script is idempotent, and fails loudly
// when the driver's code is not what it patches, so an upgrade is reviewed, not half-patched.
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const FIXES = [
  {
    what: "a failed array-type fetch is caught (its error reaches the query that waited for it)",
    before: "        return fetchArrayTypes()\n",
    after: "        return fetchArrayTypes().catch(noop)\n",
  },
  {
    what: "a write after the socket closed fails its query instead of throwing",
    before: "  function nextWrite(fn) {\n    const x = socket.write(chunk, fn)\n",
    after:
      "  function nextWrite(fn) {\n    if (!socket) {\n      chunk = nextWriteTimer = null\n      error(Errors.connection('CONNECTION_CLOSED', options))\n      return false\n    }\n    const x = socket.write(chunk, fn)\n",
  },
  {
    what: "terminate() drops the unsent bytes and the write timer",
    before: "      error(Errors.connection('CONNECTION_DESTROYED', options))\n\n    clearImmediate(nextWriteTimer)\n",
    after:
      "      error(Errors.connection('CONNECTION_DESTROYED', options))\n\n    clearImmediate(nextWriteTimer)\n    chunk = nextWriteTimer = null\n",
  },
  {
    what: "closed() drops the unsent bytes and the write timer",
    before: "    incomings = null\n    clearImmediate(nextWriteTimer)\n",
    after: "    incomings = null\n    clearImmediate(nextWriteTimer)\n    chunk = nextWriteTimer = null\n",
  },
];

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "node_modules", "postgres");
const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
// The ESM build is what this project loads; the CommonJS copy is patched too for anyone who requires it.
for (const file of [join(root, "src", "connection.js"), join(root, "cjs", "src", "connection.js")]) {
  let text = readFileSync(file, "utf8");
  for (const fix of FIXES) {
    if (text.includes(fix.after)) continue;
    if (!text.includes(fix.before)) {
      console.error(
        `scripts/patch-postgres.mjs: ${file} (postgres ${version}) has changed; cannot apply "${fix.what}". Check whether this release fixes it and update the script.`,
      );
      process.exit(1);
    }
    text = text.replace(fix.before, fix.after);
  }
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, text);
  renameSync(temp, file);
}
