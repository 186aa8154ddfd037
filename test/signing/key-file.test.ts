import { generateKeyPairSync } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import {
  binaryMessage,
  messageSignerFor,
  parsePublicKey,
  signedMessage,
  signerFor,
  verifyBinary,
  verifyMessage,
  type BinarySubject,
} from "../../src/signing/binary-signature.js";
import { loadOrCreateSigningKey, publicKeyPath } from "../../src/signing/key-file.js";

const subject: BinarySubject = {
  runUid: "6f1c1f4e-3c8e-4e43-9d2a-1b7c2f0d5a11",
  iterationNumber: 7,
  role: "plus",
  sha256: "ab".repeat(32),
};

describe("binary signatures", () => {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const signature = signerFor(privateKey)(subject);

  it("verify for the signed subject only: another run, iteration, side or hash fails", () => {
    expect(verifyBinary([publicKey], subject, signature)).toBe(true);
    for (const other of [
      { runUid: "0b5e8a9e-7d51-4c44-8e0f-2f6f3c1a9b22" },
      { iterationNumber: 8 },
      { role: "minus" as const },
      { sha256: "cd".repeat(32) },
    ]) {
      expect(verifyBinary([publicKey], { ...subject, ...other }, signature)).toBe(false);
    }
  });

  it("fail with another key, no key, no signature or a mangled one", () => {
    expect(verifyBinary([generateKeyPairSync("ed25519").publicKey], subject, signature)).toBe(false);
    expect(verifyBinary([], subject, signature)).toBe(false);
    expect(verifyBinary([publicKey], subject, null)).toBe(false);
    expect(verifyBinary([publicKey], subject, "AAAA")).toBe(false);
  });

  it("sign other subjects with the same key (as the master signs a UCI-option run's parameters): valid for their kind, run uid and fields only, never as a binary", () => {
    const message = signedMessage("spsa-test-subject-v1", [subject.runUid, '{"X":1}']);
    const other = messageSignerFor(privateKey)(message);
    expect(verifyMessage([publicKey], message, other)).toBe(true);
    expect(
      verifyMessage(
        [publicKey],
        signedMessage("spsa-test-subject-v1", ["0b5e8a9e-7d51-4c44-8e0f-2f6f3c1a9b22", '{"X":1}']),
        other,
      ),
    ).toBe(false);
    expect(verifyMessage([publicKey], signedMessage("spsa-test-subject-v2", [subject.runUid, '{"X":1}']), other)).toBe(
      false,
    );
    // A binary's signature is one of these messages, of its own kind; the run's serial id (v1) is not signed.
    expect(verifyMessage([publicKey], binaryMessage(subject), signature)).toBe(true);
    expect(verifyMessage([publicKey], signedMessage("spsa-binary-v1", [3, 7, "plus", subject.sha256]), signature)).toBe(
      false,
    );
  });

  it("sign a message no two subjects share (fields cannot run into each other)", () => {
    expect(signedMessage("k", ["1", 23]).equals(signedMessage("k", ["12", 3]))).toBe(false);
    expect(signedMessage("k", ['a","b']).equals(signedMessage("k", ["a", "b"]))).toBe(false);
  });

  it("public keys: a malformed one names where it came from", () => {
    expect(() => parsePublicKey("ed25519:short", "--trust")).toThrow(/^--trust: "ed25519:short" is not a public key/);
    expect(() => parsePublicKey("ssh-ed25519 AAAA", "config.toml: [worker].trusted_keys (line 3)")).toThrow(
      /^config.toml: \[worker\].trusted_keys \(line 3\): /,
    );
  });
});

describe("the master's key file", () => {
  const dir = mkdtempSync(join(tmpdir(), "spsa-key-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("is made on first use, 0600 in a 0700 folder, with a readable public key beside it; later uses load the same key", () => {
    const path = join(dir, "keys", "signing-key");
    const key = loadOrCreateSigningKey(path);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, "keys")).mode & 0o777).toBe(0o700);
    expect(statSync(publicKeyPath(path)).mode & 0o777).toBe(0o644);
    expect(readFileSync(publicKeyPath(path), "utf8")).toBe(`${key.publicKey}\n`);
    expect(loadOrCreateSigningKey(path).publicKey).toBe(key.publicKey);
    expect(verifyBinary([parsePublicKey(key.publicKey, "test")], subject, key.sign(subject))).toBe(true);
  });

  it("a public key file replaced by another key is rewritten from the private key", () => {
    const path = join(dir, "rewritten");
    const key = loadOrCreateSigningKey(path);
    writeFileSync(publicKeyPath(path), "ed25519:tampered\n");
    expect(loadOrCreateSigningKey(path).publicKey).toBe(key.publicKey);
    expect(readFileSync(publicKeyPath(path), "utf8")).toBe(`${key.publicKey}\n`);
  });

  it("a key folder other users can write is refused with one line, before any file is made in it", () => {
    const folder = join(dir, "shared");
    mkdirSync(folder);
    chmodSync(folder, 0o777);
    expect(() => loadOrCreateSigningKey(join(folder, "signing-key"))).toThrow(
      `the signing key's folder ${folder} is writable by other users (mode 777)`,
    );
    expect(readdirSync(folder)).toEqual([]);
  });

  it("a key file other users can read is refused with one line", () => {
    const path = join(dir, "loose");
    loadOrCreateSigningKey(path);
    chmodSync(path, 0o644);
    expect(() => loadOrCreateSigningKey(path)).toThrow(
      `${path}: others can read the signing key (mode 644): chmod 600 ${path}, or make a new one`,
    );
  });
});

describe("config.toml keys of signing", () => {
  const dir = mkdtempSync(join(tmpdir(), "spsa-key-config-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("[master] signing_key is relative to the file; [worker] trusted_keys are checked at load, naming file and line", () => {
    const good = loadOrCreateSigningKey(join(dir, "k")).publicKey;
    const file = join(dir, "config.toml");
    writeFileSync(file, `[master]\nsigning_key = "keys/master"\n\n[worker]\ntrusted_keys = ["${good}"]\n`);
    expect(loadConfig(file).master.signingKey).toBe(join(dir, "keys", "master"));
    expect(loadConfig(file).worker.trustedKeys).toEqual([good]);
    writeFileSync(file, `[worker]\ntrusted_keys = ["${good}", "ed25519:nope"]\n`);
    expect(() => loadConfig(file)).toThrow(
      /config\.toml: \[worker\]\.trusted_keys \(line 2\): "ed25519:nope" is not a public key/,
    );
  });
});
