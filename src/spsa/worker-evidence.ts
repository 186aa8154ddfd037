import { logLowerTailOfPearson, type PearsonRows } from "../stats/pearson-tail.js";
import { upperQuantile, upperQuantileOfLog } from "../stats/tails.js";
import type { EvidenceBatch, ParameterAgreement, WorkerEvidence } from "../types/evidence.js";
import type { Pentanomial } from "../types/play.js";
import type { Values } from "../types/spsa.js";

/**
 * Evidence about each worker of a run, pure (docs/bad-workers.md). A worker reports results that
 * the master cannot check game by game; what it can check is whether a worker's results look
 * like the rest of the pool's. Batches come in strata (build mode: an iteration, whose batches
 * all play the same plus and minus; UCI-option mode: a window of consecutive reports), and each
 * worker is compared with the rest of the pool in the same strata, so a worker that played only
 * the early iterations (larger gradients, other draw rates) is measured against what the pool
 * played then, not against the run's average. Three tests, each a normal z:
 *
 * - the residual: fishtest's chi² of the worker's game pairs (won, lost, other) against the
 *   pool's (its `get_chi2`: each row against all other rows collapsed, turned into a normal z),
 *   with the expected counts summed over the strata; it counts only against two or more other
 *   workers whose own games look clean (below);
 * - the score: plus's wins − losses in its games beyond the pool's in the same strata;
 * - the agreement, per parameter: its results times that parameter's signs beyond the pool's.
 *   A worker that reports wins for whichever side pushed one parameter up agrees with that
 *   parameter's signs on every batch; an honest one only as much as the true gradient makes
 *   every worker agree.
 *
 * The score and agreement z's are scaled by the larger of the pool's batch spread and the spread
 * the worker's own games predict (their W/D/L), so a pool whose batches spread less than games
 * can (a liar's) cannot make an honest worker's results look extreme. Two more tests hold against
 * a liar that knows the three above, and need no pool (issue 55):
 *
 * - the extremes: its batches at an extreme result against what the pairs of its stratum predict
 *   if they were drawn independently, its own sweeps left out (or the pool's share, if larger), a
 *   Poisson tail;
 * - the spread: its batches' results' spread against what its own game pairs predict, too small
 *   as well as too large (a liar that reports every batch at ±1, or sweeps some of them), and its
 *   batches' pairs' spread against independent pairs', too small (the same pairs on every batch).
 *
 * Workers set aside (suspect or rejected) are left out of the pool, so one liar does not make
 * the honest workers look unlike "the pool": the master flags the worst worker first, sets it
 * aside and looks again (fishtest's get_bad_workers does the same).
 */

/** fishtest's residual limit for purging a worker (its `purge_run`, res = 7). */
export const RESIDUAL_LIMIT = 7;
/**
 * The chance, at one look, that an honest worker passes the score test or one parameter's share
 * of the agreement test (Bonferroni over the parameters): chosen so that no honest worker of
 * the simulated runs was flagged (docs/bad-workers.md), with the liars still flagged within 50 of
 * their batches.
 */
export const TEST_ALPHA = 1e-7;
export const SCORE_LIMIT = upperQuantile(TEST_ALPHA / 2);
/** The extremes test's limit: one-sided, at the same chance. */
export const EXTREME_LIMIT = upperQuantile(TEST_ALPHA);
/** The spread test's limit: two-sided, at the same chance. */
export const SPREAD_LIMIT = SCORE_LIMIT;
/** Below these a worker is not judged: too little of its play is shared with the pool. */
export const MIN_SHARED_GAMES = 32;
export const MIN_BATCHES = 4;
/**
 * A pool member whose extremes or spread is past this share of its limit is not clean enough for
 * the residual to be read against (an honest machine alone peaks at 0.43–0.61 over a whole run).
 */
export const CLEAN_OWN_SEVERITY = 0.5;

/** The agreement test's limit with `parameters` parameters tested at once. */
export function agreementLimit(parameters: number): number {
  return upperQuantile(TEST_ALPHA / (2 * Math.max(1, parameters)));
}

/** Parameters shown per worker. */
const SHOWN_PARAMETERS = 3;

/** The pair cells of fishtest's chi²: pairs won (WW + DW), lost (LL + LD), and the rest (DD, WL). */
function cellsOf(pairs: Pentanomial): [number, number, number] {
  return [pairs[4] + pairs[3], pairs[0] + pairs[1], pairs[2]];
}

/**
 * Pairs by how far from even they end, whoever won: split or both drawn (DD, WL), one game decided
 * (LD, DW), both (LL, WW). A gradient moves pairs between winners more than between these.
 */
function magnitudesOf(pairs: readonly number[]): [number, number, number] {
  return [pairs[2]!, pairs[1]! + pairs[3]!, pairs[0]! + pairs[4]!];
}

/**
 * What the evidence keeps per worker: its counts (all its batches), and its differences from the
 * rest of the pool per stratum.
 */
