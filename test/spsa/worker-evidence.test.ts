import { describe, expect, it } from "vitest";
import { createRng, type Rng } from "../../src/core/rng.js";
import {
  EvidenceLedger,
  logPoissonTail,
  MIN_BATCHES,
  nextSuspect,
  RESIDUAL_LIMIT,
  sweepChance,
  unsweptChance,
} from "../../src/spsa/worker-evidence.js";
import type { EvidenceBatch } from "../../src/types/evidence.js";
import { upperQuantileOfLog } from "../../src/stats/tails.js";
import type { Pentanomial } from "../../src/types/play.js";
import type { Values } from "../../src/types/spsa.js";

const NAMES = ["A", "B", "C", "D", "E", "F"];

/** Pair probabilities [LL, LD, DD, DW, WW] of a balanced engine pair: 30 % of pairs split or drawn. */
const BALANCED = [0.12, 0.2, 0.36, 0.2, 0.12];

function randomSigns(rng: Rng): Values {
  return Object.fromEntries(NAMES.map((n) => [n, rng.next() < 0.5 ? 1 : -1]));
}

/** A batch of `games` games whose pairs are drawn from `probabilities`; `flip`: the pairs mirrored (plus's wins become minus's). */
function batch(
  worker: string,
  games: number,
  signs: Values,
  rng: Rng,
  probabilities = BALANCED,
  flip = false,
): EvidenceBatch {
  const pairs: Pentanomial = [0, 0, 0, 0, 0];
  for (let p = 0; p < games / 2; p++) {
    let x = rng.next();
    let j = 0;
    while (j < 4 && x >= probabilities[j]!) x -= probabilities[j++]!;
    pairs[flip ? 4 - j : j]!++;
  }
  const wins = 2 * pairs[4] + pairs[3] + pairs[2] * 0;
  const losses = 2 * pairs[0] + pairs[1];
  // A DD cell holds draws and split pairs alike: here all draws.
  return { worker, games, net: wins - losses, wins, losses, draws: games - wins - losses, pairs, signs };
}

/** UCI-option-like strata: each batch its own signs, `per` batches per worker and stratum. */
function optionStrata(
  workers: Record<string, (signs: Values, rng: Rng) => EvidenceBatch>,
  strata: number,
  per: number,
  seed: string,
): EvidenceBatch[][] {
  const rng = createRng(seed);
  return Array.from({ length: strata }, () =>
    Object.values(workers).flatMap((make) => Array.from({ length: per }, () => make(randomSigns(rng), rng))),
  );
}

function ledgerOf(strata: EvidenceBatch[][], excluded: string[] = []): EvidenceLedger {
  const ledger = new EvidenceLedger(NAMES, new Set(excluded));
  for (const s of strata) ledger.add(s);
  return ledger;
}

const honest = (name: string) => (signs: Values, rng: Rng) => batch(name, 8, signs, rng);

