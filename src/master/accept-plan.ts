import { InputError } from "../core/errors.js";
import { plural } from "../core/plural.js";
import { printable } from "../core/printable.js";
import { paramsLine, thetaLines, type ParamsFileAction } from "./undo-plan.js";
import type { AcceptOutcome } from "./accept-worker.js";

/**
 * What `spsa workers accept` says when it gives a worker's held batches back
 * (docs/bad-workers.md), pure: what goes back where, θ before → after and the params file's fate
 * (none when θ does not move).
 */

/** The params file's fate; absent when θ does not move (nothing to write). */
export type AcceptParams = { file: string; action: ParamsFileAction; mismatches: readonly InputError[] } | undefined;

export function describeAccept(
  outcome: AcceptOutcome,
  params: AcceptParams,
  context: { runName: string; who: string; was: string },
): string[] {
  const did = outcome.applied;
  const name = printable(outcome.worker);
  const given = `${plural(outcome.batches, "held batch", "held batches")} (${plural(outcome.games, "game")})`;
  const lines = [
    did
      ? `run "${context.runName}": worker ${name} accepted by ${context.who} (${context.was}): its ${given} ` +
        `are given back to θ, and the master does not flag it again in this run`
      : `run "${context.runName}" (${outcome.mode === "build" ? "build" : "UCI-option"} mode): accepting worker ` +
        `${name} would give its ${given} back to θ`,
  ];
  if (outcome.mode === "build") {
    const steps =
      outcome.replayedSteps === 1
        ? "1 completed iteration's step"
        : `${outcome.replayedSteps === 0 ? "no" : outcome.replayedSteps} completed iterations' steps`;
    const counted =
      outcome.countedGames > 0
        ? `; ${plural(outcome.countedGames, "game")} of iterations not stepped yet ${did ? "are" : "would be"} ` +
          `counted (fewer played again)`
        : "";
    lines.push(`  ${steps} taken again with them${counted}`);
  } else {
    lines.push(
      `  each ${did ? "goes" : "would go"} into the chain of applied batches where it was reported, and the ` +
        `chain is replayed from θ₀ with them`,
    );
  }
  lines.push(...thetaLines(outcome.thetaBefore, outcome.thetaAfter));
  if (params) lines.push(paramsLine(outcome, params, context.runName, "the acceptance"));
  return lines;
}

/** Without --yes, a dry run: the acceptance is not recorded either. */
export function acceptRefusals(outcome: AcceptOutcome | { batches: number }, yes: boolean): InputError[] {
  if (yes) return [];
  return [
    new InputError(
      "--yes",
      `nothing was changed (a dry run): run it again with --yes to accept the worker and give the ` +
        `${plural(outcome.batches, "held batch", "held batches")} back`,
    ),
  ];
}
