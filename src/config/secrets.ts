import type { StoredRunConfig, TuningConfig } from "../types/config.js";

/**
 * Keys whose values are or may hold a credential, at any depth: `[database]` (its url carries
 * the password), a URL (user:password@), a password, a token, a secret, a private key.
 */
const SECRET_KEY = /^database$|url$|passw(or)?d|passphrase|secret|token|credential|private_?key/i;

/** A config-like value without any key that may hold a credential, at any depth. */
export function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !SECRET_KEY.test(key))
      .map(([key, inner]) => [key, withoutSecrets(inner)]),
  );
}

/**
 * The config as spsa_run stores it (the dashboard serves it): without [database] (its url may
 * carry a password) and any other key that looks like it holds a secret. The migration 0010
 * scrubbed [database] from rows stored before.
 */
export function storedRunConfig(config: TuningConfig): StoredRunConfig {
  return withoutSecrets(JSON.parse(JSON.stringify(config))) as StoredRunConfig;
}
