import { formatDuration } from "../core/duration.js";
import { describeFaultKinds } from "../play/faults.js";
import { sparkline } from "./sparkline.js";
import { short, shortTime, signed, table } from "./text-format.js";
import { plural } from "../core/plural.js";
import { eloWithError } from "../stats/elo.js";
import type { ParameterStatus, RunStatus } from "./snapshot.js";
import type { WinDrawLoss } from "../types/engines.js";
import type { IterationResult } from "../types/spsa.js";
import { describeCurvature } from "../spsa/pilot.js";
import { printable } from "../core/printable.js";
import { gainLine, stopLine } from "../spsa/gain-text.js";
import { readingOf, type GainStatus } from "./gain-status.js";

/** `spsa status` as text for one terminal screen. */
export function renderStatus(status: RunStatus): string {
  const { run, iteration, games } = status;
  const lines: string[] = [];
  lines.push(`run ${run.name} (${run.status}, seed ${run.seed}, started ${shortTime(run.createdAt)})`);
  lines.push(masterLine(status.master));
  if (status.reference) lines.push(referenceLine(status.reference));
  const { perturbations } = status;
  if (perturbations) {
    lines.push(
      `UCI-option run: ${perturbations.applied} batches applied, ${perturbations.inFlight} in ` +
        `flight (${iteration.gamesPlayed}/${iteration.targetGames} games played)`,
    );
  } else {
    lines.push(iterationLine(iteration));
  }
  const eta =
    (games.etaSeconds === null ? "" : `, run ETA ${formatDuration(games.etaSeconds)}`) +
    (games.iterationEtaSeconds === null ? "" : `, iteration ETA ${formatDuration(games.iterationEtaSeconds)}`);
  lines.push(
    `games ${games.total} done, ${games.perMinute.toFixed(1)}/min over the last ` +
      `${formatDuration(games.rateSeconds)} (${games.overallPerMinute.toFixed(1)}/min overall)${eta}`,
  );
  if (status.waiting) lines.push(`waiting: ${status.waiting}`);
  if (status.eloWindows) {
    lines.push(windowsLine(status.eloWindows));
    if (status.optionPilot) lines.push(optionPilotLine(status.optionPilot));
  } else {
    const elos = status.recent.filter((it) => it.elo !== null && !it.pilot && !it.gain).map(eloOf);
    const measured = status.reference ? "θ+ vs reference − θ− vs reference" : "plus vs minus";
    lines.push(
      `Elo of the last iterations (${measured}): ${elos.length === 0 ? "none complete yet" : elos.join("  ")}`,
    );
    if (status.reference) lines.push(`scores against the reference (θ+ / θ−): ${scores(status.recent)}`);
    if (status.pilot.length > 0) lines.push(pilotLine(status.pilot));
  }
  if (status.gain) lines.push(...gainLines(status.gain));
  lines.push(faultsLine(status));
  lines.push(delaysLine(status));
  if (status.binariesRefused > 0)
    lines.push(
      `binaries refused by workers: ${status.binariesRefused} batches (unsigned, or not signed by a ` +
        `key they trust; see the workers' logs and docs/signing.md)`,
    );
  lines.push(...status.verifications.map(verificationLine));
  if (status.ship) lines.push(status.ship.summary);
  if (status.transfer) lines.push(status.transfer.summary);
  lines.push("");
  lines.push(...workerLines(status));
  lines.push("");
  lines.push(...parametersPart(status));
  return lines.join("\n");
}

/**
 * "iteration 3 of 4 (2 complete, 8/16 games played; iteration 4 opened ahead)": the iteration being
 * played, as the master names it, and those opened after it while it plays.
 */
function iterationLine(iteration: RunStatus["iteration"]): string {
  const open = iteration.current > iteration.completed;
  const played = open ? `, ${iteration.gamesPlayed}/${iteration.targetGames} games played` : "";
  const first = iteration.current + 1;
  const ahead =
    iteration.ahead === 0
      ? ""
      : `; ${iteration.ahead === 1 ? `iteration ${first}` : `iterations ${first}–${iteration.latest}`} opened ahead`;
  return `iteration ${iteration.current} of ${iteration.max} (${iteration.completed} complete${played}${ahead})`;
}

