import { iterationNoise } from "../spsa/adaptive.js";
import { resultsOf } from "../spsa/math.js";
import { symmetricEigen } from "./eigen.js";
import type { IterationOutcome, SpsaParam, Values } from "../types/spsa.js";

/**
 * The loss model of `spsa simulate` fitted to a finished run's iterations (`--from-run`):
 * every parameter costs κ · (distance to its optimum in steps)² Elo (the simulator's
 * quadratic model with one curvature), and the optima lie at independent distances δ_i from
 * the run's start with δ_i ~ N(0, S²), so S is the root-mean-square offset (`--offset`).
 *
 * An iteration's measured Elo of plus against minus is then exactly linear in κ and in γ = κδ:
 *   E_k = κ·A_k + Σ_i B_ki·γ_i + ε_k,   A_k = Σ_i (x⁻_i² − x⁺_i²),   B_ki = 2(x⁺_i − x⁻_i),
 * with x± the played values in steps from the start and ε_k the game noise (its variance known
 * from the game counts). Integrating γ out gives E ~ N(κA, D + g²BBᵀ), g = κS: a likelihood in
 * two numbers, evaluated through one eigendecomposition of BᵀD⁻¹B so that every (κ, g) costs
 * O(parameters). κ is measured by how E changes as θ moves (a run that never moves cannot
 * tell a steep curve close by from a flat one far away: its interval says so); g by how far
 * E stands above its noise. Intervals are 95 % profile-likelihood ones on a log grid.
 */

export interface RecordedIteration {
  /** The values the plus and minus engines were built with. */
  plus: Values;
  minus: Values;
  /** Plus against minus, or in reference mode both sides' games against the reference. */
  result: IterationOutcome;
  /** The plus-vs-minus Elo the master measured (elo_diff; reference mode: θ+'s against the reference minus θ−'s). */
  elo: number;
}

export interface FitInput {
  params: readonly Pick<SpsaParam, "name" | "step" | "type">[];
  /** θ at the run's start. */
  start: Values;
  /** θ at its end: the offset still left is reported too. */
  end: Values;
  iterations: readonly RecordedIteration[];
}

/**
 * A fitted quantity: the maximum-likelihood value and its 95 % interval; `open` when the interval
 * reaches the edge of what the fit searches.
 */
export interface Estimate {
  value: number;
  low: number;
  high: number;
  open: { low: boolean; high: boolean };
}

export interface FittedModel {
  /** Parameters that moved in the run (frozen ones tell nothing). */
  parameters: number;
  iterations: number;
  games: number;
  /**
   * False when the best fit lies on the edge of the search (κ → 0 with S → ∞): θ moved too little
   * to tell a flat curve far away from a steep one near.
   */
  bounded: boolean;
  /** g = κ·S: the root-mean-square slope at the start, Elo per step; the part a run measures first. */
  slope: Estimate;
  /** κ: Elo lost per step² from the optimum. */
  curvature: Estimate;
  /** S: root-mean-square distance of the optima from the run's start, in steps. */
  offset: Estimate;
  /** Elo below the optimum at the start: parameters · κ · S². */
  eloLeftAtStart: Estimate;
  /** The root-mean-square distance left at the run's end (at the fitted κ and g, optima at their posterior). */
  offsetAtEnd: number;
  /** Draws per game, as measured: the simulator's draw rate at equal strength for runs near their optimum. */
  drawRate: number;
}

/** 95 % profile-likelihood cut: half the χ²(1) quantile. */
const HALF_CHI2_95 = 3.841 / 2;
/** Grid of ln κ and ln g, in steps of GRID_STEP (2.5 %). */
const GRID_STEP = 0.025;
const LN_MIN = Math.log(1e-4);
const LN_MAX = Math.log(1e3);