interface Tally {
  batches: number;
  games: number;
  wins: number;
  losses: number;
  draws: number;
  pairs: number[];
  /**
   * Per batch size in pairs and kind (against a reference or not), its batches of that size and
   * kind: their pairs per magnitude cell (split or both drawn, one game decided, both) and Σ cell² /
   * pairs over them, the pairs' spread's X².
   */
  pairSizes: Map<string, SizeClass>;
  /** Σ net² / games over its batches: the spread of its batches' results, in per-game units. */
  squares: number;
  /**
   * Per pair cell, Σ cell² / pairs over its batches: the spread of its batches' pairs, for the
   * residual's dispersion.
   */
  cellSquares: number[];
  extremes: number;
  /**
   * Per batch size, Σ over its batches of the chance of an extreme result there (sweepChance), read
   * per stratum from the pairs of the stratum's other batches: the number of extremes expected.
   */
  sweepsExpected: Map<number, number>;
  /** Per batch size: [batches, batches at an extreme result]. */
  sizes: Map<number, [number, number]>;
  /** Σ sign × net over its batches, per parameter. */
  agreement: Float64Array;
  /** Σ over strata of n_w·n_r / (n_w + n_r): the variance of its differences, in games. */
  shared: number;
  netExcess: number;
  excess: Float64Array;
  cellExcess: number[];
  cellVariance: number[];
  cellExpected: number[];
}

/** A worker's batches in one stratum, summed. */
interface Group {
  games: number;
  net: number;
  x: Float64Array;
  cells: number[];
  pairs: number;
}

export class EvidenceLedger {
  private readonly index: Map<string, number>;
  private readonly tallies = new Map<string, Tally>();
  private readonly vectors = new WeakMap<Values, Float64Array>();
  /** Strata added. */
  strata = 0;

  /** `excluded`: the workers set aside (suspect or rejected), whose batches are no part of the pool. */
  constructor(
    readonly names: readonly string[],
    readonly excluded: ReadonlySet<string>,
  ) {
    this.index = new Map(names.map((name, i) => [name, i]));
  }

  /** Adds one stratum's batches: every worker's counts, and each worker against the rest of the pool in it. */
  add(stratum: readonly EvidenceBatch[]): void {
    const P = this.names.length;
    const groups = new Map<string, Group>();
    for (const b of stratum) {
      this.count(b);
      let g = groups.get(b.worker);
      if (!g) groups.set(b.worker, (g = { games: 0, net: 0, x: new Float64Array(P), cells: [0, 0, 0], pairs: 0 }));
      g.games += b.games;
      g.net += b.net;
      const s = this.signVector(b.signs);
      for (let i = 0; i < P; i++) g.x[i]! += s[i]! * b.net;
      cellsOf(b.pairs).forEach((n, c) => (g.cells[c]! += n));
      g.pairs += b.pairs.reduce((sum, n) => sum + n, 0);
    }
    const total: Group = { games: 0, net: 0, x: new Float64Array(P), cells: [0, 0, 0], pairs: 0 };
    for (const [worker, g] of groups) if (!this.excluded.has(worker)) addGroup(total, g, 1);
    this.expectSweeps(stratum);
    for (const [worker, g] of groups) {
      const t = this.tally(worker);
      const rest: Group = {
        games: total.games,
        net: total.net,
        x: Float64Array.from(total.x),
        cells: [...total.cells],
        pairs: total.pairs,
      };
      if (!this.excluded.has(worker)) addGroup(rest, g, -1);
      if (rest.games > 0 && g.games > 0) {
        // The worker's sum against what the rest played per game, in the finite-population form
        // (the worker's batches as a share of the stratum's): the weights of fishtest's collapsed table.
        const f = rest.games / (g.games + rest.games);
        t.shared += g.games * f;
        t.netExcess += f * (g.net - (g.games * rest.net) / rest.games);
        for (let i = 0; i < P; i++) t.excess[i]! += f * (g.x[i]! - (g.games * rest.x[i]!) / rest.games);
      }
      if (rest.pairs > 0 && g.pairs > 0) {
        const T = g.pairs + rest.pairs;
        for (let c = 0; c < 3; c++) {
          const expected = (g.pairs * (g.cells[c]! + rest.cells[c]!)) / T;
          t.cellExcess[c]! += g.cells[c]! - expected;
          t.cellVariance[c]! += (expected * rest.pairs) / T;
          t.cellExpected[c]! += expected;
        }
      }
    }
    this.strata++;
  }

