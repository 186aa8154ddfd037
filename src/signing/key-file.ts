import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, type KeyObject } from "node:crypto";
import {
  closeSync,
  constants,
  existsSync,
  fsyncSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  writeSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { spsaHome } from "../core/home.js";
import { InputError } from "../core/errors.js";
import { readPrivateFile } from "../core/read-private.js";
import { writeFileAtomic } from "../core/write-atomic.js";
import {
  formatPublicKey,
  messageSignerFor,
  parsePublicKey,
  signerFor,
  type BinarySigner,
  type MessageSigner,
} from "./binary-signature.js";

/** The master's signing key: its private half stays in a 0600 file, never in the database. */
export interface SigningKey {
  sign: BinarySigner;
  /** Signs another subject (a message made by signedMessage, naming the run's uid) with the same key. */
  signMessage: MessageSigner;
  /** As `spsa key` prints it and workers pin it. */
  publicKey: string;
  path: string;
}

/** `[master] signing_key` unless set: in the tool's home (`.spsa` or $SPSA_HOME), in a 0700 folder of its own. */
export function defaultSigningKeyPath(): string {
  return join(spsaHome(), "keys", "signing-key");
}

/** The public key lives beside the private one, readable, as ssh keeps `id_ed25519.pub`. */
export function publicKeyPath(signingKeyPath: string): string {
  return `${signingKeyPath}.pub`;
}

/** The master's key, created on first use; its public file is (re)written from it. */
export function loadOrCreateSigningKey(path: string): SigningKey {
  checkKeyFolder(path);
  const privateKey = createPrivateKey(readPrivateKey(path) ?? createKeyFile(path));
  if (privateKey.asymmetricKeyType !== "ed25519")
    throw new InputError(
      path,
      `holds a ${privateKey.asymmetricKeyType} key; the signing key must be Ed25519 (remove the ` +
        `file to have a new one made)`,
    );
  const publicKey = formatPublicKey(createPublicKey(privateKey));
  const pubFile = publicKeyPath(path);
  if (!existsSync(pubFile) || readFileSync(pubFile, "utf8") !== `${publicKey}\n`)
    writeFileAtomic(pubFile, `${publicKey}\n`, { mode: 0o644 });
  return { sign: signerFor(privateKey), signMessage: messageSignerFor(privateKey), publicKey, path };
}

/** The public key beside the master's key file on this machine, if a master made one. */
export function readLocalPublicKey(signingKeyPath: string): KeyObject | undefined {
  const file = publicKeyPath(signingKeyPath);
  if (!existsSync(file)) return undefined;
  return parsePublicKey(readFileSync(file, "utf8"), file);
}

/**
 * The key's folder, made 0700 if missing, must be ours and writable by no one else: in a
 * folder another user can write, they could swap the files (or plant links) beside the key.
 */
function checkKeyFolder(path: string): void {
  const folder = dirname(path);
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new InputError(path, `cannot make the signing key's folder: ${(error as Error).message}`);
  }
  const stat = lstatSync(folder);
  if (!stat.isDirectory()) throw new InputError(path, `${folder} is not a folder`);
  if (process.getuid && stat.uid !== process.getuid())
    throw new InputError(path, `the signing key's folder ${folder} belongs to another user (uid ${stat.uid})`);
  if ((stat.mode & 0o022) !== 0)
    throw new InputError(
      path,
      `the signing key's folder ${folder} is writable by other users (mode ` +
        `${(stat.mode & 0o777).toString(8)}); use a private folder (0700)`,
    );
}

/** The private key's PEM, or undefined if there is no file; a file others can read, or not ours, is refused. */
function readPrivateKey(path: string): string | undefined {
  return readPrivateFile(path, "signing key");
}

/**
 * A new key written with its final mode (0600, O_EXCL|O_NOFOLLOW: never a chmod afterwards)
 * under a temporary name, then linked into place: link fails rather than replace, so two
 * processes making the key at once agree on the first one, and no reader sees half a file.
 */
function createKeyFile(path: string): string {
  const pem = generateKeyPairSync("ed25519").privateKey.export({ format: "pem", type: "pkcs8" });
  const temp = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    try {
      writeSync(fd, Buffer.from(pem));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    linkSync(temp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST")
      throw new InputError(path, `cannot create the signing key: ${(error as Error).message}`);
  } finally {
    rmSync(temp, { force: true });
  }
  const written = readPrivateKey(path);
  if (written === undefined) throw new InputError(path, "the signing key vanished while it was made");
  return written;
}

/**
 * The keys a worker trusts: the pinned ones (`[worker] trusted_keys`, `--trust`) and the
 * public key of this machine's master, read when first found (a master started after the
 * worker makes it).
 */
export function trustedKeys(pinned: readonly KeyObject[], signingKeyPath: string): () => KeyObject[] {
  let local: KeyObject | undefined;
  return () => {
    local ??= readLocalPublicKey(signingKeyPath);
    return local ? [...pinned, local] : [...pinned];
  };
}

/** `[master] signing_key` of config.toml, else the default in the tool's home. */
export function signingKeyPath(config: { master: { signingKey: string | undefined } } | undefined): string {
  return config?.master.signingKey ?? defaultSigningKeyPath();
}
