import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { EngineProcess, type SearchOutcome } from "../../src/play/engine-process.js";

const TIMED = fileURLToPath(new URL("../fixtures/engines/timed.mjs", import.meta.url));
// The stall timeout never decides anything here: these searches end long before it.
const timing = (movetimeMs: number) => ({ stallMs: movetimeMs + 5000, graceMs: 1000, movetimeMs });

/** Runs one movetime search from the start position; returns its outcome and the chunks read during it. */
async function search(engine: EngineProcess, movetimeMs: number): Promise<{ outcome: SearchOutcome; reads: number }> {
  const before = engine.reads;
  const outcome = await engine.go("position startpos", `go movetime ${movetimeMs}`, timing(movetimeMs));
  return { outcome, reads: engine.reads - before };
}

function bestmove(outcome: SearchOutcome): Extract<SearchOutcome, { kind: "bestmove" }> {
  if (outcome.kind !== "bestmove") throw new Error(`expected a bestmove, got ${outcome.kind}`);
  return outcome;
}

describe("engine process: quiet reads in movetime mode", () => {
  let engine: EngineProcess | undefined;
  const start = async (behaviour: object) => {
    engine = await EngineProcess.start({ name: "timed", path: TIMED, args: [JSON.stringify(behaviour)] });
    await engine.newGame();
    return engine;
  };
  afterEach(async () => engine?.quit());

  it("reads a chatty search line by line first, then in a few chunks, and keeps its last score", async () => {
    const timed = await start({ infoLines: 12, earlyMs: 2 });
    // Twelve lines 100 ms apart: read one by one even when a busy machine wakes the reader tens of ms late.
    const first = await search(timed, 1300);
    expect(first.reads).toBeGreaterThanOrEqual(6);
    for (let i = 0; i < 3; i++) {
      const { outcome, reads } = await search(timed, 150);
      expect(reads).toBeLessThanOrEqual(4);
      const answer = bestmove(outcome);
      expect(answer).toMatchObject({ stopped: false, answerWasWaiting: false, info: { timeMs: 148 } });
      expect(answer.elapsedMs).toBeGreaterThanOrEqual(140);
    }
  });

  it("flags an early answer read at the end of a quiet spell, and reads the next search promptly", async () => {
    // Learnt from the first search: it answers 30 ms early; the second answers 2 ms early, so its
    // answer comes some 30 ms after the quiet spell ends, not before it even when timers run late.
    const timed = await start({ infoLines: 6, earlyMsByMove: [30, 2, 2, 2], earlyAtMove: 3 });
    await search(timed, 200);
    expect(bestmove((await search(timed, 200)).outcome).answerWasWaiting).toBe(false);
    const early = bestmove((await search(timed, 200)).outcome);
    expect(early.answerWasWaiting).toBe(true);
    expect(early.info.timeMs).toBe(0); // the engine answered at once ...
    expect(early.elapsedMs).toBeGreaterThanOrEqual(150); // ... and was read when the quiet spell ended
    const next = await search(timed, 600);
    expect(next.reads).toBeGreaterThanOrEqual(4); // prompt again: six lines about 85 ms apart
    expect(bestmove(next.outcome).answerWasWaiting).toBe(false);
  });

  it("sees a crash during a quiet spell at once, not when the spell ends", async () => {
    const timed = await start({ infoLines: 2, crashMidSearchAtMove: 3 });
    await search(timed, 100);
    await search(timed, 100);
    const { outcome } = await search(timed, 5000);
    expect(outcome.kind).toBe("crash");
    expect(outcome.elapsedMs).toBeLessThan(200); // the crash is 20 ms in; the first drain would be at 250 ms
    expect(timed.alive).toBe(false);
  });

  it("drains a flood during a quiet spell, so the engine is not held up on a full pipe until its time is up", async () => {
    const timed = await start({ infoLines: 2, earlyMs: 2, floodKilobytesAtMove: [3, 1024] });
    await search(timed, 100);
    await search(timed, 100);
    const answer = bestmove((await search(timed, 2000)).outcome);
    expect(answer.stopped).toBe(false);
    // The fixture reports how long its 1 MiB write was blocked: slices of at most 250 ms, not 2 s.
    expect(answer.info.timeMs).toBeLessThan(1000);
  });
});
