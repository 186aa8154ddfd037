import { describe, expect, it } from "vitest";
import { DEFAULT_ADAPTIVE, DEFAULT_C_END, DEFAULT_R_END, spsaMathConfig } from "../../src/config/config.js";
import { cellProblem } from "../../src/simulate/family.js";
import { runFleet, type Behaviour, type FleetRun } from "../../src/simulate/bad-workers.js";

/** The case: a fleet of `honest` honest workers (four) and one that takes `share` of the batches. */
function fleet(
  mode: FleetRun["mode"],
  seed: string,
  liar: Behaviour,
  share: number,
  quarantine = true,
  honest = 4,
): FleetRun {
  const problem = cellProblem({ parameters: 8, offset: 3, curvature: 1, type: "int" }, 0.3, seed);
  const gains = spsaMathConfig(
    {
      maxIterations: 50,
      cEnd: DEFAULT_C_END,
      rEnd: DEFAULT_R_END,
      a: undefined,
      c: undefined,
      A: undefined,
      alpha: 0.602,
      gamma: 0.101,
      eloCap: 400,
      maxStep: 2,
      schedule: "standard",
      momentum: 0,
      averageTail: 0,
      maxStaleness: 0,
      adaptive: DEFAULT_ADAPTIVE,
    },
    64,
  );
  return {
    mode,
    problem,
    gains,
    gamesPerIteration: 64,
    batchGames: 8,
    budget: 3200,
    quarantine,
    seed,
    openingSd: 50,
    stratumGames: 64,
    workers: [
      ...Array.from({ length: honest }, (_, i) => ({
        name: `h${i + 1}`,
        share: (1 - share) / honest,
        behaviour: { kind: "honest" as const },
      })),
      { name: "liar", share, behaviour: liar },
    ],
  };
}

