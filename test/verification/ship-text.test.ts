import { describe, expect, it } from "vitest";
import { describeShipCheck, type ShipSummary } from "../../src/verification/ship-text.js";
import { exportedTheta } from "../../src/export/shipped.js";
import type { ShipCheckRow } from "../../src/db/ship-checks.js";

const running: ShipSummary = {
  status: "running",
  limits: { tc: { baseMs: 10_000, incMs: 100 } },
  sprt: { elo0: 0, elo1: 5, alpha: 0.05, beta: 0.05 },
  maxGames: 20_000,
  candidates: [
    { label: "final θ", values: { X: 2 } },
    { label: "tail average of the last 50 of 100 iterations", values: { X: 1 } },
  ],
  elimination: [],
  chosen: null,
  verdict: null,
  elo: null,
  eloError: null,
  llr: null,
  games: null,
};
const match = {
  holder: "final θ",
  challenger: "tail average of the last 50 of 100 iterations",
  verificationId: 7,
  wins: 41,
  losses: 30,
  draws: 329,
  winner: "tail average of the last 50 of 100 iterations",
};
const passed: ShipSummary = {
  ...running,
  status: "complete",
  elimination: [match],
  chosen: match.winner,
  verdict: "pass",
  elo: 6.08,
  eloError: 3.91,
  llr: 2.96,
  games: 8124,
};

describe("the ship check's line", () => {
  it("says what runs: the elimination, then the test against the start θ", () => {
    expect(describeShipCheck(running)).toBe(
      "ship check at tc 10+0.1: running, elimination between final θ and tail average of the last 50 of 100 iterations",
    );
    expect(describeShipCheck({ ...running, chosen: "final θ" })).toBe(
      "ship check at tc 10+0.1: running, final θ vs start θ, SPRT [0, 5] up to 20000 games",
    );
  });

  it("says the verdict with Elo ± 95 %, games, LLR and the elimination", () => {
    expect(describeShipCheck(passed)).toBe(
      "ship check at tc 10+0.1: tail average of the last 50 of 100 iterations vs start θ, pass (SPRT H1) [0, 5], Elo +6.1 ± 3.9 (95%), 8124 games, LLR 2.96; " +
        "elimination: tail average of the last 50 of 100 iterations beat final θ +41 -30 =329",
    );
    const held = { ...match, wins: 30, losses: 30, winner: "final θ" };
    expect(describeShipCheck({ ...passed, elimination: [held], chosen: "final θ", verdict: "fail", elo: -2 })).toMatch(
      /^ship check at tc 10\+0\.1: final θ vs start θ, FAIL \(SPRT H0\) \[0, 5\], Elo -2\.0 ± 3\.9 .*; elimination: final θ held against tail average .* \+30 -30 =329$/,
    );
  });
});

describe("what spsa export ships", () => {
  const run = { currentParameters: { X: 2 } };
  const row = (summary: ShipSummary, chosen: Record<string, number> | null): ShipCheckRow => ({
    ...summary,
    id: 1,
    runId: 1,
    eliminationGames: 400,
    chosenParameters: chosen,
    createdAt: new Date(),
    completedAt: null,
  });

  it("the run's θ without a check, with a caution while one runs", () => {
    expect(exportedTheta(run, undefined)).toEqual({ theta: { X: 2 }, source: "the run's θ", caution: undefined });
    expect(exportedTheta(run, row(running, null)).caution).toMatch(
      /^the ship check is not over \(ship check at tc 10\+0\.1: running/,
    );
  });

  it("the chosen candidate once the check is over, with a caution unless it passed", () => {
    expect(exportedTheta(run, row(passed, { X: 1 }))).toEqual({
      theta: { X: 1 },
      source: "the ship check's candidate (tail average of the last 50 of 100 iterations)",
      caution: undefined,
    });
    const failed = exportedTheta(run, row({ ...passed, verdict: "undecided" }, { X: 1 }));
    expect(failed.theta).toEqual({ X: 1 });
    expect(failed.caution).toMatch(
      /^the ship check's candidate \(tail average .*\) did not pass its test against the start θ \(undecided at max_games\): ship check at/,
    );
  });
});
