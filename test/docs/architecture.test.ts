import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/cli.js";

/**
 * docs/architecture.md names each hop as a file and a function: on every line that links files of
 * src/, each `identifier` it quotes must be declared in one of them, so a rename or a move that
 * leaves the map behind fails here, naming the line.
 */
const MAP = join(ROOT, "docs", "architecture.md");

/** Where `name` is declared in `source`: a function, class, type, constant, method or SQL function. */
function declares(source: string, name: string): boolean {
  const word = name.replace(/[$]/g, "\\$");
  return [
    new RegExp(`\\b(function\\*?|class|interface|type|const|let|enum)\\s+${word}\\b`),
    new RegExp(`^\\s*(export\\s+)?(async\\s+)?((private|public|protected|static|readonly)\\s+)*${word}\\s*[(<]`, "m"),
    new RegExp(`\\bfunction\\s+(public\\.)?${word}\\s*\\(`, "i"),
  ].some((pattern) => pattern.test(source));
}

/** Lines of the map that do not hold: each names the identifier and the files it was looked for in. */
export function staleEntries(markdown: string): string[] {
  const stale: string[] = [];
  markdown.split("\n").forEach((line, index) => {
    const files = [...line.matchAll(/\]\(\.\.\/(src\/[^)#\s]+)\)/g)].map((m) => m[1]!);
    if (files.length === 0) return;
    const missing = files.filter((file) => !existsSync(join(ROOT, file)));
    for (const file of missing) stale.push(`docs/architecture.md:${index + 1}: ${file} does not exist`);
    const sources = files.flatMap((file) => (missing.includes(file) ? [] : [readFileSync(join(ROOT, file), "utf8")]));
    const names = [...line.matchAll(/`([A-Za-z_$][\w$]*)`/g)].map((m) => m[1]!);
    for (const name of names) {
      if (files.some((file) => file.endsWith(`/${name}`))) continue;
      if (name === "undefined") continue;
      if (!sources.some((source) => declares(source, name)))
        stale.push(`docs/architecture.md:${index + 1}: \`${name}\` is declared in none of ${files.join(", ")}`);
    }
  });
  return stale;
}

describe("docs/architecture.md, the map of the code", () => {
  const markdown = readFileSync(MAP, "utf8");

  it("names at least 15 files of src/, and every function it quotes is declared in a file its line links", () => {
    const files = new Set([...markdown.matchAll(/\]\(\.\.\/(src\/[^)#\s]+)\)/g)].map((m) => m[1]));
    expect(files.size).toBeGreaterThanOrEqual(15);
    expect(staleEntries(markdown)).toEqual([]);
  });

  it("reports a function no linked file declares", () => {
    const line = "| fold | [`db/fold.ts`](../src/db/fold.ts) | `foldIteration` `foldEverything` |";
    expect(staleEntries(line)).toEqual([
      "docs/architecture.md:1: `foldEverything` is declared in none of src/db/fold.ts",
    ]);
  });
});
