import { describe, expect, it } from "vitest";
import { allOrNothing, runSideBySide } from "../../src/core/side-by-side.js";

/** Resolves when the signal aborts, rejecting with its reason, as the master and worker loops do. */
const untilAborted = (signal: AbortSignal) =>
  new Promise<never>((_, reject) =>
    signal.addEventListener("abort", () => reject(signal.reason as Error), { once: true }),
  );

describe("runSideBySide", () => {
  it("stops main when the task beside it fails, and throws that task's error", async () => {
    let mainStopped = false;
    const run = runSideBySide(
      async (signal) => {
        await untilAborted(signal).catch((error: unknown) => {
          mainStopped = true;
          throw error;
        });
      },
      async () => {
        throw new Error("database unreachable");
      },
    );
    await expect(run).rejects.toThrow("database unreachable");
    expect(mainStopped).toBe(true);
  });

  it("stops the task beside when main fails, and throws main's error", async () => {
    let besideStopped = false;
    const run = runSideBySide(
      async () => {
        throw new Error("build failed");
      },
      async (signal) => {
        await untilAborted(signal).catch(() => (besideStopped = true));
      },
    );
    await expect(run).rejects.toThrow("build failed");
    expect(besideStopped).toBe(true);
  });

  it("stops both on its own signal (a Ctrl-C), and throws main's abort", async () => {
    const ctrlC = new AbortController();
    let besideStopped = false;
    const run = runSideBySide(
      (signal) => untilAborted(signal),
      async (signal) => {
        await untilAborted(signal).catch(() => (besideStopped = true));
      },
      ctrlC.signal,
    );
    ctrlC.abort();
    await expect(run).rejects.toMatchObject({ name: "AbortError" });
    expect(besideStopped).toBe(true);
  });

  it("returns main's result and stops the task beside", async () => {
    let besideStopped = false;
    const result = await runSideBySide(
      async () => 42,
      async (signal) => {
        await untilAborted(signal).catch(() => (besideStopped = true));
      },
    );
    expect(result).toBe(42);
    expect(besideStopped).toBe(true);
  });
});

describe("allOrNothing", () => {
  it("returns every result in order", async () => {
    expect(await allOrNothing([async () => 1, async () => 2])).toEqual([1, 2]);
  });

  it("aborts the other tasks on the first failure, waits for them, and throws that failure", async () => {
    const ended: string[] = [];
    const run = allOrNothing([
      async () => {
        throw new Error("plus failed");
      },
      async (signal) => {
        await untilAborted(signal).catch(() => ended.push("minus stopped"));
        return 0;
      },
    ]);
    await expect(run).rejects.toThrow("plus failed");
    expect(ended).toEqual(["minus stopped"]);
  });

  it("aborts every task when the caller's signal fires", async () => {
    const caller = new AbortController();
    const run = allOrNothing([(signal) => untilAborted(signal), (signal) => untilAborted(signal)], caller.signal);
    caller.abort(new Error("Ctrl-C"));
    await expect(run).rejects.toThrow("Ctrl-C");
  });
});
