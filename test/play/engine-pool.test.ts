import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_ENGINE_TIMEOUTS } from "../../src/play/engine-process.js";
import { EnginePool } from "../../src/play/engine-pool.js";
import { buildMinnow } from "../support/minnow.js";
import { ROOT } from "../support/cli.js";

describe("engine pool: option sets of the same binary", () => {
  let pool: EnginePool | undefined;
  afterEach(async () => pool?.close());

  it("serves new values of the same options with setoption on an idle process instead of a restart", async () => {
    const path = await buildMinnow();
    pool = new EnginePool(DEFAULT_ENGINE_TIMEOUTS);
    const first = await pool.acquire({ name: "plus", path, options: { KNIGHT_VALUE_MG: 300, LMR_BASE_X100: 70 } });
    pool.release(first);
    const second = await pool.acquire({ name: "minus", path, options: { KNIGHT_VALUE_MG: 340, LMR_BASE_X100: 80 } });
    expect(second).toBe(first);
    expect(second.spec).toMatchObject({ name: "minus", options: { KNIGHT_VALUE_MG: 340, LMR_BASE_X100: 80 } });
    // Other option names: a process of its own, so no value of the old set lingers.
    const other = await pool.acquire({ name: "other", path, options: { KNIGHT_VALUE_MG: 340 } });
    expect(other).not.toBe(second);
    expect(pool.size).toBe(2);
    pool.release(second);
    pool.release(other);
  }, 120_000);

  it("sends a reused process only the options whose value changed, and keeps an option set's key for all its games", async () => {
    const dir = mkdtempSync(join(tmpdir(), "spsa-pool-"));
    try {
      const log = join(dir, "input.log");
      const path = join(ROOT, "test/fixtures/engines/logging.mjs");
      pool = new EnginePool(DEFAULT_ENGINE_TIMEOUTS);
      const options = (values: number[]) => Object.fromEntries(values.map((value, i) => [`P${i}`, value]));
      const first = { name: "plus", path, args: [log], options: options([1, 2, 3, 4]) };
      const engine = await pool.acquire(first);
      pool.release(engine);
      // The same set (one object for a batch's games): the same process, nothing sent but the new game.
      expect(await pool.acquire({ ...first })).toBe(engine);
      pool.release(engine);
      const sent = () =>
        readFileSync(log, "utf8")
          .split("\n")
          .filter((line) => line.startsWith("setoption"));
      expect(sent()).toEqual([
        "setoption name P0 value 1",
        "setoption name P1 value 2",
        "setoption name P2 value 3",
        "setoption name P3 value 4",
      ]);
      const second = await pool.acquire({ name: "plus", path, args: [log], options: options([1, 5, 3, 6]) });
      expect(second).toBe(engine);
      expect(sent().slice(4)).toEqual(["setoption name P1 value 5", "setoption name P3 value 6"]);
      pool.release(second);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
