import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The checkout (or installed package) the tool runs from. */
export function packageRoot(): string {
  // This file is src/core/home.ts or dist/core/home.js: the root is two levels up.
  return resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
}

/**
 * The tool's home: $SPSA_HOME, else `.spsa` in the checkout. The embedded server, the signing key
 * and the engine cache live there.
 */
export function spsaHome(home = process.env.SPSA_HOME): string {
  return resolve(home ?? join(packageRoot(), ".spsa"));
}
