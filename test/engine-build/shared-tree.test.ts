import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { buildEngine } from "../../src/engine-build/engine-builder.js";
import { loadParams, valuesOf } from "../../src/params/params.js";
import { ROOT } from "../support/cli.js";

/**
 * Two masters with the same output_dir (two runs on one machine, one config.toml) build in
 * the same trees. Each binary must be built from its own constants, whatever the other does.
 */
describe("two builds in one build tree at once", () => {
  const dir = mkdtempSync(join(tmpdir(), "shared-tree-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const config = loadConfig(join(ROOT, "config.toml"));
  const build = { ...config.build, outputDir: join(dir, "builds") };
  const params = loadParams(join(ROOT, "params.toml"));
  const values = { a: valuesOf(params), b: { ...valuesOf(params), KNIGHT_VALUE_MG: 360, LMR_BASE: 1.05 } };
  const buildInto = (which: "a" | "b", folder: string) =>
    buildEngine({
      build,
      params,
      values: values[which],
      tree: "plus",
      label: `${folder}-${which}`,
      destination: (binary) => join(dir, folder, which, binary),
      signal: undefined,
    });

  it("each gets the binary of its own values, as built alone", { timeout: 600_000 }, async () => {
    const aloneA = await buildInto("a", "alone");
    const aloneB = await buildInto("b", "alone");
    expect(aloneA.sha256).not.toBe(aloneB.sha256);
    // b starts while a's cargo runs: b's constants must not reach a's build.
    const [bothA, bothB] = await Promise.all([buildInto("a", "both"), buildInto("b", "both")]);
    expect(bothA.sha256).toBe(aloneA.sha256);
    expect(bothB.sha256).toBe(aloneB.sha256);
  });
});
