import { join } from "node:path";
import { sha256OfFile, storeBinaries } from "../engine-build/binary-store.js";
import { buildEngine, type BuiltEngine } from "../engine-build/engine-builder.js";
import { recordReference, type RunRow } from "../db/runs.js";
import { InputError, SpsaError } from "../core/errors.js";
import { parsePublicKey, signedMessage, verifyMessage } from "../signing/binary-signature.js";
import { builtValue } from "../spsa/math.js";
import { withSpinner } from "../core/status-line.js";
import { crashPoint } from "./crash-points.js";
import type { MasterContext } from "./run-setup.js";

/**
 * Reference mode's engine (docs/reference-mode.md): the one engine θ+ and θ− each play for the
 * whole run. `[spsa] reference = "start"` builds θ₀ (the run's starting values) once; a path is
 * taken as is. Either is stored in spsa_binary and recorded on the run before its first
 * iteration; each iteration names it and the master signs it for that iteration.
 */

/** What the run recorded of its reference: the setting it was started with and, once there, the engine's sha256. */
export type RecordedReference = Pick<RunRow, "name" | "reference" | "referenceSha256">;

const describe = (reference: string) =>
  reference === "start" ? 'θ₀ built at the run\'s start (reference = "start")' : reference;

/**
 * Why `[spsa] reference` as configured now cannot continue the run, or undefined: a different
 * reference is a different run. A path's engine is compared by its bytes (`sha256`, of the
 * file now), so a moved copy of the same engine continues the run.
 */
export function referenceConflict(
  run: RecordedReference,
  configured: string | undefined,
  sha256: string | undefined,
): string | undefined {
  const fresh = "; a different reference is a different run: start it over with --fresh, or use another --name";
  if (run.reference === null)
    return configured === undefined
      ? undefined
      : `run "${run.name}" plays plus against minus, without a reference engine${fresh}`;
  if (configured === undefined)
    return `run "${run.name}" plays against a reference engine (${describe(run.reference)}); set it again${fresh}`;
  if ((run.reference === "start") !== (configured === "start"))
    return `run "${run.name}" plays against ${describe(run.reference)}, not ${describe(configured)}${fresh}`;
  if (configured !== "start" && run.referenceSha256 !== null && sha256 !== run.referenceSha256) {
    return (
      `run "${run.name}" plays against the engine of sha256 ` +
      `${run.referenceSha256.slice(0, 12)}, and ${configured} now has sha256 ${sha256?.slice(0, 12)}${fresh}`
    );
  }
  return undefined;
}

/**
 * The run's reference engine (undefined: plus against minus), after checking that the config
 * names the run's own: recorded already, or built or taken now and recorded (a master killed
 * before recording it does it again, from the same θ₀ or file).
 */
export async function runReference(master: MasterContext): Promise<BuiltEngine | undefined> {
  const { options, run, db, log } = master;
  const { config } = options;
  const configured = config.spsa.reference;
  const fileSha256 = configured === undefined || configured === "start" ? undefined : sha256OfFile(configured);
  const conflict = referenceConflict(run, configured, fileSha256);
  if (conflict) throw new InputError(`${config.file}: [spsa] reference`, conflict);
  if (configured === undefined) return undefined;
  const ownRecord = (recorded: { sha256: string; signature: string | null }) =>
    verifyMessage(
      [parsePublicKey(options.signingKey.publicKey, "the master's key")],
      referenceMessage(run.uid, recorded.sha256),
      recorded.signature,
    );
  if (run.referencePath !== null && run.referenceSha256 !== null) {
    if (ownRecord({ sha256: run.referenceSha256, signature: run.referenceSignature }))
      return { path: run.referencePath, sha256: run.referenceSha256 };
    // Recorded by a version before these signatures, or changed in the database: built or taken
    // again below, and signed.
    log(
      `run "${run.name}": the recorded reference engine (sha256 ` +
        `${run.referenceSha256.slice(0, 12)}) carries no signature of this master's key; it is ` +
        `${configured === "start" ? "built" : "taken"} again`,
    );
  }
  const engine =
    configured === "start"
      ? await buildStartEngine(master)
      : { path: configured, sha256: fileSha256 ?? sha256OfFile(configured) };
  crashPoint("reference-built");
  const signature = options.signingKey.signMessage(referenceMessage(run.uid, engine.sha256));
  // Stored and recorded in one transaction: the run's reference is kept while the run is active.
  const recorded = await db.retrying(() =>
    options.lease.transaction(async (tx) => {
      await storeBinaries(tx, [engine]);
      return recordReference(tx, run.id, { ...engine, signature });
    }),
  );
  if (!ownRecord(recorded))
    throw new SpsaError(
      `run "${run.name}": its reference engine was recorded by another key; start it over with --fresh`,
    );
  log(
    `run "${run.name}": reference engine ${recorded.path} (sha256 ${recorded.sha256.slice(0, 12)}); ` +
      `θ+ and θ− each play it`,
  );
  return { path: recorded.path, sha256: recorded.sha256 };
}

/**
 * What the master signs of its run's reference engine, so that it signs iterations only with a
 * reference it recorded itself.
 */
function referenceMessage(runUid: string, sha256: string): Buffer {
  return signedMessage("spsa-reference-v1", [runUid, sha256]);
}

/**
 * θ₀ as an engine: the run's initial values (ints rounded, as every build rounds them), built
 * in the plus engine's tree, whose next build then only recompiles the constants. Reference
 * mode's "start" and the curvature pilot (src/master/pilot.ts) play it.
 */
export async function buildStartEngine({ options, run, params, db }: MasterContext): Promise<BuiltEngine> {
  const { config } = options;
  const values = Object.fromEntries(
    params.map((p) => [p.name, builtValue({ ...p, value: run.initialParameters[p.name] ?? p.value })]),
  );
  return withSpinner(
    `run ${run.name}: building the reference engine (θ₀)`,
    buildEngine({
      build: config.build,
      params,
      values,
      tree: "plus",
      label: "reference",
      destination: (binary) => join(config.build.outputDir, run.name, "reference", binary),
      signal: options.signal,
      hold: options.lease.treeHold(db),
    }),
  );
}
