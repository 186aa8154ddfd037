import type { Param } from "../params/params.js";
import { readConstants, targetsOf } from "../engine-build/engine-builder.js";
import { rewriteConstants } from "../rust-constants/rewriter.js";
import { builtValue } from "../spsa/math.js";
import type { ThetaPoint } from "../status/snapshot.js";
import { formatToolLine, type ToolFormat } from "./tool-formats.js";
import type { BuildConfig, IterationSettings } from "../types/config.js";
import type { Values } from "../types/spsa.js";

/**
 * The engine's constants file with θ written in as an engine of this run would be built:
 * int parameters rounded into their bounds (builtValue), through the build's own rewriter,
 * so every other byte of the file is kept. A parameter of params.toml that the run does not
 * have yet is written at its params.toml value, as the master would play it.
 */
export function constantsWithTheta(
  build: BuildConfig,
  params: readonly Param[],
  theta: Values,
): { file: string; text: string } {
  const { file, source, aliases } = readConstants(build);
  const assignments = targetsOf(params).map((target, i) => {
    const p = params[i] as Param;
    return { target, value: builtValue({ ...p, value: theta[p.name] ?? p.value }) };
  });
  return { file, text: rewriteConstants(source, assignments, file, aliases) };
}

/**
 * θ over the run as CSV, `iteration,<parameter>,…` (θ after each iteration), or on a UCI-option
 * run `batches,<parameter>,…` (θ after that many applied batches), parameters by name.
 */
export function historyCsv(points: readonly ThetaPoint[], first: "iteration" | "batches" = "iteration"): string {
  const names = [...new Set(points.flatMap((p) => Object.keys(p.theta)))].sort();
  const rows = points.map((p) =>
    [String(p.iteration), ...names.map((n) => (p.theta[n] === undefined ? "" : String(p.theta[n])))].join(","),
  );
  return `${[first, ...names].join(",")}\n${rows.join("\n")}\n`;
}

/** The run's parameters as OpenBench or fishtest lines, at θ as built, with the latest iteration's bounds and steps. */
export function toolLines(format: ToolFormat, settings: IterationSettings, theta: Values): string {
  const names = Object.keys(settings.parameters).sort();
  const lines = names.flatMap((name) => {
    const s = settings.parameters[name];
    const value = theta[name];
    if (s === undefined || value === undefined) return [];
    const p = { name, value, ...s };
    return [
      formatToolLine(format, {
        name,
        type: s.type,
        value: builtValue(p),
        min: s.min,
        max: s.max,
        cEnd: s.step * settings.spsa.cEnd,
        rEnd: plainRate(settings),
      }),
    ];
  });
  return `${lines.join("\n")}\n`;
}

/**
 * The r_end for a tool without adaptive gains: an adaptive run's floor rate, which is where its
 * step settles once what it measures is mostly noise (near the end of a run); the full-signal
 * r_end, held constant, would make θ wander there.
 */
function plainRate(settings: IterationSettings): number {
  const adaptive = settings.spsa.adaptive;
  return adaptive && adaptive.mode !== "off" ? settings.spsa.rEnd * adaptive.floor : settings.spsa.rEnd;
}
