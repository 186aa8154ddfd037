import { short, shortTime, table } from "./text-format.js";
import type { TexelParameterChange, TexelStatus } from "./texel-status.js";

/** `spsa status --texel` as text for one terminal screen. */
export function renderTexelStatus(status: TexelStatus): string {
  const lines = [
    `Texel run ${status.id} (${status.method}, ${shortTime(status.createdAt)})`,
    `${status.paramsFile} on ${status.positionsFile} (${status.positions} positions)`,
    `K ${status.k.toFixed(4)}, error ${status.errorBefore.toFixed(6)} → ` +
      `${status.errorAfter.toFixed(6)} (${(status.errorDrop * 100).toFixed(2)} % lower)`,
    `${status.evaluations} evaluations, ${status.passes} passes, ` +
      `${Math.round(status.positionsPerSecond)} positions/s, ${status.seconds.toFixed(1)} s`,
    "",
  ];
  lines.push(
    ...table(["parameter", "start", "", "final", "change"], status.changed.map(changeRow), "no parameter changed"),
  );
  lines.push(`${status.unchanged} parameters unchanged`);
  return lines.join("\n");
}

function changeRow(p: TexelParameterChange): string[] {
  return [p.name, short(p.start), "→", short(p.final), `${p.change > 0 ? "+" : ""}${short(p.change)}`];
}