describe("a bad worker in a simulated fleet", () => {
  for (const mode of ["build"] as const) {
    it(`${mode} mode: a targeted liar on 20 % of the batches is flagged by name within 50 of its batches, and what it moved is taken out of θ: θ ends near the clean run's`, () => {
      const target = cellProblem({ parameters: 8, offset: 3, curvature: 1, type: "int" }, 0.3, "t").params[0]!.name;
      const lying = runFleet(fleet(mode, "t", { kind: "targeted", target }, 0.2));
      const clean = runFleet(fleet(mode, "t", { kind: "honest" }, 0.2));
      const undefended = runFleet(fleet(mode, "t", { kind: "targeted", target }, 0.2, false));
      expect(lying.flags.map((f) => f.worker)).toEqual(["liar"]);
      expect(lying.flags[0]!.batches).toBeLessThanOrEqual(50);
      expect(lying.flags[0]!.reason).not.toBe("");
      expect(clean.flags).toEqual([]);
      // Without quarantine the liar keeps moving the target; with it, θ ends near the clean run's.
      expect(Math.abs(undefended.theta[target]! - clean.theta[target]!)).toBeGreaterThan(2);
      expect(Math.abs(lying.theta[target]! - clean.theta[target]!)).toBeLessThan(0.5);
      // Its batches after the flag were held, never applied.
      expect(lying.applied.get("liar")).toBeLessThan(lying.reported.get("liar")!);
    });
  }

  it("options mode (the first half's draws shared): a targeted liar on 20 % of the batches is flagged within 50 of its batches, and what it moved is taken out of θ", () => {
    const target = cellProblem({ parameters: 8, offset: 3, curvature: 1, type: "int" }, 0.3, "t").params[0]!.name;
    const lying = runFleet(fleet("options", "t", { kind: "targeted", target }, 0.2));
    const clean = runFleet(fleet("options", "t", { kind: "honest" }, 0.2));
    const undefended = runFleet(fleet("options", "t", { kind: "targeted", target }, 0.2, false));
    expect(lying.flags.map((f) => f.worker)).toEqual(["liar"]);
    expect(lying.flags[0]!.batches).toBeLessThanOrEqual(50);
    expect(clean.flags).toEqual([]);
    const fromClean = (theta: Record<string, number>) => Math.abs(theta[target]! - clean.theta[target]!);
    expect(fromClean(undefended.theta)).toBeGreaterThan(2);
    // Steps read at their real size are larger than at the floor: within a step here, not half of one.
    expect(fromClean(lying.theta)).toBeLessThan(1);
    expect(lying.applied.get("liar")).toBeLessThan(lying.reported.get("liar")!);
  });

  // Issue 55's liars, who know the three tests of the pool, against one honest worker.
  const target = cellProblem({ parameters: 8, offset: 3, curvature: 1, type: "int" }, 0.3, "t").params[0]!.name;
  const knowing: [string, Behaviour, RegExp][] = [
    [
      "sweeping a quarter of its batches and copying the pool's pairs otherwise",
      { kind: "mixing", target },
      /won entirely by one side/,
    ],
    ["reporting every batch at ±1 for its side", { kind: "framing", target }, /too little/],
    [
      "framing, then sweeping once the honest worker is held",
      { kind: "framing", target, sweepWhenHeld: true },
      /too little/,
    ],
  ];
  for (const mode of ["build", "options"] as const)
    for (const [label, liar, reason] of knowing)
      it(`${mode} mode: a liar ${label}, on 30 % of the batches beside one honest worker, is flagged within 50 of its batches, the honest worker never`, () => {
        const lying = runFleet(fleet(mode, "k", liar, 0.3, true, 1));
        expect(lying.flags.map((f) => f.worker)).toEqual(["liar"]);
        expect(lying.flags[0]!.batches).toBeLessThanOrEqual(50);
        expect(lying.flags[0]!.reason).toMatch(reason);
        expect(lying.peaks.get("h1")).toBeLessThan(1);
        expect(lying.applied.get("liar")).toBeLessThan(lying.reported.get("liar")!);
      });

  // Two colluders under two names, 15 % of the batches each, beside one honest worker: each is the
  // other's pool, and against them the honest worker's pairs look unlike "the pool's". Mixing
  // colluders are caught by their sweeps against their own other pairs, framing ones by their
  // pairs' spread; the residual is not read against them while their own games are not clean.
  const colluders: [string, Behaviour][] = [
    ["mixing", { kind: "mixing", target }],
    ["framing", { kind: "framing", target }],
  ];
  for (const mode of ["build", "options"] as const)
    for (const [label, behaviour] of colluders)
      it(`${mode} mode: two ${label} colluders beside one honest worker are both flagged within 50 of their batches, the honest worker never`, () => {
        const run = fleet(mode, "k", behaviour, 0.3, true, 1);
        const [honest, liar] = run.workers;
        const colluding = runFleet({
          ...run,
          workers: [honest!, { ...liar!, share: 0.15 }, { ...liar!, name: "liar2", share: 0.15 }],
        });
        expect(colluding.flags.map((f) => f.worker).sort()).toEqual(["liar", "liar2"]);
        for (const flag of colluding.flags) expect(flag.batches).toBeLessThanOrEqual(50);
        expect(colluding.peaks.get("h1")).toBeLessThan(1);
      });

  for (const mode of ["build", "options"] as const)
    it(`${mode} mode: a liar's applied batches are taken out of θ when it is flagged: nothing of it is left to undo`, () => {
      const held = runFleet(fleet(mode, "t", { kind: "targeted", target }, 0.3, true, 1));
      expect(held.flags.map((f) => f.worker)).toEqual(["liar"]);
      expect(held.applied.get("liar")).toBeGreaterThan(0);
      // The record replayed without the liar gives θ: the chain the run went on from had none of its batches.
      for (const name of Object.keys(held.theta)) expect(held.replayed[name]).toBeCloseTo(held.theta[name]!, 9);
    });

  // On a steep engine (4× the reference curvature) the honest worker's real gradient is far from a
  // framing liar's ±1: judged against the liar as its pool it was flagged (these seeds, before the
  // pool's tests waited for workers clean by their own games).
  for (const [mode, seed] of [
    ["build", "f24"],
    ["options", "f8"],
  ] as const)
    it(`${mode} mode: a framing liar on a steep engine beside one honest worker is flagged within 50 of its batches, the honest worker never (seed ${seed})`, () => {
      const problem = cellProblem({ parameters: 8, offset: 3, curvature: 4, type: "int" }, 0.3, seed);
      const run = { ...fleet(mode, seed, { kind: "framing", target: problem.params[0]!.name }, 0.3, true, 1), problem };
      const lying = runFleet(run);
      expect(lying.flags.map((f) => f.worker)).toEqual(["liar"]);
      expect(lying.flags[0]!.batches).toBeLessThanOrEqual(50);
      expect(lying.peaks.get("h1")).toBeLessThan(1);
    });

  it("plays batches of mixed sizes from a list, as a real build-mode run plans them, and counts a flagged worker's games", () => {
    const run = { ...fleet("build", "t", { kind: "targeted", target }, 0.2), batchGames: [2, 8] };
    const lying = runFleet(run);
    const [flag] = lying.flags;
    expect(flag?.worker).toBe("liar");
    // Its batches were of both sizes: more games than batches of 2, fewer than batches of 8.
    expect(flag!.games).toBeGreaterThan(2 * flag!.batches);
    expect(flag!.games).toBeLessThan(8 * flag!.batches);
    expect(
      runFleet({ ...run, workers: run.workers.map((w) => ({ ...w, behaviour: { kind: "honest" } })) }).flags,
    ).toEqual([]);
  });
});
