import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { storedRunConfig } from "../../src/config/secrets.js";
import { openRun } from "../../src/db/runs.js";
import { openTuningRun, syncParamsFile, withTuningRun } from "../../src/master/run-setup.js";
import { loadParams, valuesOf } from "../../src/params/params.js";
import type { SigningKey } from "../../src/signing/key-file.js";
import { useMigratedDatabase } from "../support/database.js";

/** A params.toml as `spsa init --constants` writes it now: a pair's first member is KNIGHT_VALUE_MG. */
const PARAMS = `[KNIGHT_VALUE_MG]
constant = "KNIGHT_VALUE"
index = 0
value = 320
min = 160
max = 640
step = 24

[LMR_MIN_DEPTH]
value = 3
min = 1
max = 8
step = 1
`;

describe("a run started under the former element names (KNIGHT_VALUE_0), resumed with a params.toml of today's", () => {
  const database = useMigratedDatabase(2);
  const dir = mkdtempSync(join(tmpdir(), "spsa-stored-names-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reads the run's KNIGHT_VALUE_0 for [KNIGHT_VALUE_MG], keeps the run's name, writes its value", async () => {
    const { sql, url } = database;
    const config = loadConfig("config.toml");
    // The run as an older version left it: θ by the names its spsa init gave.
    await openRun(sql, {
      name: "old-names",
      fresh: false,
      config: storedRunConfig(config),
      values: { KNIGHT_VALUE_0: 333, LMR_MIN_DEPTH: 4 },
    });
    const paramsFile = join(dir, "params.toml");
    writeFileSync(paramsFile, PARAMS);
    const lines: string[] = [];
    const options = {
      database: { url, embedded: false, sql, close: async () => {} },
      config,
      params: loadParams(paramsFile),
      paramsFile,
      runName: "old-names",
      signingKey: {} as SigningKey,
      log: (line: string) => lines.push(line),
    };
    const opened = await openTuningRun(options);
    expect(opened.created).toBe(false);
    const params = await withTuningRun(options, opened, async (master) => master.params);
    expect(params.map((p) => [p.name, p.constant, p.index, p.value])).toEqual([
      ["KNIGHT_VALUE_0", "KNIGHT_VALUE", [0], 333],
      ["LMR_MIN_DEPTH", "LMR_MIN_DEPTH", [], 4],
    ]);
    expect(lines).toContain('[KNIGHT_VALUE_MG] is KNIGHT_VALUE_0 in run "old-names", which started under that name');
    syncParamsFile(paramsFile, valuesOf(params), () => {});
    expect(readFileSync(paramsFile, "utf8")).toBe(
      PARAMS.replace("value = 320", "value = 333").replace("value = 3\n", "value = 4\n"),
    );
  });
});
