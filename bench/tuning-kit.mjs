// What bench/tune-recovery.mjs, bench/real-engine-elo.mjs, bench/transfer.mjs and
// bench/builds-side-by-side.mjs share: the seeded detune of minnow, the run's config file, the
// bench's own database and children, reading a match's Elo and counting its distinct games.
import { spawn, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createRng } from "../dist/core/rng.js";
import { splitPgnGames } from "../dist/play/book.js";

/**
 * Without DATABASE_URL, an embedded Postgres of the bench's own in `dir` (SPSA_HOME, which every
 * child sees). Returns the list of child processes to stop: they and that server are stopped
 * however the script ends (they would outlive it otherwise).
 */
export function benchProcesses(root, dir) {
  const ownDatabase = process.env.DATABASE_URL === undefined;
  if (ownDatabase) process.env.SPSA_HOME = join(dir, "home");
  const children = [];
  process.on("exit", () => {
    for (const child of children) child.kill("SIGTERM");
    if (ownDatabase) spawnSync("node", [join(root, "bin/spsa.js"), "db", "stop"], { stdio: "ignore" });
  });
  return children;
}

/**
 * Every parameter (or, with `subset`, that many drawn from `seed`; the others stay at their
 * default) moved `steps` of its own steps away from its default, direction drawn from `seed`,
 * kept in bounds. Returns the values and the names moved.
 */
export function detunedValues(params, { steps, subset, seed }) {
  const rng = createRng(seed);
  // With a subset, a seeded shuffle picks the parameters to move (without, the draws are as before).
  const shuffled = () =>
    params
      .map((p) => [rng.next(), p.name])
      .sort((x, y) => x[0] - y[0])
      .map(([, n]) => n);
  const moved = new Set(subset === undefined ? params.map((p) => p.name) : shuffled().slice(0, Number(subset)));
  const values = Object.fromEntries(
    params.map((p) => {
      if (!moved.has(p.name)) return [p.name, p.value];
      const move = Number(steps) * p.step * (rng.next() < 0.5 ? -1 : 1);
      const inBounds = (v) => v >= p.min && v <= p.max;
      const value = inBounds(p.value + move)
        ? p.value + move
        : inBounds(p.value - move)
          ? p.value - move
          : Math.min(p.max, Math.max(p.min, p.value + move));
      return [p.name, value];
    }),
  );
  return { values, moved };
}

/** config.toml's [spsa] section with max_iterations set and `settings` (key → value text) replaced or added. */
export function spsaSection(root, iterations, settings = {}) {
  let section = readFileSync(join(root, "config.toml"), "utf8")
    .match(/\[spsa\][\s\S]*?(?=\n\[)/)[0]
    .replace(/max_iterations = \d+/, `max_iterations = ${iterations}`);
  for (const [key, value] of Object.entries(settings)) {
    const line = new RegExp(`^${key} = [^\\s#]+`, "m");
    section = line.test(section) ? section.replace(line, `${key} = ${value}`) : `${section}\n${key} = ${value}`;
  }
  return section;
}

/**
 * A run's config.toml: minnow built into `dir` (or, with `binary`, that engine tuned through its UCI
 * options), games at `nodes` per move, to `depth`, or at a time per move.
 */
export function writeRunConfig(
  file,
  { root, dir, spsa, games, nodes, depth, timelow, timehigh, margin, book, binary, engineDir },
) {
  const timeControl =
    depth !== undefined
      ? `depth = ${depth}\n`
      : nodes === undefined
        ? `timelow = ${timelow}\ntimehigh = ${timehigh}\n`
        : `nodes = ${nodes}\n`;
  const engine =
    binary === undefined
      ? `[build]\nengine_dir = "${engineDir ?? join(root, "engines/minnow")}"\noutput_dir = "${join(dir, "builds")}"\n`
      : `[engine]\nmode = "options"\nbinary = "${binary}"\n`;
  writeFileSync(
    file,
    `[time_control]\n${timeControl}margin_ms = ${margin}\n` +
      `[games]\ngames_per_iteration = ${games}\nbatch_size = 8\n${book === undefined ? "" : `book = "${book}"\n`}${spsa}\n` +
      `${engine}[database]\npoll_interval = 0.2\n`,
  );
}

/** The last "Elo x ± e (95%)" of a match's or verification's output (progress lines before the summary may hold "± inf"). */
export function eloOf(out) {
  const [, elo, error] = [...out.matchAll(/Elo ([+-][\d.]+|[+-]inf) ± ([\d.]+|inf) \(95%\)/g)].at(-1) ?? [];
  return { elo: Number(elo), error: Number(error) };
}

/**
 * The distinct games of a match's PGN. A game is its start, its White and its moves: not its
 * round, date or the times in its move comments (node-limited games repeat move for move).
 */
export function distinctGames(pgn) {
  const games = splitPgnGames(readFileSync(pgn, "utf8")).map((g) =>
    g.text
      .split("\n")
      .filter((l) => !/^\[(?!FEN|White )/.test(l))
      .join(" ")
      .replace(/\{[^}]*\}/g, "")
      .replace(/\s+/g, " "),
  );
  return new Set(games).size;
}

/** A `compete --spsa` worker for the bench's run, its output discarded; the caller stops it. `options`: its --option flags. */
export function spawnSpsaWorker(root, { concurrency, configFile, name, seed, options = [] }) {
  return spawn(
    "node",
    [
      join(root, "bin/compete.js"),
      "--spsa",
      "-c",
      concurrency,
      "--config",
      configFile,
      "--name",
      name,
      "--seed",
      seed,
      ...options.flatMap((option) => ["--option", option]),
    ],
    { stdio: "ignore" },
  );
}
