import type { Param } from "../params/params.js";
import type { IterationSettings, PlayedWith, SpsaConfig, TuningConfig } from "../types/config.js";
import type { SpsaParam, Values, PilotMeasure } from "../types/spsa.js";
import { ADAPT_KEYS, configKey, SPSA_KEYS } from "./config.js";

/**
 * What an iteration records of config.toml and params.toml in its settings (the rest of it, in its
 * row's columns, its caller writes).
 */
export function settingsOf(
  config: TuningConfig,
  params: readonly Param[],
  stepScale?: Values,
  pilot?: PilotMeasure,
): IterationSettings {
  return {
    spsa: config.spsa,
    ...(config.timeControl.moveLimit && { moveLimit: config.timeControl.moveLimit }),
    ...(config.timeControl.referenceNps !== undefined && { referenceNps: config.timeControl.referenceNps }),
    leaseSeconds: config.games.leaseSeconds,
    parameters: Object.fromEntries(
      params.map((p) => [p.name, { min: p.min, max: p.max, step: p.step, type: p.type, frozen: p.frozen ?? false }]),
    ),
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

/** What an iteration of this config and these parameters would be played with. */
export function playedWith(config: TuningConfig, params: readonly Param[]): PlayedWith {
  const { timelowMs, timehighMs } = config.timeControl;
  return {
    settings: settingsOf(config, params),
    timelowMs,
    timehighMs,
    gamesPerIteration: config.games.gamesPerIteration,
  };
}

/** One line per setting that differs, in the words of config.toml and params.toml. */
export function describeChanges(recorded: PlayedWith, now: PlayedWith): string[] {
  const [before, after] = [recorded.settings, now.settings];
  const changes: string[] = [];
  const compare = (label: string, old: unknown, now: unknown) => {
    if (old !== now) changes.push(`${label}: ${show(old)} → ${show(now)}`);
  };
  for (const [key, name] of Object.entries(SPSA_KEYS) as [
    Exclude<keyof SpsaConfig, "adaptive" | "gain">,
    (typeof SPSA_KEYS)[keyof typeof SPSA_KEYS],
  ][]) {
    compare(configKey("spsa", name), before.spsa[key], after.spsa[key]);
  }
  // Settings recorded before adaptive gains existed have none: those iterations were played without.
  compare(configKey("spsa", ADAPT_KEYS.mode), before.spsa.adaptive?.mode ?? "off", after.spsa.adaptive?.mode ?? "off");
  compare(configKey("spsa", ADAPT_KEYS.window), before.spsa.adaptive?.window, after.spsa.adaptive?.window);
  compare(configKey("spsa", ADAPT_KEYS.floor), before.spsa.adaptive?.floor, after.spsa.adaptive?.floor);
  compare(configKey("spsa", ADAPT_KEYS.pilot), before.spsa.adaptive?.pilot ?? 0, after.spsa.adaptive?.pilot ?? 0);
  compare(configKey("spsa", ADAPT_KEYS.widen), before.spsa.adaptive?.widen ?? 0, after.spsa.adaptive?.widen ?? 0);
  compare(configKey("spsa", ADAPT_KEYS.lift), before.spsa.adaptive?.lift ?? 0, after.spsa.adaptive?.lift ?? 0);
  compare(configKey("games", "games_per_iteration"), recorded.gamesPerIteration, now.gamesPerIteration);
  // Under a node or depth limit timelow and timehigh are not used (config.toml may not set them).
  if (!after.moveLimit) {
    compare(configKey("time_control", "timelow"), recorded.timelowMs / 1000, now.timelowMs / 1000);
    compare(configKey("time_control", "timehigh"), recorded.timehighMs / 1000, now.timehighMs / 1000);
  }
  for (const key of ["nodes", "depth"] as const)
    compare(configKey("time_control", key), limitOf(before, key), limitOf(after, key));
  compare(configKey("time_control", "reference_nps"), before.referenceNps, after.referenceNps);
  for (const [name, now] of Object.entries(after.parameters)) {
    const old = before.parameters[name];
    if (!old) {
      changes.push(`[${name}] added`);
      continue;
    }
    for (const key of ["min", "max", "step", "type", "frozen"] as const)
      compare(`[${name}] ${key}`, old[key], now[key]);
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
