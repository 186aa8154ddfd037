import { describe, expect, it } from "vitest";
import { planBatchSizes, planReferenceBatchSizes, UNKNOWN_SLOTS } from "../../src/spsa/batch-plan.js";

const sum = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0);

describe("planBatchSizes", () => {
  it("keeps the contract for every target, batch size and slot count: even, 2..batchSize, summing to the target, never growing", () => {
    const broken: string[] = [];
    for (let target = 0; target <= 400; target += 2) {
      for (const batchSize of [2, 3, 4, 7, 8, 16, 64]) {
        for (const workers of [0, 1, 2, 3, 8, 16, 64, 500]) {
          const sizes = planBatchSizes(target, batchSize, workers);
          // Rows shrink toward the end: a later row is never larger than an earlier one.
          const ok =
            sum(sizes) === target &&
            sizes.every(
              (size, i) => size % 2 === 0 && size >= 2 && size <= batchSize && (i === 0 || size <= (sizes[i - 1] ?? 0)),
            );
          if (!ok) broken.push(`target ${target}, batch ${batchSize}, slots ${workers}: ${sizes.join(",")}`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it("claims no more rows than one per pair, and full rows while much of the iteration is left", () => {
    for (const target of [64, 256, 1000]) {
      for (const workers of [1, 2, 8, 64]) {
        const sizes = planBatchSizes(target, 8, workers);
        expect(sizes.length).toBeLessThanOrEqual(target / 2);
        // While a full row for every slot remains, a row is a full batch.
        const fullRows = target >= 8 * workers ? Math.floor((target - 8 * workers) / 8) + 1 : 0;
        expect(sizes.slice(0, fullRows).every((s) => s === 8)).toBe(true);
      }
    }
  });

  it("gives exact plans: shrinking at the end, small rows for many slots", () => {
    expect(planBatchSizes(64, 8, 2)).toEqual([8, 8, 8, 8, 8, 8, 8, 4, 2, 2]);
    expect(planBatchSizes(64, 8, 8)).toEqual([8, 8, 6, 6, 6, 4, 4, 4, 4, 2, 2, 2, 2, 2, 2, 2]);
    expect(planBatchSizes(16, 8, 2)).toEqual([8, 4, 2, 2]);
    expect(planBatchSizes(64, 8, 64)).toEqual(Array<number>(32).fill(2));
    // One slot has no tail to spread.
    expect(planBatchSizes(64, 8, 1)).toEqual(Array<number>(8).fill(8));
    expect(planBatchSizes(0, 8, 4)).toEqual([]);
  });

  it("plans for one worker at -c 2 when no worker has been seen", () => {
    expect(planBatchSizes(64, 8, 0)).toEqual(planBatchSizes(64, 8, UNKNOWN_SLOTS));
  });

  it("refuses an odd target, a batch below one pair and a negative slot count, naming the value", () => {
    expect(() => planBatchSizes(63, 8, 2)).toThrow(/targetGames .* 63/);
    expect(() => planBatchSizes(64, 1, 2)).toThrow(/batchSize .* 1/);
    expect(() => planBatchSizes(64, 8, -1)).toThrow(/workers .* -1/);
    expect(() => planBatchSizes(64, 8, 1.5)).toThrow(/workers .* 1.5/);
  });
});

describe("planReferenceBatchSizes", () => {
  it("plans whole units of four games: multiples of 4, 4..batchSize, summing to the target, never growing", () => {
    const broken: string[] = [];
    for (let target = 0; target <= 400; target += 4) {
      for (const batchSize of [4, 6, 8, 16, 64]) {
        for (const workers of [0, 1, 2, 3, 8, 64]) {
          const sizes = planReferenceBatchSizes(target, batchSize, workers);
          const ok =
            sum(sizes) === target &&
            sizes.every(
              (size, i) => size % 4 === 0 && size >= 4 && size <= batchSize && (i === 0 || size <= (sizes[i - 1] ?? 0)),
            );
          if (!ok) broken.push(`target ${target}, batch ${batchSize}, slots ${workers}: ${sizes.join(",")}`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it("is planBatchSizes over units, times four", () => {
    // 16 units of 4 for 2 slots: as 16 pairs of 2 (planBatchSizes(32, 4, 2)), doubled.
    expect(planReferenceBatchSizes(64, 8, 2)).toEqual(planBatchSizes(32, 4, 2).map((g) => 2 * g));
    expect(planReferenceBatchSizes(64, 8, 2)).toEqual([8, 8, 8, 8, 8, 8, 8, 4, 4]);
    expect(planReferenceBatchSizes(16, 8, 64)).toEqual([4, 4, 4, 4]);
  });

  it("refuses a target that is not whole units and a batch below one unit", () => {
    expect(() => planReferenceBatchSizes(66, 8, 2)).toThrow(/multiple of 4 .* 66/);
    expect(() => planReferenceBatchSizes(64, 2, 2)).toThrow(/at least 4 .* 2/);
  });
});