export function fitLossModel(input: FitInput): FittedModel {
  const data = designOf(input);
  const stats = sufficientStatistics(data);
  const cells = Math.round((LN_MAX - LN_MIN) / GRID_STEP) + 1;
  const lnAt = (i: number) => LN_MIN + i * GRID_STEP;
  // logLik[i][j]: ln κ = lnAt(i), ln g = lnAt(j).
  const logLik: Float64Array[] = [];
  let best = { value: -Infinity, i: 0, j: 0 };
  for (let j = 0; j < cells; j++) {
    const forms = stats.formsAt(Math.exp(lnAt(j)));
    for (let i = 0; i < cells; i++) {
      const kappa = Math.exp(lnAt(i));
      const value = -0.5 * (forms.logDet + forms.ee - 2 * kappa * forms.ae + kappa * kappa * forms.aa);
      (logLik[i] ??= new Float64Array(cells))[j] = value;
      if (value > best.value) best = { value, i, j };
    }
  }
  // Each quantity is ln κ and ln g combined with integer weights, so its profile is a max over a lattice line.
  const edge = (i: number, j: number) => i === 0 || j === 0 || i === cells - 1 || j === cells - 1;
  const profile = (wi: number, wj: number, lnOffset: number): Estimate => {
    // Per value of the quantity: the best likelihood, and whether that cell is on the grid's edge.
    const byIndex = new Map<number, { value: number; edge: boolean }>();
    for (let i = 0; i < cells; i++) {
      const row = logLik[i] as Float64Array;
      for (let j = 0; j < cells; j++) {
        const index = wi * i + wj * j;
        const value = row[j] as number;
        if (value > (byIndex.get(index)?.value ?? -Infinity)) byIndex.set(index, { value, edge: edge(i, j) });
      }
    }
    const inside = [...byIndex].filter(([, cell]) => best.value - cell.value <= HALF_CHI2_95).map(([index]) => index);
    const lo = Math.min(...inside);
    const hi = Math.max(...inside);
    const at = (index: number) => Math.exp(lnOffset + index * GRID_STEP);
    // κ or g alone is cut only by its own range; a combination wherever its best cell lies on the edge of the grid.
    const single = wi === 0 || wj === 0;
    const indices = [...byIndex.keys()];
    const open = (index: number, extreme: number) => (single ? index === extreme : (byIndex.get(index)?.edge ?? true));
    return {
      value: at(wi * best.i + wj * best.j),
      low: at(lo),
      high: at(hi),
      open: { low: open(lo, Math.min(...indices)), high: open(hi, Math.max(...indices)) },
    };
  };
  const kappa = Math.exp(lnAt(best.i));
  const g = Math.exp(lnAt(best.j));
  const p = data.parameters;
  return {
    parameters: p,
    iterations: data.elo.length,
    games: data.games,
    // The slope at its lower edge is a run with nothing to gain, a fit all the same; κ at an edge is no fit.
    bounded: best.i > 0 && best.i < cells - 1,
    slope: profile(0, 1, LN_MIN),
    curvature: profile(1, 0, LN_MIN),
    // S = g / κ: ln S = (j − i)·step; Elo left = p·g²/κ: ln = ln p + ln κ_min + (2j − i)·step.
    offset: profile(-1, 1, 0),
    eloLeftAtStart: profile(-1, 2, Math.log(p) + LN_MIN),
    offsetAtEnd: offsetLeft(stats, data, kappa, g),
    drawRate: data.draws / Math.max(1, data.games),
  };
}

interface Design {
  names: string[];
  parameters: number;
  /** Per iteration: measured Elo, its noise variance, A_k and the row B_k. */
  elo: number[];
  noise: number[];
  a: number[];
  b: number[][];
  /** The run's end, in steps from its start. */
  endSteps: number[];
  games: number;
  draws: number;
}

function designOf(input: FitInput): Design {
  const steps = (p: FitInput["params"][number], values: Values, which: string): number => {
    const v = values[p.name];
    const s = input.start[p.name];
    if (v === undefined || s === undefined) throw new RangeError(`${which} has no value for ${p.name}`);
    return ((p.type === "int" ? Math.round(v) : v) - s) / p.step;
  };
  const completed = input.iterations.filter((it) =>
    resultsOf(it.result).every((r) => r.plusWins + r.minusWins + r.draws > 0),
  );
  // A parameter never played apart (frozen) has B = 0 in every row: it is no unknown of the fit.
  const moved = input.params.filter((p) => completed.some((it) => it.plus[p.name] !== it.minus[p.name]));
  if (moved.length === 0 || completed.length < 2)
    throw new RangeError("the run has too few completed iterations to fit a model (at least 2 with games)");
  const design: Design = {
    names: moved.map((p) => p.name),
    parameters: moved.length,
    elo: [],
    noise: [],
    a: [],
    b: [],
    endSteps: moved.map((p) => steps(p, input.end, "the run's end")),
    games: 0,
    draws: 0,
  };
  for (const [k, it] of completed.entries()) {
    let a = 0;
    const row = moved.map((p) => {
      const plus = steps(p, it.plus, `iteration ${k + 1}'s plus engine`);
      const minus = steps(p, it.minus, `iteration ${k + 1}'s minus engine`);
      a += minus * minus - plus * plus;
      return 2 * (plus - minus);
    });
    design.elo.push(it.elo);
    design.noise.push(iterationNoise(it.result));
    design.a.push(a);
    design.b.push(row);
    for (const r of resultsOf(it.result)) {
      design.games += r.plusWins + r.minusWins + r.draws;
      design.draws += r.draws;
    }
  }
  return design;
}

