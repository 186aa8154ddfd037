import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { messageSignerFor } from "../../src/signing/binary-signature.js";
import { signOptions, UntrustedOptionsError, verifiedDraw } from "../../src/signing/options-signature.js";
import { drawOptions } from "../../src/params/option-names.js";
import type { OptionParams } from "../../src/types/spsa.js";

const master = generateKeyPairSync("ed25519");
const stranger = generateKeyPairSync("ed25519");
const UID = "3f0c2a7e-0000-4000-8000-000000000001";
const PARAMETERS: OptionParams = {
  LMR_BASE: { min: 0, max: 2, step: 0.1, type: "float", frozen: false, option: "LMR_BASE_X100", optionScale: 100 },
  KNIGHT_VALUE_MG: {
    min: 250,
    max: 400,
    step: 8,
    type: "int",
    frozen: false,
    option: "KNIGHT_VALUE_MG",
    optionScale: undefined,
  },
};
const draw = (overrides: Partial<Parameters<typeof verifiedDraw>[2]> = {}) => ({
  parameters: PARAMETERS,
  signature: signOptions(messageSignerFor(master.privateKey), UID, PARAMETERS),
  plus: { LMR_BASE: 0.8, KNIGHT_VALUE_MG: 328 },
  minus: { LMR_BASE: 0.7, KNIGHT_VALUE_MG: 312 },
  ...overrides,
});

describe("a UCI-option run's parameter list, signed like binaries", () => {
  it("gives the engines' options when the master's key signed the list for this run and every value is in its bounds", () => {
    expect(drawOptions(verifiedDraw([master.publicKey], UID, draw()))).toEqual({
      plus: { LMR_BASE_X100: 80, KNIGHT_VALUE_MG: 328 },
      minus: { LMR_BASE_X100: 70, KNIGHT_VALUE_MG: 312 },
    });
  });

  it("refuses a list changed in the database (an option name with a newline, a wider bound), unsigned, signed by another key or for another run", () => {
    const renamed = {
      ...PARAMETERS,
      KNIGHT_VALUE_MG: { ...PARAMETERS.KNIGHT_VALUE_MG!, option: "KNIGHT_VALUE_MG\ndebug on" },
    };
    const widened = { ...PARAMETERS, KNIGHT_VALUE_MG: { ...PARAMETERS.KNIGHT_VALUE_MG!, max: 4000 } };
    for (const bad of [draw({ parameters: renamed }), draw({ parameters: widened }), draw({ signature: null })]) {
      expect(() => verifiedDraw([master.publicKey], UID, bad)).toThrow(UntrustedOptionsError);
    }
    expect(() => verifiedDraw([stranger.publicKey], UID, draw())).toThrow(UntrustedOptionsError);
    expect(() => verifiedDraw([master.publicKey], "3f0c2a7e-0000-4000-8000-000000000002", draw())).toThrow(
      UntrustedOptionsError,
    );
    expect(() => verifiedDraw([], UID, draw())).toThrow(expect.objectContaining({ noTrustedKey: true, exitCode: 2 }));
  });

  it("refuses drawn values that are not finite numbers within the signed bounds", () => {
    for (const plus of [
      { LMR_BASE: Number.NaN, KNIGHT_VALUE_MG: 328 },
      { LMR_BASE: 0.8, KNIGHT_VALUE_MG: 1e6 },
      { LMR_BASE: 0.8 } as Record<string, number>,
    ]) {
      expect(() => verifiedDraw([master.publicKey], UID, draw({ plus }))).toThrow(UntrustedOptionsError);
    }
  });

  it("checks a curvature pilot's θ₀ as it checks plus and minus, and sends it as the reference's options", () => {
    const reference = { LMR_BASE: 0.75, KNIGHT_VALUE_MG: 320 };
    expect(drawOptions(verifiedDraw([master.publicKey], UID, draw({ reference }))).reference).toEqual({
      LMR_BASE_X100: 75,
      KNIGHT_VALUE_MG: 320,
    });
    for (const bad of [
      { LMR_BASE: 0.75, KNIGHT_VALUE_MG: 1e6 },
      { LMR_BASE: Number.POSITIVE_INFINITY, KNIGHT_VALUE_MG: 320 },
      { LMR_BASE: 0.75 } as Record<string, number>,
    ]) {
      expect(() => verifiedDraw([master.publicKey], UID, draw({ reference: bad }))).toThrow(
        /refused the reference values of a UCI-option batch/,
      );
    }
  });
});
