import { InputError } from "../core/errors.js";
import { plural } from "../core/plural.js";
import { printable } from "../core/printable.js";
import { describeLeaseOwner } from "./run-lease.js";
import type { RunLeaseOwner } from "../db/runs.js";
import type { Values } from "../types/spsa.js";
import type { UndoOutcome, UndoPlan } from "./undo-worker.js";

/**
 * What `spsa undo` says and refuses (docs/bad-workers.md#undo), pure: the lines that show what an
 * undo takes out and θ before → after, what it does with the params file, and the reasons it
 * does not commit.
 */

/** What the undo does with the params file it was given. */
export type ParamsFileAction =
  /** It holds the run's θ (or --force-params): rewritten with θ after the undo. */
  | { kind: "write"; forced: boolean }
  /** It does not hold θ, and a live master runs the run: that master writes its own file; this one is left. */
  | { kind: "leave" }
  /** It does not hold θ: refused. */
  | { kind: "refuse" };

/** How many of a params file's differences with θ are named one by one. */
const MISMATCHES_SHOWN = 5;

/**
 * The params file's fate: rewritten when it holds the run's θ before the undo (`mismatches`
 * empty: src/params/run-theta-file.ts) or `force`; else left to the run's live master, which writes
 * its own file from the database (and may lag it by a few seconds); else refused.
 */
export function paramsFileAction(
  plan: { master: RunLeaseOwner | undefined },
  mismatches: readonly InputError[],
  force: boolean,
): ParamsFileAction {
  if (mismatches.length === 0 || force) return { kind: "write", forced: mismatches.length > 0 };
  return plan.master ? { kind: "leave" } : { kind: "refuse" };
}

/** The params file's refusal (ParamsFileAction "refuse"): its differences with θ, and what to give instead. */
export function paramsRefusals(
  params: { action: ParamsFileAction; mismatches: readonly InputError[] },
  file: string,
  runName: string,
): InputError[] {
  if (params.action.kind !== "refuse") return [];
  const shown = params.mismatches.slice(0, MISMATCHES_SHOWN);
  const more = params.mismatches.length - shown.length;
  return [
    ...shown,
    new InputError(
      "--params",
      `${file} is not run "${runName}"'s params file: ` +
        `${more > 0 ? `${plural(more, "more parameter")} differ too; ` : ""}` +
        `the run's file holds its θ as its master last wrote it; give that file (the --params of ` +
        `spsa master), or --force-params to rewrite this one anyway`,
    ),
  ];
}

/** The flags an undo needs: every reason it does not commit but the params file's, one problem each. */
export function undoRefusals(
  plan: UndoPlan,
  options: { yes: boolean; allGames: boolean; runName: string },
): InputError[] {
  const refusals: InputError[] = [];
  const everyGame = plan.others.batches === 0;
  if (everyGame && !options.allGames) {
    refusals.push(
      new InputError(
        "--all-games",
        `worker ${printable(plan.worker)}'s ${plural(plan.batches, "batch", "batches")} are every game θ ` +
          `holds in run "${options.runName}": taking them out leaves the run no game, and θ back at the ` +
          `start of the run; add --all-games if that is what you want`,
      ),
    );
  }
  if (!options.yes) {
    const flags = everyGame && !options.allGames ? "--yes --all-games" : "--yes";
    refusals.push(
      new InputError(
        "--yes",
        `nothing was changed (a dry run): run it again with ${flags} to take the ` +
          `${plural(plan.batches, "batch", "batches")} out`,
      ),
    );
  }
  return refusals;
}

/**
 * The lines that say what the undo takes out (took out, once `applied`), θ before → after and the
 * params file's fate.
 */
export function describeUndo(
  outcome: UndoOutcome,
  params: { file: string; action: ParamsFileAction; mismatches: readonly InputError[] },
  runName: string,
): string[] {
  const did = outcome.applied;
  const taken = `${plural(outcome.batches, "batch", "batches")} (${plural(outcome.games, "game")})`;
  const from = outcome.mode === "build" ? "iterations" : "chain of applied batches";
  const lines = [
    did
      ? `run "${runName}": took worker ${printable(outcome.worker)}'s ${taken} out of θ and recomputed θ from ` +
        `the recorded ${from} without them (undo ${outcome.undoId})`
      : `run "${runName}" (${outcome.mode === "build" ? "build" : "UCI-option"} mode): the undo would take worker ` +
        `${printable(outcome.worker)}'s ${taken} out of θ and recompute θ from the recorded ${from} without them`,
  ];
  if (outcome.mode === "build") {
    const reopened =
      outcome.reopenedGames > 0
        ? `; ${plural(outcome.reopenedGames, "game")} of iterations not stepped yet ${did ? "are" : "would be"} ` +
          `played again`
        : "";
    const steps =
      outcome.replayedSteps === 1
        ? "1 completed iteration's step"
        : `${outcome.replayedSteps === 0 ? "no" : outcome.replayedSteps} completed iterations' steps`;
    lines.push(`  ${steps} taken again${reopened}`);
  } else {
    lines.push(`  their games ${did ? "are" : "would be"} drawn again from the corrected θ`);
  }
  lines.push(
    outcome.others.batches === 0
      ? `  that is every game θ holds in the run: no other worker's batch is left in it`
      : `  θ keeps the other workers' ${plural(outcome.others.batches, "batch", "batches")} ` +
          `(${plural(outcome.others.games, "game")})`,
  );
  lines.push(...thetaLines(outcome.thetaBefore, outcome.thetaAfter));
  lines.push(paramsLine(outcome, params, runName, "the undo"));
  return lines;
}

/** θ before → after, the parameters that moved (each on its line), or that θ is unchanged. */
export function thetaLines(before: Values, after: Values): string[] {
  const names = Object.keys(after).sort();
  const moved = names.filter((name) => after[name] !== before[name]);
  if (moved.length === 0) return ["  θ is unchanged"];
  const width = Math.max(...moved.map((name) => name.length));
  return [
    `  θ before → after:`,
    ...moved.map((name) => `    ${name.padEnd(width)}  ${before[name]} → ${after[name]}`),
    ...(moved.length < names.length ? [`    (${plural(names.length - moved.length, "parameter")} unchanged)`] : []),
  ];
}

/** What becomes of the params file (`done`: it was; else it would), θ after `what` ("the undo"). */
export function paramsLine(
  done: { applied: boolean; master: RunLeaseOwner | undefined },
  { file, action, mismatches }: { file: string; action: ParamsFileAction; mismatches: readonly InputError[] },
  runName: string,
  what: string,
): string {
  const did = done.applied;
  const first = mismatches[0] ? ` (${mismatches[0].detail}${mismatches.length > 1 ? ", …" : ""})` : "";
  switch (action.kind) {
    case "write":
      return action.forced
        ? `${file} does not hold run "${runName}"'s θ${first}: ${did ? "rewritten" : "it would be rewritten"} ` +
            `with θ after ${what} all the same (--force-params)`
        : `${file} holds the run's θ: ${did ? "rewritten" : "it would be rewritten"} with θ after ${what}`;
    case "leave":
      return (
        `${file} does not hold run "${runName}"'s θ${first}: ${did ? "left" : "it would be left"} as it is; ` +
        `the run's ${describeLeaseOwner(done.master!)} writes its own params file from the database`
      );
    case "refuse":
      return `${file} is not the run's params file: refused (below)`;
  }
}
