import { describe, expect, it } from "vitest";
import type { TexelRunRecord } from "../../src/db/texel-runs.js";
import { renderTexelStatus } from "../../src/status/texel-render.js";
import { texelStatus } from "../../src/status/texel-status.js";

const run: TexelRunRecord = {
  id: 7,
  paramsFile: "params.toml",
  positionsFile: "positions.epd",
  positions: 1_018_659,
  method: "adaptive",
  k: 1.01514,
  errorBefore: 0.08,
  errorAfter: 0.0792,
  startParameters: {
    ROOK_VALUE_MG: 480,
    KNIGHT_VALUE_MG: 320,
    LMR_BASE: 0.75,
    PAWN_VALUE_MG: 82,
    ISOLATED_PAWN_PENALTY_MG: -12,
  },
  finalParameters: {
    ROOK_VALUE_MG: 458,
    KNIGHT_VALUE_MG: 320,
    LMR_BASE: 0.8,
    PAWN_VALUE_MG: 82,
    ISOLATED_PAWN_PENALTY_MG: -6,
  },
  evaluations: 176,
  passes: 14,
  positionsPerSecond: 2_030_123.6,
  seconds: 101.96,
  createdAt: new Date("2026-11-23T14:02:31.250Z"),
};

describe("texelStatus", () => {
  it("lists the changed parameters by name with their change, and counts the rest", () => {
    const status = texelStatus(run);
    expect(status.changed.map((p) => p.name)).toEqual(["ISOLATED_PAWN_PENALTY_MG", "LMR_BASE", "ROOK_VALUE_MG"]);
    expect(status.changed[0]).toEqual({ name: "ISOLATED_PAWN_PENALTY_MG", start: -12, final: -6, change: 6 });
    expect(status.changed[1]!.change).toBeCloseTo(0.05, 12);
    expect(status.unchanged).toBe(2);
    expect(status.errorDrop).toBeCloseTo(0.01, 12);
    expect(status.createdAt).toBe("2026-11-23T14:02:31.250Z");
    expect(status).toMatchObject({
      id: 7,
      method: "adaptive",
      positions: 1_018_659,
      evaluations: 176,
      passes: 14,
      seconds: 101.96,
    });
  });

  it("a run whose error was already 0 dropped by 0, not NaN", () => {
    expect(texelStatus({ ...run, errorBefore: 0, errorAfter: 0 }).errorDrop).toBe(0);
  });
});

describe("renderTexelStatus", () => {
  it("one screen: the run, the error before and after, then one line per changed parameter", () => {
    expect(renderTexelStatus(texelStatus(run))).toBe(
      [
        "Texel run 7 (adaptive, 2026-11-23 14:02)",
        "params.toml on positions.epd (1018659 positions)",
        "K 1.0151, error 0.080000 → 0.079200 (1.00 % lower)",
        "176 evaluations, 14 passes, 2030124 positions/s, 102.0 s",
        "",
        "parameter                 start     final  change",
        "ISOLATED_PAWN_PENALTY_MG    -12  →     -6      +6",
        "LMR_BASE                   0.75  →    0.8   +0.05",
        "ROOK_VALUE_MG               480  →    458     -22",
        "2 parameters unchanged",
      ].join("\n"),
    );
  });

  it("a run that changed nothing says so", () => {
    const text = renderTexelStatus(
      texelStatus({ ...run, finalParameters: run.startParameters, errorAfter: run.errorBefore }),
    );
    expect(text.split("\n").slice(2)).toEqual([
      "K 1.0151, error 0.080000 → 0.080000 (0.00 % lower)",
      expect.any(String),
      "",
      "no parameter changed",
      "5 parameters unchanged",
    ]);
  });
});
