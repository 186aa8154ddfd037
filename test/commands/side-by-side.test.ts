import { describe, expect, it } from "vitest";
import { runSideBySide } from "../../src/commands/side-by-side.js";

/** Resolves when the signal aborts, rejecting with its reason, as the master and worker loops do. */
const untilAborted = (signal: AbortSignal) =>
  new Promise<never>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason as Error), { once: true }));

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
