import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { START_FEN } from "../../src/play/position.js";
import { createRunner, type Runner } from "../../src/play/runner.js";
import type { EngineSpec } from "../../src/play/engine-process.js";

const mover = (name: string): EngineSpec => ({
  name,
  path: fileURLToPath(new URL("../fixtures/engines/random-mover.mjs", import.meta.url)),
});
const opening = { fen: "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2" };

describe("runner", () => {
  let runner: Runner | undefined;
  afterEach(async () => runner?.close());

  it("plays a pair with colours swapped from the same opening, and scores it from the first engine", async () => {
    runner = createRunner({ concurrency: 2, timeMarginMs: 500 });
    const pair = await runner.playPair({ first: mover("a"), second: mover("b"), opening, limits: { movetimeMs: 10 } });
    const [one, two] = pair.games;
    expect([one.white, one.black, two.white, two.black]).toEqual(["a", "b", "b", "a"]);
    expect(one.opening).toBe(opening);
    expect(two.opening).toBe(opening);
    const points = { win: 2, draw: 1, loss: 0 };
    expect(pair.pentanomial).toBe(points[pair.first[0].outcome] + points[pair.first[1].outcome]);
    expect(pair.first[0].outcome).toBe(one.result === "1-0" ? "win" : one.result === "0-1" ? "loss" : "draw");
    expect(pair.first[1].outcome).toBe(two.result === "0-1" ? "win" : two.result === "1-0" ? "loss" : "draw");
    for (const game of pair.games) {
      expect(game.moves).toHaveLength(game.plies);
      expect(game.reason).not.toBe("");
    }
  });

  it("once closed, ends the games still queued or playing at once and starts no engine", async () => {
    runner = createRunner({ concurrency: 1, timeMarginMs: 500 });
    const running = runner.playPair({ first: mover("a"), second: mover("b"), opening, limits: { movetimeMs: 50 } });
    const queued = runner.playPair({ first: mover("a"), second: mover("b"), opening, limits: { movetimeMs: 50 } });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await runner.close();
    const pairs = await Promise.all([running, queued]);
    expect(runner.engineCount).toBe(0);
    // The queued pair never got an engine: both its games failed to start on the closed runner.
    expect(pairs[1].games.map((game) => game.reason)).toEqual(
      pairs[1].games.map(() => expect.stringContaining("the game runner was closed")),
    );
  });

  it("respects the concurrency limit, keeps processes across games and pairs, and retires old binaries", async () => {
    let peak = 0;
    const ends: number[] = [];
    runner = createRunner({
      concurrency: 2,
      timeMarginMs: 500,
      adjudication: { maxMoves: 10 },
      onGameEnd: (game) => ends.push(game.plies),
    });
    const spec = mover("a");
    const other = mover("b");
    const jobs = Array.from({ length: 3 }, () => ({ first: spec, second: other, opening, limits: { nodes: 1 } }));
    // Six games submitted at once would need twelve processes without the limit.
    const watcher = setInterval(() => (peak = Math.max(peak, runner!.engineCount)), 1);
    const pairs = await Promise.all(jobs.map((job) => runner!.playPair(job)));
    clearInterval(watcher);
    expect(pairs).toHaveLength(3);
    expect(ends).toHaveLength(6);
    // a and b are one binary: reused processes must still play under the name the job gave.
    for (const pair of pairs)
      expect(pair.games.map((game) => [game.white, game.black])).toEqual([
        ["a", "b"],
        ["b", "a"],
      ]);
    // two games at once need four processes, and they are reused for the other four games
    expect(peak).toBeLessThanOrEqual(4);
    expect(runner.engineCount).toBe(4);
    await runner.retire([spec.path]);
    expect(runner.engineCount).toBe(4); // same path: kept
    await runner.retire(["/some/other/engine"]);
    expect(runner.engineCount).toBe(0);
  });

  it("plays with a clock, a depth limit and from the start position", async () => {
    runner = createRunner({ concurrency: 2, timeMarginMs: 500, adjudication: { maxMoves: 20 } });
    const [clock, depth] = await Promise.all([
      runner.playGame({
        white: mover("a"),
        black: mover("b"),
        opening: { fen: START_FEN },
        limits: { tc: { baseMs: 2000, incMs: 10, moves: 5 } },
      }),
      runner.playGame({ white: mover("a"), black: mover("b"), opening: { fen: START_FEN }, limits: { depth: 3 } }),
    ]);
    for (const game of [clock, depth]) {
      expect(game.faults).toEqual({ white: "none", black: "none" });
      expect(game.plies).toBeGreaterThan(0);
    }
  });
});
