/**
 * Iterations in flight in build mode (docs/in-flight.md), pure. The master opens iteration k
 * while earlier ones are still being played, drawing its perturbation from the θ it has: the
 * θ after the steps of iterations 1..k − 1 − d, where d, the iteration's staleness, is how many
 * iterations before it had no step applied yet (recorded in its settings). Steps are applied
 * strictly in iteration order, each to the θ of the step before it:
 * θ_{k+1} = θ_k + step measured around θ_{k−d}, so the chain depends only on the rows and a
 * restarted master replays it exactly.
 */

/**
 * How long a tail of iteration k's games the open iterations after it must cover, in games per
 * slot: the slowest games of an iteration last several times the mean (minnow's measured games:
 * p90 2.2×, max 4.4× the mean; docs/tail-wait.md), and while they are played every other slot
 * plays the later iterations' games. Chosen with bench/tail-wait.mjs --in-flight: 64 slots on
 * 64-game iterations idle 10.5 % at staleness 4 and 0.3 % at 6 (5 games per slot gives 6).
 */
export const TAIL_GAMES_PER_SLOT = 5;

/** What the master knows when it decides how far ahead to open iterations. */
export interface DepthInput {
  /** Game slots of the workers alive (activeGameSlots); 0 when none is seen yet. */
  slots: number;
  gamesPerIteration: number;
  /** How long the master took to build an iteration's plus and minus, seconds (undefined: none built yet). */
  buildSeconds: number | undefined;
  /** Games the run's workers report per second, measured (undefined: not yet). */
  gamesPerSecond: number | undefined;
  /** `[spsa] max_staleness`: the bound. */
  maxStaleness: number;
}

/**
 * The staleness the master allows now, 0..maxStaleness: enough open games after the iteration
 * whose step is next that no slot waits for its tail nor for the next build. The open
 * iterations after it must hold every slot's share of the tail (slots · TAIL_GAMES_PER_SLOT
 * games) plus what the slots play while the next iteration is built (games per second · build
 * seconds): d = ⌈(that) / games per iteration⌉. Until a build and a rate are measured, or with no
 * slot seen, 1: one iteration built while the last is played.
 */
export function allowedStaleness(input: DepthInput): number {
  const { slots, gamesPerIteration, buildSeconds, gamesPerSecond, maxStaleness } = input;
  if (maxStaleness <= 0) return 0;
  if (slots <= 0 || buildSeconds === undefined || gamesPerSecond === undefined) return 1;
  const gamesAhead = slots * TAIL_GAMES_PER_SLOT + gamesPerSecond * buildSeconds;
  return Math.min(maxStaleness, Math.max(1, Math.ceil(gamesAhead / gamesPerIteration)));
}

/**
 * Iteration k's staleness if opened now: the iterations before it whose step is not applied
 * (`applied` counts the run's completed iterations, which are always 1..applied).
 */
export function stalenessOf(k: number, applied: number): number {
  return Math.max(0, k - 1 - applied);
}

/**
 * Whether iteration k may be opened now. Its staleness must be within `allowed`; and an
 * iteration after the curvature pilot's `pilots` iterations waits for all of them, since its
 * step scale is the pilot's factor (src/master/pilot.ts).
 */
export function mayOpen(k: number, applied: number, allowed: number, pilots: number): boolean {
  if (k > pilots && pilots > 0 && applied < pilots) return false;
  return stalenessOf(k, applied) <= allowed;
}

/**
 * The staleness bound a run may use: 0 (the barrier) with a setting whose next perturbation
 * needs θ after every step (the self-correcting schedule's a_k and momentum read the trajectory
 * of base θ, which in flight lags the steps).
 */
export function stalenessBound(spsa: { maxStaleness: number; schedule: string; momentum: number }): number {
  return spsa.schedule === "self-correcting" || spsa.momentum > 0 ? 0 : spsa.maxStaleness;
}

/**
 * The cores one iteration's build is taken to use at least: its plus and minus are built at
 * once, and each is at least one compiler at a time. A release build with `lto = true` and
 * `codegen-units = 1` is one rustc on one core nearly all its time (bench/build-profile.mjs:
 * one runnable thread 98 % of its wall time; docs/in-flight.md, "The builds").
 */
