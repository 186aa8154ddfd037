import { describe, expect, it } from "vitest";
import { IterationBuilds } from "../../src/master/iteration-builds.js";

/** A build that ends when the test says so, and records the slot and signal it was given. */
function controlled() {
  const started: {
    k: number;
    slot: number;
    signal: AbortSignal;
    finish: (value: string) => void;
    fail: (error: Error) => void;
  }[] = [];
  const build = (k: number) => (slot: number, signal: AbortSignal) =>
    new Promise<string>((resolve, reject) => {
      started.push({ k, slot, signal, finish: resolve, fail: reject });
      signal.addEventListener("abort", () => reject(signal.reason));
    });
  return { started, build };
}

describe("IterationBuilds", () => {
  it("hands built iterations back in iteration order, whichever ends first", async () => {
    const builds = new IterationBuilds<string>(undefined);
    const { started, build } = controlled();
    builds.start(4, build(4));
    builds.start(5, build(5));
    expect(builds.running).toBe(2);
    started[1]!.finish("five");
    await builds.ended();
    // 5 is built, but 4 is not: nothing to open yet.
    expect(builds.take()).toBeUndefined();
    expect(builds.iterations).toEqual([4, 5]);
    expect(builds.running).toBe(1);
    started[0]!.finish("four");
    await builds.ended();
    expect(builds.take()).toMatchObject({ k: 4, value: "four" });
    expect(builds.take()).toMatchObject({ k: 5, value: "five" });
    expect(builds.take()).toBeUndefined();
    expect(builds.iterations).toEqual([]);
    expect(builds.lastSeconds).toBeGreaterThanOrEqual(0);
  });

  it("a wait given up before a build ends does not swallow it: the next wait sees the built iteration at once", async () => {
    const builds = new IterationBuilds<string>(undefined);
    const { started, build } = controlled();
    builds.start(7, build(7));
    // The master's wait for games races the build and the games come first: this wait is abandoned.
    let abandoned = false;
    void builds.ended().then(() => (abandoned = true));
    started[0]!.finish("seven");
    await new Promise((resolve) => setImmediate(resolve));
    expect(abandoned).toBe(true);
    // The master's next wait, after the build ended: it must not wait for another build that never comes.
    const next = await Promise.race([
      builds.ended().then(() => "ended"),
      new Promise((resolve) => setImmediate(() => resolve("hung"))),
    ]);
    expect(next).toBe("ended");
    expect(builds.take()).toMatchObject({ k: 7, value: "seven" });
  });

  it("gives each running build the lowest free slot; one built and waiting leaves its slot", async () => {
    const builds = new IterationBuilds<string>(undefined);
    const { started, build } = controlled();
    builds.start(1, build(1));
    builds.start(2, build(2));
    started[1]!.finish("two");
    await builds.ended();
    // Iteration 2 waits for 1 to be opened, in its own folder: slot 1's trees are free again.
    builds.start(3, build(3));
    expect(started.map((s) => [s.k, s.slot])).toEqual([
      [1, 0],
      [2, 1],
      [3, 1],
    ]);
    await builds.close();
  });

  it("throws a failed build's error at the next take, even one after an iteration still building", async () => {
    const builds = new IterationBuilds<string>(undefined);
    const { started, build } = controlled();
    builds.start(1, build(1));
    builds.start(2, build(2));
    started[1]!.fail(new Error("cargo exited with 101"));
    await builds.ended();
    expect(() => builds.take()).toThrow("cargo exited with 101");
    await builds.close();
  });

  it("stops every build still running when closed, or when the master's signal aborts", async () => {
    const outer = new AbortController();
    const builds = new IterationBuilds<string>(outer.signal);
    const { started, build } = controlled();
    builds.start(1, build(1));
    builds.start(2, build(2));
    outer.abort(new Error("stopped"));
    expect(started.every((s) => s.signal.aborted)).toBe(true);
    await builds.close();
    expect(builds.running).toBe(0);
  });
});