  /** Every worker's evidence against the pool of the workers not set aside. */
  evidence(): WorkerEvidence[] {
    const pool = emptyTally(this.names.length);
    for (const [worker, t] of this.tallies) if (!this.excluded.has(worker)) addTally(pool, t, 1);
    const limit = agreementLimit(this.names.length);
    const measured = [...this.tallies].map(([worker, t]) => {
      const rest = emptyTally(this.names.length);
      addTally(rest, pool, 1);
      const member = !this.excluded.has(worker) && t.batches > 0;
      if (member) addTally(rest, t, -1);
      return { member, ...measure(worker, t, rest, this.names, limit) };
    });
    // The pool's tests compare a worker with the others and cannot say which side is off: a liar
    // reporting ±1 for its side is "the pool" an honest worker's real gradient is unlike (its
    // agreement, on a steep engine). So they count only against others each clean by its own
    // games (its extremes and spread, which need no pool, under CLEAN_OWN_SEVERITY). The residual
    // also needs two or more others: against one both residuals are the same.
    // Against a single other worker the two are each other's pool, and the one that looks the
    // cleaner by its own games is the yardstick: the other is judged against it, not it against
    // the other (early in a run on a steep engine an honest worker's real results are further from
    // a liar's ±1 than the liar's own games are from clean). Equally clean, both are judged.
    const own = (m: Measured) => Math.max(m.ratios.extremes, m.ratios.spread);
    const members = measured.filter((m) => m.member);
    const unclean = members.filter((m) => own(m) >= CLEAN_OWN_SEVERITY).map((m) => m.evidence.worker);
    return measured.map((m) => {
      const others = members.length - (m.member ? 1 : 0);
      const other = others === 1 ? members.find((o) => o !== m)! : undefined;
      const waits =
        other && own(other) > own(m)
          ? [other.evidence.worker]
          : unclean.filter((worker) => worker !== m.evidence.worker);
      return verdict(m, waits, others >= 2);
    });
  }

  /**
   * Each batch's chance of an extreme result, read in its stratum (its plus and minus are the
   * stratum's, or near them: early in a run they are far apart and sweeps are common, and a chance
   * read from the whole run would be far too low then). With other workers in the stratum: the
   * larger of what the worker's other batches there predict, its sweeps of more than one pair left
   * out (so that a liar's sweeps do not raise the chance they are measured against; an honest
   * worker's other batches are as lopsided as its sweeps), and what the other workers' pairs there
   * predict (so a pool can only make it more lenient: one that reports no won pairs cannot make an
   * honest worker's sweeps look rare). Alone in the stratum: what all its pairs there predict.
   */
  private expectSweeps(stratum: readonly EvidenceBatch[]): void {
    const all = [0, 0, 0, 0, 0];
    const own = new Map<string, { pairs: number[]; plain: number[] }>();
    for (const b of stratum) {
      let o = own.get(b.worker);
      if (!o) own.set(b.worker, (o = { pairs: [0, 0, 0, 0, 0], plain: [0, 0, 0, 0, 0] }));
      const sweep = b.games > 2 && Math.abs(b.net) === b.games;
      b.pairs.forEach((n, i) => {
        o.pairs[i]! += n;
        if (!sweep) o.plain[i]! += n;
        if (!this.excluded.has(b.worker)) all[i]! += n;
      });
    }
    for (const b of stratum) {
      const o = own.get(b.worker)!;
      const sweep = b.games > 2 && Math.abs(b.net) === b.games;
      const others = this.excluded.has(b.worker) ? all : all.map((n, i) => n - o.pairs[i]!);
      const chance = others.some((n) => n > 0)
        ? Math.max(
            // Its own few pairs lean on five pseudo-pairs shaped as the others' (the larger of two
            // noisy estimates would be too lenient: one copied batch with two pairs won twice of
            // four reads as p_WW 0.4).
            unsweptChance(
              o.plain.map((n, i) => n - (sweep ? 0 : b.pairs[i]!)),
              b.games,
              others.map((n) => (5 * (n + 1)) / (others.reduce((a, x) => a + x, 0) + 5)),
            ),
            sweepChance(others, b.games),
          )
        : // Alone in its stratum: all its pairs there, sweeps and this batch too, one uniform
          // pseudo-pair (lenient: with no one else to hold it against, an honest worker in a
          // lopsided stratum must not be taken for a liar).
          sweepChance(o.pairs, b.games, ONE_UNIFORM_PAIR);
      const t = this.tally(b.worker);
      t.sweepsExpected.set(b.games, (t.sweepsExpected.get(b.games) ?? 0) + chance);
    }
  }

  private count(b: EvidenceBatch): void {
    const t = this.tally(b.worker);
    t.batches++;
    t.games += b.games;
    t.wins += b.wins;
    t.losses += b.losses;
    t.draws += b.draws;
    b.pairs.forEach((n, i) => (t.pairs[i]! += n));
    if (b.games > 0) t.squares += (b.net * b.net) / b.games;
    const pairs = b.pairs.reduce((n, x) => n + x, 0);
    if (pairs > 0) {
      cellsOf(b.pairs).forEach((n, c) => (t.cellSquares[c]! += (n * n) / pairs));
      const key = `${pairs}${b.reference ? " against a reference" : ""}`;
      let size = t.pairSizes.get(key);
      if (!size) t.pairSizes.set(key, (size = { pairs, batches: 0, cells: [0, 0, 0], squares: [0, 0, 0] }));
      size.batches++;
      magnitudesOf(b.pairs).forEach((n, c) => {
        size.cells[c]! += n;
        size.squares[c]! += (n * n) / pairs;
      });
    }
    const extreme = b.games > 0 && Math.abs(b.net) === b.games ? 1 : 0;
    t.extremes += extreme;
    const size = t.sizes.get(b.games) ?? [0, 0];
    t.sizes.set(b.games, [size[0] + 1, size[1] + extreme]);
    const s = this.signVector(b.signs);
    for (let i = 0; i < s.length; i++) t.agreement[i]! += s[i]! * b.net;
  }

