import { describe, expect, it } from "vitest";
import { DEFAULT_ADAPTIVE } from "../../src/config/config.js";
import { eloLeft } from "../../src/simulate/engine-model.js";
import { cellProblem, runFamily, type FamilyCell } from "../../src/simulate/family.js";
import { simulatedGains } from "../../src/simulate/gains.js";
import {
  hindsightLimit,
  hindsightOnSurface,
  limitCandidates,
  meanEloLeft,
  shareOfTheWay,
  TEST_FIRST_SEED,
} from "../../src/simulate/limit.js";
import { masterTuner, type Tuner } from "../../src/simulate/tuners.js";
import { valuesOf } from "../../src/params/params.js";

/** Plain SPSA at the family table's gains. */
const plain = masterTuner(
  "plain",
  simulatedGains({ cEnd: 1.5, rEnd: 0.002, adaptive: { ...DEFAULT_ADAPTIVE, mode: "off" } }, 64),
  64,
);

/** A tuner that never moves θ: best where θ₀ is the optimum already. */
const still: Tuner = {
  name: "still",
  run(problem) {
    const values = valuesOf(problem.params);
    return { games: [0], eloLeft: [eloLeft(problem.model, values)], final: values };
  },
};

const far: FamilyCell = { parameters: 4, offset: 6, curvature: 1, type: "int" };
const atOptimum: FamilyCell = { parameters: 4, offset: 0, curvature: 1, type: "int" };

describe("the hindsight oracle", () => {
  const seeds = { train: 2, test: 3 };
  const limit = hindsightLimit([still, plain], [far, atOptimum], 1280, seeds, 0.4);

  it("picks, per cell, the candidate with the least Elo left on the problems that choose", () => {
    expect(limit.map((r) => r.chosen)).toEqual(["plain", "still"]);
  });

  it("reports the pick's result on other problems of the cell, as the tuners it is compared with are scored", () => {
    const [onFar] = runFamily(plain, [far], 1280, seeds.test, 0.4, TEST_FIRST_SEED);
    expect(limit[0]).toEqual({ ...onFar, chosen: "plain" });
    const [onTraining] = runFamily(plain, [far], 1280, seeds.train, 0.4);
    expect(onTraining!.start).not.toBe(onFar!.start);
    const [stillAtOptimum] = runFamily(still, [atOptimum], 1280, seeds.test, 0.4, TEST_FIRST_SEED);
    expect(limit[1]).toEqual({ ...stillAtOptimum, chosen: "still" });
  });

  it("refuses an empty list of candidates", () => {
    expect(() => hindsightLimit([], [far], 1280, seeds, 0.4)).toThrow("no candidate tuner");
  });
});

describe("the hindsight oracle on one surface", () => {
  const problemFor = (seed: number) => cellProblem(far, 0.4, String(seed));
  const seeds = { train: 2, test: 3 };

  it("picks the candidate with the least Elo left on the choosing runs and scores it on other runs", () => {
    const limit = hindsightOnSurface([still, plain], problemFor, 1280, seeds);
    expect(limit.chosen).toBe("plain");
    expect(limit.end).toBe(meanEloLeft(plain, problemFor, 1280, TEST_FIRST_SEED, seeds.test));
    expect(limit.end).not.toBe(meanEloLeft(plain, problemFor, 1280, 0, seeds.test));
  });

  it("refuses an empty list of candidates", () => {
    expect(() => hindsightOnSurface([], problemFor, 1280, seeds)).toThrow("no candidate tuner");
  });
});

describe("the oracle's candidates", () => {
  it("are plain SPSA and ours over a grid of c_end and r_end, each made by the caller's tuner", () => {
    const made: { name: string; adapt: string | undefined; cEnd: number | undefined }[] = [];
    const candidates = limitCandidates((name, changes) => {
      made.push({ name, adapt: changes.adaptive?.mode, cEnd: changes.cEnd });
      return still;
    });
    expect(candidates).toHaveLength(37);
    expect(made.filter((m) => m.adapt === "off")).toHaveLength(25);
    expect(made.find((m) => m.name === "ours c_end 12 r_end 0.006")?.adapt).toBe(DEFAULT_ADAPTIVE.mode);
    expect(Math.max(...made.map((m) => m.cEnd ?? 0))).toBe(12);
  });
});

describe("the share of the way from plain to the limit", () => {
  it("is 1 at the limit, 0 at plain, above 1 past the limit, and undefined where plain is at the limit", () => {
    expect(shareOfTheWay(70, 20, 20)).toBe(1);
    expect(shareOfTheWay(70, 70, 20)).toBe(0);
    expect(shareOfTheWay(70, 45, 20)).toBe(0.5);
    expect(shareOfTheWay(70, 10, 20)).toBe(1.2);
    expect(shareOfTheWay(20, 10, 20)).toBeUndefined();
  });
});
