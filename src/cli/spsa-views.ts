import { Command, Option } from "commander";
import { latestRunOption, PARAMS_FOR_CONSTANTS, paramsOption, type ConfigFile } from "./options.js";
import { collect, parseInteger, parsePositiveInteger } from "./parsers.js";
import { abortOnSignals } from "./stop-signals.js";

/** spsa's views of a run: the status screen, the dashboard and the exports. */

export function addStatusCommand(program: Command, config: ConfigFile): void {
  program
    .command("status")
    .description(
      "one screen about a run: iteration, games, ETA, Elo, faults, workers, its parameters with " +
        "sparklines (on a large run: how far they moved, and those that moved most)",
    )
    .addOption(latestRunOption())
    .addOption(
      new Option(
        "--texel [id]",
        "the latest Texel run of spsa texel instead (or the one with this id): K, error before and " +
          "after, every changed parameter",
      )
        .argParser(parsePositiveInteger)
        .conflicts("name"),
    )
    .addOption(new Option("--json", "the same data as JSON").conflicts("explain"))
    .option("--explain", "the screen, then what each of its words and columns means")
    .option(
      "--all",
      "every parameter, however many (without it a run of more than 20 lists the 20 that moved " +
        "most), in the text and in --json",
    )
    .action(
      async (opts: { name?: string; texel?: true | number; json?: boolean; all?: boolean; explain?: boolean }) => {
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
      },
    );
}

interface DashboardFlags {
  port: number;
  host: string;
  tokenFile?: string;
  allowHost: string[];
  maxClients?: number;
  token?: string;
}

export function addDashboardCommand(program: Command, config: ConfigFile): void {
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
      collect,
      [],
    )
    .option("--max-clients <n>", "live pages (event streams) open at once (default: 16)", parsePositiveInteger)
    // Refused with a message saying why: a token on the command line is in every user's `ps`.
    .addOption(new Option("--token <token>").hideHelp())
    .action(async (opts: DashboardFlags) => {
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
    });
}

interface ExportFlags {
  name?: string;
  params: string;
  constants?: string;
  format?: string;
  faulted?: boolean;
  out?: string;
}

export function addExportCommand(program: Command, config: ConfigFile): void {
  program
    .command("export")
    .description(
      "a run's θ as the engine's constants file (--constants FILE), --format csv (history), " +
        "openbench or fishtest (SPSA input lines), or --faulted games as PGN",
    )
    .addOption(latestRunOption())
    .addOption(paramsOption(PARAMS_FOR_CONSTANTS))
    .option(
      "--constants <file>",
      "write the engine's constants file with the run's θ (ints rounded as built) to this path",
    )
    .option("--format <format>", "csv, openbench or fishtest, to stdout")
    .option("--faulted", "the games an engine fault decided that the run kept, as PGN (to stdout, or --out)")
    .option("--out <file>", "with --faulted: write the PGN to this file")
    .action(async (opts: ExportFlags) => {
      const { exportCommand } = await import("../commands/export.js");
      await exportCommand({ config: config(), ...opts });
    });
}
