import type { SpsaParam } from "../types/spsa.js";
import type { EngineModel } from "./engine-model.js";

/** A tuning problem: the parameters as params.toml gives them (θ₀, bounds, steps) and the engine. */
export interface Problem {
  params: readonly SpsaParam[];
  model: EngineModel;
  /** Share of draws between engines of equal strength. */
  drawRate: number;
}
