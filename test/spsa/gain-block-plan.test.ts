import { describe, expect, it } from "vitest";
import { GAIN_BLOCK_GAMES, gainBlockPlan, nextGainDraw, tunerIterations } from "../../src/spsa/gain-block-plan.js";

/**
 * A run's draws as the master's pool makes them (src/master/draw-pool.ts): tuner batches of
 * `batch` games cut at the plan's bounds, a block where it says; returns each block's `at` (the
 * run's games given out before it) and the games of each kind.
 */
function drawAll(target: number, pilot: number, share: number, batch: number) {
  const plan = gainBlockPlan(target, pilot, share);
  const blocksAt: number[] = [];
  let tuned = 0;
  let gained = 0;
  for (;;) {
    const next = nextGainDraw(plan, tuned, gained);
    if (next.gain) {
      blocksAt.push(tuned + gained);
      gained += GAIN_BLOCK_GAMES;
    } else if (next.games > 0) {
      tuned += Math.min(batch, next.games);
    } else break;
  }
  return { plan, blocksAt, tuned, gained };
}

describe("the plan of a run's gain blocks", () => {
  it("with gain_share 0 has no block: the tuner gets every game, as before", () => {
    const plan = gainBlockPlan(1000, 64, 0);
    expect(plan).toMatchObject({ blocks: 0, tunerGames: 1000 });
    expect(nextGainDraw(plan, 500, 0)).toEqual({ gain: false, games: 500 });
    expect(tunerIterations(plan, 16, 62)).toBe(62);
    expect(drawAll(1000, 64, 0, 8)).toMatchObject({ blocksAt: [], tuned: 1000, gained: 0 });
  });

  it("at 10 % puts one block of 16 after every 144 of the tuner's games from the pilot's end, and the games after the last cycle to the tuner", () => {
    const run = drawAll(1000, 64, 0.1, 8);
    // (1000 − 64) / 160 = 5 whole cycles.
    expect(run.plan).toEqual({ pilotGames: 64, between: 144, blocks: 5, tunerGames: 920 });
    expect(run.blocksAt).toEqual([208, 368, 528, 688, 848]);
    expect([run.tuned, run.gained]).toEqual([920, 80]);
    // The tuner's schedule is planned for its own games: 920 / 16 whole iterations.
    expect(tunerIterations(run.plan, 16, 62)).toBe(57);
  });

  it("cuts a tuner batch at the next block, whatever the batch size", () => {
    const run = drawAll(600, 16, 0.25, 10);
    // Cycles of 64: 48 of the tuner's games, then a block.
    expect(run.plan).toMatchObject({ between: 48, blocks: 9 });
    expect(run.blocksAt).toEqual(Array.from({ length: 9 }, (_, i) => 16 + (i + 1) * 48 + i * 16));
    expect(run.tuned + run.gained).toBe(600);
  });

  it("draws a block set aside (or expired) again before the tuner's next games, and none twice", () => {
    const plan = gainBlockPlan(1000, 64, 0.1);
    // Two blocks were due and drawn; one was set aside: its games are no longer given out.
    expect(nextGainDraw(plan, 64 + 2 * 144, GAIN_BLOCK_GAMES)).toEqual({ gain: true });
    // Both given out: the tuner plays on to the third.
    expect(nextGainDraw(plan, 64 + 2 * 144, 2 * GAIN_BLOCK_GAMES)).toEqual({ gain: false, games: 144 });
    // A tuner batch set aside puts the tuner behind the blocks drawn: it fills its games first.
    expect(nextGainDraw(plan, 64 + 2 * 144 - 8, 2 * GAIN_BLOCK_GAMES)).toEqual({ gain: false, games: 152 });
  });

  it("has no block where a cycle does not fit after the pilot", () => {
    expect(gainBlockPlan(64, 32, 0.1)).toMatchObject({ blocks: 0, tunerGames: 64 });
    expect(gainBlockPlan(192, 32, 0.1)).toMatchObject({ blocks: 1, tunerGames: 176 });
  });
});