  private tally(worker: string): Tally {
    let t = this.tallies.get(worker);
    if (!t) this.tallies.set(worker, (t = emptyTally(this.names.length)));
    return t;
  }

  /**
   * The signs in parameter order; a build-mode iteration's batches share one signs object, turned
   * into a vector once.
   */
  private signVector(signs: Values): Float64Array {
    let v = this.vectors.get(signs);
    if (v) return v;
    v = new Float64Array(this.names.length);
    for (const [name, sign] of Object.entries(signs)) {
      const i = this.index.get(name);
      if (i !== undefined && Number.isFinite(sign)) v[i] = Math.sign(sign);
    }
    this.vectors.set(signs, v);
    return v;
  }
}

/**
 * The worker that should be set aside next: among those not set aside yet and not accepted by an
 * operator, the one furthest past a limit (a test counts only with enough games: a pool's once it
 * is judged against the pool, its own games' once it has played enough). Undefined when none passes one.
 */
export function nextSuspect(
  evidence: readonly WorkerEvidence[],
  setAside: ReadonlySet<string>,
  accepted: ReadonlySet<string>,
): WorkerEvidence | undefined {
  let worst: WorkerEvidence | undefined;
  for (const e of evidence) {
    if (!(e.severity >= 1) || setAside.has(e.worker) || accepted.has(e.worker)) continue;
    if (!worst || e.severity > worst.severity) worst = e;
  }
  return worst;
}

type TestKind = "residual" | "score" | "agreement" | "extremes" | "spread";

/** A worker's evidence before its verdict, and how far each test is toward its limit (1: at it). */
interface Measured {
  evidence: WorkerEvidence;
  ratios: Record<TestKind, number>;
}

/** Every test of a worker against the rest of the pool (`rest`) and its own games. */
function measure(worker: string, t: Tally, rest: Tally, names: readonly string[], limit: number): Measured {
  // The pool's spread, or what the worker's own games predict if that is more: a pool that
  // spreads less than games can (a liar reporting ±1 per batch) cannot shrink the scale.
  const variance = Math.max(restVariance(rest), gameVariance(t));
  const sd = Math.sqrt(variance * t.shared);
  const scoreZ = t.shared > 0 ? t.netExcess / sd : null;
  const parameters: ParameterAgreement[] = names.map((name, i) => ({
    name,
    agreement: t.games > 0 ? t.agreement[i]! / t.games : 0,
    poolAgreement: rest.games > 0 ? rest.agreement[i]! / rest.games : null,
    z: t.shared > 0 ? t.excess[i]! / sd : 0,
  }));
  const strongest = parameters.sort((a, b) => Math.abs(b.z) - Math.abs(a.z)).slice(0, SHOWN_PARAMETERS);
  const residual = residualOf(t, dispersion(rest));
  const pooled = t.shared >= MIN_SHARED_GAMES && t.batches >= MIN_BATCHES;
  // The extremes and the spread need no pool: its own games are the yardstick, and a worker alone
  // (or beside workers set aside) is held to them while it is not judged against a pool.
  const own = t.games >= MIN_SHARED_GAMES && t.batches >= MIN_BATCHES;
  const extremeZ = own ? extremesZ(t, rest) : null;
  const spread = own ? spreadOf(t, rest) : null;
  const ratios = {
    residual: pooled ? (residual ?? 0) / RESIDUAL_LIMIT : 0,
    score: pooled ? Math.abs(scoreZ ?? 0) / SCORE_LIMIT : 0,
    agreement: pooled ? Math.abs(strongest[0]?.z ?? 0) / limit : 0,
    extremes: (extremeZ ?? 0) / EXTREME_LIMIT,
    spread: Math.abs(spread?.z ?? 0) / SPREAD_LIMIT,
  };
  const evidence: WorkerEvidence = {
    worker,
    batches: t.batches,
    games: t.games,
    score: t.games > 0 ? (t.wins + t.draws / 2) / t.games : 0.5,
    poolScore: rest.games > 0 ? (rest.wins + rest.draws / 2) / rest.games : null,
    draws: t.games > 0 ? t.draws / t.games : 0,
    poolDraws: rest.games > 0 ? rest.draws / rest.games : null,
    extremes: t.batches > 0 ? t.extremes / t.batches : 0,
    poolExtremes: poolExtremeShare(t, rest),
    extremeZ,
    spread: spread?.ratio ?? null,
    spreadZ: spread?.z ?? null,
    ...(spread && { spreadOf: spread.of }),
    residual,
    scoreZ,
    parameters: strongest,
    sharedGames: t.shared,
    judged: pooled,
    severity: 0,
    suspicion: null,
  };
  return { evidence, ratios };
}

/**
 * The worst test past its limit names the suspicion. The pool's tests count only while no other
 * member is unclean by its own games (`waits` names those), the residual only against two or more
 * others (`evidence()`).
 */
