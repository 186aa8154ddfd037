import { BatchEnginePool } from "./batch-engine-pool.js";
import type { LabelledPosition } from "./positions.js";

/**
 * The quiet positions: those whose static evaluation equals the quiescence score, so the
 * evaluation alone explains them (the seed's filter against tactical noise).
 */
export async function quietPositions(
  engine: string,
  positions: readonly LabelledPosition[],
  processes?: number,
): Promise<LabelledPosition[]> {
  const pool = await BatchEnginePool.start(
    engine,
    positions.map((p) => p.fen),
    processes,
  );
  try {
    const scores = await pool.evaluate(new Map(), "both");
    return positions.filter((_, i) => scores[2 * i] === scores[2 * i + 1]);
  } finally {
    await pool.close();
  }
}
