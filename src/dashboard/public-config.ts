/** Keys whose values are or may hold credentials (a database URL carries its password). */
const SECRET_KEY = /^(database|url|.*password.*|.*passwd.*|.*secret.*|.*token.*)$/i;

/**
 * A run's stored config as the dashboard serves it: without `[database]` and any key that
 * may hold a credential, at any depth. The master should not store them at all; this is
 * the second line, for rows written before it stopped or by another version.
 */
export function publicConfig(config: Record<string, unknown>): Record<string, unknown> {
  return withoutSecrets(config) as Record<string, unknown>;
}

function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !SECRET_KEY.test(key))
      .map(([key, inner]) => [key, withoutSecrets(inner)]),
  );
}
