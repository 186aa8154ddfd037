import { createPublicKey, sign, verify, type KeyObject } from "node:crypto";
import { InputError } from "../core/errors.js";
import type { EngineRole } from "../types/engines.js";

/**
 * Ed25519 signatures over engine binaries (docs/signing.md). The sha256 in the database
 * catches corruption, not tampering: a worker runs a binary only if the master's key signed
 * its hash for this run, iteration and side (plus, minus, or reference mode's reference engine,
 * signed for each iteration it plays in), so a signature is never valid elsewhere. The run is
 * named by its random uid (spsa_run.uid), not its serial id, so a signature is not valid in
 * another database either.
 */

/** What a signature vouches for: this binary, on this side of this iteration of this run (its uid). */
export interface BinarySubject {
  runUid: string;
  iterationNumber: number;
  role: EngineRole;
  sha256: string;
}

/** Signs a subject with the master's key: base64 of the 64-byte Ed25519 signature. */
export type BinarySigner = (subject: BinarySubject) => string;
/** Signs any message made by signedMessage, with the same key. */
export type MessageSigner = (message: Buffer) => string;

const PREFIX = "ed25519:";
/** DER header of an Ed25519 SubjectPublicKeyInfo; the raw 32-byte key follows it. */
const SPKI_HEADER = Buffer.from("302a300506032b6570032100", "hex");
const BINARY_KIND = "spsa-binary-v2";

/**
 * The signed bytes of any subject: a JSON array of its kind (a versioned name, so a signature
 * of one kind never verifies as another) and its fields, so no field can run into the next.
 * Name the run by its uid among the fields, so the signature is valid in its database only.
 */
export function signedMessage(kind: string, fields: readonly (string | number)[]): Buffer {
  return Buffer.from(JSON.stringify([kind, ...fields]));
}

export function binaryMessage(subject: BinarySubject): Buffer {
  return signedMessage(BINARY_KIND, [subject.runUid, subject.iterationNumber, subject.role, subject.sha256]);
}

export function messageSignerFor(privateKey: KeyObject): MessageSigner {
  return (message) => sign(null, message, privateKey).toString("base64");
}

export function signerFor(privateKey: KeyObject): BinarySigner {
  const signMessage = messageSignerFor(privateKey);
  return (subject) => signMessage(binaryMessage(subject));
}

/** The public key as one printable line (`ed25519:` and the raw key in base64), for config.toml and --trust. */
export function formatPublicKey(key: KeyObject): string {
  const der = key.export({ format: "der", type: "spki" });
  return PREFIX + der.subarray(SPKI_HEADER.length).toString("base64");
}

/** Reads a key as formatPublicKey writes it; `where` names its origin for the message. */
export function parsePublicKey(text: string, where: string): KeyObject {
  const trimmed = text.trim();
  const raw = trimmed.startsWith(PREFIX) ? Buffer.from(trimmed.slice(PREFIX.length), "base64") : undefined;
  if (raw?.length !== 32 || raw.toString("base64") !== trimmed.slice(PREFIX.length)) {
    throw new InputError(
      where,
      `"${trimmed.slice(0, 60)}" is not a public key (expected ed25519: and 44 base64 characters, ` +
        `as \`spsa key\` prints)`,
    );
  }
  return createPublicKey({ key: Buffer.concat([SPKI_HEADER, raw]), format: "der", type: "spki" });
}

/** True when one of the keys signed this message; a missing or malformed signature is false. */
export function verifyMessage(keys: readonly KeyObject[], message: Buffer, signature: string | null): boolean {
  if (!signature) return false;
  const bytes = Buffer.from(signature, "base64");
  if (bytes.length !== 64) return false;
  return keys.some((key) => verify(null, message, key, bytes));
}

/** True when one of the keys signed this subject. */
export function verifyBinary(keys: readonly KeyObject[], subject: BinarySubject, signature: string | null): boolean {
  return verifyMessage(keys, binaryMessage(subject), signature);
}

/**
 * An iteration's engines, each with the master's signature for this run, iteration and side (`sign`
 * null: unsigned, for synthetic rows).
 */
export function signedEngines<T extends Partial<Record<EngineRole, { sha256: string }>>>(
  sign: BinarySigner | null,
  subject: Omit<BinarySubject, "role" | "sha256">,
  engines: T,
): { [K in keyof T]: T[K] & { signature: string | null } } {
  const signed = Object.entries(engines).map(([role, engine]) => {
    const signature = engine && sign ? sign({ ...subject, role: role as EngineRole, sha256: engine.sha256 }) : null;
    return [role, { ...engine, signature }];
  });
  return Object.fromEntries(signed) as { [K in keyof T]: T[K] & { signature: string | null } };
}
