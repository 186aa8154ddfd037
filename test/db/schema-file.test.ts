import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  migratedSchema,
  readSchemaFile,
  REGENERATE,
  SCHEMA_FILE,
  schemaDifferences,
  schemaText,
} from "../support/schema-dump.js";

describe("src/db/schema.sql, the live schema in one file", () => {
  it("is what the migrations make of an empty database, object by object", async () => {
    const differences = schemaDifferences(readSchemaFile(), await migratedSchema());
    const message =
      `src/db/schema.sql disagrees with migrations/ on ${differences.length} object(s):\n  ${differences.join("\n  ")}\n` +
      `After changing a migration, regenerate the file: ${REGENERATE}`;
    expect(differences, message).toEqual([]);
  });

  it("is written by the generator as it stands (no hand edits between its blocks)", () => {
    const text = readFileSync(SCHEMA_FILE, "utf8");
    expect(
      schemaText(readSchemaFile()) === text,
      `src/db/schema.sql was edited by hand; regenerate it: ${REGENERATE}`,
    ).toBe(true);
  });
});
