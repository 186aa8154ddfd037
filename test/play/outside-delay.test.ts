import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { START_FEN } from "../../src/play/position.js";
import { createRunner, type RunnerOptions } from "../../src/play/runner.js";
import { MatchTally } from "../../src/play/match-tally.js";
import type { EngineSpec } from "../../src/play/engine-process.js";
import type { GameResult } from "../../src/play/game.js";

const TIMED = fileURLToPath(new URL("../fixtures/engines/timed.mjs", import.meta.url));
const timed = (name: string, behaviour: object = {}): EngineSpec => ({
  name,
  path: TIMED,
  args: [JSON.stringify(behaviour)],
});
// At its first move, "late" answers 300 ms after its time (200 + margin 100): measured ~500 ms,
// well before the stall (1300 ms), so the runner waits for it. As white, that is the game's
// first ply: the load of a busy test machine cannot end the game before it.
const late = (reported: boolean, games?: number) => timed("late", { late: { atMove: 1, ms: 300, reported, games } });
const good = timed("good");
const limits = { movetimeMs: 200 };

async function pair(first: EngineSpec, options: RunnerOptions) {
  const played: GameResult[] = [];
  const runner = createRunner({
    concurrency: 1,
    timeMarginMs: 100,
    stallMs: 1000,
    adjudication: { maxMoves: 6 },
    onGameEnd: (g) => played.push(g),
    ...options,
  });
  try {
    return { result: await runner.playPair({ first, second: good, opening: { fen: START_FEN }, limits }), played };
  } finally {
    await runner.close();
  }
}

describe("time losses to a delay outside the engine", () => {
  it("are told from an engine's own overrun, and scored under the strict rule", async () => {
    const outside = await pair(late(false), {});
    expect(outside.result.games[0].timeForfeit).toMatchObject({ cause: "outside", engineTimeMs: 198 });
    expect(outside.result.games[0].reason).toMatch(
      /^white: time forfeit \(\d+ ms of 300 allowed, engine reported 198 ms; delay outside the engine\)$/,
    );
    expect(outside.result.first[0]).toMatchObject({ outcome: "loss", fault: "timeout" });
    expect(outside.result.replays).toBe(0);
    // Late at its first move in every game; the second game is not asserted on, as the load of a
    // busy test machine may decide it first, but it cannot make "late" overrun by its own report.
    const tally = new MatchTally(["late", "good"]);
    tally.add(outside.result);
    expect(tally.faults[0].timeout).toBe(0);
    expect(tally.faults[0].delay).toBeGreaterThanOrEqual(1);
    expect(tally.summary()).toMatch(
      /time losses: late 0 own, [12] to delays outside the engine; good 0 own, \d to delays outside the engine/,
    );

    const own = await pair(late(true), {});
    expect(own.result.games[0].timeForfeit).toMatchObject({ cause: "engine" });
    expect(own.result.games[0].reason).toMatch(
      /^white: time forfeit \(\d+ ms of 300 allowed, engine reported 498 ms\)$/,
    );
    tally.add(own.result);
    expect(tally.faults[0].timeout).toBeGreaterThanOrEqual(1);
  });

  it("are replayed from the same opening at the same time when the policy says so", async () => {
    const { result, played } = await pair(late(false, 1), { outsideDelay: { policy: "replay", maxReplays: 4 } });
    // Every game beyond the pair's two was a replay, and none of the scored games was lost to a delay.
    expect(played[0]!.timeForfeit).toMatchObject({ cause: "outside", engineTimeMs: 198 });
    expect(result.replays).toBeGreaterThanOrEqual(1);
    expect(played).toHaveLength(2 + result.replays);
    expect(result.replayLimitReached).toBe(false);
    const replayed = played.find((game, index) => index > 0 && game.white === "late");
    expect(replayed).toMatchObject({ opening: played[0]!.opening, limits: played[0]!.limits });
    expect(result.games.map((g) => g.timeForfeit?.cause)).not.toContain("outside");
  });

  it("are replayed at most maxReplays times per pair, then scored", async () => {
    const { result, played } = await pair(late(false), { outsideDelay: { policy: "replay", maxReplays: 2 } });
    expect(result.replays).toBe(2);
    expect(result.replayLimitReached).toBe(true);
    // 3 tries of the first game, then the second game (late as black) lost likewise and scored.
    expect(played).toHaveLength(4);
    expect(result.first.map((view) => view.fault)).toEqual(["timeout", "timeout"]);
    const tally = new MatchTally(["late", "good"]);
    tally.add(result);
    expect(tally.summary()).toContain("replayed after an outside delay: 2 games; 1 pair ran out of replays");
  });
});
