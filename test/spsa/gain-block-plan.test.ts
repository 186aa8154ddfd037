import { describe, expect, it } from "vitest";
import {
  buildGainPlan,
  GAIN_BLOCK_GAMES,
  gainBlockPlan,
  isGainIteration,
  nextGainDraw,
  tunerIterations,
  tunerStep,
  gamesThrough,
} from "../../src/spsa/gain-block-plan.js";

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

describe("build mode's iterations with gain iterations", () => {
  it("without blocks are the tuner's, numbered as before", () => {
    expect(buildGainPlan(40, 32, 2, 0)).toEqual({ iterations: 40, tunerIterations: 40, gainIterations: [] });
    expect(tunerStep(buildGainPlan(40, 32, 2, 0), 17)).toBe(17);
  });

  it("place one of 16 games after every 144 of the tuner's, after the pilot, the tuner's schedule its own", () => {
    // 100 iterations of 16 games: 1,600 games, 2 pilot iterations; cycles of 160 after the pilot's 32.
    const plan = buildGainPlan(100, 16, 2, 0.1);
    expect(plan.gainIterations.length).toBe(9);
    // The tuner's games before each: the pilot's 32, then 144 per cycle.
    const tunedBefore = plan.gainIterations.map((k) => (tunerStep(plan, k) - 1) * 16);
    expect(tunedBefore).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => 32 + n * 144));
    expect(plan.tunerIterations).toBe(91);
    expect(plan.iterations).toBe(100);
    expect(isGainIteration(plan, plan.gainIterations[0]!)).toBe(true);
    expect(isGainIteration(plan, 1)).toBe(false);
    expect(tunerStep(plan, plan.iterations)).toBe(91);
  });

  it("with iterations longer than a block's cycle, as many gain iterations after each as places it passed", () => {
    // 2,560 games: 16 blocks planned, the tuner's 2,304 games are 9 iterations of 256.
    const plan = buildGainPlan(10, 256, 0, 0.1);
    expect(plan.tunerIterations).toBe(9);
    expect(plan.gainIterations).toEqual([2, 4, 5, 7, 8, 10, 11, 13, 15, 16, 18, 19, 21, 22, 24, 25]);
    // Each block is placed once the tuner's games reach 144 per block before it.
    for (const [n, k] of plan.gainIterations.entries())
      expect((tunerStep(plan, k) - 1) * 256).toBeGreaterThanOrEqual((n + 1) * 144);
  });

  it("at the default 64 games per iteration, has more iterations than max_iterations, in the budget's games", () => {
    // 6,400 games: the pilot's 64, then 39 blocks of 16 in cycles of 160; the tuner's 5,776 are 90 iterations.
    const plan = buildGainPlan(100, 64, 1, 0.1);
    expect([plan.tunerIterations, plan.gainIterations.length]).toEqual([90, 39]);
    expect(plan.iterations).toBe(129);
    expect(gamesThrough(plan, 64, plan.iterations)).toBe(90 * 64 + 39 * 16);
    expect(gamesThrough(plan, 64, plan.iterations)).toBeLessThanOrEqual(6400);
    expect(gamesThrough(plan, 64, 1)).toBe(64);
  });
});
