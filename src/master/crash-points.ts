/**
 * Fault injection for the restart tests: with SPSA_CRASH_AT=<point>, the master kills
 * itself with SIGKILL when it reaches that point of its loop — a real kill -9 at an exact
 * place that a test could not hit from outside (e.g. between a commit and a file write).
 * With SPSA_STOP_AT=<point> it stops itself there (SIGSTOP) until the test continues it
 * (SIGCONT): a master that stalls at an exact place, as on a suspended machine.
 */
export type CrashPoint =
  | "build-starting"
  | "build-started"
  | "builds-swept"
  | "reference-built"
  | "iteration-inserted"
  | "waiting"
  | "iteration-committed"
  | "ship-elimination-waiting"
  | "ship-final-waiting"
  | "transfer-playing";

export function crashPoint(point: CrashPoint): void {
  if (process.env.SPSA_CRASH_AT === point) process.kill(process.pid, "SIGKILL");
  if (process.env.SPSA_STOP_AT === point) process.kill(process.pid, "SIGSTOP");
}