/** "#4 +12.3", or "#4 +400.0 (capped)" at the cap ([spsa] elo_cap). */
function eloOf(it: RunStatus["recent"][number]): string {
  return `#${it.iteration} ${signed(it.elo ?? 0, 1)}${it.capped ? " (capped)" : ""}`;
}

/**
 * "faults: 1 crash, 2 time losses by the engines (latest in iteration 31)": the engines' own faults by
 * kind (a time loss here is an engine's own overrun; the delays' line has the machine's).
 */
function faultsLine(status: RunStatus): string {
  const kept =
    status.faultedGamesKept > 0 ? `; ${status.faultedGamesKept} faulted games kept (spsa export --faulted)` : "";
  if (status.faults === 0) return `faults: 0${kept}`;
  const faulty = status.recent.find((it) => it.faults > 0);
  const latest = faulty ? ` (latest in iteration ${faulty.iteration})` : "";
  return `faults: ${describeFaultKinds(status.faultKinds)} by the engines${latest}${kept}`;
}

/**
 * The parameters: all of them in a table, or on a large run how far they moved and the table of
 * those that moved most.
 */
function parametersPart({ parameters, parameterSummary: summary }: RunStatus): string[] {
  const rows = table(
    ["parameter", "start", "", "now", "Δ steps", "[min, max]", "step", "history"],
    parameters.map(parameterRow),
    "no parameters",
  );
  if (summary.listed === "all") return rows;
  const frozen = summary.frozen > 0 ? `, ${summary.frozen} frozen` : "";
  return [
    `${summary.count} parameters, ${summary.moved} moved from their start${frozen}; moves in steps:`,
    ...histogramLines(summary.histogram),
    "",
    `the ${parameters.length} that moved most (spsa status --all lists every one):`,
    ...rows,
  ];
}

/** Histogram bars are at most this many characters wide. */
const BAR_WIDTH = 40;

/** One line per bin: its range in steps, its count and a bar. */
function histogramLines(bins: RunStatus["parameterSummary"]["histogram"]): string[] {
  const most = Math.max(1, ...bins.map((b) => b.count));
  return table(
    ["", "", ""],
    bins.map((b) => [binLabel(b), String(b.count), "█".repeat(Math.ceil((b.count / most) * BAR_WIDTH))]),
    "",
  )
    .slice(1)
    .map((line) => `  ${line}`);
}

function binLabel({ from, to }: RunStatus["parameterSummary"]["histogram"][number]): string {
  if (from === 0 && to === 0) return "0 (unmoved)";
  if (from === null) return `≤ ${to}`;
  if (to === null) return `≥ ${from}`;
  return `${from} … ${to}`;
}

/**
 * The run's workers, one row each from this run's games: a `suspect worker NAME: reason` line
 * per worker under suspicion, the table (games, results, faults, delays, rate, last report, the
 * evidence's score against the pool's, held batches, verdict), the rest of each one's evidence,
 * the stale workers in one line, and why a concurrency was chosen.
 */
