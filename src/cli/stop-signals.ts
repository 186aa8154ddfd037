/** Set by the first stop signal: the command's process then ends as soon as the command returns. */
let stopRequested = false;

/**
 * Ctrl-C (SIGINT, which a terminal sends to its whole foreground process group) or SIGTERM
 * stops the command at its next safe point through the returned controller's signal; a second
 * one exits at once with status 130, saying `atOnce`: what that leaves for later.
 */
export function abortOnSignals(atOnce?: string): AbortController {
  const controller = new AbortController();
  const stop = () => {
    if (controller.signal.aborted) {
      process.stderr.write(`\nexiting at once${atOnce === undefined ? "" : `: ${atOnce}`}\n`);
      process.exit(130);
    }
    stopRequested = true;
    process.stderr.write("\nstopping (press Ctrl-C again to exit at once)\n");
    controller.abort();
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  return controller;
}

/** Whether a stop signal arrived. */
export function stopWasRequested(): boolean {
  return stopRequested;
}
