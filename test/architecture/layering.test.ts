import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { circles, folderOf, importEdges, sourceFiles, type ImportEdge } from "../support/import-graph.js";

/**
 * The architecture: src/'s folders from the top (entry points) to the bottom (pure helpers).
 * A file may import its own folder and any folder of a LOWER row; never one of its own row
 * (peers stay apart) or a higher one. Changing the architecture is changing this table
 * (docs/development.md explains each folder).
 */
const LAYERS: readonly (readonly string[])[] = [
  ["cli"], //                                                          argument parsing, exit codes
  ["commands"], //                                                     one plain async function per command: the only wiring
  ["dashboard", "export"], //                                          views of a run: the web page, files
  ["master", "worker", "verify", "texel", "simulate", "status"], //   the features
  ["verification"], //                                                 two θ of a run played by the workers (spsa verify, the ship check)
  ["engine-build"], //                                                 cargo builds, signed binaries in the database
  ["db"], //                                                           SQL and the schema, nothing else
  ["postgres"], //                                                     the embedded server, connections, roles
  // Below the database: pure code that never imports db/ or postgres/.
  ["config"], //                                                       config.toml and what an iteration records of it
  ["params", "play", "signing"], //                                    params.toml; games through UCI engines; keys and signatures
  ["spsa", "rust-constants"], //                                       the SPSA math; reading and rewriting Rust constants
  ["stats"], //                                                        Elo, pentanomial, SPRT
  ["types"], //                                                        the shapes every layer passes around
  ["core"], //                                                         errors, files, randomness, text, terminal
];

const SRC = fileURLToPath(new URL("../../src", import.meta.url));

/** Each broken rule, as `file:line imports target (why)`. */
function layeringViolations(edges: readonly ImportEdge[], layers: readonly (readonly string[])[]): string[] {
  const rank = new Map(layers.flatMap((row, index) => row.map((folder) => [folder, index] as const)));
  const problems: string[] = [];
  for (const edge of edges) {
    const from = folderOf(edge.from);
    const to = folderOf(edge.to);
    if (from === to) continue;
    const fromRank = rank.get(from);
    const toRank = rank.get(to);
    const where = `src/${edge.from}:${edge.line} imports src/${edge.to}`;
    if (fromRank === undefined || toRank === undefined)
      problems.push(`${where} (${fromRank === undefined ? from : to}/ is not in LAYERS)`);
    else if (toRank === fromRank) problems.push(`${where} (${from}/ and ${to}/ are peers)`);
    else if (toRank < fromRank) problems.push(`${where} (${to}/ is above ${from}/)`);
  }
  return problems;
}

describe("src/ layering", () => {
  const files = sourceFiles(SRC);
  const edges = importEdges(SRC);

  it("has every folder in the table and no file at the top of src/", () => {
    const listed = new Set(LAYERS.flat());
    expect([...new Set(files.map(folderOf))].filter((folder) => !listed.has(folder))).toEqual([]);
  });

  it("imports only downward: own folder or a lower row", () => {
    expect(edges.length).toBeGreaterThan(500);
    expect(layeringViolations(edges, LAYERS)).toEqual([]);
  });

  it("has no import circle between files", () => {
    // Each circle as the imports that close it, so the message names files and lines.
    const circleImports = circles(files, edges).map((members) =>
      edges
        .filter((edge) => members.includes(edge.from) && members.includes(edge.to))
        .map((edge) => `src/${edge.from}:${edge.line} imports src/${edge.to}`),
    );
    expect(circleImports).toEqual([]);
  });

  it("catches an upward import, a peer import, SQL imported by a pure layer and a circle", () => {
    const planted = [
      { from: "core/errors.ts", to: "db/runs.ts", line: 3 },
      { from: "master/pilot.ts", to: "worker/worker.ts", line: 7 },
    ];
    expect(layeringViolations(planted, LAYERS)).toEqual([
      "src/core/errors.ts:3 imports src/db/runs.ts (db/ is above core/)",
      "src/master/pilot.ts:7 imports src/worker/worker.ts (master/ and worker/ are peers)",
    ]);
    // The pure layers (the SPSA math, statistics, parameters, game rules, config) sit below the database.
    const sql = [
      "spsa/math.ts",
      "stats/elo.ts",
      "params/params.ts",
      "play/game.ts",
      "signing/key-file.ts",
      "config/config.ts",
      "rust-constants/parser.ts",
      "types/spsa.ts",
    ].flatMap((from) => [
      { from, to: "db/runs.ts", line: 1 },
      { from, to: "postgres/sql.ts", line: 2 },
    ]);
    expect(layeringViolations(sql, LAYERS)).toHaveLength(sql.length);
    expect(layeringViolations(sql, LAYERS)[0]).toBe("src/spsa/math.ts:1 imports src/db/runs.ts (db/ is above spsa/)");
    expect(
      circles(
        ["a.ts", "b.ts", "c.ts"],
        [
          { from: "a.ts", to: "b.ts" },
          { from: "b.ts", to: "a.ts" },
          { from: "b.ts", to: "c.ts" },
        ],
      ),
    ).toEqual([["a.ts", "b.ts"]]);
  });
});
