import { Command } from "commander";
import { InputError } from "../core/errors.js";
import { didYouMean } from "../core/suggest.js";
import { latestRunOption, paramsOption, requiredRunOption, type ConfigFile } from "./options.js";

/** spsa's commands about workers: the key they trust, the decision about a suspect, undoing one's results. */

export function addKeyCommand(program: Command, config: ConfigFile): void {
  program
    .command("key")
    .description(
      "print the master's public key (made on first use); a worker on another machine pins it with " +
        "--trust or [worker] trusted_keys",
    )
    .action(async () => {
      (await import("../commands/key.js")).keyCommand({ config: config() });
    });
}

/** What `spsa workers accept` and `reject` record, and what follows from it. */
const DECISIONS = [
  [
    "accept",
    "accepted",
    "the worker's held batches are given back to θ (with --yes; without: what it would change, exit 2), and the " +
      "master applies its batches again and does not flag it again in the run",
  ],
  [
    "reject",
    "rejected",
    "the worker's batches stay set aside in the run (spsa undo --worker takes out what it reported before)",
  ],
] as const;

export function addWorkersCommands(program: Command, config: ConfigFile): void {
  const workers = program
    .command("workers")
    .description(
      "list a run's workers (the default), or decide about one the master found a suspect " +
        "(docs/bad-workers.md); a decision is recorded with who and when",
    );
  workers
    .command("list", { isDefault: true })
    .description("the run's workers: their batches and games, those held or undone, and their state")
    .addOption(latestRunOption())
    // The default subcommand gets a mistyped one's words (`spsa workers rejct box1`): named, not "too many arguments".
    .allowExcessArguments()
    .action(async (opts: { name?: string }, command: Command) => {
      const [word] = command.args;
      if (word !== undefined)
        throw new InputError(
          `spsa workers ${word}`,
          `unknown subcommand${didYouMean(word, ["list", ...DECISIONS.map(([verb]) => verb)])}`,
        );
      await (await import("../commands/workers.js")).workersListCommand({ config: config(), ...opts });
    });
  for (const [verb, decision, what] of DECISIONS) {
    const command = workers
      .command(verb)
      .description(what)
      .argument("<worker>", "the worker's name, as spsa status shows it")
      .addOption(requiredRunOption())
      .option("--note <text>", "your reason, kept with the decision");
    // Accepting gives the worker's held batches back to θ, as spsa undo takes batches out: the same flags.
    if (decision === "accepted")
      command
        .addOption(
          paramsOption(
            "the run's parameters file, rewritten with θ after the held batches are given back; refused " +
              "unless it holds the run's θ before (as the run's master last wrote it)",
          ),
        )
        .option("--yes", "with held batches: really give them back (without: a dry run that changes nothing)")
        .option("--force-params", "rewrite --params even though it does not hold the run's θ");
    command.action(
      async (
        worker: string,
        opts: { name: string; note?: string; params?: string; yes?: boolean; forceParams?: boolean },
      ) => (await import("../commands/workers.js")).workersCommand({ config: config(), worker, decision, ...opts }),
    );
  }
}

interface UndoCommandFlags {
  worker: string;
  name: string;
  params: string;
  yes?: boolean;
  allGames?: boolean;
  forceParams?: boolean;
}

export function addUndoCommand(program: Command, config: ConfigFile): void {
  program
    .command("undo")
    .description(
      "take a worker's results out of a run: θ recomputed from the recorded rows without them, " +
        "written to the database and the run's params file; without --yes it only shows what it " +
        "would take out and θ before → after (exit 2)",
    )
    .requiredOption("--worker <name>", "the worker whose reported batches to take out")
    .addOption(requiredRunOption())
    .addOption(
      paramsOption(
        "the run's parameters file, rewritten with the corrected θ; refused unless it holds the run's θ " +
          "before the undo (as the run's master last wrote it)",
      ),
    )
    .option("--yes", "really take them out (without: a dry run that changes nothing)")
    .option("--all-games", "allow taking out every game θ holds in the run (θ goes back to the start)")
    .option("--force-params", "rewrite --params even though it does not hold the run's θ")
    .action(async (opts: UndoCommandFlags) => {
      const { undoCommand } = await import("../commands/undo.js");
      await undoCommand({ config: config(), ...opts });
    });
}
