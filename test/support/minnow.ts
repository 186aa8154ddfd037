import { join } from "node:path";
import { execa } from "execa";
import { ROOT } from "./cli.js";
import { TEST_HOME } from "./database.js";

/**
 * Builds the repository's minnow with cargo into the test folder (incremental, so the
 * second file to ask pays nothing) and returns the binary's path.
 */
export async function buildMinnow(): Promise<string> {
  const target = join(TEST_HOME, "minnow-target");
  await execa("cargo", ["build", "--release", "--quiet"], {
    cwd: join(ROOT, "engines", "minnow"),
    env: { CARGO_TARGET_DIR: target },
  });
  return join(target, "release", "minnow");
}