function verdict({ evidence, ratios }: Measured, waits: readonly string[], twoOthers: boolean): WorkerEvidence {
  const pool = waits.length === 0;
  let worst: TestKind = "residual";
  let severity = pool && twoOthers ? ratios.residual : 0;
  for (const kind of ["score", "agreement", "extremes", "spread"] as const) {
    const counts = pool || kind === "extremes" || kind === "spread";
    if (counts && ratios[kind] > severity) [worst, severity] = [kind, ratios[kind]];
  }
  return {
    ...evidence,
    ...(waits.length > 0 && evidence.judged && { waitsFor: [...waits] }),
    severity,
    suspicion: severity >= 1 ? describe(worst, evidence) : null,
  };
}

/**
 * The chance that a batch of `games` games is won entirely by one side, if its pairs were drawn
 * independently from `pairs` plus `prior` pseudo-pairs (one in each cell unless given):
 * p_WW^(games/2) + p_LL^(games/2).
 */
export function sweepChance(pairs: readonly number[], games: number, prior: readonly number[] = UNIFORM_PRIOR): number {
  const n = pairs.reduce((a, b) => a + b, 0) + prior.reduce((a, b) => a + b, 0);
  const k = games / 2;
  return ((pairs[4]! + prior[4]!) / n) ** k + ((pairs[0]! + prior[0]!) / n) ** k;
}

const UNIFORM_PRIOR = [1, 1, 1, 1, 1];
const ONE_UNIFORM_PAIR = [0.2, 0.2, 0.2, 0.2, 0.2];

/**
 * sweepChance from the pairs of batches that were not sweeps (`plain`, with `prior` pseudo-pairs):
 * leaving the sweeps out takes won pairs away, more the likelier sweeps are (at p_WW 0.75 in
 * batches of 4 pairs, 42 % of the won pairs are in sweeps). In batches of k pairs the pairs
 * outside sweeps are won twice with f = (p − p^k) / (1 − p^k − q^k) (q: p_LL), which is solved
 * for p and q by the fixed point p = f·(1 − p^k − q^k) + p^k, from p = f (it converges: the
 * slope k·p^(k−1)·(1 − f) stays below 1 while p^k < 1 − f).
 */
export function unsweptChance(plain: readonly number[], games: number, prior: readonly number[]): number {
  const n = plain.reduce((a, b) => a + b, 0) + prior.reduce((a, b) => a + b, 0);
  const k = games / 2;
  const won = (plain[4]! + prior[4]!) / n;
  const lost = (plain[0]! + prior[0]!) / n;
  if (k <= 1) return won + lost;
  let p = won;
  let q = lost;
  for (let i = 0; i < 200; i++) {
    const rest = 1 - p ** k - q ** k;
    const nextP = Math.min(1, won * rest + p ** k);
    const nextQ = Math.min(1, lost * rest + q ** k);
    const done = Math.abs(nextP - p) + Math.abs(nextQ - q) < 1e-12;
    p = nextP;
    q = nextQ;
    if (done) break;
  }
  return Math.min(1, p ** k + q ** k);
}

/**
 * The extremes test: its batches at an extreme result against the number expected, per batch
 * size the larger of its batches' chances read in their strata (expectSweeps) and the pool's share
 * at that size (a pool can only make the test more lenient here, never stricter), as a normal z of the Poisson tail (a Poisson is
 * wider than the sum of the batches' Bernoullis: the tail is conservative); 0 when it fits.
 * With batches of several sizes, all of them and each size alone, the least likely (Bonferroni
 * over them): a one-pair batch is won twice a quarter of the time, and in their noise a liar's
 * sweeps of its larger batches, each a one in a thousand for an honest worker, would drown.
 */
function extremesZ(t: Tally, rest: Tally): number {
  const counts: { extremes: number; expected: number }[] = [];
  for (const [size, [own, extremes]] of t.sizes) {
    const pool = rest.sizes.get(size);
    const poolShare = pool && pool[0] > 0 ? pool[1] / pool[0] : 0;
    counts.push({ extremes, expected: Math.max(t.sweepsExpected.get(size) ?? 0, own * poolShare) });
  }
  const expected = counts.reduce((sum, c) => sum + c.expected, 0);
  let logP = logPoissonTail(t.extremes, expected);
  if (counts.length > 1) {
    for (const c of counts) logP = Math.min(logP, logPoissonTail(c.extremes, c.expected));
    logP = Math.min(0, logP + Math.log(counts.length + 1));
  }
  return Math.max(0, upperQuantileOfLog(logP));
}

/** log P(X ≥ k) for X Poisson with mean `mean`; 0 (certain) when k ≤ mean, where the tail is large anyway. */
export function logPoissonTail(k: number, mean: number): number {
  if (k <= mean || k <= 0) return 0;
  let logTerm = -mean + k * Math.log(mean);
  for (let j = 2; j <= k; j++) logTerm -= Math.log(j);
  // The terms after the k-th fall by mean / (j + 1) < 1 each: sum them relative to the first.
  let sum = 1;
  let ratio = 1;
  for (let j = k + 1; ratio > 1e-17 * sum; j++) {
    ratio *= mean / j;
    sum += ratio;
  }
  return Math.min(0, logTerm + Math.log(sum));
}

