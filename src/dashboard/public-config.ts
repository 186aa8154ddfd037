import { withoutSecrets } from "../config/secrets.js";

/**
 * A run's stored config as the dashboard serves it: without `[database]` and any key that
 * may hold a credential. The master does not store them (src/db/runs.ts); this is the second
 * line, for rows written before it stopped or by another version.
 */
export function publicConfig(config: Record<string, unknown>): Record<string, unknown> {
  return withoutSecrets(config) as Record<string, unknown>;
}

/**
 * The stored config as it is in effect for a UCI-option run that plays no curvature pilot (opened
 * before the mode had one, or its games are not units of four): without `spsa.adaptive.pilot`.
 */
export function optionRunConfig(config: Record<string, unknown>): Record<string, unknown> {
  const spsa = config.spsa as { adaptive?: Record<string, unknown> } | undefined;
  if (!spsa?.adaptive || !("pilot" in spsa.adaptive)) return config;
  const { pilot: _, ...adaptive } = spsa.adaptive;
  return { ...config, spsa: { ...spsa, adaptive } };
}
