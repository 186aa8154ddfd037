import { loadOrCreateSigningKey, signingKeyPath } from "../signing/key-file.js";
import { optionalConfig } from "./database-options.js";

export interface KeyCommandOptions {
  config?: string;
  out?: (line: string) => void;
}

/** `spsa key`: the master's public key, made on first use, for workers elsewhere to pin (docs/signing.md). */
export function keyCommand(options: KeyCommandOptions = {}): string {
  const key = loadOrCreateSigningKey(signingKeyPath(optionalConfig(options.config)));
  (options.out ?? ((line: string) => process.stdout.write(`${line}\n`)))(key.publicKey);
  return key.publicKey;
}
