import type { TexelRunRecord } from "../db/texel-runs.js";

/** A parameter `spsa texel` moved. */
export interface TexelParameterChange {
  name: string;
  start: number;
  final: number;
  /** final − start. */
  change: number;
}

/** What `spsa status --texel` shows and `--json` prints: one row of texel_run. */
export interface TexelStatus {
  id: number;
  createdAt: string;
  paramsFile: string;
  positionsFile: string;
  positions: number;
  method: "local" | "adaptive";
  k: number;
  errorBefore: number;
  errorAfter: number;
  /** (before − after) / before: the share of the start error the tuning removed. */
  errorDrop: number;
  evaluations: number;
  passes: number;
  positionsPerSecond: number;
  seconds: number;
  /** The parameters whose value changed, in name order (jsonb keeps no key order, so params.toml's is lost). */
  changed: TexelParameterChange[];
  /** Parameters that kept their start value, untuned ones included. */
  unchanged: number;
}

export function texelStatus(run: TexelRunRecord): TexelStatus {
  const { startParameters, finalParameters, createdAt, ...fields } = run;
  // spsa texel stores every parameter of params.toml in both maps.
  const all = Object.entries(finalParameters)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, final]) => {
      const start = startParameters[name] ?? final;
      return { name, start, final, change: final - start };
    });
  const changed = all.filter((p) => p.change !== 0);
  return {
    ...fields,
    createdAt: createdAt.toISOString(),
    errorDrop: run.errorBefore > 0 ? (run.errorBefore - run.errorAfter) / run.errorBefore : 0,
    changed,
    unchanged: all.length - changed.length,
  };
}
