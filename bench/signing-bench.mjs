#!/usr/bin/env node
// The cost of signed binaries per iteration (issue 24), not a test: the master signs two
// binaries (plus, minus) per iteration, a worker checks both signatures per batch and hashes
// both binaries (as it always did) when it first takes them from its private engine cache,
// which it wrote once per binary (issue 32); later batches only stat them. Prints
// milliseconds. Needs `npm run build`.
//   node bench/signing-bench.mjs [--rounds 2000] [--binary-mb 8]
import { createHash, generateKeyPairSync, randomBytes } from "node:crypto";
import { lstatSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { signerFor, verifyBinary } from "../dist/signing/binary-signature.js";
import { loadOrCreateSigningKey } from "../dist/signing/key-file.js";
import { privateFolder, readRegularFile } from "../dist/core/private-folder.js";
import { writeFileAtomic } from "../dist/core/write-atomic.js";

const { values } = parseArgs({
  options: { rounds: { type: "string", default: "2000" }, "binary-mb": { type: "string", default: "8" } },
});
const rounds = Number(values.rounds);
const { privateKey, publicKey } = generateKeyPairSync("ed25519");
const sign = signerFor(privateKey);
const sha256 = createHash("sha256").update(randomBytes(1024)).digest("hex");
const subject = (k, role) => ({ runUid: "6f1c1f4e-3c8e-4e43-9d2a-1b7c2f0d5a11", iterationNumber: k, role, sha256 });

const time = (work) => {
  const start = process.hrtime.bigint();
  work();
  return Number(process.hrtime.bigint() - start) / 1e6;
};

const signatures = [];
const signMs = time(() => {
  for (let k = 1; k <= rounds; k++) signatures.push([sign(subject(k, "plus")), sign(subject(k, "minus"))]);
});
let ok = 0;
const verifyMs = time(() => {
  for (let k = 1; k <= rounds; k++) {
    ok += verifyBinary([publicKey], subject(k, "plus"), signatures[k - 1][0]) ? 1 : 0;
    ok += verifyBinary([publicKey], subject(k, "minus"), signatures[k - 1][1]) ? 1 : 0;
  }
});
if (ok !== 2 * rounds) throw new Error("a signature did not verify");

const dir = mkdtempSync(join(tmpdir(), "spsa-sign-bench-"));
const createMs = time(() => loadOrCreateSigningKey(join(dir, "keys", "signing-key")));
const loadMs = time(() => loadOrCreateSigningKey(join(dir, "keys", "signing-key")));

const binary = randomBytes(Number(values["binary-mb"]) * 1024 * 1024);
const hashMs = time(() => createHash("sha256").update(binary).digest("hex"));
// The engine cache: written once per binary (O_EXCL temp, fsync, rename), read and hashed at its first use by a
// worker process (what hashing before each batch's use would cost), then only stat'ed (src/engine-build/binary-store.ts).
const cache = privateFolder(join(dir, "engine-cache"), "engine cache");
const writeMs = time(() => writeFileAtomic(join(cache, sha256), binary, { mode: 0o700 }));
const useRounds = 20;
const useMs =
  time(() => {
    for (let i = 0; i < useRounds; i++)
      createHash("sha256")
        .update(readRegularFile(join(cache, sha256), true, 1024 ** 3))
        .digest("hex");
  }) / useRounds;
const statMs =
  time(() => {
    for (let i = 0; i < useRounds; i++) lstatSync(join(cache, sha256));
  }) / useRounds;
rmSync(dir, { recursive: true, force: true });

console.log(`sign, per iteration (plus and minus):        ${(signMs / rounds).toFixed(3)} ms`);
console.log(`check, per batch (plus and minus):           ${(verifyMs / rounds).toFixed(3)} ms`);
console.log(`key file: create ${createMs.toFixed(1)} ms, load ${loadMs.toFixed(1)} ms (once per master or spsa key)`);
console.log(`for scale: sha256 of one ${values["binary-mb"]} MB binary in memory: ${hashMs.toFixed(1)} ms`);
console.log(`engine cache, once per binary: write ${values["binary-mb"]} MB, fsync, rename: ${writeMs.toFixed(1)} ms`);
console.log(
  `engine cache, once per binary and worker process: read and hash ${values["binary-mb"]} MB: ${useMs.toFixed(1)} ms`,
);
console.log(`engine cache, per binary per later batch: stat: ${statMs.toFixed(3)} ms`);
