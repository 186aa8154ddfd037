
import type { Param } from "../params/params.js";
import type { IterationSettings, SpsaConfig, TuningConfig } from "../types/config.js";
import type { SpsaParam, Values, PilotMeasure } from "../types/spsa.js";

export function settingsOf(config: TuningConfig, params: readonly Param[], stepScale?: Values, pilot?: PilotMeasure): IterationSettings {
  return {
    spsa: config.spsa,
    gamesPerIteration: config.games.gamesPerIteration,
    timelowMs: config.timeControl.timelowMs,
    timehighMs: config.timeControl.timehighMs,
    ...(config.timeControl.moveLimit && { moveLimit: config.timeControl.moveLimit }),
    ...(config.timeControl.referenceNps !== undefined && { referenceNps: config.timeControl.referenceNps }),
    leaseSeconds: config.games.leaseSeconds,
    parameters: Object.fromEntries(params.map((p) => [p.name, { min: p.min, max: p.max, step: p.step, type: p.type, frozen: p.frozen ?? false }])),
    ...(stepScale && { stepScale }),
    ...(pilot && { pilot }),
  };
}

/** The parameters of a recorded iteration, at the θ it started from. */
export function recordedParams(settings: IterationSettings, base: Values): SpsaParam[] {
  return Object.entries(settings.parameters).map(([name, s]) => {
    const value = base[name];
    if (value === undefined) throw new Error(`iteration settings name parameter ${name}, which its base θ lacks`);
    return { name, value, ...s };
  });
}

const SPSA_KEYS: Record<Exclude<keyof SpsaConfig, "adaptive">, string> = {
  maxIterations: "max_iterations",
  cEnd: "c_end",
  rEnd: "r_end",
  a: "a",
  c: "c",
  A: "A",
  alpha: "alpha",
  gamma: "gamma",
  eloCap: "elo_cap",
  maxStep: "max_step",
  schedule: "schedule",
  momentum: "momentum",
  averageTail: "average_tail",
  maxStaleness: "max_staleness",
  reference: "reference",
};

/** One line per setting that differs, in the words of config.toml and params.toml. */
export function describeChanges(before: IterationSettings, after: IterationSettings): string[] {
  const changes: string[] = [];
  const compare = (label: string, old: unknown, now: unknown) => {
    if (old !== now) changes.push(`${label}: ${show(old)} → ${show(now)}`);
  };
  for (const [key, name] of Object.entries(SPSA_KEYS) as [Exclude<keyof SpsaConfig, "adaptive">, string][]) compare(`[spsa] ${name}`, before.spsa[key], after.spsa[key]);
  // Settings recorded before adaptive gains existed have none: those iterations were played without.
  compare("[spsa] adapt", before.spsa.adaptive?.mode ?? "off", after.spsa.adaptive?.mode ?? "off");
  compare("[spsa] adapt_window", before.spsa.adaptive?.window, after.spsa.adaptive?.window);
  compare("[spsa] adapt_floor", before.spsa.adaptive?.floor, after.spsa.adaptive?.floor);
  compare("[spsa] adapt_pilot", before.spsa.adaptive?.pilot ?? 0, after.spsa.adaptive?.pilot ?? 0);
  compare("[games] games_per_iteration", before.gamesPerIteration, after.gamesPerIteration);
  // Under a node or depth limit timelow and timehigh are not used (config.toml may not set them).
  if (!after.moveLimit) {
    compare("[time_control] timelow", before.timelowMs / 1000, after.timelowMs / 1000);
    compare("[time_control] timehigh", before.timehighMs / 1000, after.timehighMs / 1000);
  }
  for (const key of ["nodes", "depth"] as const) compare(`[time_control] ${key}`, limitOf(before, key), limitOf(after, key));
  compare("[time_control] reference_nps", before.referenceNps, after.referenceNps);
  for (const [name, now] of Object.entries(after.parameters)) {
    const old = before.parameters[name];
    if (!old) {
      changes.push(`[${name}] added`);
      continue;
    }
    for (const key of ["min", "max", "step", "type", "frozen"] as const) compare(`[${name}] ${key}`, old[key], now[key]);
  }
  return changes;
}

function limitOf(settings: IterationSettings, key: "nodes" | "depth"): number | undefined {
  const limit = settings.moveLimit;
  return limit && key in limit ? (limit as Record<string, number>)[key] : undefined;
}

function show(value: unknown): string {
  return value === undefined ? "(default)" : String(value);
}
