import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { loadParams } from "../../src/params/params.js";
import { InputError } from "../../src/core/errors.js";
import { measuredElo, update } from "../../src/spsa/math.js";
import { stepScales } from "../../src/spsa/adaptive.js";
import { drawBatch, drawSpan, scheduleStep } from "../../src/spsa/option-batches.js";
import { applyBatch, batchStepFactor, batchWindow, pooledByDraw } from "../../src/spsa/batch-step.js";
import type { IterationResult, OptionParams, SpsaParam } from "../../src/types/spsa.js";
import { engineOptions, optionParamsOf } from "../../src/params/option-names.js";

const dir = mkdtempSync(join(tmpdir(), "spsa-uci-"));
let counter = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const write = (name: string, text: string) => {
  const file = join(dir, `${counter++}-${name}`);
  writeFileSync(file, text);
  return file;
};

const gains = { a: 0.5, c: 2, A: 5, alpha: 0.602, gamma: 0.101, maxIterations: 50, eloCap: 400, maxStep: 2 };
const params: SpsaParam[] = [
  { name: "X", value: 10, min: 0, max: 20, step: 1, type: "int" },
  { name: "F", value: 0.75, min: 0, max: 2, step: 0.1, type: "float" },
];
const settings: OptionParams = {
  X: { min: 0, max: 20, step: 1, type: "int", frozen: false, option: "X_OPT", optionScale: undefined },
  F: { min: 0, max: 2, step: 0.1, type: "float", frozen: false, option: "F_X100", optionScale: 100 },
};

describe("asynchronous SPSA math of UCI-option mode", () => {
  it("pools the results of batches that played one draw, in the order of each draw's first batch", () => {
    const r = (plusWins: number, minusWins: number, draws: number) => ({ plusWins, minusWins, draws });
    const of = (drawNumber: number, result: ReturnType<typeof r>) => ({ ...result, drawNumber });
    expect(pooledByDraw([of(7, r(8, 0, 0)), of(9, r(1, 5, 2)), of(7, r(0, 8, 0)), of(9, r(3, 3, 2))])).toEqual([
      r(8, 8, 0),
      r(4, 8, 4),
    ]);
    expect(pooledByDraw([of(1, r(1, 0, 0)), of(2, r(0, 1, 0))])).toEqual([r(1, 0, 0), r(0, 1, 0)]);
  });

  it("shares a draw for the rest of the iteration in the run's first half, aligned to iterations; one per batch after", () => {
    // 64 games per iteration, batches of 8, a run of 1,000 games.
    expect(drawSpan(0, 1000, 8, 64)).toBe(64);
    expect(drawSpan(64, 1000, 8, 64)).toBe(64);
    // An expired batch's games given out again: the next draw covers the rest of its iteration only.
    expect(drawSpan(456, 1000, 8, 64)).toBe(56);
    expect(drawSpan(452, 1000, 8, 64)).toBe(60);
    expect(drawSpan(500, 1000, 8, 64)).toBe(8);
    expect(drawSpan(960, 1000, 8, 64)).toBe(8);
  });

  it("counts the schedule in games: k moves by one per games_per_iteration games, up to N", () => {
    expect(scheduleStep(0, 64, 50)).toBe(1);
    expect(scheduleStep(63, 64, 50)).toBe(1);
    expect(scheduleStep(64, 64, 50)).toBe(2);
    expect(scheduleStep(64 * 1000, 64, 50)).toBe(50);
  });

  it("draws the same perturbation for the same seed and batch number, another for the next batch", () => {
    const draw = (batchNumber: number) =>
      drawBatch(params, gains, { seed: "s", drawNumber: batchNumber, gamesBefore: 128, gamesPerIteration: 64 });
    expect(draw(3)).toEqual(draw(3));
    expect(draw(3).k).toBe(3);
    const signs = new Set(Array.from({ length: 12 }, (_, i) => JSON.stringify(draw(i + 1).signs)));
    expect(signs.size).toBeGreaterThan(1);
  });

  it("scales a batch's step by its share of an iteration's games, from the θ of the report", () => {
    const drawn = drawBatch(params, gains, { seed: "s", drawNumber: 1, gamesBefore: 0, gamesPerIteration: 64 });
    const now = params.map((p) => ({ ...p, value: p.name === "X" ? 12 : p.value }));
    const result = { plusWins: 5, minusWins: 2, draws: 1 };
    const step = applyBatch(now, { ...drawn, games: 8 }, result, gains, 64);
    const full = update(now, { ...drawn, ak: drawn.ak / 8 }, result, gains);
    expect(step.newValues).toEqual(full.newValues);
    // θ of the report, not of the draw: X started from 12.
    expect(step.newValues.X).not.toBe(update(params, { ...drawn, ak: drawn.ak / 8 }, result, gains).newValues.X);
  });

  it("sends ints as integers and floats scaled and rounded, or as decimals without option_scale", () => {
    expect(engineOptions(settings, { X: 11, F: 0.826 })).toEqual({ X_OPT: 11, F_X100: 83 });
    const decimal: OptionParams = { X: settings.X!, F: { ...settings.F!, option: "F", optionScale: undefined } };
    expect(engineOptions(decimal, { X: 11, F: 0.826 })).toEqual({ X_OPT: 11, F: 0.826 });
  });

  it("refuses a params.toml parameter without an option, naming it", () => {
    const file = write(
      "params.toml",
      `[A]\nvalue = 1\nmin = 0\nmax = 2\nstep = 1\noption = "A"\n\n[B]\nvalue = 1\nmin = 0\nmax = 2\nstep = 1\n`,
    );
    expect(() => optionParamsOf(loadParams(file), file)).toThrow(InputError);
    expect(() => optionParamsOf(loadParams(file), file)).toThrow(/\[B\] has no option key/);
    const scaled = write(
      "scaled.toml",
      `[F]\ntype = "float"\nvalue = 1\nmin = 0\nmax = 2\nstep = 0.1\noption_scale = 100\n`,
    );
    expect(() => loadParams(scaled)).toThrow(/option_scale.*needs option/);
  });

  it("reads [engine] mode and binary from config.toml", () => {
    const binary = write("engine", "");
    expect(loadConfig(write("config.toml", `[engine]\nmode = "options"\nbinary = "${binary}"\n`)).engine).toEqual({
      mode: "options",
      binary,
    });
    expect(loadConfig(write("config.toml", "")).engine).toEqual({ mode: "build", binary: undefined });
    expect(() => loadConfig(write("config.toml", `[engine]\nbinary = "${binary}"\n`))).toThrow(
      /binary.*applies only with mode = "options"/,
    );
    expect(() =>
      loadConfig(write("config.toml", `[engine]\nmode = "options"\nbinary = "/nonexistent/engine"\n`)),
    ).toThrow(/file not found/);
    expect(() => loadConfig(write("config.toml", `[engine]\nmode = "uci"\n`))).toThrow(/mode/);
  });
});

