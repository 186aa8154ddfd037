import { relative } from "node:path";
import type { Reporter, TestModule } from "vitest/node";

/**
 * A reporter beside the default one (vitest.config.ts): at the end of a run, the slowest test
 * files (each file's tests and hooks, in s) and the sum over all files, which compares runs
 * better than the wall clock on a shared machine (docs/development.md, "Test speed").
 */
const SHOWN = 15;

export default class SlowestFiles implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const files = modules
      .map((module) => ({ file: relative(process.cwd(), module.moduleId), ms: module.diagnostic().duration }))
      .sort((a, b) => b.ms - a.ms);
    const seconds = (ms: number) => (ms / 1000).toFixed(1).padStart(7);
    const total = files.reduce((sum, file) => sum + file.ms, 0);
    const lines = files.slice(0, SHOWN).map(({ file, ms }) => `${seconds(ms)} s  ${file}`);
    process.stdout.write(
      `\nslowest test files (of ${files.length}, ${seconds(total).trim()} s in all):\n${lines.join("\n")}\n`,
    );
  }
}
