import { randomBytes } from "node:crypto";
import type { TestProject } from "vitest/node";
import { createMigratedTemplate, onServer } from "./test-server.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The run's migrated template database (test/support/database.ts copies it per file). */
    migratedTemplate: string;
  }
}

/**
 * Once per `vitest run`, before any file: starts the shared test server (so parallel files
 * do not race to initialise it) and migrates one template database for the run. Its name
 * is the run's own, so two runs in one checkout do not drop each other's.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const name = `template_${randomBytes(6).toString("hex")}`;
  await createMigratedTemplate(name);
  project.provide("migratedTemplate", name);
  return () => onServer(`drop database if exists ${name} with (force)`);
}
