import type { SignedBinary } from "../engine-build/binary-store.js";
import type { PlayableBatch } from "./option-draw.js";

/**
 * The batch's binaries, as their iteration names and the master signed them: plus and minus,
 * and in reference mode the run's reference engine (signed for this iteration too: a worker
 * runs no reference that the master did not sign).
 */
export function binariesOf(batch: PlayableBatch): SignedBinary[] {
  const subject = { runUid: batch.runUid, iterationNumber: batch.iterationNumber };
  const reference: SignedBinary[] =
    batch.referenceEngineSha256 === null
      ? []
      : [
          {
            ...subject,
            role: "reference",
            sha256: batch.referenceEngineSha256,
            signature: batch.referenceEngineSignature,
            path: batch.referenceEnginePath ?? "",
          },
        ];
  return [
    {
      ...subject,
      role: "plus",
      sha256: batch.plusEngineSha256,
      signature: batch.plusEngineSignature,
      path: batch.plusEnginePath,
    },
    {
      ...subject,
      role: "minus",
      sha256: batch.minusEngineSha256,
      signature: batch.minusEngineSignature,
      path: batch.minusEnginePath,
    },
    ...reference,
  ];
}
