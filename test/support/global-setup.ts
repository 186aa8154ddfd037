import { randomBytes } from "node:crypto";
import type { TestProject } from "vitest/node";
import { createMigratedTemplate, enterTestRun, leaveTestRun, onServer } from "./test-server.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The run's migrated template database (test/support/database.ts copies it per file). */
    migratedTemplate: string;
  }
}

/**
 * Once per `vitest run`, before any file: starts the shared test server (so parallel files
 * do not race to initialise it) and migrates one template database for the run. Its name
 * is the run's own, so two runs in one checkout do not drop each other's. The teardown,
 * which vitest runs also when files failed, drops it and removes the server and its folders
 * (`.spsa-test` and, as root, its folder under /var/tmp) unless another run in this
 * checkout still uses them.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const name = `template_${randomBytes(6).toString("hex")}`;
  enterTestRun();
  try {
    await createMigratedTemplate(name);
  } catch (error) {
    await leaveTestRun();
    throw error;
  }
  project.provide("migratedTemplate", name);
  return async () => {
    await onServer(`drop database if exists ${name} with (force)`).catch(() => {});
    await leaveTestRun();
  };
}
