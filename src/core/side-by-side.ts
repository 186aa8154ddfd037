/** Tasks that run at once and must end together: one failure stops the others and is the one reported. */

/**
 * Runs `main` with `beside` next to it (the demo's master and worker). Whichever fails first
 * stops the other through its abort signal, and its error is the one thrown, so every
 * failure reaches the one place that prints errors and sets exit codes; when `main` ends,
 * `beside` is stopped and awaited. `signal` (a Ctrl-C) stops both.
 */
export async function runSideBySide<T>(
  main: (signal: AbortSignal) => Promise<T>,
  beside: (signal: AbortSignal) => Promise<unknown>,
  signal?: AbortSignal,
): Promise<T> {
  const stopMain = new AbortController();
  const stopBeside = new AbortController();
  const stopBoth = () => {
    stopMain.abort(signal?.reason);
    stopBeside.abort();
  };
  signal?.addEventListener("abort", stopBoth, { once: true });
  if (signal?.aborted) stopBoth();
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
    signal?.removeEventListener("abort", stopBoth);
    stopBeside.abort();
    await besideDone;
  }
}

/**
 * Runs tasks at once (the plus and minus builds). The first failure, or `signal`, aborts the
 * others through their signal; every task is awaited before the first error is thrown, so
 * nothing keeps running behind the error.
 */
export async function allOrNothing<T>(
  tasks: readonly ((signal: AbortSignal) => Promise<T>)[],
  signal?: AbortSignal,
): Promise<T[]> {
  const stop = new AbortController();
  const onAbort = () => stop.abort(signal?.reason);
  signal?.addEventListener("abort", onAbort, { once: true });
  if (signal?.aborted) onAbort();
  let failure: { error: unknown } | undefined;
  try {
    const settled = await Promise.allSettled(
      tasks.map((task) =>
        task(stop.signal).catch((error: unknown) => {
          failure ??= { error };
          stop.abort(error);
          throw error;
        }),
      ),
    );
    if (failure) throw failure.error;
    return settled.map((result) => (result as PromiseFulfilledResult<T>).value);
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
}
