import { withoutSecrets } from "../config/secrets.js";

/**
 * A run's stored config as the dashboard serves it: without `[database]` and any key that
 * may hold a credential. The master does not store them (src/db/runs.ts); this is the second
 * line, for rows written before it stopped or by another version.
 */
export function publicConfig(config: Record<string, unknown>): Record<string, unknown> {
  return withoutSecrets(config) as Record<string, unknown>;
}
