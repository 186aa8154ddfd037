import type { Estimate, FittedModel } from "./fit-model.js";

/** The simulator's `--loss-steps` the fitted curvature is stated at (its default). */
export const FIT_LOSS_STEPS = 4;

/** `spsa simulate`'s model flags for a fitted model, with the offset given (the run's start or its end). */
export function simulateFlags(
  fit: FittedModel,
  offset: number,
): { lossElo: number; lossSteps: number; offset: number; drawRate: number } {
  return {
    lossElo: round(fit.curvature.value * FIT_LOSS_STEPS ** 2),
    lossSteps: FIT_LOSS_STEPS,
    offset: round(offset),
    drawRate: Math.round(fit.drawRate * 100) / 100,
  };
}

/** The fitted model, one line per quantity with its 95 % interval, and the `spsa simulate` lines that use it. */
export function fitReport(runName: string, fit: FittedModel, extraFlags: string): string {
  const lossAt = FIT_LOSS_STEPS ** 2;
  const scaled = (e: Estimate, by: number): Estimate => ({
    ...e,
    value: e.value * by,
    low: e.low * by,
    high: e.high * by,
  });
  const line = (flags: ReturnType<typeof simulateFlags>, games: string) =>
    `npx spsa simulate --loss-elo ${flags.lossElo} --loss-steps ${flags.lossSteps} --offset ` +
    `${flags.offset} --draw-rate ${flags.drawRate}${games}${extraFlags}`;
  return [
    `run "${runName}": ${fit.iterations} completed iterations, ${fit.games} games, ` +
      `${fit.parameters} parameters played apart. Fitted loss model ` +
      `(one curvature; optima at independent distances from the start), 95 % intervals:`,
    `  slope         ${describe(fit.slope)} Elo per step at the start (root mean square over the parameters)`,
    `  curvature     ${describe(fit.curvature)} Elo per step², i.e. ` +
      `${describe(scaled(fit.curvature, lossAt))} Elo lost at ${FIT_LOSS_STEPS} steps (--loss-elo)`,
    `  offset        ${describe(fit.offset)} steps from the run's start to the optima (root mean square; --offset)`,
    `  Elo left      ${describe(fit.eloLeftAtStart)} at the run's start`,
    `  offset left   ${fit.offsetAtEnd.toFixed(2)} steps from the run's end θ`,
    `  draw rate     ${fit.drawRate.toFixed(2)}`,
    ...([fit.slope, fit.curvature, fit.offset, fit.eloLeftAtStart].some((e) => e.open.low || e.open.high)
      ? [
          "  (an interval that reaches the edge of the search, shown with < or >: the run's games " +
            "cannot bound it on that side)",
        ]
      : []),
    "",
    ...(fit.bounded
      ? [
          `the run's own problem, to compare gains at its budget: ` +
            `${line(simulateFlags(fit, fit.offset.value), ` --games ${fit.games}`)}`,
          `from the run's end (params.toml as the run left it), simulated below: ` +
            `${line(simulateFlags(fit, fit.offsetAtEnd), "")}`,
        ]
      : [
          "θ moved too little in this run to tell a flat curve with far optima from a steep one " +
            "with near optima (the best fit",
          "lies at the edge of the search): no model to simulate. A longer run, or one that moved " +
            "further, can be fitted.",
        ]),
  ].join("\n");
}

function describe(e: Estimate): string {
  const low = `${e.open.low ? "< " : ""}${format(e.low)}`;
  const high = `${e.open.high ? "> " : ""}${format(e.high)}`;
  return `${format(e.value)} [${low}, ${high}]`;
}

function format(x: number): string {
  return x >= 100 ? x.toFixed(0) : x >= 1 ? x.toFixed(2) : x.toPrecision(2);
}

function round(x: number): number {
  return Number(x.toPrecision(2));
}
