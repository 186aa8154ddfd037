/**
 * Runs `main` with `beside` next to it (the demo's master and worker). Whichever fails first
 * stops the other through its abort signal, and its error is the one thrown, so every
 * failure reaches the one place that prints errors and sets exit codes; when `main` ends,
 * `beside` is stopped and awaited.
 */
export async function runSideBySide<T>(main: (signal: AbortSignal) => Promise<T>, beside: (signal: AbortSignal) => Promise<unknown>): Promise<T> {
  const stopMain = new AbortController();
  const stopBeside = new AbortController();
  let besideError: { error: unknown } | undefined;
  const besideDone = beside(stopBeside.signal).catch((error: unknown) => {
    if (stopBeside.signal.aborted) return;
    besideError = { error };
    stopMain.abort(error);
  });
  try {
    return await main(stopMain.signal);
  } catch (error) {
    throw besideError ? besideError.error : error;
  } finally {
    stopBeside.abort();
    await besideDone;
  }
}
