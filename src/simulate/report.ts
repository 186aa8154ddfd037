import type { Summary } from "./aggregate.js";

/** Elo left (mean ± sd over seeds) at a few checkpoints, one row per tuner. */
export function eloLeftTable(summaries: readonly Summary[], columns = 5): string {
  const first = summaries[0];
  if (!first) return "";
  const last = first.checkpoints.length - 1;
  const picks = Array.from({ length: columns + 1 }, (_, i) => Math.round((last * i) / columns));
  const nameWidth = Math.max(...summaries.map((s) => s.tuner.length), 6);
  const cell = (text: string) => text.padStart(14);
  const header = `${"games".padEnd(nameWidth)} ${picks.map((i) => cell(String(first.checkpoints[i]))).join("")}`;
  const rows = summaries.map(
    (s) =>
      `${s.tuner.padEnd(nameWidth)} ` +
      `${picks.map((i) => cell(`${(s.mean[i] ?? 0).toFixed(1)} ± ${(s.sd[i] ?? 0).toFixed(1)}`)).join("")}`,
  );
  return [header, ...rows].join("\n");
}

/** Mean |θ − optimum| in steps per parameter, at the start and at the end, for one tuner. */
export function distanceTable(summary: Summary): string {
  const names = Object.keys(summary.startSteps);
  const width = Math.max(...names.map((n) => n.length), 9);
  const lines = [`${"parameter".padEnd(width)}  steps from optimum: start → end (mean over seeds)`];
  for (const name of names) {
    lines.push(
      `${name.padEnd(width)}  ${(summary.startSteps[name] ?? 0).toFixed(2).padStart(6)} → ` +
        `${(summary.endSteps[name] ?? 0).toFixed(2)}`,
    );
  }
  return lines.join("\n");
}
