import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { embeddedServer, ensureEmbeddedServer } from "../../src/postgres/embedded.js";
import { compete, ROOT, spsa, type CliResult } from "../support/cli.js";
import { freshDatabase, TEST_HOME } from "../support/database.js";
import { strayProcesses } from "../support/stray-processes.js";

/** Every command that needs the database, as a user would start it. */
const COMMANDS: [string, (env: Record<string, string>) => Promise<CliResult>][] = [
  ["spsa demo", (env) => spsa(["demo"], { env })],
  ["spsa master", (env) => spsa(["master"], { env })],
  ["spsa verify", (env) => spsa(["verify"], { env })],
  ["compete --spsa", (env) => compete(["--spsa", "-c", "1", "--idle-exit", "1"], { env })],
  ["spsa db status", (env) => spsa(["db", "status"], { env })],
];

describe("a database that cannot be used ends every command with one line and exit status 3", () => {
  let wrongPassword = "";
  beforeAll(async () => {
    const url = new URL(await ensureEmbeddedServer(embeddedServer(TEST_HOME)));
    url.password = "not-the-password";
    wrongPassword = url.toString();
  });

  it.each(COMMANDS)("%s, with nothing listening", async (_name, run) => {
    const result = await run({ DATABASE_URL: "postgres://spsa:secret@127.0.0.1:1/spsa" });
    expect(result.exitCode, result.all).toBe(3);
    expect(result.stderr.trim().split("\n"), result.all).toHaveLength(1);
    expect(result.stderr).toMatch(/^error: .*127\.0\.0\.1:1.*ECONNREFUSED/);
    expect(result.stderr).not.toContain("secret");
  });

  it.each(COMMANDS)("%s, with a refused password", async (_name, run) => {
    const result = await run({ DATABASE_URL: wrongPassword });
    expect(result.exitCode, result.all).toBe(3);
    expect(result.stderr.trim().split("\n"), result.all).toHaveLength(1);
    expect(result.stderr).toMatch(/^error: .*password authentication failed/);
    expect(result.stderr).not.toContain("not-the-password");
  });
});

/**
 * Every other way the commands fail, through the real CLI in a folder of the case's own:
 * engine crates that are missing or do not build, a binary cargo does not make, invalid input
 * files, an embedded server that cannot be used. Each ends with one error line (no stack),
 * the README's exit status, and no process left running from the case's folder.
 */

const CRATE_MANIFEST = `[package]\nname = "tiny"\nversion = "0.1.0"\nedition = "2021"\n`;
const CONSTANTS = "pub const LMR_MIN_DEPTH: u8 = 3;\n";
const PRINT_MAIN = 'mod engine_constants;\nfn main() { println!("{}", engine_constants::LMR_MIN_DEPTH); }\n';
const crate = (dir: string, main: string, extra: Record<string, string> = {}) => ({
  [`${dir}/Cargo.toml`]: CRATE_MANIFEST,
  [`${dir}/src/main.rs`]: main,
  [`${dir}/src/engine_constants.rs`]: CONSTANTS,
  ...Object.fromEntries(Object.entries(extra).map(([path, text]) => [`${dir}/${path}`, text])),
});

const BASE_FILES: Record<string, string> = {
  ...crate("crate", PRINT_MAIN),
  // Does not compile, whatever the constants.
  ...crate(
    "broken",
    'mod engine_constants;\nfn main() { let x: u8 = "no"; println!("{}", engine_constants::LMR_MIN_DEPTH + x); }\n',
  ),
  // The variant whose constant is above 3 fails at once; the one below 3 sits in its build
  // script for 10 minutes: the failure must stop it (cargo and the script), not wait for it.
  ...crate(
    "split",
    "mod engine_constants;\nconst _: () = assert!(engine_constants::LMR_MIN_DEPTH <= 3);\nfn main() {}\n",
    {
      "build.rs": [
        "fn main() {",
        '    let text = std::fs::read_to_string("src/engine_constants.rs").unwrap();',
        "    let value: u32 = text.split('=').nth(1).unwrap().trim().trim_end_matches(';').parse().unwrap();",
        "    if value < 3 { std::thread::sleep(std::time::Duration::from_secs(600)); }",
        "}",
        "",
      ].join("\n"),
    },
  ),
  "params.toml": "[LMR_MIN_DEPTH]\nvalue = 3\nmin = 1\nmax = 6\nstep = 1\n",
  "home-file": "a file where SPSA_HOME should be a folder\n",
  // A data folder the server cannot start from (a cleaner removed most of it).
  "damaged/pg/connection.json": JSON.stringify({ port: 1, user: "spsa", password: "x", database: "postgres" }),
  "damaged/pg/data/PG_VERSION": "18\n",
  "not-executable": "#!/bin/sh\n",
  "bad-book.epd": "not a position\n",
};

