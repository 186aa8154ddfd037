import { Command } from "commander";
import { paramsOption, requiredRunOption, type ConfigFile } from "./options.js";

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
  ["accept", "accepted", "the master applies the worker's batches again and does not flag it again in the run"],
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
      "decide about a worker the master found a suspect (docs/bad-workers.md); the decision is " +
        "recorded with who and when",
    );
  for (const [verb, decision, what] of DECISIONS) {
    workers
      .command(verb)
      .description(what)
      .argument("<worker>", "the worker's name, as spsa status shows it")
      .addOption(requiredRunOption())
      .option("--note <text>", "your reason, kept with the decision")
      .action(async (worker: string, opts: { name: string; note?: string }) =>
        (await import("../commands/workers.js")).workersCommand({ config: config(), worker, decision, ...opts }),
      );
  }
}

export function addUndoCommand(program: Command, config: ConfigFile): void {
  program
    .command("undo")
    .description(
      "take a worker's results out of a run: θ recomputed from the recorded rows without them, " +
        "written to the database and params.toml",
    )
    .requiredOption("--worker <name>", "the worker whose reported batches to take out")
    .addOption(requiredRunOption())
    .addOption(paramsOption("the run's parameters file, rewritten with the corrected θ"))
    .action(async (opts: { worker: string; name: string; params: string }) => {
      const { undoCommand } = await import("../commands/undo.js");
      await undoCommand({ config: config(), ...opts });
    });
}