/** A spread test's outcome: of its batches' results or of their game pairs, its ratio and z. */
interface Spread {
  of: "results" | "pairs";
  ratio: number;
  z: number;
}

/**
 * The spread test: its batches must vary as batches of game pairs drawn independently from its own
 * pairs do. Two ratios, the one further past its limit counts: the results' (below) and the
 * pairs' (pairSpreadOf). A liar that reports every batch at ±1 must either report pairs that
 * predict a spread of ±1 (nearly all split, the same few on every batch: the pairs' ratio) or
 * pairs that predict more (the results' ratio).
 */
function spreadOf(t: Tally, rest: Tally): Spread | null {
  const results = resultSpreadOf(t, rest);
  const pairs = pairSpreadOf(t);
  if (!results || !pairs) return results ?? pairs;
  return Math.abs(pairs.z) > Math.abs(results.z) ? pairs : results;
}

/**
 * The spread of a worker's batches (Σ (net − games·m)² / games, m its mean per game) over what its
 * game pairs predict if every pair were drawn independently ((B − 1) times their variance): 1 for
 * independent pairs; below 1 when its batches spread less (a liar reporting ±1 per batch), above
 * when they spread more (a gradient that moves each batch by its signs, or sweeps). Pairs, not
 * games: a pair's two games share an opening, and where pairs split (a win and a loss) more than
 * games played one by one would, the games' W/D/L predict too much (an honest worker alone was
 * flagged at 0.83×, docs/bad-workers.md). Compared with the pool's ratio, bounded by 1 so that no
 * pool can make it stricter than independent pairs: too small below min(1, pool's), too large
 * above max(1, pool's) (on logs, with the pool's uncertainty). Null without games won or lost.
 */
function resultSpreadOf(t: Tally, rest: Tally): Spread | null {
  const ratio = spreadRatio(t, 0);
  if (ratio === null) return null;
  const pool = spreadRatio(rest, PRIOR_BATCHES) ?? 1;
  const freedom = t.batches - 1;
  const low = Math.min(1, pool);
  const high = Math.max(1, pool);
  if (ratio < low) {
    // Wilson–Hilferty: (χ²_d / d)^(1/3) is nearly normal with mean 1 − 2/(9d) and variance 2/(9d).
    const v = 2 / (9 * freedom);
    return { of: "results", ratio, z: -Math.max(0, (1 - v - Math.cbrt(ratio / low)) / Math.sqrt(v)) };
  }
  if (ratio > high) {
    const poolFreedom = Math.max(0, rest.batches - 1) + PRIOR_BATCHES;
    return { of: "results", ratio, z: Math.log(ratio / high) / Math.sqrt(2 / freedom + 2 / poolFreedom) };
  }
  return { of: "results", ratio, z: 0 };
}

/** A tally's spread over its game pairs' prediction, `prior` batches at 1 added; null without a prediction. */
function spreadRatio(t: Tally, prior: number): number | null {
  const v = pairedGameVariance(t);
  if (!(v > 0) || t.batches < 2) return null;
  const m = (t.wins - t.losses) / t.games;
  const spread = Math.max(0, t.squares - t.games * m * m);
  return (spread + prior * v) / ((t.batches - 1 + prior) * v);
}

/** A worker's batches of one size in pairs and one kind, for the pairs' spread. */
interface SizeClass {
  pairs: number;
  batches: number;
  /** Their pairs per magnitude cell (magnitudesOf), and Σ cell² / pairs over them. */
  cells: number[];
  squares: number[];
}

/**
 * How much its batches' game pairs vary from batch to batch (by magnitudesOf) against pairs drawn
 * independently: Pearson's X² of the batches × cells table of each batch size and kind (plus against
 * minus, or against a reference: a gain block's or the pilot's pairs are another engine pair's)
 * against that class's shares, summed over the classes, over its mean Σ (B − 1)(C − 1). About 1 for independent pairs,
 * more when a gradient moves each batch; far less for a liar that reports the same pairs on every
 * batch of a size (all split but one, for a net of ±1: a spread of results its pairs predict). By
 * size, because such a liar's pairs differ between sizes ((0, 1, 0) in a batch of one pair,
 * (3, 1, 0) in one of four), which against shares pooled over sizes reads as variation (a real
 * build-mode run of mixed sizes). Only too little counts, by X²'s exact lower tail
 * (src/stats/pearson-tail.ts), with the C − 1 each size's shares take from X² given back. Null
 * without a size of two batches with pairs in two cells.
 */
function pairSpreadOf(t: Tally): Spread | null {
  let x2 = 0;
  let mean = 0;
  let estimated = 0;
  const rows: PearsonRows[] = [];
  for (const size of t.pairSizes.values()) {
    const n = size.cells.reduce((a, b) => a + b, 0);
    const used = [0, 1, 2].filter((c) => size.cells[c]! > 0);
    if (used.length < 2 || size.batches < 2) continue;
    x2 += Math.max(
      0,
      used.reduce((sum, c) => sum + (size.squares[c]! * n) / size.cells[c]!, -n),
    );
    mean += (size.batches - 1) * (used.length - 1);
    estimated += used.length - 1;
    rows.push({ counts: size.pairs, rows: size.batches, shares: used.map((c) => size.cells[c]! / n) });
  }
  if (mean === 0) return null;
  const ratio = x2 / mean;
  if (ratio >= 1) return { of: "pairs", ratio, z: 0 };
  const logTail = logLowerTailOfPearson(x2 + estimated, rows);
  return { of: "pairs", ratio, z: -Math.max(0, upperQuantileOfLog(logTail)) };
}

