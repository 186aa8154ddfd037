/**
 * What the words of `spsa status` and the dashboard mean: the legend `spsa status --explain` prints
 * under the screen and the dashboard's "?" opens. A term is written as the screen writes it (a
 * column's header is its term), so a test can check that every column has its line.
 */
export interface LegendEntry {
  /** Where it is: the run's lines, the workers' table and lines, or the parameters. */
  part: "run" | "workers" | "parameters";
  term: string;
  meaning: string;
}

/** The legend by part, in order: its heading, then [term, meaning] pairs. */
const PARTS: readonly { part: LegendEntry["part"]; heading: string; terms: readonly [string, string][] }[] = [
  {
    part: "run",
    heading: "the run",
    terms: [
      [
        "iteration k of N",
        "the iteration being played, as the master's progress line names it (those before it are complete: " +
          "their steps moved θ); a run ends after N ([spsa] max_iterations)",
      ],
      [
        "opened ahead",
        "iterations built and handed out before the step of the one being played, so no worker waits for a " +
          "build (iterations in flight); their θ lacks that step, and the master applies the steps in order",
      ],
      [
        "games N done",
        "games reported by the workers and counted by the master; games/min over the last minutes, and the " +
          "ETA of the run and of the iteration at that rate",
      ],
      ["waiting", "what the run waits for: a master, the master's builds, or a worker to claim games"],
      [
        "Elo (plus vs minus)",
        "per completed iteration, how much the plus engine (θ moved a few steps one way) beat the minus " +
          "engine (θ moved the other way): its sign is the direction of the step; at a few dozen games it is " +
          "mostly noise, hundreds of Elo either way are usual",
      ],
      [
        "(capped)",
        "an iteration's Elo counts at most ±elo_cap in the step ([spsa] elo_cap, 400 by default): its games " +
          "measured more, which in a short iteration is mostly chance (one side won nearly every game); not a " +
          "bug",
      ],
      [
        "curvature pilot",
        "the run's first iteration: θ+ and θ− each play θ₀ (the start) instead of each other; what they " +
          "lose to it measures how fast Elo falls off around θ (the total curvature, Elo per step²); a flat " +
          "engine gets longer steps (steps × up to 4), a sharp one, or one too sharp to measure, keeps the " +
          "default (× 1.00); not in the Elo line",
      ],
      [
        "gained so far",
        "the Elo of θ now against θ₀, from the gain blocks ([spsa] gain_share of the run's games, in build mode " +
          "gain iterations: θ as it was when a block was drawn plays θ₀) of the last half of the games so far, with its 95 % interval " +
          "(an end of ∞ when θ won or lost every game); the blocks move θ no step and are not in the plus-vs-minus " +
          "Elo. The rest of the budget: what the games left are projected to add, from a line through the " +
          'blocks\' scores over the last three quarters; "nothing left to gain" when that whole interval lies ' +
          "within ±[spsa] stop_below, and with stop_early the run ends there",
      ],
      [
        "θ, θ₀, θ+, θ−",
        "the parameters' values now, at the start, and those of the plus and minus engines of an iteration",
      ],
      [
        "faults",
        "the engines' own faults by kind, each deciding its game: crashes, time losses (the engine ran over " +
          "its time by itself) and illegal moves; a crash or illegal move is a bug to fix",
      ],
      [
        "delays outside the engines",
        "games lost on time because the machine was late, not the engine (a busy machine): replayed from " +
          "the same opening, or scored once out of replays; a node limit ([time_control] nodes) makes games " +
          "immune to it",
      ],
      [
        "batch 17, batches 9–12",
        "a UCI-option run's batches by the order their reports moved θ; its Elo is per window of batches",
      ],
    ],
  },
  {
    part: "workers",
    heading: "the workers of this run",
    terms: [
      ["worker", "its name (compete --spsa --name; default host-pid)"],
      ["host", "the machine it runs on"],
      ["conc", "games it plays at once (-c; it lowers it on a busy machine)"],
      ["games", "its games counted in this run (a batch counts once reported; held batches do not)"],
      [
        "+W/=D/−L %",
        "the plus engine's wins, the draws and the minus engine's wins, in % of its plus-vs-minus games " +
          "(the curvature pilot's games against θ₀ are not among them)",
      ],
      ["faults", "the engines' own faults in its games (see faults above)"],
      ["delay losses", "its games scored as lost on time to the machine's delays"],
      ["replays", "its games replayed for the machine's delays"],
      [
        "delays",
        "its games lost on time to the machine's delays: scored, and replayed (see delays outside the engines)",
      ],
      ["nps", "its engine's measured nodes per second; - when the run has no [time_control] reference_nps"],
      ["time ×", "the factor on its times per move, reference_nps / its nps; - without reference_nps"],
      ["games/min", "its games per minute in this run, over the last minutes"],
      ["last seen", "how long ago its last report counted in this run came"],
      [
        "playing",
        "the batches it holds now: claimed, not reported yet (their games count once reported); a worker " +
          "playing its first batch shows this alone",
      ],
      [
        "score (pool)",
        "the plus engine's score in its games, and in brackets the other workers' in the same iterations " +
          "(no pool: no other worker played them); the master compares the two to find a worker that lies",
      ],
      ["score z", "its score's distance from the pool's, in standard errors: a few either way is chance"],
      ["held", "its batches the master set aside, not counted in θ until you decide (spsa workers accept|reject)"],
      [
        "verdict",
        "what the master makes of its games: ok; too few games shared with the pool to judge; not judged: " +
          "no other worker's games to compare with (a worker alone: normal); not judged against the pool while " +
          "another worker looks unclean by its own games; nothing reported yet; suspect " +
          "(held until you decide), rejected, accepted, or held: same machine as a suspect",
      ],
      ["draws", "its share of draws beside the pool's: a worker that makes results up is often unlike the pool here"],
      ["extreme batches", "its share of batches one side won entirely, beside the pool's at the same batch sizes"],
      [
        "residual",
        "fishtest's test of its game pairs (won, lost, other) against the pool's: beyond 7 the master " +
          "suspects it; - with too few pairs",
      ],
      [
        "most agreeing parameter",
        "the parameter whose plus and minus sides its results follow most unlike the pool's: its agreement " +
          "per game, the pool's, and the difference as a z",
      ],
      ["decided by", "who accepted or rejected it (spsa workers accept|reject) and when"],
      ["concurrency note", "how its games at once were chosen, or why it lowered them"],
    ],
  },
  {
    part: "parameters",
    heading: "the parameters",
    terms: [
      ["start → now", "a parameter's value at the run's start and now (params.toml has it too)"],
      ["Δ steps", "how far it moved, in its own steps (now − start) / step"],
      ["[min, max]", "the bounds it stays within"],
      ["step", "its step: the plus and minus engines sit a few steps either side of θ ([spsa] c_end)"],
      ["history", "its value over the run, left to right (a sparkline)"],
    ],
  },
];

export const LEGEND: readonly LegendEntry[] = PARTS.flatMap(({ part, terms }) =>
  terms.map(([term, meaning]) => ({ part, term, meaning })),
);

/** The legend as text, its meanings wrapped to `width` columns under their terms. */
export function renderLegend(width = 100): string {
  const lines = ["what the words mean (docs/watching.md has more):"];
  for (const { heading, terms } of PARTS) {
    lines.push("", `${heading}:`);
    for (const [term, meaning] of terms)
      lines.push(`  ${term}`, ...wrap(meaning, width - 6).map((line) => `      ${line}`));
  }
  return lines.join("\n");
}

/** Words into lines of at most `width` characters (a longer word alone on its line). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  if (line !== "") lines.push(line);
  return lines;
}
