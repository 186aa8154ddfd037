import { execa, type ResultPromise } from "execa";

/** True when tests can act as another local user (setpriv needs root). */
export const canSwitchUser = process.getuid?.() === 0;
export const notRootReason = "root: only root can act as another local user (setpriv)";

/**
 * Runs a Node script as another user (uid/gid `as`, default nobody), with `args` in
 * process.argv.slice(1) — the attacker of a security test. It prints its findings as JSON.
 */
export function nodeAs(
  script: string,
  args: string[],
  as: { uid: number; gid: number } = { uid: 65534, gid: 65534 },
): ResultPromise<{ reject: false; all: true }> {
  return execa(
    "setpriv",
    [
      `--reuid=${as.uid}`,
      `--regid=${as.gid}`,
      "--clear-groups",
      "node",
      "--input-type=module",
      "-e",
      script,
      "--",
      ...args,
    ],
    {
      reject: false,
      all: true,
      env: { PATH: "/usr/bin:/bin" },
      extendEnv: false,
    },
  );
}

/** The JSON line a `nodeAs` script printed last. */
export function findings<T>(result: { stdout: unknown; all?: unknown }): T {
  const lines = String(result.stdout).trim().split("\n");
  try {
    return JSON.parse(lines.at(-1) ?? "") as T;
  } catch {
    throw new Error(`the other user's script printed no findings: ${String(result.all)}`);
  }
}
