import { Command, Option } from "commander";
import { parseInteger, parseNames, parseNumber, parsePositiveInteger, parseSprt } from "./parsers.js";
import { runCommand } from "./run.js";
import { abortOnSignals } from "./stop-signals.js";
import { packageVersion } from "./version.js";
import type { LimitFlags } from "../verify/limits.js";

// Command modules are imported lazily so that `--help` does not load drizzle and postgres.

export function buildSpsaProgram(): Command {
  const program = new Command("spsa")
    .description("SPSA tuning of chess engine constants, coordinated through Postgres")
    .version(packageVersion())
    .option("--config <file>", "config file (default: config.toml, optional for db commands)")
    .option("--verbose", "on an error, print its stack trace too (as SPSA_DEBUG=1 or DEBUG do)")
    .showHelpAfterError()
    .exitOverride();
  const config = () => program.opts<{ config?: string }>().config;

  program
    .command("master")
    .description("run or resume a tuning run: build plus/minus engines, wait for workers, update params.toml")
    .option("--params <file>", "parameters file", "params.toml")
    .option("--name <name>", "run name; another name starts another run", "main")
    .option("--fresh", "start the named run again from params.toml (the old run keeps its history)")
    .option("--seed <seed>", "seed of a new run's random draws (same seed, same perturbations)")
    .action(async (opts: { params: string; name: string; fresh?: boolean; seed?: string }) => {
      const { masterCommand } = await import("../commands/master.js");
      const abort = abortOnSignals();
      await masterCommand({ config: config(), ...opts, signal: abort.signal });
    });

  program
    .command("demo")
    .description("a real short tuning run of the sample engine: a master and a worker, then θ before and after")
    .option("--params <file>", "parameters file to start from (it is copied, not changed)", "params.toml")
    .option("--iterations <n>", "iterations", parseInteger, 3)
    .option("--games <n>", "games per iteration", parseInteger, 16)
    .option(
      "-c, --concurrency <n>",
      "games at once (default: the cores not busy with the master or other work at start)",
      parseInteger,
    )
    .action(async (opts: { params: string; iterations: number; games: number; concurrency?: number }) => {
      const { demoCommand } = await import("../commands/demo.js");
      await demoCommand({ config: config(), ...opts, signal: abortOnSignals().signal });
    });

  program
    .command("simulate")
    .description(
      "run the master's SPSA math on a synthetic engine made from params.toml: Elo left against games, per seed",
    )
    .option("--params <file>", "parameters file", "params.toml")
    .option("--games <n>", "game budget (default: max_iterations × games_per_iteration)", parseInteger)
    .option("--seeds <n>", "synthetic engines (optima and games) to average over", parseInteger, 8)
    .option("--draw-rate <x>", "share of draws between equal engines", parseNumber, 0.4)
    .option("--loss-elo <elo>", "Elo a parameter loses at --loss-steps steps from its optimum", parseNumber, 5)
    .option("--loss-steps <steps>", "see --loss-elo", parseNumber, 4)
    .option(
      "--offset <steps>",
      "put each optimum this many steps from the current value (default: uniform in the bounds)",
      parseNumber,
    )
    .option("--model <file>", "TOML with per-parameter optimum, loss_elo, loss_steps")
    .addOption(
      new Option(
        "--from-run <name>",
        "fit --loss-elo, --offset and --draw-rate to this run's recorded iterations, print the fit, and simulate with it",
      ).conflicts(["lossElo", "lossSteps", "offset", "drawRate"]),
    )
    .option("--no-anchors", "leave out the fishtest and seed-design comparisons")
    .option("--svg <file>", "also write the chart as SVG")
    .option(
      "--reference <ref>",
      "also your config in reference mode: θ+ and θ− each against θ₀ (start) or an engine ELO stronger than θ₀ (negative: weaker)",
    )
    .action(
      async (opts: {
        params: string;
        games?: number;
        seeds: number;
        drawRate: number;
        lossElo: number;
        lossSteps: number;
        offset?: number;
        model?: string;
        fromRun?: string;
        anchors: boolean;
        svg?: string;
        reference?: string;
      }) => {
        const { simulateCommand } = await import("../commands/simulate.js");
        await simulateCommand({ config: config(), ...opts });
      },
    );

  program
    .command("verify")
    .description(
      "play two θ of a run against each other (start against current by default) through compete --spsa workers",
    )
    .option("--params <file>", "parameters file (gives the constants the values go to)", "params.toml")
    .option("--name <name>", "the tuning run", "main")
    .option("--from <theta>", "start, current, or an iteration number K (θ after K)", "start")
    .option("--to <theta>", "as --from", "current")
    .option("--games <n>", "games to play, or the most an SPRT may play (even)", parseInteger, 400)
    .option("--sprt <bounds...>", "stop when decided: elo0 elo1 alpha beta, e.g. --sprt 0 5 0.05 0.05")
    .option(
      "--tc <tc>",
      "play at this clock instead of the run's limits: SECONDS[+INC] or MOVES/SECONDS[+INC], e.g. 10+0.1",
    )
    .option("--timelow <s>", "lowest time per move in seconds; each pair draws one in [timelow, timehigh]", parseNumber)
    .option("--timehigh <s>", "highest time per move in seconds (default: --timelow)", parseNumber)
    .option("--nodes <n>", "search a fixed number of nodes per move", parseNumber)
    .option("--depth <n>", "search to a fixed depth per move", parseNumber)
    .action(
      async (
        opts: { params: string; name: string; from: string; to: string; games: number; sprt?: string[] } & LimitFlags,
      ) => {
        const { verifyCommand } = await import("../commands/verify.js");
        const abort = abortOnSignals();
        await verifyCommand({
          config: config(),
          ...opts,
          sprt: opts.sprt === undefined ? undefined : parseSprt(opts.sprt),
          signal: abort.signal,
        });
      },
    );

  program
    .command("status")
    .description(
      "one screen about a run: iteration, games, ETA, Elo, faults, workers, its parameters with sparklines (on a large run: how far they moved, and those that moved most)",
    )
    .option("--name <name>", "the run (default: the run that started an iteration last)")
    .addOption(
      new Option(
        "--texel [id]",
        "the latest Texel run of spsa texel instead (or the one with this id): K, error before and after, every changed parameter",
      )
        .argParser(parsePositiveInteger)
        .conflicts("name"),
    )
    .option("--json", "the same data as JSON")
    .option(
      "--all",
      "every parameter, however many (without it a run of more than 20 lists the 20 that moved most), in the text and in --json",
    )
    .action(async (opts: { name?: string; texel?: true | number; json?: boolean; all?: boolean }) => {
      if (opts.texel !== undefined) {
        const { texelStatusCommand } = await import("../commands/texel-status.js");
        await texelStatusCommand({
          config: config(),
          id: opts.texel === true ? undefined : opts.texel,
          json: opts.json,
        });
        return;
      }
      const { statusCommand } = await import("../commands/status.js");
      await statusCommand({ config: config(), ...opts });
    });

  program
    .command("dashboard")
    .description("a read-only live web page about the runs, served from the database (127.0.0.1 only unless --host)")
    .option("--port <port>", "port (0: any free one)", parseInteger, 8080)
    .option("--host <host>", "address to listen on", "127.0.0.1")
    .option(
      "--token-file <file>",
      "require the token in this file (one line, mode 600) on every request; default: $SPSA_DASHBOARD_TOKEN if set",
    )
    .option(
      "--allow-host <name>",
      "also answer requests addressed to this host name (repeatable; e.g. the machine's DNS name)",
      (name: string, names: string[]) => [...names, name],
      [],
    )
    .option("--max-clients <n>", "live pages (event streams) open at once (default: 16)", parsePositiveInteger)
    // Refused with a message saying why: a token on the command line is in every user's `ps`.
    .addOption(new Option("--token <token>").hideHelp())
    .action(
      async (opts: {
        port: number;
        host: string;
        tokenFile?: string;
        allowHost: string[];
        maxClients?: number;
        token?: string;
      }) => {
        const { dashboardCommand } = await import("../commands/dashboard.js");
        const abort = abortOnSignals();
        const { allowHost, token, ...rest } = opts;
        await dashboardCommand({
          config: config(),
          ...rest,
          allowHosts: allowHost,
          tokenOnCommandLine: token !== undefined,
          signal: abort.signal,
        });
      },
    );

  program
    .command("export")
    .description(
      "a run's θ as the engine's constants file (--constants FILE), --format csv (history), openbench or fishtest (SPSA input lines), or --faulted games as PGN",
    )
    .option("--name <name>", "the run (default: the run that started an iteration last)")
    .option("--params <file>", "parameters file (gives the constants the values go to)", "params.toml")
    .option(
      "--constants <file>",
      "write the engine's constants file with the run's θ (ints rounded as built) to this path",
    )
    .option("--format <format>", "csv, openbench or fishtest, to stdout")
    .option("--faulted", "the games an engine fault decided that the run kept, as PGN (to stdout, or --out)")
    .option("--out <file>", "with --faulted: write the PGN to this file")
    .action(
      async (opts: {
        name?: string;
        params: string;
        constants?: string;
        format?: string;
        faulted?: boolean;
        out?: string;
      }) => {
        const { exportCommand } = await import("../commands/export.js");
        await exportCommand({ config: config(), ...opts });
      },
    );

  program
    .command("texel-data")
    .description("labelled positions (FEN [1.0|0.5|0.0]) from PGN games for spsa texel: deduplicated, shuffled")
    .argument("<pgn...>", "PGN files (compete --pgn output or any games)")
    .requiredOption("--out <file>", "the positions file to write")
    .option("--skip-plies <n>", "leave out each game's first N plies", parseInteger, 8)
    .option("--quiet", "keep only positions whose static evaluation equals the quiescence score (uses the engine)")
    .option("--engine <path>", "engine with the evalbatch command (default: the release build of [build].engine_dir)")
    .option("--seed <seed>", "seed of the shuffle", "texel-data")
    .option("-p, --processes <n>", "engine processes for --quiet (default: number of cores)", parseInteger)
    .action(
      async (
        pgn: string[],
        opts: { out: string; skipPlies: number; quiet?: boolean; engine?: string; seed: string; processes?: number },
      ) => {
        const { texelDataCommand } = await import("../commands/texel-data.js");
        await texelDataCommand({ config: config(), pgn, ...opts });
      },
    );

  program
    .command("texel")
    .description(
      "Texel tuning: fit K, then tune evaluation parameters on labelled positions; writes params.toml, stores the run",
    )
    .requiredOption("--positions <file>", "positions from spsa texel-data")
    .option("--params <file>", "parameters file", "params.toml")
    .option("--only <names>", "comma-separated parameters to tune (default: all not frozen)", parseNames)
    .option("--method <method>", "local (the seed's ±1 search) or adaptive (steps that grow and shrink)", "adaptive")
    .option("--max-passes <n>", "stop after this many passes over the parameters", parseInteger, 100)
    .option("--engine <path>", "engine with the evalbatch command (default: the release build of [build].engine_dir)")
    .option("-p, --processes <n>", "engine processes (default: number of cores)", parseInteger)
    .option("--dry-run", "report and store the run, leave params.toml as it is")
    .action(
      async (opts: {
        positions: string;
        params: string;
        only?: string[];
        method: string;
        maxPasses: number;
        engine?: string;
        processes?: number;
        dryRun?: boolean;
      }) => {
        const { texelCommand } = await import("../commands/texel.js");
        const abort = abortOnSignals();
        await texelCommand({
          config: config(),
          ...opts,
          method: opts.method as "local" | "adaptive",
          signal: abort.signal,
        });
      },
    );

  program
    .command("import")
    .description("OpenBench or fishtest SPSA input lines into a params.toml")
    .argument("<file>", "the lines")
    .option("--out <file>", "the params.toml to write", "params.toml")
    .option("--force", "replace --out if it exists")
    .action(async (file: string, opts: { out: string; force?: boolean }) => {
      const { importCommand } = await import("../commands/import.js");
      await importCommand({ config: config(), file, ...opts });
    });

  program
    .command("init")
    .description(
      "a starting params.toml from an engine's constants file (every number literal) or from an engine's UCI spin options, with a proposed range and step",
    )
    .option("--constants <file>", "the engine's constants file, e.g. src/engine_constants.rs")
    .option("--engine <path>", 'an engine binary: its uci spin options, for [engine] mode = "options"')
    .option("--out <file>", "the params.toml to write", "params.toml")
    .option("--force", "replace --out if it exists")
    .option(
      "--only <names>",
      "comma-separated parameters to write (a constant's name: all its elements), instead of all",
      parseNames,
    )
    .option(
      "--match <regex>",
      "write the parameters whose name matches this regular expression (with --only: those too)",
    )
    .action(
      async (opts: {
        constants?: string;
        engine?: string;
        out: string;
        force?: boolean;
        only?: string[];
        match?: string;
      }) => {
        const { initCommand } = await import("../commands/init.js");
        await initCommand(opts);
      },
    );

  program
    .command("key")
    .description(
      "print the master's public key (made on first use); a worker on another machine pins it with --trust or [worker] trusted_keys",
    )
    .action(async () => {
      (await import("../commands/key.js")).keyCommand({ config: config() });
    });

  const workers = program
    .command("workers")
    .description(
      "decide about a worker the master found a suspect (docs/bad-workers.md); the decision is recorded with who and when",
    );
  for (const [verb, decision, what] of [
    ["accept", "accepted", "the master applies the worker's batches again and does not flag it again in the run"],
    [
      "reject",
      "rejected",
      "the worker's batches stay set aside in the run (spsa undo --worker takes out what it reported before)",
    ],
  ] as const) {
    workers
      .command(verb)
      .description(what)
      .argument("<worker>", "the worker's name, as spsa status shows it")
      .requiredOption("--name <name>", "the run")
      .option("--note <text>", "your reason, kept with the decision")
      .action(async (worker: string, opts: { name: string; note?: string }) =>
        (await import("../commands/workers.js")).workersCommand({ config: config(), worker, decision, ...opts }),
      );
  }

  program
    .command("undo")
    .description(
      "take a worker's results out of a run: θ recomputed from the recorded rows without them, written to the database and params.toml",
    )
    .requiredOption("--worker <name>", "the worker whose reported batches to take out")
    .requiredOption("--name <name>", "the run")
    .option("--params <file>", "the run's parameters file, rewritten with the corrected θ", "params.toml")
    .action(async (opts: { worker: string; name: string; params: string }) => {
      const { undoCommand } = await import("../commands/undo.js");
      await undoCommand({ config: config(), ...opts });
    });

  const db = program.command("db").description("manage the database (the embedded server unless DATABASE_URL is set)");
  db.command("status")
    .description("start the database if needed and report it")
    .action(async () => (await import("../commands/db.js")).dbStatus({ config: config() }));
  db.command("start")
    .description(
      "start the embedded Postgres (it keeps running between commands); it listens on a Unix socket only unless --listen",
    )
    .option(
      "--listen <addr[:port]>",
      "also accept TCP connections there, e.g. 0.0.0.0:5433 for workers on other machines (kept for later starts)",
    )
    .option("--no-listen", "back to the Unix socket only")
    .action(async (opts: { listen?: string | false }) =>
      (await import("../commands/db.js")).dbStart({ config: config(), ...opts }),
    );
  db.command("stop")
    .description("stop the embedded Postgres")
    .action(async () => (await import("../commands/db.js")).dbStop({ config: config() }));
  db.command("remove")
    .description(
      "stop the embedded Postgres and remove it with all its data (every run): the next command starts an empty one",
    )
    .option("--yes", "really remove it (without: say what would be removed)")
    .action(async (opts: { yes?: boolean }) =>
      (await import("../commands/db.js")).dbRemove({ config: config(), ...opts }),
    );
  db.command("orphans")
    .description("list the embedded servers' folders (as root, in /var/tmp) whose checkout or SPSA_HOME is gone")
    .option("--remove", "stop their servers and remove them")
    .option(
      "--unmarked",
      "with --remove: also folders of older versions, which do not say whose they are (unless their server runs)",
    )
    .action(async (opts: { remove?: boolean; unmarked?: boolean }) =>
      (await import("../commands/db.js")).dbOrphans(opts),
    );
  db.command("url")
    .description("print the database URL without its password (for psql use `spsa db psql` or `spsa db env`)")
    .action(async () => (await import("../commands/db.js")).dbUrl({ config: config() }));
  db.command("worker-url")
    .description(
      "create (or give a new password to) a worker machine's database role, which can only claim, play and report games; prints its URL",
    )
    .requiredOption("--name <name>", "the worker machine, e.g. box1: its role is spsa_worker_<name>")
    .option("--host <addr>", "the database host as workers reach it (default: this machine's URL's host)")
    .option("--output <file>", "write the URL to this file (created mode 0600) instead of stdout")
    .option("--revoke", "drop the machine's role instead: its URL stops working and its sessions end")
    .action(async (opts: { name: string; host?: string; output?: string; revoke?: boolean }) =>
      (await import("../commands/db.js")).dbWorkerUrl({ config: config(), ...opts }),
    );
  db.command("env")
    .description(
      'print PGHOST, PGPORT, PGUSER, PGDATABASE and PGPASSFILE for other Postgres tools: eval "$(spsa db env)"',
    )
    .action(async () => (await import("../commands/db.js")).dbEnv({ config: config() }));
  db.command("psql")
    .description("open psql on the database (the password never on its command line); other arguments go to psql")
    .argument("[args...]", "arguments for psql, e.g. -c 'select * from spsa_progress'")
    .allowUnknownOption()
    .helpOption(false)
    .action(async (args: string[]) => (await import("../commands/db.js")).dbPsql({ config: config(), args }));
  return program;
}

export async function main(argv: string[]): Promise<void> {
  await runCommand(async () => {
    await buildSpsaProgram().parseAsync(argv);
  }, argv);
}