describe("adaptive gains in UCI-option mode", () => {
  const adaptive = { mode: "signal" as const, window: 4, floor: 0.2 };
  const batch = (plusWins: number, minusWins: number) => ({ plusWins, minusWins, draws: 16 - plusWins - minusWins });
  // Each its own draw.
  const own = (results: readonly IterationResult[]) => results.map((r, drawNumber) => ({ ...r, drawNumber }));

  it("count the window in iterations' worth of games, and are off unless configured", () => {
    expect(batchWindow({ ...gains, adaptive }, 64, 16)).toBe(16);
    expect(batchWindow({ ...gains, adaptive }, 64, 6)).toBe(43);
    expect(batchStepFactor(own([batch(12, 2)]), gains, 64)).toBeUndefined();
    expect(
      batchStepFactor(own([batch(12, 2)]), { ...gains, adaptive: { ...adaptive, mode: "off" } }, 64),
    ).toBeUndefined();
  });

  it("count each batch as its share of an iteration: whole iterations give the build mode's scales", () => {
    const whole = (plusWins: number, minusWins: number) => ({ plusWins, minusWins, draws: 32 - plusWins - minusWins });
    const iterations = [whole(25, 3), whole(3, 25), whole(11, 9)];
    const measured = iterations.map((result) => ({ elo: measuredElo(result, gains.eloCap).elo, result }));
    const atIterations = batchStepFactor(own(iterations), { ...gains, adaptive }, 32);
    expect(stepScales(measured, ["X"], { ...adaptive, window: 3 })).toEqual({ X: atIterations });
  });

  it("read batches whose signals have opposite signs as signal, which pooled counts would cancel", () => {
    // Batches of 16 games, iterations of 32: each pair of batches pooled would score about even.
    const reported = [batch(12, 2), batch(2, 12), batch(13, 1), batch(1, 13), batch(11, 3)];
    const scale = batchStepFactor(own(reported), { ...gains, adaptive }, 32);
    expect(scale).toBeGreaterThan(0.7);
    const pooled = [
      { plusWins: 14, minusWins: 14, draws: 4 },
      { plusWins: 14, minusWins: 14, draws: 4 },
      { plusWins: 11, minusWins: 3, draws: 2 },
    ].map((result) => ({ elo: measuredElo(result, gains.eloCap).elo, result }));
    expect(stepScales(pooled, ["X"], { ...adaptive, window: 3 }).X).toBe(adaptive.floor);
    // Batches at the noise's size read as noise: the floor.
    expect(batchStepFactor(own([batch(8, 6), batch(6, 8), batch(7, 7), batch(8, 7)]), { ...gains, adaptive }, 32)).toBe(
      adaptive.floor,
    );
    // A batch whose games were all voided adds nothing.
    expect(
      batchStepFactor(own([...reported, { plusWins: 0, minusWins: 0, draws: 0 }]), { ...gains, adaptive }, 32),
    ).toBe(scale);
    // applied: a parameter's step is the factor times the plain one.
    const drawn = { ak: 0.02, plus: { X: 11, F: 0.85 }, minus: { X: 9, F: 0.65 }, games: 16 };
    const plain = applyBatch(params, drawn, { plusWins: 9, minusWins: 5, draws: 2 }, gains, 64);
    const scaled = applyBatch(params, drawn, { plusWins: 9, minusWins: 5, draws: 2 }, gains, 64, 0.5);
    expect((scaled.newValues.X ?? 0) - 10).toBeCloseTo(0.5 * ((plain.newValues.X ?? 0) - 10), 12);
    expect((scaled.newValues.F ?? 0) - 0.75).toBeCloseTo(0.5 * ((plain.newValues.F ?? 0) - 0.75), 12);
    // The same step as update with a scale per parameter (what build mode records), to the bit.
    const perParameter = update(
      params,
      { ak: (drawn.ak * drawn.games) / 64, plus: drawn.plus, minus: drawn.minus, scale: { X: 0.5, F: 0.5 } },
      { plusWins: 9, minusWins: 5, draws: 2 },
      gains,
    );
    expect(scaled.newValues).toEqual(perParameter.newValues);
  });
});