function workerLines({ workers, staleWorkers: stale, workerReview: review }: RunStatus): string[] {
  const lines = review.suspects.map(
    (s) =>
      `suspect worker ${printable(s.worker)}: ${printable(s.reason)} (since ${shortTime(s.since)}; ` +
      `spsa workers accept|reject ${printable(s.worker)})`,
  );
  const looked =
    review.reviewedAt === null
      ? "the master has not judged them yet"
      : `judged at ${shortTime(review.reviewedAt)} over ${review.strata} ${review.strata === 1 ? "stratum" : "strata"}`;
  lines.push(`workers of this run (games counted in it; ${looked}):`);
  lines.push(
    ...table(
      [
        "worker",
        "host",
        "conc",
        "games",
        "+W/=D/−L %",
        "faults",
        "delay losses",
        "replays",
        "nps",
        "time ×",
        "games/min",
        "last seen",
        "score (pool)",
        "score z",
        "held",
        "verdict",
      ],
      workers.map((w) => {
        const e = w.evidence;
        return [
          printable(w.name),
          printable(w.host ?? "-"),
          w.concurrency === null ? "-" : String(w.concurrency),
          String(w.games),
          resultShares(w),
          String(w.engineFaults),
          String(w.delayLosses),
          String(w.replays),
          w.measuredNps === null ? "-" : String(Math.round(w.measuredNps)),
          w.timeFactor === null ? "-" : w.timeFactor.toFixed(3),
          w.gamesPerMinute.toFixed(1),
          w.secondsAgo === null ? "-" : `${formatDuration(w.secondsAgo)} ago`,
          e ? `${percent(e.score)} (${pool(e.poolScore)})` : "-",
          e?.scoreZ == null ? "-" : e.scoreZ.toFixed(1),
          w.undone > 0 ? `${w.held}, ${w.undone} undone` : String(w.held),
          printable(w.verdict) +
            (w.decision && w.decision.kind !== "suspect"
              ? ` (${printable(w.decision.by)}, ${shortTime(w.decision.at)})`
              : ""),
        ];
      }),
      "no worker has played in this run yet: start one with compete --spsa",
    ),
  );
  lines.push(...workers.flatMap((w) => (w.playing ? [`  ${printable(w.name)}: ${playingWords(w.playing)}`] : [])));
  lines.push(...workers.flatMap((w) => (w.evidence ? [`  ${printable(w.name)}: ${evidenceWords(w.evidence)}`] : [])));
  lines.push(...workers.flatMap((w) => (w.refused > 0 ? [`  ${printable(w.name)}: ${refusedWords(w.refused)}`] : [])));
  if (stale) {
    const more = stale.count > stale.names.length ? ` and ${stale.count - stale.names.length} more` : "";
    lines.push(
      `${plural(stale.count, "more worker")} not seen for ${stale.minutes} min before the run's ` +
        `latest report (${stale.names.map(printable).join(", ")}${more}): ` +
        `${plural(stale.games, "game")}, the latest at ${shortTime(stale.lastSeen)}`,
    );
  }
  lines.push(
    ...workers
      .filter((w) => w.concurrencyNote !== null)
      .map((w) => `${printable(w.name)}: concurrency ${printable(w.concurrencyNote ?? "")}`),
  );
  return lines;
}

/** A worker's refusals: few from an honest one (binaries it does not trust, once per iteration), many from one keeping games from others. */
const refusedWords = (n: number) =>
  `refused ${plural(n, "batch", "batches")} (given back unplayed: binaries it does not trust)`;

const percent = (x: number | null) => (x === null ? "?" : `${(100 * x).toFixed(1)}%`);

/** The pool's share beside a worker's: "no pool" when no other worker played its iterations. */
const pool = (x: number | null) => (x === null ? "no pool" : percent(x));

/** "pool 31.0%" beside a worker's figure, or "no pool" when no other worker played its iterations. */
const beside = (x: number | null, shown: (x: number) => string) => (x === null ? "no pool" : `pool ${shown(x)}`);

/**
 * "playing batch 7 (8 games of iteration 3) for 1m10s": what a worker holds now, claimed and not yet
 * reported.
 */
export function playingWords(p: NonNullable<RunStatus["workers"][number]["playing"]>): string {
  const batches = p.batchIds.length === 1 ? `batch ${p.batchIds[0]}` : `batches ${p.batchIds.join(", ")}`;
  const iterations =
    p.iterations.length === 1 ? `iteration ${p.iterations[0]}` : `iterations ${p.iterations.join(", ")}`;
  return `playing ${batches} (${plural(p.games, "game")} of ${iterations}) for ${formatDuration(p.seconds)}`;
}

/**
 * "45/31/24": a worker's plus wins, draws and minus wins, in percent of its plus-vs-minus games (the
 * curvature pilot's games against θ₀ have none of them; "-" when it has only those).
 */
export function resultShares(w: Pick<RunStatus["workers"][number], "wins" | "draws" | "losses">): string {
  const games = w.wins + w.draws + w.losses;
  if (games === 0) return "-";
  return [w.wins, w.draws, w.losses].map((n) => Math.round((100 * n) / games)).join("/");
}

