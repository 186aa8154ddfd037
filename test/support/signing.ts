import type { KeyObject } from "node:crypto";
import { parsePublicKey } from "../../src/signing/binary-signature.js";
import { defaultSigningKeyPath, loadOrCreateSigningKey, type SigningKey } from "../../src/signing/key-file.js";

/** This checkout's master key (as `spsa master` makes it): rows a test inserts as the master are signed with it, so CLI workers trust them. */
export const localSigningKey = (): SigningKey => loadOrCreateSigningKey(defaultSigningKeyPath());

/** What an in-process worker of this machine trusts: the local master's key. */
export const localTrust = (): KeyObject[] => [parsePublicKey(localSigningKey().publicKey, "test")];
