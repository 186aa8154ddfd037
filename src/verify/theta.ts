import type postgres from "postgres";
import { thetaSources } from "../db/runs.js";
import { appliedState, thetaAfterBatches } from "../db/applied-chain.js";
import { InputError } from "../core/errors.js";
import type { Values } from "../types/spsa.js";

/**
 * Which θ of a run to play: its start, its current θ, or θ after iteration K (on a UCI-option run,
 * after its first K applied batches).
 */
export type ThetaLabel = "start" | "current" | number;

export function parseThetaLabel(text: string, flag: string): ThetaLabel {
  if (text === "start" || text === "current") return text;
  const k = Number(text);
  if (!Number.isInteger(k) || k < 0)
    throw new InputError(flag, `expected start, current or an iteration number, got "${text}"`);
  return k === 0 ? "start" : k;
}

/** The label a verification stores; `options`: the run is a UCI-option run (K counts its applied batches). */
export function describeTheta(label: ThetaLabel, options = false): string {
  if (typeof label !== "number") return label;
  return options ? `batch ${label}` : `iteration ${label}`;
}

/**
 * θ of the run for a label; θ after iteration K is what its step left (recorded as it completed). On
 * a UCI-option run (`options`), K counts applied batches, and θ after them, or its current θ, is
 * replayed from the stored chain when the run's θ was not written after them.
 */
export async function thetaOf(
  sql: postgres.Sql,
  run: { id: number; name: string },
  label: ThetaLabel,
  options = false,
): Promise<Values> {
  const row = await thetaSources(sql, run.id, typeof label === "number" && !options ? label : undefined);
  if (!row) throw new InputError(`run "${run.name}"`, "not found");
  if (label === "start") return row.initial;
  if (options) {
    const { applied, thetaApplied } = await appliedState(sql, run.id);
    const n = label === "current" ? applied : label;
    if (n > applied) throw new InputError(`run "${run.name}"`, `has no applied batch ${n} (applied: ${applied})`);
    return n === thetaApplied ? row.current : thetaAfterBatches(sql, run.id, n);
  }
  if (label === "current") return row.current;
  if (row.next) return row.next;
  throw new InputError(
    `run "${run.name}"`,
    `has no completed iteration ${label} (last completed: ${row.last ?? "none"})`,
  );
}
