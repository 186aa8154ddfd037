import { hostname, userInfo } from "node:os";

/** Who runs this command, for the record of a decision: the login and the host ("alice@box1"). */
export function operatorName(): string {
  let user: string;
  try {
    user = userInfo().username;
  } catch {
    // A uid without a passwd entry (a container): its number.
    user = process.env.USER ?? `uid ${process.getuid?.() ?? "?"}`;
  }
  return `${user}@${hostname()}`;
}
