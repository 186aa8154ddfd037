import { readFileSync } from "node:fs";

export interface ServiceUser {
  name: string;
  uid: number;
  gid: number;
}

/**
 * Postgres refuses to run as root. When we are root, the server runs as the `postgres`
 * user if there is one, else `nobody`; otherwise as ourselves (undefined).
 */
export function serverUser(): ServiceUser | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const users = readPasswd();
  return users.find((u) => u.name === "postgres") ?? users.find((u) => u.name === "nobody");
}

function readPasswd(): ServiceUser[] {
  return readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .map((line) => line.split(":"))
    .filter((fields) => fields.length >= 4)
    .map(([name, , uid, gid]) => ({ name: name ?? "", uid: Number(uid), gid: Number(gid) }));
}