/**
 * The evidence the table leaves out: "draws 31.0% (pool 30.2%), extreme batches 2.0% (pool 1.9%) z 0.0,
 * spread 0.97× its pairs' z 0.0, residual 0.4, most agreeing parameter A +0.12 (pool +0.03) z 1.1".
 */
function evidenceWords(e: NonNullable<RunStatus["workers"][number]["evidence"]>): string {
  const p = e.parameters[0];
  return [
    `${e.batches} batches, ${e.games} games judged`,
    `draws ${percent(e.draws)} (${beside(e.poolDraws, percent)})`,
    `extreme batches ${percent(e.extremes)} (${beside(e.poolExtremes, percent)})` +
      (e.extremeZ == null ? "" : ` z ${e.extremeZ.toFixed(1)}`),
    e.spread == null
      ? null
      : `${e.spreadOf === "pairs" ? "pair spread" : "spread"} ${e.spread.toFixed(2)}× its pairs' z ${(e.spreadZ ?? 0).toFixed(1)}`,
    `residual ${e.residual === null ? "- (too few game pairs)" : e.residual.toFixed(1)}`,
    p
      ? `most agreeing parameter ${printable(p.name)} ${signed(p.agreement, 2)} ` +
        `(${beside(p.poolAgreement, (x) => signed(x, 2))}) z ${p.z.toFixed(1)}`
      : null,
  ]
    .filter((part) => part !== null)
    .join(", ");
}

/** Windows of a UCI-option run shown on the Elo line. */
const WINDOWS_SHOWN = 4;

/**
 * "Elo per 64 games (plus vs minus, 95 %): batches 9–12 +5.0 ± 120.3  batches 1–8 …": a UCI-option
 * run's latest windows of batches.
 */
function windowsLine({ windowGames, recent }: NonNullable<RunStatus["eloWindows"]>): string {
  // A window of fewer than MIN_ERROR_PAIRS pairs has no error bar (src/stats/elo.ts).
  const windows = recent
    .slice(0, WINDOWS_SHOWN)
    .map(
      (w) => `${batchRange(w.first, w.last)} ${signed(w.elo, 1)}${w.error === null ? "" : ` ± ${w.error.toFixed(1)}`}`,
    );
  return (
    `Elo per ${windowGames} games (plus vs minus, 95 %): ` +
    `${windows.length === 0 ? "no batch applied yet" : windows.join("  ")}`
  );
}

/** "batches 9–12", or "batch 17" for one. */
export function batchRange(first: number, last: number): string {
  return first === last ? `batch ${first}` : `batches ${first}–${last}`;
}

/** Who runs the run: "master: pid 123 on host-a since 2026-11-28 00:40 (seen 2s ago)". */
function masterLine(master: RunStatus["master"]): string {
  if (!master) return "master: none running";
  const seen =
    `seen ${formatDuration(master.secondsAgo)} ` +
    `ago${master.lapsed ? ": missed its heartbeats, the next master takes the run over" : ""}`;
  return (
    `master: ${master.pid === null ? "" : `pid ${master.pid} `}on ${printable(master.host)} ` +
    `since ${shortTime(master.since)} (${seen})`
  );
}

/** Which engine a reference-mode run's θ+ and θ− each play. */
function referenceLine(reference: NonNullable<RunStatus["reference"]>): string {
  const engine = reference.engine === "start" ? "θ₀, built at the run's start" : reference.engine;
  return (
    `reference mode: θ+ and θ− each play the reference engine ` +
    `(${engine}${reference.sha256 ? `, sha256 ${reference.sha256.slice(0, 12)}` : ", not built yet"})`
  );
}

/** "#3 56.2% / 50.0%  #2 …": θ+'s and θ−'s score against the reference in the iterations that have games. */
function scores(iterations: RunStatus["recent"]): string {
  const score = (side: WinDrawLoss) => {
    const games = side.wins + side.draws + side.losses;
    return `${(((side.wins + side.draws / 2) / games) * 100).toFixed(1)}%`;
  };
  const shown = iterations.flatMap((it) =>
    it.reference && it.gamesPlayed > 0
      ? [`#${it.iteration} ${score(it.reference.plus)} / ${score(it.reference.minus)}`]
      : [],
  );
  return shown.length === 0 ? "no games yet" : shown.join("  ");
}