interface Statistics {
  /** EᵀV⁻¹E, AᵀV⁻¹E, AᵀV⁻¹A and ln det V at gradient scale g (V = D + g²BBᵀ). */
  formsAt(g: number): { ee: number; ae: number; aa: number; logDet: number };
  /** Posterior mean and variance of γ given E − κA, at g. */
  posterior(kappa: number, g: number): { mean: number[]; variance: number[] };
}

/** Everything the likelihood needs, reduced once to the eigenbasis of BᵀD⁻¹B (Woodbury). */
function sufficientStatistics(d: Design): Statistics {
  const p = d.parameters;
  const m = Array.from({ length: p }, () => new Array<number>(p).fill(0));
  const u = new Array<number>(p).fill(0);
  const v = new Array<number>(p).fill(0);
  let ee = 0;
  let ae = 0;
  let aa = 0;
  let logDetD = 0;
  for (let k = 0; k < d.elo.length; k++) {
    const w = 1 / (d.noise[k] as number);
    const e = d.elo[k] as number;
    const a = d.a[k] as number;
    const row = d.b[k] as number[];
    ee += w * e * e;
    ae += w * a * e;
    aa += w * a * a;
    logDetD += Math.log(d.noise[k] as number);
    for (let i = 0; i < p; i++) {
      const bi = row[i] as number;
      if (bi === 0) continue;
      u[i] = (u[i] as number) + w * bi * e;
      v[i] = (v[i] as number) + w * bi * a;
      const mi = m[i] as number[];
      for (let j = 0; j < p; j++) mi[j] = (mi[j] as number) + w * bi * (row[j] as number);
    }
  }
  const { values: lambda, vectors: q } = symmetricEigen(m);
  const project = (x: number[]) =>
    lambda.map((_, j) => x.reduce((s, xi, i) => s + xi * ((q[i] as number[])[j] as number), 0));
  const uq = project(u);
  const vq = project(v);
  // t_j = 1 / (g⁻² + λ_j): the eigenvalues of the posterior covariance of γ.
  const shrink = (g: number) => lambda.map((l) => (g * g) / (1 + g * g * Math.max(0, l)));
  return {
    formsAt(g) {
      const t = shrink(g);
      let e2 = ee;
      let a2 = aa;
      let ae2 = ae;
      let logDet = logDetD;
      for (let j = 0; j < p; j++) {
        const tj = t[j] as number;
        const uj = uq[j] as number;
        const vj = vq[j] as number;
        e2 -= tj * uj * uj;
        ae2 -= tj * uj * vj;
        a2 -= tj * vj * vj;
        logDet += Math.log(1 + g * g * Math.max(0, lambda[j] as number));
      }
      return { ee: e2, ae: ae2, aa: a2, logDet };
    },
    posterior(kappa, g) {
      const t = shrink(g);
      const inBasis = t.map((tj, j) => tj * ((uq[j] as number) - kappa * (vq[j] as number)));
      const mean = q.map((qi) => qi.reduce((s, qij, j) => s + qij * (inBasis[j] as number), 0));
      const variance = q.map((qi) => qi.reduce((s, qij, j) => s + qij * qij * (t[j] as number), 0));
      return { mean, variance };
    },
  };
}

/** √(mean over parameters of E[(δ_i − end_i)²]): how far the optima still are from the run's end θ. */
function offsetLeft(stats: Statistics, d: Design, kappa: number, g: number): number {
  const { mean, variance } = stats.posterior(kappa, g);
  let sum = 0;
  for (let i = 0; i < d.parameters; i++) {
    const delta = (mean[i] as number) / kappa;
    sum += (delta - (d.endSteps[i] as number)) ** 2 + (variance[i] as number) / (kappa * kappa);
  }
  return Math.sqrt(sum / d.parameters);
}
