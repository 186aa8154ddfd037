import type { Values } from "../../src/types/spsa.js";

type Expect = (value: unknown, message?: string) => { toEqual(v: unknown): void };

/**
 * Replays a run's steps in iteration order from θ₀ (src/spsa/in-flight.ts): row i (0-based) was
 * drawn from θ after `applied` = i − its staleness steps, which its base θ must equal, and its
 * step, `step(row, applied, θ)`, moves θ after the i steps before it. Returns θ after every step.
 */
export function replayChain<R extends { iteration_number: number; base_parameters: Values }>(
  rows: readonly R[],
  start: Values,
  stalenessOf: (row: R) => number,
  step: (row: R, applied: number, theta: Values) => Values,
  expect: Expect,
): Values {
  const thetas = [start];
  for (const [i, row] of rows.entries()) {
    const applied = i - stalenessOf(row);
    expect(row.base_parameters, `θ of iteration ${row.iteration_number}`).toEqual(thetas[applied]);
    thetas.push({ ...thetas[i], ...step(row, applied, thetas[i] ?? {}) });
  }
  return thetas.at(-1) ?? start;
}