const config = (build: string) =>
  `[build]\n${build}\noutput_dir = "builds"\n\n[spsa]\nmax_iterations = 1\n\n[games]\ngames_per_iteration = 2\nbatch_size = 2\n`;

interface Failure {
  name: string;
  files?: Record<string, string>;
  /** Unset: the test database; otherwise the embedded server of SPSA_HOME (a path in the case's folder). */
  home?: string;
  /** Match mode: the engines and flags. */
  args?: string[];
  exitCode: number;
  message: RegExp;
}

const BUILD_FAILURES: Failure[] = [
  {
    name: "engine crate missing",
    files: { "config.toml": config('engine_dir = "nowhere"') },
    exitCode: 2,
    message: /nowhere\/src\/engine_constants\.rs: cannot read the constants file/,
  },
  {
    name: "engine crate not building",
    files: { "config.toml": config('engine_dir = "broken"') },
    exitCode: 4,
    message:
      /cargo build of the (plus|minus) engine failed \(exit 101\): error\[E0308\]: mismatched types \(src\/main\.rs:2:\d+\); log: /,
  },
  {
    name: "one engine not building while the other is still building",
    files: { "config.toml": config('engine_dir = "split"') },
    exitCode: 4,
    message: /cargo build of the (plus|minus) engine failed \(exit 101\): error\[E0080\]/,
  },
  {
    name: "engine binary missing",
    files: { "config.toml": config('engine_dir = "crate"\nbinary_name = "nope"') },
    exitCode: 4,
    message: /cargo built no .*\/target\/release\/nope for the (plus|minus) engine/,
  },
  {
    name: "params file invalid",
    files: { "params.toml": "[LMR_MIN_DEPTH\nvalue = 3\n" },
    exitCode: 2,
    message: /params\.toml:1: TOML syntax error/,
  },
];
const CONFIG_INVALID: Failure = {
  name: "config file invalid",
  files: { "config.toml": "[spsa]\nalpha = = 1\n" },
  exitCode: 2,
  message: /config\.toml:2: TOML syntax error/,
};
const SERVER_FAILURES: Failure[] = [
  {
    name: "embedded server unusable (SPSA_HOME is a file)",
    home: "home-file",
    exitCode: 3,
    message: /the embedded database cannot use .*home-file .*ENOTDIR/,
  },
  {
    name: "embedded server unusable (damaged data folder)",
    home: "damaged",
    exitCode: 3,
    message: /the embedded Postgres in .*damaged\/pg\/data did not start: /,
  },
];

const randomMover = join(ROOT, "test", "fixtures", "engines", "random-mover.mjs");
const MATCH_FAILURES: Failure[] = [
  {
    name: "engine binary missing",
    args: ["nothere", randomMover],
    exitCode: 2,
    message: /engine A: nothere: not found in PATH/,
  },
  {
    name: "engine not executable",
    args: [randomMover, "./not-executable"],
    exitCode: 2,
    message: /engine B: \.\/not-executable: not executable/,
  },
  {
    name: "book invalid",
    args: [randomMover, randomMover, "--book", "bad-book.epd"],
    exitCode: 2,
    message: /bad-book\.epd:1/,
  },
  {
    name: "PGN file unwritable",
    args: [randomMover, randomMover, "--pgn", "no-such-folder/games.pgn"],
    exitCode: 2,
    message: /--pgn: no-such-folder\/games\.pgn: cannot write/,
  },
];

interface Command {
  name: string;
  run: (env: Record<string, string>, cwd: string, extra: string[]) => Promise<CliResult>;
  failures: Failure[];
}

