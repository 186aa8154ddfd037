import { Command, Option } from "commander";
import {
  depthOption,
  nodesOption,
  PARAMS_FOR_CONSTANTS,
  paramsOption,
  sprtOption,
  type ConfigFile,
} from "./options.js";
import { parseInteger, parseNumber, parseSprt } from "./parsers.js";
import { abortOnSignals } from "./stop-signals.js";
import type { LimitFlags } from "../verify/limits.js";

/** spsa's commands that run a tuning run, try one, simulate one or verify what one found. */

export function addMasterCommand(program: Command, config: ConfigFile): void {
  program
    .command("master")
    .description("run or resume a tuning run: build plus/minus engines, wait for workers, update params.toml")
    .addOption(paramsOption())
    .option("--name <name>", "run name; another name starts another run", "main")
    .option("--fresh", "start the named run again from params.toml (the old run keeps its history)")
    .option("--seed <seed>", "seed of a new run's random draws (same seed, same perturbations)")
    .action(async (opts: { params: string; name: string; fresh?: boolean; seed?: string }) => {
      const { masterCommand } = await import("../commands/master.js");
      const abort = abortOnSignals();
      await masterCommand({ config: config(), ...opts, signal: abort.signal });
    });
}

export function addDemoCommand(program: Command, config: ConfigFile): void {
  program
    .command("demo")
    .description(
      "a real short tuning run of the sample engine: a master and a worker, at 2,000 nodes per move (no game " +
        "lost on time on a busy machine), then θ before and after",
    )
    .addOption(paramsOption("parameters file to start from (it is copied, not changed)"))
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
}

interface SimulateFlags {
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
}

export function addSimulateCommand(program: Command, config: ConfigFile): void {
  program
    .command("simulate")
    .description(
      "run the master's SPSA math on a synthetic engine made from params.toml: Elo left against games, per seed",
    )
    .addOption(paramsOption())
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
        "fit --loss-elo, --offset and --draw-rate to this run's recorded iterations, print the fit, " +
          "and simulate with it",
      ).conflicts(["lossElo", "lossSteps", "offset", "drawRate"]),
    )
    .option("--no-anchors", "leave out the fishtest and seed-design comparisons")
    .option("--svg <file>", "also write the chart as SVG")
    .option(
      "--reference <ref>",
      "also your config in reference mode: θ+ and θ− each against θ₀ (start) or an engine ELO " +
        "stronger than θ₀ (negative: weaker)",
    )
    .action(async (opts: SimulateFlags) => {
      const { simulateCommand } = await import("../commands/simulate.js");
      await simulateCommand({ config: config(), ...opts });
    });
}

type VerifyFlags = {
  params: string;
  name: string;
  from: string;
  to: string;
  games: number;
  sprt?: string[];
} & LimitFlags;

export function addVerifyCommand(program: Command, config: ConfigFile): void {
  program
    .command("verify")
    .description(
      "play two θ of a run against each other (start against current by default) through compete --spsa workers",
    )
    .addOption(paramsOption(PARAMS_FOR_CONSTANTS))
    .option("--name <name>", "the tuning run", "main")
    .option("--from <theta>", "start, current, or an iteration number K (θ after K)", "start")
    .option("--to <theta>", "as --from", "current")
    .option("--games <n>", "games to play, or the most an SPRT may play (even)", parseInteger, 400)
    .addOption(sprtOption())
    .option(
      "--tc <tc>",
      "play at this clock instead of the run's limits: SECONDS[+INC] or MOVES/SECONDS[+INC], e.g. 10+0.1",
    )
    .option("--timelow <s>", "lowest time per move in seconds; each pair draws one in [timelow, timehigh]", parseNumber)
    .option("--timehigh <s>", "highest time per move in seconds (default: --timelow)", parseNumber)
    .addOption(nodesOption())
    .addOption(depthOption())
    .action(async (opts: VerifyFlags) => {
      const { verifyCommand } = await import("../commands/verify.js");
      const abort = abortOnSignals();
      await verifyCommand({
        config: config(),
        ...opts,
        sprt: opts.sprt === undefined ? undefined : parseSprt(opts.sprt),
        signal: abort.signal,
      });
    });
}
