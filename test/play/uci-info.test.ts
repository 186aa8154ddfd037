import { describe, expect, it } from "vitest";
import { formatScore, isScoredInfo, MATE_SCORE, parseInfo } from "../../src/play/uci-info.js";

describe("info lines", () => {
  it("keeps score, depth, time, nodes and nps, and ignores the pv", () => {
    const line =
      "info depth 14 seldepth 20 multipv 1 score cp -31 nodes 90210 nps 1800000 time 50 pv e2e4 e7e5 g1f3 score cp 999";
    expect(parseInfo(line)).toEqual({ depth: 14, score: -31, nodes: 90210, nps: 1800000, timeMs: 50 });
    expect(parseInfo("info depth 3 score cp 12 lowerbound time 4 pv d2d4")).toEqual({ depth: 3, score: 12, timeMs: 4 });
  });

  it("turns mate scores into large values with the right sign", () => {
    expect(parseInfo("info score mate 3 time 1").score).toBe(MATE_SCORE - 3);
    expect(parseInfo("info score mate -2").score).toBe(-MATE_SCORE + 2);
    expect(parseInfo("info score mate 0").score).toBe(-MATE_SCORE);
    expect(formatScore(MATE_SCORE - 3)).toBe("+M3");
    expect(formatScore(-MATE_SCORE + 2)).toBe("-M2");
    expect(formatScore(-31)).toBe("-0.31");
    expect(formatScore(0)).toBe("0.00");
  });

  it("tolerates garbage and tells scored lines from others", () => {
    expect(parseInfo("info score cp banana time x depth")).toEqual({});
    expect(parseInfo("info string score cp 5")).toEqual({});
    expect(isScoredInfo("info depth 1 score cp 5 pv e2e4")).toBe(true);
    expect(isScoredInfo("info depth 1 currmove e2e4")).toBe(false);
    expect(isScoredInfo("bestmove e2e4")).toBe(false);
  });
});