const COMMANDS_AND_FAILURES: Command[] = [
  {
    name: "spsa demo",
    run: (env, cwd) =>
      spsa(["--config", "config.toml", "demo", "--params", "params.toml", "-c", "1"], { env, cwd, timeout: 120_000 }),
    failures: [...BUILD_FAILURES, CONFIG_INVALID, ...SERVER_FAILURES],
  },
  {
    name: "spsa master",
    run: (env, cwd) =>
      spsa(["--config", "config.toml", "master", "--params", "params.toml"], { env, cwd, timeout: 120_000 }),
    failures: [...BUILD_FAILURES, CONFIG_INVALID, ...SERVER_FAILURES],
  },
  {
    name: "compete --spsa",
    run: (env, cwd) =>
      compete(["--spsa", "-c", "1", "--config", "config.toml", "--idle-exit", "1"], { env, cwd, timeout: 120_000 }),
    failures: [CONFIG_INVALID, ...SERVER_FAILURES],
  },
  {
    name: "compete A B",
    run: (env, cwd, extra) => compete([...extra, "-g", "2"], { env, cwd, timeout: 120_000 }),
    failures: MATCH_FAILURES,
  },
  {
    name: "spsa db status",
    run: (env, cwd) => spsa(["--config", "config.toml", "db", "status"], { env, cwd, timeout: 120_000 }),
    failures: [CONFIG_INVALID, ...SERVER_FAILURES],
  },
  {
    name: "spsa db start",
    run: (env, cwd) => spsa(["--config", "config.toml", "db", "start"], { env, cwd, timeout: 120_000 }),
    failures: [CONFIG_INVALID, ...SERVER_FAILURES],
  },
];

const CASES = COMMANDS_AND_FAILURES.flatMap((command) =>
  command.failures.map((failure) => [`${command.name}: ${failure.name}`, command, failure] as const),
);

describe("every other failure ends with one error line, the README's exit status and no stray process", () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  const dirs: string[] = [];
  beforeAll(async () => {
    database = await freshDatabase();
  });
  afterAll(async () => {
    await database.drop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  function caseFolder(failure: Failure): string {
    const dir = mkdtempSync(join(tmpdir(), "spsa-fail-"));
    dirs.push(dir);
    const files = { ...BASE_FILES, "config.toml": config('engine_dir = "crate"'), ...failure.files };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    chmodSync(join(dir, "not-executable"), 0o644);
    return dir;
  }

  it.each(CASES)("%s", { timeout: 180_000 }, async (_name, command, failure) => {
    const dir = caseFolder(failure);
    const env =
      failure.home === undefined
        ? { DATABASE_URL: database.url, SPSA_HOME: join(dir, "home") }
        : { DATABASE_URL: "", SPSA_HOME: join(dir, failure.home) };
    const result = await command.run(env, dir, failure.args ?? []);
    expect(result.exitCode, result.all).toBe(failure.exitCode);
    const lines = result.stderr.trim().split("\n");
    expect(
      lines.filter((line) => line.startsWith("error: ")),
      result.all,
    ).toEqual([lines.at(-1)]);
    expect(lines.at(-1)).toMatch(failure.message);
    expect(result.stderr, "no stack trace").not.toMatch(/^\s+at /m);
    expect(await strayProcesses(dir)).toEqual([]);
  });

  it("spsa dashboard on a port in use: one line, exit 2, and the process ends (no LISTEN keeps it up)", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = taken.address() as AddressInfo;
      const result = await spsa(["dashboard", "--port", String(port)], {
        env: { DATABASE_URL: database.url },
        timeout: 60_000,
      });
      expect(result.exitCode, result.all).toBe(2);
      expect(result.stderr.trim()).toMatch(
        new RegExp(`^error: --host/--port: cannot listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`),
      );
    } finally {
      taken.close();
    }
  });

  it("prints the stack too with --verbose", async () => {
    const dir = caseFolder(SERVER_FAILURES[0]!);
    const result = await spsa(["db", "status", "--verbose"], {
      env: { DATABASE_URL: "", SPSA_HOME: join(dir, "home-file") },
      cwd: dir,
    });
    expect(result.exitCode, result.all).toBe(3);
    expect(result.stderr).toMatch(/^error: the embedded database cannot use /);
    // The bundle's source map names the TypeScript source.
    expect(result.stderr).toMatch(/^\s+at .*src\/postgres\/embedded\.ts:\d+/m);
  });
});
