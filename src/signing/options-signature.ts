import type { KeyObject } from "node:crypto";
import { SpsaError } from "../core/errors.js";
import { signedMessage, verifyMessage, type MessageSigner } from "./binary-signature.js";
import type { OptionDraw, OptionParams, Values } from "../types/spsa.js";

/**
 * A UCI-option run's parameter list is signed like binaries are (docs/signing.md): the option
 * names and bounds a worker sends its engine come from the master, not from a row anyone
 * who can write the database may change. The message names the run's uid, so it is valid for
 * this run in this database only.
 */
const OPTIONS_KIND = "spsa-options-v1";

/** The parameters as signed bytes: by name, each field in a fixed order (jsonb keeps no key order). */
export function optionsMessage(runUid: string, parameters: OptionParams): Buffer {
  const list = Object.keys(parameters)
    .sort()
    .map((name) => {
      const p = parameters[name]!;
      return [name, p.option, p.optionScale ?? null, p.type, p.min, p.max, p.step, p.frozen];
    });
  return signedMessage(OPTIONS_KIND, [runUid, JSON.stringify(list)]);
}

export function signOptions(signMessage: MessageSigner, runUid: string, parameters: OptionParams): string {
  return signMessage(optionsMessage(runUid, parameters));
}

/**
 * The draw's parameter list is not signed by a trusted key for this run, or a drawn value is out of
 * its bounds: nothing is sent to an engine.
 */
export class UntrustedOptionsError extends SpsaError {
  override readonly exitCode: number;
  constructor(
    message: string,
    /** The worker trusts no key at all: nothing could ever pass. */
    readonly noTrustedKey: boolean,
  ) {
    super(message);
    this.exitCode = noTrustedKey ? 2 : 1;
  }
}

/**
 * The first parameter whose value is not a finite number within its bounds (a loop, not entries: a
 * batch may hold thousands).
 */
function withinBounds(parameters: OptionParams, values: Values): string | undefined {
  for (const name in parameters) {
    const p = parameters[name]!;
    const v = values[name];
    if (typeof v !== "number" || !Number.isFinite(v) || v < p.min || v > p.max) return name;
  }
  return undefined;
}

/**
 * Parameter lists checked already, each with the run, signature and trusted key it was checked
 * with: a worker claiming batch after batch of a large run (the same list object, kept by
 * src/worker/option-draw.ts) does not sign-check thousands of options again each time.
 */
const checkedLists = new WeakMap<OptionParams, { runUid: string; signature: string; key: KeyObject }>();

/** Whether one of the keys signed the draw's parameter list for this run. */
function signedList(keys: readonly KeyObject[], runUid: string, draw: OptionDraw): boolean {
  const checked = checkedLists.get(draw.parameters);
  if (checked && checked.runUid === runUid && checked.signature === draw.signature && keys.includes(checked.key))
    return true;
  const message = optionsMessage(runUid, draw.parameters);
  const key = keys.find((k) => verifyMessage([k], message, draw.signature));
  if (key !== undefined && draw.signature !== null)
    checkedLists.set(draw.parameters, { runUid, signature: draw.signature, key });
  return key !== undefined;
}

/**
 * The draw of a claimed batch of run `runUid`, returned only when a trusted key signed its
 * parameter list for this run and every drawn value is a finite number within its
 * parameter's signed bounds; anything else throws.
 */
export function verifiedDraw(keys: readonly KeyObject[], runUid: string, draw: OptionDraw): OptionDraw {
  if (!signedList(keys, runUid, draw)) {
    throw new UntrustedOptionsError(
      keys.length === 0
        ? "no trusted master key to check the run's options against: pin the master's key with " +
            "`compete --spsa --trust KEY` (`spsa key` prints it)"
        : `refused the UCI options of run ${runUid}: ` +
            `${draw.signature ? "their signature is not from a trusted master key for this run" : "they are not signed"}`,
      keys.length === 0,
    );
  }
  // A pilot's batch names θ₀ too (the reference plus and minus each play): checked as they are.
  for (const [side, values] of [
    ["plus", draw.plus],
    ["minus", draw.minus],
    ...(draw.reference ? [["reference", draw.reference] as const] : []),
  ] as const) {
    const bad = withinBounds(draw.parameters, values);
    if (bad !== undefined)
      throw new UntrustedOptionsError(
        `refused the ${side} values of a UCI-option batch: ${bad} is not a number within its signed bounds`,
        false,
      );
  }
  return draw;
}
