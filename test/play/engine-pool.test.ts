import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_ENGINE_TIMEOUTS } from "../../src/play/engine-process.js";
import { EnginePool } from "../../src/play/engine-pool.js";
import { buildMinnow } from "../support/minnow.js";

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
});
