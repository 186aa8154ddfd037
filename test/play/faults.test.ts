import { fileURLToPath } from "node:url";
import { afterAll, describe, it } from "vitest";
import { START_FEN } from "../../src/play/position.js";
import { createRunner } from "../../src/play/runner.js";
import type { EngineSpec } from "../../src/play/engine-process.js";
import type { GameResult } from "../../src/play/game.js";

const fixture = (name: string): EngineSpec => ({
  name,
  path: fileURLToPath(new URL(`../fixtures/engines/${name}.mjs`, import.meta.url)),
});
const good = fixture("random-mover");
const opening = { fen: START_FEN };
// Fixed nodes: the fake engines answer at once, and no game here can be lost on time by a
// busy machine; a search without bestmove is stopped after `untimedStallMs`.
const limits = { nodes: 1 };
// The start-up cases wait this long for uciok; slow-start answers after 7 s. Other cases keep
// the default (10 s): a fake engine is a Node process, and two test files at once on two cores
// have seen one take over 2 s to start.
const STARTUP_TIMEOUT_MS = 5000;

/** Plays the misbehaving engine as white, then a normal game with the same runner. */
async function misbehave(
  name: string,
  options: Parameters<typeof createRunner>[0] = {},
): Promise<[GameResult, GameResult]> {
  const runner = createRunner({ concurrency: 1, untimedStallMs: 2000, stopGraceMs: 300, ...options });
  try {
    const bad = await runner.playGame({ white: fixture(name), black: good, opening, limits });
    const next = await runner.playGame({ white: good, black: good, opening, limits });
    return [bad, next];
  } finally {
    await runner.close();
  }
}

// Each case its own runner and engines, so they run at once: the start-up cases' waits (5 s, 7 s)
// overlap instead of adding up.
describe.concurrent("misbehaving engines", () => {
  const runners: ReturnType<typeof createRunner>[] = [];
  afterAll(async () => Promise.all(runners.map((r) => r.close())));

  it.for([
    ["crash", "crash", "white: engine crashed", 4],
    ["hang", "timeout", "white: time forfeit (no bestmove after stop, engine killed)", 4],
    ["illegal", "illegal", "white: illegal move a1a1", 4],
    ["garbage", "garbage", 'white: unparsable move "banana"', 4],
    ["no-uciok", "startup", `white: engine failed to start (no-uciok: no uciok within ${STARTUP_TIMEOUT_MS} ms)`, 0],
    [
      "slow-start",
      "startup",
      `white: engine failed to start (slow-start: no uciok within ${STARTUP_TIMEOUT_MS} ms)`,
      0,
    ],
  ] as const)(
    "%s: loses with fault %s, and the next game is played",
    async ([name, kind, reason, plies], { expect }) => {
      const [bad, next] = await misbehave(name, kind === "startup" ? { timeouts: { uciMs: STARTUP_TIMEOUT_MS } } : {});
      expect(bad).toMatchObject({ result: "0-1", reason, plies, faults: { white: kind, black: "none" } });
      expect(next.faults).toEqual({ white: "none", black: "none" });
      expect(next.plies).toBeGreaterThan(0);
    },
  );

  it("a slow start is fine within the uci timeout", async ({ expect }) => {
    const [game] = await misbehave("slow-start", { timeouts: { uciMs: 12_000 } });
    expect(game.faults).toEqual({ white: "none", black: "none" });
  });

  it("a search that ends only on stop is a time forfeit, and the engine is kept", async ({ expect }) => {
    const runner = createRunner({ concurrency: 1, untimedStallMs: 1500, stopGraceMs: 2000 });
    runners.push(runner);
    const game = await runner.playGame({ white: fixture("stall-until-stop"), black: good, opening, limits });
    expect(game).toMatchObject({ result: "0-1", faults: { white: "timeout" } });
    expect(game.reason).toMatch(/^white: time forfeit \(\d+ ms of 1500 allowed, engine reported 1 ms\)$/);
    expect(runner.engineCount).toBe(2);
  });

  it("megabytes of info lines do not disturb the game", async ({ expect }) => {
    const runner = createRunner({ concurrency: 1 });
    runners.push(runner);
    const game = await runner.playGame({ white: fixture("flood"), black: good, opening, limits });
    expect(game.faults).toEqual({ white: "none", black: "none" });
    expect(game.plies).toBeGreaterThan(4);
  });

  it("a binary that does not exist loses at startup", async ({ expect }) => {
    const [game] = await misbehave("does-not-exist");
    expect(game).toMatchObject({ result: "0-1", plies: 0, faults: { white: "startup" } });
    expect(game.reason).toMatch(/^white: engine failed to start \(does-not-exist: spawn .*ENOENT\)$/);
  });
});