/**
 * The variance per game of plus's wins − losses that a tally's game pairs predict, each pair drawn
 * independently (a pair's wins − losses from −2 to +2); games outside pairs by their W/D/L.
 */
function pairedGameVariance(t: Tally): number {
  const pairs = t.pairs.reduce((a, b) => a + b, 0);
  if (t.games <= 0) return 0;
  const single = Math.max(0, t.games - 2 * pairs);
  return ((pairs > 0 ? pairs * pairVariance(t.pairs, 0) : 0) + single * gameVariance(t)) / t.games;
}

/** The variance per game of plus's wins − losses in a tally's games, from their W/D/L (0 without games). */
function gameVariance(t: Tally): number {
  if (t.games <= 0) return 0;
  const m = (t.wins - t.losses) / t.games;
  return Math.max(0, (t.wins + t.losses) / t.games - m * m);
}

/**
 * fishtest's residual over the strata: X² = Σ over the three cells of (observed − expected)² /
 * variance, the expected counts and variances of its 2-row table (the worker against the rest
 * collapsed) summed over the strata; in one stratum this is exactly fishtest's adjusted row chi².
 * As fishtest, no residual while an expected count is 5 or less. X² is divided by the pool's
 * dispersion (1 when its pairs are as independent as fishtest assumes). A chi² with 2 degrees of
 * freedom has the tail e^(−X²/2), turned into a normal z (0 when it fits better than the median).
 */
function residualOf(t: Tally, dispersion: number): number | null {
  if (t.cellExpected.some((e) => e <= 5)) return null;
  let chi2 = 0;
  for (let c = 0; c < 3; c++) if (t.cellVariance[c]! > 0) chi2 += t.cellExcess[c]! ** 2 / t.cellVariance[c]!;
  return Math.max(0, upperQuantileOfLog(-chi2 / dispersion / 2));
}

/**
 * How much more the rest's pair cells spread from batch to batch than independent pairs would
 * (at least 1): the mean over the cells of Σ_b (O_bc − n_b·p_c)² / n_b over B·p_c(1 − p_c), started
 * from PRIOR_BATCHES batches at 1. fishtest's chi² takes every pair as drawn independently; in
 * UCI-option mode a batch's own signs move all its pairs together when the gradient is strong,
 * and its residual would grow with the games of an honest worker (0.95 of the limit, measured).
 */
function dispersion(rest: Tally): number {
  const cells = cellsOf(rest.pairs as Pentanomial);
  const n = cells.reduce((a, b) => a + b, 0);
  if (n === 0) return 1;
  let sum = 0;
  let used = 0;
  for (let c = 0; c < 3; c++) {
    const p = cells[c]! / n;
    if (p <= 0 || p >= 1) continue;
    const spread = rest.cellSquares[c]! - 2 * p * cells[c]! + p * p * n;
    sum += (spread + PRIOR_BATCHES * p * (1 - p)) / ((rest.batches + PRIOR_BATCHES) * p * (1 - p));
    used++;
  }
  return used === 0 ? 1 : Math.max(1, sum / used);
}

/**
 * The per-game variance of plus's wins − losses that the z's divide by, from the rest of the pool
 * (the worker's own batches would let a liar widen its own noise): the spread of its batches'
 * results (Σ net² / games per batch). That spread holds what the games' noise alone would not:
 * in UCI-option mode every batch has signs of its own, and a strong gradient moves each batch's
 * result by its signs, batch by batch. Started with PRIOR_BATCHES batches at the variance of its
 * game pairs (one pseudo-pair in each cell), so that a few batches do not decide it.
 */
function restVariance(rest: Tally): number {
  const pairs = pairVariance(rest.pairs) / 2;
  return (rest.squares + PRIOR_BATCHES * pairs) / (rest.batches + PRIOR_BATCHES);
}

const PRIOR_BATCHES = 4;

/** Variance of a pair's wins − losses (−2 … +2), `prior` pseudo-pairs added to each cell. */
function pairVariance(pairs: readonly number[], prior = 1): number {
  let n = 0;
  let sum = 0;
  let squares = 0;
  pairs.forEach((count, j) => {
    const c = count + prior;
    const v = j - 2;
    n += c;
    sum += c * v;
    squares += c * v * v;
  });
  return squares / n - (sum / n) ** 2;
}

/**
 * The pool's share of extreme batches at the worker's batch sizes (an extreme is likelier in a
 * small batch); null without such batches in the pool.
 */