/**
 * "curvature pilot (θ+ / θ− each against θ₀, not in the Elo above): #1 43.8% / 62.5%, Elo of θ+
 * over θ− -381.7": what sets the step scales.
 */
function pilotLine(pilot: RunStatus["pilot"]): string {
  const elos = pilot.filter((it) => it.elo !== null).map(eloOf);
  return (
    `curvature pilot (θ+ / θ− each against θ₀, not in the Elo above): ` +
    `${scores(pilot)}${elos.length > 0 ? `; Elo of θ+ over θ− ${elos.join("  ")}` : ""}`
  );
}

/** The Elo gained so far and, once it holds, the stop rule's line (docs/gain-so-far.md). */
export function gainLines(gain: GainStatus): string[] {
  const reading = readingOf(gain);
  const lines = [gainLine(reading)];
  if (gain.stop.nothingLeft && reading.rest) lines.push(stopLine(reading.rest, gain.stop.below, gain.stop.early));
  return lines;
}

/**
 * "curvature pilot (θ+ / θ− each against θ₀, not in the Elo above): 64/64 games, 43.8% / 62.5%; total
 * curvature 3.12 ± 4.10 Elo per step², steps × 4.00": a UCI-option run's pilot batches, pooled.
 */
export function optionPilotLine(pilot: NonNullable<RunStatus["optionPilot"]>): string {
  const score = (side: IterationResult) => {
    const games = side.plusWins + side.draws + side.minusWins;
    return games === 0 ? "–" : `${(((side.plusWins + side.draws / 2) / games) * 100).toFixed(1)}%`;
  };
  const { measure } = pilot;
  const measured = measure === null ? "" : `; ${describeCurvature(measure)}, steps × ${measure.factor.toFixed(2)}`;
  return (
    `curvature pilot (θ+ / θ− each against θ₀, not in the Elo above): ` +
    `${pilot.played}/${pilot.pilotGames} games, ${score(pilot.outcome.plus)} / ` +
    `${score(pilot.outcome.minus)}${measured}`
  );
}

/**
 * Games a busy machine cost, apart from the engines' own faults: its remedy is more CPU per game,
 * not an engine fix.
 */
function delaysLine(status: RunStatus): string {
  const { losses, replays, replayLimitPairs } = status.delays;
  if (losses + replays === 0) return "delays outside the engines: none";
  const latest = status.recent.find((it) => it.delayLosses + it.replays > 0);
  const limit = replayLimitPairs > 0 ? `, ${plural(replayLimitPairs, "pair")} out of replays` : "";
  return (
    `delays outside the engines: ${losses} time losses scored, ${replays} games ` +
    `replayed${limit}${latest ? ` (latest in iteration ${latest.iteration})` : ""}`
  );
}

/** "verification 2: current vs start at tc 10+0.1, complete, 8/8 games +3 -2 =3, Elo +43.5 ± 120.1 (95%)". */
function verificationLine(v: RunStatus["verifications"][number]): string {
  const elo = v.elo === null ? "" : `, Elo ${eloWithError(v.elo, v.eloError ?? Number.NaN, Number(v.games) / 2)}`;
  return (
    `verification ${v.id}: ${v.comparison} at ${v.limitsText}, ${v.status}, ${v.games} games ` +
    `+${v.wins} -${v.losses} =${v.draws}${elo}${v.verdict ? `, ${v.verdict}` : ""}`
  );
}

function parameterRow(p: ParameterStatus): string[] {
  const bounds = p.min === null || p.max === null ? "?" : `[${p.min}, ${p.max}]`;
  return [
    `${p.name}${p.frozen ? " (frozen)" : ""}`,
    short(p.start),
    "→",
    short(p.now),
    p.steps === null ? "?" : signed(p.steps, 2),
    bounds,
    p.step === null ? "?" : String(p.step),
    sparkline(p.history.map((h) => h.value)),
  ];
}