describe("evidence about workers", () => {
  it("finds nothing against honest workers, and judges them once they share enough games", () => {
    const strata = optionStrata(
      { h1: honest("h1"), h2: honest("h2"), h3: honest("h3"), h4: honest("h4") },
      40,
      2,
      "honest",
    );
    const evidence = ledgerOf(strata).evidence();
    expect(evidence.map((e) => e.worker).sort()).toEqual(["h1", "h2", "h3", "h4"]);
    for (const e of evidence) {
      expect(e.judged).toBe(true);
      expect(e.severity).toBeLessThan(1);
      expect(e.suspicion).toBeNull();
      expect(e.batches).toBe(80);
      expect(e.poolScore).not.toBeNull();
    }
    expect(nextSuspect(evidence, new Set(), new Set())).toBeUndefined();
    // Three batches are not enough to judge.
    const young = ledgerOf(strata.slice(0, 1)).evidence();
    expect(young.every((e) => !e.judged && e.batches < MIN_BATCHES)).toBe(true);
  });

  it("names the parameter a liar follows, even one that draws and scores like the pool", () => {
    // Its pairs are the pool's, mirrored whenever C's sign is −1: the same draws and the same score, but every batch won by the side that pushed C up.
    const liar = (signs: Values, rng: Rng) => {
      const b = batch("liar", 8, signs, rng, [0.02, 0.08, 0.36, 0.3, 0.24]);
      return signs.C! > 0
        ? b
        : batch("liar", 8, signs, createRng(String(rng.next())), [0.02, 0.08, 0.36, 0.3, 0.24], true);
    };
    const strata = optionStrata({ h1: honest("h1"), h2: honest("h2"), h3: honest("h3"), liar }, 50, 1, "liar");
    const evidence = ledgerOf(strata).evidence();
    const suspect = nextSuspect(evidence, new Set(), new Set());
    expect(suspect?.worker).toBe("liar");
    expect(suspect?.parameters[0]?.name).toBe("C");
    expect(suspect?.parameters[0]?.agreement).toBeGreaterThan(0.25);
    expect(suspect?.suspicion).toMatch(
      /^its results follow the signs of C: \+0\.\d\d per game against the pool's [+−]0\.\d\d \(z \d+\.\d\) over 50 batches, 400 games$/,
    );
    expect(Math.abs(suspect?.scoreZ ?? 99)).toBeLessThan(3);
  });

  it("flags a worker whose plus wins every game, by its score and its pairs", () => {
    const plus = (signs: Values, rng: Rng) => batch("plus", 8, signs, rng, [0, 0, 0, 0, 1]);
    const evidence = ledgerOf(optionStrata({ h1: honest("h1"), h2: honest("h2"), plus }, 8, 1, "plus")).evidence();
    const suspect = nextSuspect(evidence, new Set(), new Set());
    expect(suspect?.worker).toBe("plus");
    expect(suspect?.score).toBe(1);
    expect(suspect?.extremes).toBe(1);
    expect(suspect?.poolExtremes).toBeLessThan(0.01);
    expect(suspect?.residual).toBeGreaterThan(RESIDUAL_LIMIT / 2);
  });

  it("leaves a worker set aside out of the pool: the honest ones are measured against the others", () => {
    const liar = (signs: Values) => {
      const plusWins = signs.A! > 0;
      return {
        worker: "liar",
        games: 8,
        net: plusWins ? 8 : -8,
        wins: plusWins ? 8 : 0,
        losses: plusWins ? 0 : 8,
        draws: 0,
        pairs: (plusWins ? [0, 0, 0, 0, 4] : [4, 0, 0, 0, 0]) as Pentanomial,
        signs,
      };
    };
    const strata = optionStrata({ h1: honest("h1"), h2: honest("h2"), liar }, 30, 1, "aside");
    const together = ledgerOf(strata).evidence();
    // The liar is the worst: it is set aside first, whatever its lies did to the others' numbers.
    expect(nextSuspect(together, new Set(), new Set())?.worker).toBe("liar");
    const h1Together = together.find((e) => e.worker === "h1")!.parameters.find((p) => p.name === "A")!;
    const apart = ledgerOf(strata, ["liar"]).evidence();
    const h1Apart = apart.find((e) => e.worker === "h1")!;
    const h1A = h1Apart.parameters.find((p) => p.name === "A") ?? { z: 0 };
    expect(h1Together.z).toBeLessThan(-2);
    expect(Math.abs(h1A.z)).toBeLessThan(Math.abs(h1Together.z));
    expect(h1Apart.severity).toBeLessThan(1);
    expect(nextSuspect(apart, new Set(["liar"]), new Set())).toBeUndefined();
    // The liar's own evidence is still there, against the pool without it.
    expect(apart.find((e) => e.worker === "liar")!.severity).toBeGreaterThan(1);
    // An accepted worker is not named again.
    expect(nextSuspect(together, new Set(), new Set(["liar"]))?.worker).not.toBe("liar");
  });

  it("compares a worker with the pool in the same strata: one that played only when plus won more is not flagged", () => {
    // Build-mode-like strata: the batches of a stratum share the signs. The first 10 strata
    // plus wins most games (a steep gradient early in the run); the next 30 they are even.
    const rng = createRng("strata");
    const strong = [0.02, 0.06, 0.3, 0.32, 0.3];
    const strata: EvidenceBatch[][] = [];
    for (let k = 0; k < 40; k++) {
      const signs = randomSigns(rng);
      const p = k < 10 ? strong : BALANCED;
      const workers = k < 10 ? ["early", "h1", "h2"] : ["h1", "h2", "h3"];
      strata.push(workers.flatMap((w) => [batch(w, 8, signs, rng, p), batch(w, 8, signs, rng, p)]));
    }
    const early = ledgerOf(strata)
      .evidence()
      .find((e) => e.worker === "early")!;
    // Its score is far above the pool's over the run, yet within what the same strata scored.
    expect(early.score - (early.poolScore ?? 0)).toBeGreaterThan(0.1);
    expect(Math.abs(early.scoreZ ?? 99)).toBeLessThan(3);
    expect(early.residual ?? 0).toBeLessThan(3);
    expect(early.severity).toBeLessThan(1);
  });

  it("gives a worker whose pairs fit the pool's exactly a residual of 0; batches all alike are named for their spread", () => {
    const same = (worker: string): EvidenceBatch => ({
      worker,
      games: 16,
      net: 0,
      wins: 6,
      losses: 6,
      draws: 4,
      pairs: [1, 2, 2, 2, 1],
      signs: {},
    });
    const strata = Array.from({ length: 12 }, () => ["a", "b", "c"].map(same));
    const evidence = ledgerOf(strata).evidence();
    for (const e of evidence) {
      expect(e.residual).toBe(0);
      expect(e.scoreZ).toBe(0);
      // Twelve batches of 16 games each at exactly 0: no games played independently spread so little.
      expect(e.spread).toBe(0);
      expect(e.suspicion).toMatch(/results spread 0\.00× what its game pairs drawn independently predict, too little/);
    }
    expect(nextSuspect(evidence, new Set(), new Set())?.severity).toBeGreaterThan(1);
    // A severity that is not a number (as a NaN residual once made it) is never a suspect.
    expect(nextSuspect([{ ...evidence[0]!, severity: Number.NaN }], new Set(), new Set())).toBeUndefined();
  });

  it("computes fishtest's residual in one stratum: its chi² of each row against the other rows collapsed", () => {
    const rng = createRng("fishtest");
    // Batches of one pair: pairs as independent as fishtest takes them (the dispersion is exactly 1).
    const stratum = [
      ...Array.from({ length: 80 }, () => batch("a", 2, {}, rng)),
      ...Array.from({ length: 60 }, () => batch("b", 2, {}, rng, [0.1, 0.15, 0.3, 0.25, 0.2])),
      ...Array.from({ length: 100 }, () => batch("c", 2, {}, rng, [0.2, 0.25, 0.35, 0.1, 0.1])),
    ];
    const evidence = ledgerOf([stratum]).evidence();
    // fishtest's get_chi2 (server/fishtest/util.py), with pairs as [WW + DW, LL + LD, DD] per worker.
    const rows = ["a", "b", "c"].map((w) => {
      const pairs = stratum
        .filter((b) => b.worker === w)
        .reduce((s, b) => s.map((n, i) => n + b.pairs[i]!), [0, 0, 0, 0, 0]);
      return [pairs[4]! + pairs[3]!, pairs[0]! + pairs[1]!, pairs[2]!];
    });
    const columns = [0, 1, 2].map((c) => rows.reduce((s, r) => s + r[c]!, 0));
    const grand = columns.reduce((a, b) => a + b, 0);
    for (const [i, w] of ["a", "b", "c"].entries()) {
      const rowSum = rows[i]!.reduce((a, b) => a + b, 0);
      const rowChi2 = rows[i]!.reduce((s, o, c) => {
        const expected = (rowSum * columns[c]!) / grand;
        return s + (o - expected) ** 2 / expected;
      }, 0);
      const adjusted = rowChi2 / (1 - rowSum / grand);
      // res_z = norm.isf(chi2.sf(adjusted, 2)), capped at 0; chi²(2)'s tail is e^(−x/2).
      const z = Math.max(0, upperQuantileOfLog(-adjusted / 2));
      expect(evidence.find((e) => e.worker === w)!.residual).toBeCloseTo(z, 9);
    }
    expect(evidence.find((e) => e.worker === "c")!.residual).toBeGreaterThan(1);
  });

  it("computes a Poisson tail and a sweep chance as their definitions", () => {
    // P(X ≥ 3) for a mean of ½: 1 − e^(−½)(1 + ½ + ⅛).
    expect(Math.exp(logPoissonTail(3, 0.5))).toBeCloseTo(1 - Math.exp(-0.5) * (1 + 0.5 + 0.125), 12);
    // Far tails stay finite: P(X ≥ 200) for a mean of 1 is e^(−1)/200! times a little more than 1.
    let logFactorial = 0;
    for (let j = 2; j <= 200; j++) logFactorial += Math.log(j);
    expect(logPoissonTail(200, 1)).toBeCloseTo(-1 - logFactorial + Math.log(1 + 1 / 201 + 1 / (201 * 202)), 6);
    expect(logPoissonTail(2, 3)).toBe(0);
    // 14 pairs [LL, LD, DD, DW, WW] = [1, 3, 5, 3, 2], one pseudo-pair per cell: p_WW 3/19, p_LL 2/19.
    expect(sweepChance([1, 3, 5, 3, 2], 8)).toBeCloseTo((3 / 19) ** 4 + (2 / 19) ** 4, 15);
    expect(sweepChance([1, 3, 5, 3, 2], 2)).toBeCloseTo(5 / 19, 15);
    // The pairs outside sweeps of batches of 4 pairs at p_WW, p_LL: the chance of a sweep comes back.
    for (const [p, q] of [
      [0.12, 0.12],
      [0.5, 0.1],
      [0.75, 0.05],
      [0.9, 0.01],
    ] as const) {
      const plain = (x: number) => (x - x ** 4) / (1 - p ** 4 - q ** 4);
      const pairs = [plain(q), 0, 1 - plain(p) - plain(q), 0, plain(p)];
      expect(unsweptChance(pairs, 8, [0, 0, 0, 0, 0])).toBeCloseTo(p ** 4 + q ** 4, 8);
    }
    // Batches of one pair: nothing was left out.
    expect(unsweptChance([1, 3, 5, 3, 2], 2, [1, 1, 1, 1, 1])).toBeCloseTo(sweepChance([1, 3, 5, 3, 2], 2), 15);
  });

  /** A batch won entirely by whichever side pushed C up. */
  const sweepForC = (worker: string, signs: Values): EvidenceBatch => {
    const up = signs.C! > 0;
    const pairs: Pentanomial = up ? [0, 0, 0, 0, 4] : [4, 0, 0, 0, 0];
    return { worker, games: 8, net: up ? 8 : -8, wins: up ? 8 : 0, losses: up ? 0 : 8, draws: 0, pairs, signs };
  };

  /** Three pairs split won/lost and one drawn/won for the side that pushed C up: a net of ±1. */
  const framingForC = (signs: Values): EvidenceBatch => {
    const up = signs.C! > 0;
    const pairs: Pentanomial = up ? [0, 0, 3, 1, 0] : [0, 1, 3, 0, 0];
    return { worker: "liar", games: 8, net: up ? 1 : -1, wins: up ? 4 : 3, losses: up ? 3 : 4, draws: 1, pairs, signs };
  };

  it("flags a liar that sweeps a quarter of its batches and copies the pool's pairs otherwise, by its extreme batches, with one honest worker", () => {
    const liar = (signs: Values, rng: Rng) =>
      rng.next() < 0.25 ? sweepForC("liar", signs) : batch("liar", 8, signs, rng);
    const strata = optionStrata({ h1: honest("h1"), liar }, 40, 1, "mixing");
    const evidence = ledgerOf(strata).evidence();
    const suspect = nextSuspect(evidence, new Set(), new Set());
    expect(suspect?.worker).toBe("liar");
    expect(suspect?.suspicion).toMatch(
      /of its batches are won entirely by one side, more than its own game pairs predict/,
    );
    // Its agreement alone stays under its limit: the copied batches dilute it.
    expect(Math.abs(suspect!.parameters[0]!.z)).toBeLessThan(5.69);
    // It also spreads more than its games predict.
    expect(suspect!.spreadZ).toBeGreaterThan(2);
    const h1 = evidence.find((e) => e.worker === "h1")!;
    expect(h1.severity).toBeLessThan(1);
    expect(h1.extremeZ).toBe(0);
  });

  it("reads the extremes of each batch size alone too: a liar's sweeps of its larger batches do not drown in its one-pair batches", () => {
    // Build mode plans batches of mixed sizes; a batch of one pair is won twice a quarter of the time.
    const mixed = (worker: string, sweeps: boolean) => (signs: Values, rng: Rng) => [
      batch(worker, 2, signs, rng),
      batch(worker, 2, signs, rng),
      batch(worker, 2, signs, rng),
      sweeps && rng.next() < 0.4 ? sweepForC(worker, signs) : batch(worker, 8, signs, rng),
    ];
    const rng = createRng("sizes");
    const strata = Array.from({ length: 30 }, () => {
      const signs = randomSigns(rng);
      return [...mixed("h1", false)(signs, rng), ...mixed("liar", true)(signs, rng)];
    });
    const evidence = ledgerOf(strata).evidence();
    const liar = evidence.find((e) => e.worker === "liar")!;
    expect(liar.suspicion).toMatch(/won entirely by one side/);
    expect(nextSuspect(evidence, new Set(), new Set())?.worker).toBe("liar");
    expect(evidence.find((e) => e.worker === "h1")!.severity).toBeLessThan(1);
  });

  it("flags a liar that reports every batch at ±1 for its side, not the one honest worker it would frame", () => {
    // A steep gradient on A: the honest worker's results follow A's signs, as a real gradient makes them.
    const steep = (signs: Values, rng: Rng) =>
      batch("h1", 8, signs, rng, signs.A! > 0 ? [0.06, 0.16, 0.36, 0.24, 0.18] : [0.18, 0.24, 0.36, 0.16, 0.06]);
    const strata = optionStrata({ h1: steep, liar: framingForC }, 60, 1, "framing");
    const evidence = ledgerOf(strata).evidence();
    const liar = evidence.find((e) => e.worker === "liar")!;
    const h1 = evidence.find((e) => e.worker === "h1")!;
    expect(nextSuspect(evidence, new Set(), new Set())?.worker).toBe("liar");
    expect(liar.spread).toBeLessThan(0.2);
    expect(liar.suspicion).toMatch(/too little \(z −?-?\d+\.\d\)/);
    // Its z's are scaled by its own games' spread, not by the liar's (1/8 per game): a real
    // gradient on A does not make it a suspect.
    expect(h1.severity).toBeLessThan(1);
    expect(h1.parameters.every((p) => Math.abs(p.z) < 4)).toBe(true);
    expect(h1.spreadZ).toBeGreaterThan(-2);
  });

  it("holds a worker to its game pairs, not its games: pairs that split often spread less than games drawn one by one", () => {
    // A book whose openings decide most games for one colour: 60 % of pairs split won/lost.
    const SPLITTING = [0.06, 0.1, 0.6, 0.14, 0.1];
    const splitting = (signs: Values, rng: Rng): EvidenceBatch => {
      const b = batch("h1", 8, signs, rng, SPLITTING);
      // Its middle cell is split pairs, not draws: a win and a loss each.
      return { ...b, wins: b.wins + b.pairs[2], losses: b.losses + b.pairs[2], draws: b.draws - 2 * b.pairs[2] };
    };
    const [alone] = ledgerOf(optionStrata({ h1: splitting }, 2000, 1, "splitting")).evidence();
    // Its games' W/D/L predict a batch variance of 8 · 0.88 = 7.0 (so 0.49× was flagged); its pairs, 4 · 0.87 = 3.5.
    expect(alone!.spreadOf).toBe("results");
    expect(alone!.spread).toBeGreaterThan(0.9);
    expect(alone!.spread).toBeLessThan(1.1);
    expect(alone!.severity).toBeLessThan(1);
  });

  it("flags a liar whose ±1 batches report the same pairs every time, by its pairs' spread", () => {
    const [liar] = ledgerOf(optionStrata({ liar: framingForC }, 25, 1, "pairs")).evidence();
    // Its results spread as its pairs predict (a split pair is worth 0, its one other pair ±1)...
    expect(liar!.suspicion).toMatch(
      /^its batches' game pairs vary 0\.\d\d× what its game pairs drawn independently predict, too little \(z -\d+\.\d\) over 25 batches, 200 games$/,
    );
    // ...but its pairs never vary: three split and one decided game on each of its 25 batches.
    expect(liar!.spread).toBe(0);
    expect(liar!.severity).toBeGreaterThan(1);
  });

  it("reads the pairs' spread per batch size: a framing liar whose batches come in mixed sizes is caught, an honest worker is not", () => {
    // Build mode plans batches for the workers' slots: 2, 4, 6 or 8 games, as a real run's; the liar is
    // caught within 50 of its batches (its batches of one pair tell nothing: one cell).
    const sizes = [2, 8, 4, 6, 8, 2];
    const framed = (games: number, up: boolean): EvidenceBatch => {
      // All split but one pair drawn/won: (0, 1, 0) in a batch of one pair, (3, 1, 0) in one of four.
      const pairs: Pentanomial = up ? [0, 0, games / 2 - 1, 1, 0] : [0, 1, games / 2 - 1, 0, 0];
      const split = games / 2 - 1;
      return {
        worker: "liar",
        games,
        net: up ? 1 : -1,
        wins: split + (up ? 1 : 0),
        losses: split + (up ? 0 : 1),
        draws: 1,
        pairs,
        signs: {},
      };
    };
    const liar = new EvidenceLedger(NAMES, new Set());
    const honestMixed = new EvidenceLedger(NAMES, new Set());
    const rng = createRng("mixed");
    for (let i = 0; i < 240; i++) {
      const games = sizes[i % sizes.length]!;
      if (i < 50) liar.add([{ ...framed(games, i % 3 !== 0), signs: randomSigns(rng) }]);
      honestMixed.add([batch("h1", games, randomSigns(rng), rng)]);
    }
    const [l] = liar.evidence();
    expect(l!.spreadOf).toBe("pairs");
    expect(l!.spread).toBe(0);
    expect(l!.severity).toBeGreaterThan(1);
    const [h] = honestMixed.evidence();
    expect(h!.severity).toBeLessThan(1);
  });

  it("judges a worker alone by its own games: an honest one passes, a liar reporting ±1 per batch does not", () => {
    const alone = ledgerOf(optionStrata({ h1: honest("h1") }, 60, 1, "alone")).evidence();
    // Not judged against a pool, but held to its own games' extremes and spread.
    expect(alone[0]!.judged).toBe(false);
    expect(alone[0]!.sharedGames).toBe(0);
    expect(alone[0]!.extremeZ).not.toBeNull();
    expect(alone[0]!.spreadZ).not.toBeNull();
    expect(alone[0]!.severity).toBeLessThan(1);
    const framing = ledgerOf(optionStrata({ liar: framingForC }, 40, 1, "alone")).evidence();
    expect(framing[0]!.suspicion).toMatch(/too little/);
    expect(nextSuspect(framing, new Set(), new Set())?.worker).toBe("liar");
    // A liar alone that sweeps is measured by its own pairs, sweeps and all (lenient: an honest
    // worker alone early in a run sweeps often); its spread, too large, has no pool to be held to.
    const sweeper = ledgerOf(
      optionStrata(
        {
          liar: (signs: Values, rng: Rng) =>
            rng.next() < 0.3 ? sweepForC("liar", signs) : batch("liar", 8, signs, rng),
        },
        40,
        1,
        "alone",
      ),
    ).evidence();
    expect(sweeper[0]!.severity).toBeLessThan(1);
  });

  it("does not take the residual against a pool of one worker: it cannot say which of the two is off", () => {
    const drawish = (worker: string) => (signs: Values, rng: Rng) =>
      batch(worker, 8, signs, rng, [0.04, 0.1, 0.72, 0.1, 0.04]);
    const two = ledgerOf(optionStrata({ h1: honest("h1"), d: drawish("d") }, 80, 1, "two")).evidence();
    for (const e of two) {
      expect(e.residual).toBeGreaterThan(RESIDUAL_LIMIT);
      expect(e.suspicion ?? "").not.toMatch(/residual/);
    }
    const three = ledgerOf(
      optionStrata({ h1: honest("h1"), h2: honest("h2"), d: drawish("d") }, 80, 1, "two"),
    ).evidence();
    expect(nextSuspect(three, new Set(), new Set())?.suspicion).toMatch(/fishtest residual/);
  });

  it("does not take the residual against colluders whose own games are not clean: two framing liars cannot frame the one honest worker", () => {
    const colluder = (worker: string) => (signs: Values) => ({ ...framingForC(signs), worker });
    const ledger = new EvidenceLedger(NAMES, new Set());
    const strata = optionStrata({ h1: honest("h1"), l1: colluder("l1"), l2: colluder("l2") }, 40, 1, "colluders");
    let framed = false;
    let suspect: string | undefined;
    for (const stratum of strata) {
      ledger.add(stratum);
      const evidence = ledger.evidence();
      const h1 = evidence.find((e) => e.worker === "h1")!;
      // The residual alone would have named it: its pairs are unlike the two colluders'.
      framed ||= (h1.residual ?? 0) > RESIDUAL_LIMIT;
      expect(h1.severity).toBeLessThan(1);
      suspect ??= nextSuspect(evidence, new Set(), new Set())?.worker;
    }
    expect(framed).toBe(true);
    expect(suspect).toMatch(/^l[12]$/);
  });

  it("reads a batch's chance of a sweep in its stratum: a worker alone whose early iterations are lopsided is not flagged for its sweeps there", () => {
    // Build-mode-like strata of 8 batches: the first 12 with plus far ahead (60 % of its pairs won
    // twice, a sweep in about 13 % of the batches), then 60 even ones.
    const rng = createRng("lopsided");
    const lopsided = [0.01, 0.03, 0.1, 0.26, 0.6];
    const strata = Array.from({ length: 72 }, (_, k) => {
      const signs = randomSigns(rng);
      return Array.from({ length: 8 }, () => batch("h1", 8, signs, rng, k < 12 ? lopsided : BALANCED));
    });
    const e = ledgerOf(strata).evidence()[0]!;
    expect(e.extremes).toBeGreaterThan(0.005);
    expect(e.extremeZ).toBeLessThan(3);
    // Read from the whole run's pairs (p_WW about 0.2), the same sweeps would be far too many.
    const whole = strata.flat().reduce((sum, b) => sum.map((n, i) => n + b.pairs[i]!), [0, 0, 0, 0, 0]);
    const expected = e.batches * sweepChance(whole, 8);
    expect(Math.exp(logPoissonTail(Math.round(e.extremes * e.batches), expected))).toBeLessThan(1e-7);
  });
});
