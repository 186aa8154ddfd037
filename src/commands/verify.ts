import { openDatabase } from "../postgres/connection.js";
import { onOwnDatabase } from "../postgres/retry.js";
import { InputError } from "../core/errors.js";
import { loadOrCreateSigningKey, signingKeyPath } from "../signing/key-file.js";
import { parseThetaLabel } from "../verify/theta.js";
import { verifyLimits, type LimitFlags } from "../verify/limits.js";
import { runVerify } from "../verify/verify.js";
import type { FinishedVerification } from "../verification/verification.js";
import { DEFAULT_RUN_NAME, loadRunInputs } from "./master.js";
import type { SprtBounds } from "../types/play.js";

export interface VerifyCommandOptions extends LimitFlags {
  config?: string;
  params?: string;
  name?: string;
  from?: string;
  to?: string;
  games?: number;
  sprt?: SprtBounds;
  log?: (line: string) => void;
  signal?: AbortSignal;
}

export const DEFAULT_VERIFY_GAMES = 400;

/** `spsa verify`: plays two θ of a run against each other through the workers. */
export async function verifyCommand(options: VerifyCommandOptions = {}): Promise<FinishedVerification> {
  const games = options.games ?? DEFAULT_VERIFY_GAMES;
  if (!Number.isInteger(games) || games < 2 || games % 2 !== 0)
    throw new InputError("--games", `must be an even number of at least 2, got ${games}`);
  const from = parseThetaLabel(options.from ?? "start", "--from");
  const to = parseThetaLabel(options.to ?? "current", "--to");
  const { config, params } = loadRunInputs(options);
  const limits = verifyLimits(options, config.timeControl);
  const database = await openDatabase({ configUrl: config.database.url, max: 1, applicationName: "spsa-verify" });
  return onOwnDatabase(
    database,
    options.signal,
    "the workers play the verification on, and spsa verify run again follows it",
    async () => {
      const signingKey = loadOrCreateSigningKey(signingKeyPath(config));
      return await runVerify({
        database,
        config,
        params,
        runName: options.name ?? DEFAULT_RUN_NAME,
        signingKey,
        from,
        to,
        games,
        sprt: options.sprt,
        limits,
        log: options.log,
        signal: options.signal,
      });
    },
  );
}
