import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The slowest files of an idle run (the slowest-files report at the end of `npm test`), longest
 * first. A fresh checkout has no timings of its own, and vitest would start the larger files
 * first: the slowest, a short file, started last and ran alone for minutes at the end.
 */
const SLOWEST = [
  "test/e2e/bad-worker.test.ts",
  "test/master/gain-blocks.test.ts",
  "test/postgres/private-checkout.test.ts",
  "test/dashboard/dashboard.test.ts",
  "test/reliability/disk-bounds.test.ts",
  "test/master/ship-check.test.ts",
  "test/reliability/bad-input.test.ts",
  "test/reliability/database-restart.test.ts",
  "test/e2e/multi-machine.test.ts",
];

/** vitest's order (failed, then longest, by its cache), with the SLOWEST files first. */
export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) => {
      const index = SLOWEST.findIndex((file) => spec.moduleId.endsWith(`/${file}`));
      return index < 0 ? SLOWEST.length : index;
    };
    const sorted = await super.sort(files);
    return sorted
      .map((spec, order) => ({ spec, order }))
      .sort((a, b) => rank(a.spec) - rank(b.spec) || a.order - b.order)
      .map(({ spec }) => spec);
  }
}
