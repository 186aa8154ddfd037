import type postgres from "postgres";
import { thetaSources } from "../db/runs.js";
import { InputError } from "../core/errors.js";
import type { Values } from "../types/spsa.js";

/** Which θ of a run to build: its start, its current θ, or θ after iteration K. */
export type ThetaLabel = "start" | "current" | number;

export function parseThetaLabel(text: string, flag: string): ThetaLabel {
  if (text === "start" || text === "current") return text;
  const k = Number(text);
  if (!Number.isInteger(k) || k < 0)
    throw new InputError(flag, `expected start, current or an iteration number, got "${text}"`);
  return k === 0 ? "start" : k;
}

export function describeTheta(label: ThetaLabel): string {
  return typeof label === "number" ? `iteration ${label}` : label;
}

/** θ of the run for a label; θ after iteration K is what its step left (recorded as it completed). */
export async function thetaOf(
  sql: postgres.Sql,
  run: { id: number; name: string },
  label: ThetaLabel,
): Promise<Values> {
  const row = await thetaSources(sql, run.id, typeof label === "number" ? label : undefined);
  if (!row) throw new InputError(`run "${run.name}"`, "not found");
  if (label === "start") return row.initial;
  if (label === "current") return row.current;
  if (row.next) return row.next;
  throw new InputError(
    `run "${run.name}"`,
    `has no completed iteration ${label} (last completed: ${row.last ?? "none"})`,
  );
}
