import { CommanderError } from "commander";
import { InputProblems, SpsaError } from "../core/errors.js";
import { stoppedDuringOutage } from "../postgres/outage-log.js";
import { databaseOutage } from "../postgres/retry.js";
import { stopWasRequested } from "./stop-signals.js";

/**
 * The one place where errors become exit codes. Commands throw typed errors; this prints
 * a single line (the stack too with --verbose, SPSA_DEBUG=1 or DEBUG set) and sets the exit status.
 * A stopped command ends its process once it returns: what it still waits for is a library's
 * (postgres.js retries a connection on a timer of its own), not its own work.
 */
export async function runCommand(action: () => Promise<void>, argv: readonly string[] = process.argv): Promise<void> {
  try {
    await action();
  } catch (error) {
    process.exitCode = reportError(error, argv.includes("--verbose"));
  }
  if (stopWasRequested()) process.exit();
  // Once the command returned, its process ends even if a library left a handle open: a master
  // continued after another took its run over once printed its error and stayed alive on an idle
  // Postgres connection. Unref'd: a process with nothing left open ends at once, as before.
  setTimeout(endWhenFlushed, RETURNED_EXIT_MS).unref();
}

/** How long a returned command's process may stay alive on a handle it left open. */
const RETURNED_EXIT_MS = 2_000;

/** Exits once stdout and stderr have written everything (a pipe's writes are asynchronous on macOS). */
function endWhenFlushed(): void {
  if (process.stdout.writableLength + process.stderr.writableLength > 0) setTimeout(endWhenFlushed, 100).unref();
  else process.exit();
}

export function reportError(error: unknown, verbose = false): number {
  const debug = verbose || process.env.SPSA_DEBUG === "1" || Boolean(process.env.DEBUG);
  // Commander has already printed its message; a usage error is bad input, like a bad file.
  if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
  if (error instanceof Error && error.name === "AbortError") {
    const outage = databaseOutage();
    if (outage === undefined) {
      process.stderr.write("stopped\n");
      return 130;
    }
    process.stderr.write(`error: ${stoppedDuringOutage(outage, Date.now())}\n`);
    return 3;
  }
  if (error instanceof InputProblems) {
    // One line per problem, each naming its file and line or key.
    for (const problem of error.problems) process.stderr.write(`error: ${problem.message}\n`);
    if (debug && error.stack) process.stderr.write(`${error.stack}\n`);
    return error.exitCode;
  }
  if (error instanceof SpsaError) {
    process.stderr.write(`error: ${error.message}\n`);
    if (debug && error.stack) process.stderr.write(`${error.stack}\n`);
    return error.exitCode;
  }
  const message = error instanceof Error ? (debug ? (error.stack ?? error.message) : error.message) : String(error);
  process.stderr.write(`unexpected error: ${message}\n`);
  return 1;
}
