import { progressBar } from "../core/progress-bar.js";
import type { SearchPosition, SearchProgress } from "./local-search.js";

type WithRate<T> = T & { positionsPerSecond: number };

/** `pass 3 [#########...........] 27/55 parameters · 412 evaluations · error 0.083102 · 2031000 positions/s` */
export function formatSearchPosition(p: WithRate<SearchPosition>): string {
  return (
    `pass ${p.pass} ${progressBar(p.tried, p.params)} ${p.tried}/${p.params} parameters · ` +
    `${p.evaluations} evaluations · error ${p.error.toFixed(6)} · ${Math.round(p.positionsPerSecond)} positions/s`
  );
}

/**
 * `pass 2 · 41 evaluations · ROOK_VALUE_MG = 470 · error 0.132514 · 175458 positions/s`: one line
 * per improvement, kept in the log.
 */
export function formatImprovement(p: WithRate<SearchProgress>): string {
  return (
    `pass ${p.pass} · ${p.evaluations} evaluations · ${p.param} = ${p.value} · error ` +
    `${p.error.toFixed(6)} · ${Math.round(p.positionsPerSecond)} positions/s`
  );
}