export const MIN_CORES_PER_BUILD = 2;

/**
 * How many iterations the master builds at once: `[build] builds_at_once` when set, else enough
 * to keep the master's cores busy, ⌈cores / cores an iteration's build uses⌉, with at least
 * MIN_CORES_PER_BUILD per build (and that until a build is measured). A build that measures less
 * shared its cores with other work, and a measure of what it got would only add builds to a
 * machine already busy. At least 1.
 */
export function buildsAtOnce(input: {
  configured: number | "auto";
  cores: number;
  coresPerBuild: number | undefined;
}): number {
  if (input.configured !== "auto") return input.configured;
  return Math.max(1, Math.ceil(input.cores / Math.max(MIN_CORES_PER_BUILD, input.coresPerBuild ?? 0)));
}

/** What the master knows of its builds and its slots when it says whether builds are the bottleneck. */
export interface PaceInput {
  gamesPerIteration: number;
  /** The wall seconds of the master's last build of an iteration. */
  buildSeconds: number;
  gamesPerSecond: number | undefined;
  /** Iterations it builds at once (buildsAtOnce), and how that was chosen. */
  buildsAtOnce: number;
  configured: number | "auto";
  cores: number;
  coresPerBuild: number | undefined;
  slots: number;
  maxStaleness: number;
}

/**
 * When builds are the bottleneck: the slots play more games while one iteration is built
 * (games per second · build seconds) than the iterations built at once hold (at most
 * buildsAtOnce, and at most max_staleness: builds in progress count toward it), so slots wait
 * between iterations. The line to log, naming what would keep them busy (more builds at once,
 * with the cores and the staleness bound they need; larger iterations; UCI-option mode), or undefined.
 */
export function slowBuildWarning(input: PaceInput): string | undefined {
  const { gamesPerIteration, buildSeconds, gamesPerSecond, buildsAtOnce: atOnce, maxStaleness } = input;
  if (gamesPerSecond === undefined) return undefined;
  const during = gamesPerSecond * buildSeconds;
  const limit = Math.min(atOnce, Math.max(1, maxStaleness));
  if (during <= limit * gamesPerIteration) return undefined;
  const needed = Math.ceil(during / gamesPerIteration);
  const perBuild = Math.max(MIN_CORES_PER_BUILD, input.coresPerBuild ?? 0);
  const cores = Math.ceil(needed * perBuild);
  const chosen =
    input.configured === "auto" ? `auto: ${input.cores} cores, ${perBuild.toFixed(1)} per build` : "set in config.toml";
  // Enough builds in progress need a bound that holds them and the slots' tail.
  const bound = allowedStaleness({
    slots: input.slots,
    gamesPerIteration,
    buildSeconds,
    gamesPerSecond,
    maxStaleness: Number.POSITIVE_INFINITY,
  });
  const more = [
    ...(needed > atOnce
      ? [`[build] builds_at_once ${needed}${cores > input.cores ? ` on a master of ${cores} cores or more` : ""}`]
      : []),
    ...(bound > maxStaleness ? [`[spsa] max_staleness ${bound}`] : []),
  ];
  // Larger iterations: the builds at once hold the games played during one, within the bound with the slots' tail.
  const games = Math.max(
    during / atOnce,
    maxStaleness > 0 ? (input.slots * TAIL_GAMES_PER_SLOT + during) / maxStaleness : during,
  );
  const fixes = [
    more.join(" with "),
    `[games] games_per_iteration ${2 * Math.ceil(games / 2)} or more`,
    `[engine] mode = "options" (one binary, no builds: docs/uci-options.md)`,
  ];
  const limits =
    `[build] builds_at_once ${atOnce} ` +
    `(${chosen})${maxStaleness < atOnce ? `, [spsa] max_staleness ${maxStaleness}` : ""}`;
  return (
    `builds are slower than the workers: they play about ${Math.round(during)} games while an ` +
    `iteration's engines are built ` +
    `(${buildSeconds.toFixed(1)} s), more than the ` +
    `${limit === 1 ? "iteration" : `${limit} iterations`} of ${gamesPerIteration} games built at once (${limits}), ` +
    `so slots wait between iterations; any of these keeps them busy: ${fixes.join("; ")} (docs/in-flight.md)`
  );
}
