import { nearest } from "../core/suggest.js";
import { isTable, TableReader } from "../core/table-reader.js";
import { describeKey, type TomlDocument } from "../core/toml-file.js";
import { InputError } from "../core/errors.js";
import { createRng } from "../core/rng.js";
import { curvatureFor, type ParamModel } from "./engine-model.js";
import type { SpsaParam } from "../types/spsa.js";
import type { Problem } from "./problem.js";

/** How the synthetic engine of `spsa simulate` is made from the user's params.toml. */
export interface ModelOptions {
  /** Every parameter loses `lossElo` Elo at `lossSteps` steps from its optimum... */
  lossElo: number;
  lossSteps: number;
  /** ...whose optimum is this many steps from θ₀ (random side); undefined: uniform in [min, max]. */
  offsetSteps: number | undefined;
  drawRate: number;
  /** Per-parameter settings from a model file. */
  overrides: Record<string, ParamOverride>;
}

export interface ParamOverride {
  optimum?: number | undefined;
  lossElo?: number | undefined;
  lossSteps?: number | undefined;
}

/** The problem of seed `seed`: the user's θ₀, bounds and steps, with optima drawn per seed. */
export function userProblem(params: readonly SpsaParam[], options: ModelOptions, seed: number): Problem {
  const rng = createRng(`model:${seed}`);
  const model: ParamModel[] = params.map((p) => {
    const override = options.overrides[p.name] ?? {};
    const drawn =
      options.offsetSteps === undefined
        ? p.min + rng.next() * (p.max - p.min)
        : clip(p.value + (rng.next() < 0.5 ? -1 : 1) * options.offsetSteps * p.step, p.min, p.max);
    return {
      name: p.name,
      optimum: override.optimum ?? drawn,
      curvature: curvatureFor(override.lossElo ?? options.lossElo, override.lossSteps ?? options.lossSteps),
      step: p.step,
      type: p.type,
    };
  });
  return { params, model, drawRate: options.drawRate };
}

/** Reads a model file: `[NAME] optimum = …, loss_elo = …, loss_steps = …` for parameters of params.toml. */
export function parseModelFile(doc: TomlDocument, params: readonly SpsaParam[]): Record<string, ParamOverride> {
  const overrides: Record<string, ParamOverride> = {};
  for (const [name, table] of Object.entries(doc.data)) {
    const param = params.find((p) => p.name === name);
    if (!param) {
      const guess = nearest(
        name,
        params.map((p) => p.name),
      );
      throw new InputError(
        describeKey(doc, undefined, name),
        `no parameter ${name} in the parameters file${guess ? ` (did you mean \`${guess}\`?)` : ""}`,
      );
    }
    if (!isTable(table))
      throw new InputError(
        describeKey(doc, undefined, name),
        "expected a table [NAME] with optimum, loss_elo or loss_steps",
      );
    const reader = new TableReader(doc, name, table, ["optimum", "loss_elo", "loss_steps"]);
    const optimum = reader.optionalNumber("optimum", { min: param.min, max: param.max });
    overrides[name] = {
      optimum,
      lossElo: reader.optionalNumber("loss_elo", { above: 0 }),
      lossSteps: reader.optionalNumber("loss_steps", { above: 0 }),
    };
  }
  return overrides;
}

function clip(x: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, x));
}
