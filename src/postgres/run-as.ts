import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { DatabaseError } from "../core/errors.js";

export interface ServiceUser {
  name: string;
  uid: number;
  gid: number;
}

/** The system user made for the server when root has no `postgres` user. */
export const DEDICATED_USER = "spsa-postgres";

/**
 * Postgres refuses to run as root. When we are root, the server runs as the `postgres`
 * user if there is one, else as a dedicated system user, created here on first use (never
 * `nobody`: every daemon that drops to it could then reach the data); otherwise as
 * ourselves (undefined).
 */
export function serverUser(
  log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): ServiceUser | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const existing = findUser("postgres") ?? findUser(DEDICATED_USER);
  if (existing) return existing;
  try {
    execFileSync(
      "useradd",
      [
        "--system",
        "--user-group",
        "--no-create-home",
        "--home-dir",
        "/nonexistent",
        "--shell",
        "/usr/sbin/nologin",
        DEDICATED_USER,
      ],
      { stdio: "pipe" },
    );
  } catch (error) {
    throw new DatabaseError(
      `no "postgres" user to run the embedded Postgres as, and \`useradd --system ` +
        `${DEDICATED_USER}\` failed (${(error as Error).message.split("\n")[0]}); create a system ` +
        `user "${DEDICATED_USER}" or set DATABASE_URL`,
      { cause: error },
    );
  }
  log(`created system user "${DEDICATED_USER}" to run the embedded Postgres (root cannot)`);
  const created = findUser(DEDICATED_USER);
  if (!created) throw new DatabaseError(`useradd created no user "${DEDICATED_USER}"`);
  return created;
}

/** The uid that owns the server's files: the server's user, or ourselves. */
export function serverUid(user: ServiceUser | undefined): number {
  return user?.uid ?? process.getuid?.() ?? 0;
}

/** execa options that run a child as `user` (nothing to change when undefined). */
export function asUser(user: ServiceUser | undefined): {
  uid?: number;
  gid?: number;
  env?: Record<string, string>;
  extendEnv?: boolean;
} {
  // A clean environment: the server's user gets none of root's variables (DATABASE_URL, tokens).
  return user
    ? {
        uid: user.uid,
        gid: user.gid,
        env: { HOME: "/tmp", PATH: process.env.PATH ?? "/usr/bin:/bin" },
        extendEnv: false,
      }
    : {};
}

/** The user of this uid (named by its uid when /etc/passwd has none), with its primary group. */
export function userWithUid(uid: number, gid: number): ServiceUser {
  return readPasswd().find((u) => u.uid === uid) ?? { name: String(uid), uid, gid };
}

function findUser(name: string): ServiceUser | undefined {
  return readPasswd().find((u) => u.name === name);
}

function readPasswd(): ServiceUser[] {
  return readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .map((line) => line.split(":"))
    .filter((fields) => fields.length >= 4)
    .map(([name, , uid, gid]) => ({ name: name ?? "", uid: Number(uid), gid: Number(gid) }));
}