function poolExtremeShare(t: Tally, rest: Tally): number | null {
  let batches = 0;
  let expected = 0;
  for (const [size, [own]] of t.sizes) {
    const pool = rest.sizes.get(size);
    if (!pool || pool[0] === 0) continue;
    batches += own;
    expected += (own * pool[1]) / pool[0];
  }
  return batches > 0 ? expected / batches : null;
}

function describe(kind: TestKind, e: WorkerEvidence): string {
  const percent = (x: number | null) => (x === null ? "?" : `${(100 * x).toFixed(1)} %`);
  const of = `over ${e.batches} batches, ${e.games} games`;
  if (kind === "extremes")
    return (
      `${percent(e.extremes)} of its batches are won entirely by one side, more than its own game ` +
      `pairs predict (pool ${percent(e.poolExtremes)}; z ${(e.extremeZ ?? 0).toFixed(1)}) ${of}`
    );
  if (kind === "spread") {
    const what = e.spreadOf === "pairs" ? "game pairs vary" : "results spread";
    return (
      `its batches' ${what} ${(e.spread ?? 0).toFixed(2)}× what its game pairs drawn independently ` +
      `predict, too ${(e.spreadZ ?? 0) < 0 ? "little" : "much"} (z ${(e.spreadZ ?? 0).toFixed(1)}) ${of}`
    );
  }
  if (kind === "agreement") {
    const p = e.parameters[0]!;
    const pool = p.poolAgreement === null ? "" : ` against the pool's ${signedFixed(p.poolAgreement)}`;
    // Over a few batches two parameters may have had the same signs on all of them: the evidence
    // cannot tell which one it follows.
    const same = e.parameters
      .filter((q) => q !== p && Math.abs(Math.abs(q.z) - Math.abs(p.z)) <= 1e-9 * Math.max(1, Math.abs(p.z)))
      .map((q) => q.name);
    const or = same.length === 0 ? "" : ` (or ${same.join(", ")}: the same signs on its batches)`;
    return (
      `its results follow the signs of ${p.name}${or}: ${signedFixed(p.agreement)} per ` +
      `game${pool} (z ${p.z.toFixed(1)}) ${of}`
    );
  }
  if (kind === "score")
    return (
      `plus scores ${percent(e.score)} in its games against the pool's ${percent(e.poolScore)} ` +
      `(z ${(e.scoreZ ?? 0).toFixed(1)}) ${of}`
    );
  return (
    `its game pairs are unlike the pool's: fishtest residual ${(e.residual ?? 0).toFixed(1)} (draws ` +
    `${percent(e.draws)} against ${percent(e.poolDraws)}, ` +
    `batches at an extreme result ${percent(e.extremes)} against ${percent(e.poolExtremes)}) ${of}`
  );
}

function signedFixed(x: number): string {
  return `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(2)}`;
}

function emptyTally(parameters: number): Tally {
  return {
    batches: 0,
    games: 0,
    wins: 0,
    losses: 0,
    draws: 0,
    pairs: [0, 0, 0, 0, 0],
    pairSizes: new Map(),
    sweepsExpected: new Map(),
    squares: 0,
    cellSquares: [0, 0, 0],
    extremes: 0,
    sizes: new Map(),
    agreement: new Float64Array(parameters),
    shared: 0,
    netExcess: 0,
    excess: new Float64Array(parameters),
    cellExcess: [0, 0, 0],
    cellVariance: [0, 0, 0],
    cellExpected: [0, 0, 0],
  };
}

/** Adds (sign 1) or takes away (−1) the counts the pool is made of; the stratified sums are each worker's own. */
function addTally(into: Tally, t: Tally, sign: 1 | -1): void {
  into.batches += sign * t.batches;
  into.games += sign * t.games;
  into.wins += sign * t.wins;
  into.losses += sign * t.losses;
  into.draws += sign * t.draws;
  into.extremes += sign * t.extremes;
  into.squares += sign * t.squares;
  for (const [key, size] of t.pairSizes) {
    const s = into.pairSizes.get(key) ?? { pairs: size.pairs, batches: 0, cells: [0, 0, 0], squares: [0, 0, 0] };
    s.batches += sign * size.batches;
    for (let c = 0; c < 3; c++) {
      s.cells[c]! += sign * size.cells[c]!;
      s.squares[c]! += sign * size.squares[c]!;
    }
    into.pairSizes.set(key, s);
  }
  for (let c = 0; c < 3; c++) into.cellSquares[c]! += sign * t.cellSquares[c]!;
  t.pairs.forEach((n, i) => (into.pairs[i]! += sign * n));
  for (const [size, [b, x]] of t.sizes) {
    const s = into.sizes.get(size) ?? [0, 0];
    into.sizes.set(size, [s[0] + sign * b, s[1] + sign * x]);
  }
  for (let i = 0; i < into.agreement.length; i++) into.agreement[i]! += sign * t.agreement[i]!;
}

function addGroup(into: Group, g: Group, sign: 1 | -1): void {
  into.games += sign * g.games;
  into.net += sign * g.net;
  for (let i = 0; i < into.x.length; i++) into.x[i]! += sign * g.x[i]!;
  for (let c = 0; c < 3; c++) into.cells[c]! += sign * g.cells[c]!;
  into.pairs += sign * g.pairs;
}
