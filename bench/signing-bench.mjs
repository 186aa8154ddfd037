#!/usr/bin/env node
// The cost of signed binaries per iteration (issue 24), not a test: the master signs two
// binaries (plus, minus) per iteration, a worker checks both signatures per batch and hashes
// both binaries (as it always did). Prints milliseconds. Needs `npm run build`.
//   node bench/signing-bench.mjs [--rounds 2000] [--binary-mb 8]
import { createHash, generateKeyPairSync, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { signerFor, verifyBinary } from "../dist/signing/binary-signature.js";
import { loadOrCreateSigningKey } from "../dist/signing/key-file.js";

const { values } = parseArgs({ options: { rounds: { type: "string", default: "2000" }, "binary-mb": { type: "string", default: "8" } } });
const rounds = Number(values.rounds);
const { privateKey, publicKey } = generateKeyPairSync("ed25519");
const sign = signerFor(privateKey);
const sha256 = createHash("sha256").update(randomBytes(1024)).digest("hex");
const subject = (k, variant) => ({ runId: 1, iterationNumber: k, variant, sha256 });

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
rmSync(dir, { recursive: true, force: true });

const binary = randomBytes(Number(values["binary-mb"]) * 1024 * 1024);
const hashMs = time(() => createHash("sha256").update(binary).digest("hex"));

console.log(`sign, per iteration (plus and minus):        ${(signMs / rounds).toFixed(3)} ms`);
console.log(`check, per batch (plus and minus):           ${(verifyMs / rounds).toFixed(3)} ms`);
console.log(`key file: create ${createMs.toFixed(1)} ms, load ${loadMs.toFixed(1)} ms (once per master or spsa key)`);
console.log(`for scale: sha256 of one ${values["binary-mb"]} MB binary (done before, too): ${hashMs.toFixed(1)} ms`);
