/**
 * A small deterministic PRNG. Every random draw of iteration k comes from
 * `createRng(`${runSeed}:${k}`)`, so a master that is killed and restarted replays exactly
 * the perturbations an uninterrupted run would have drawn.
 */
export interface Rng {
  /** Uniform in [0, 1), 32 bits of resolution. */
  next(): number;
}

/** sfc32 (Chris Doty-Humphrey's Small Fast Counting generator) seeded by cyrb128 of the string. */
export function createRng(seed: string): Rng {
  return sfc32(cyrb128(seed));
}

/** sfc32 from four 32-bit seed words (books/generate-balanced.mjs seeds it its own way). */
export function sfc32(words: readonly [number, number, number, number]): Rng {
  let [a, b, c, d] = words;
  const next = (): number => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  // The first outputs of sfc32 still echo the seed words; discarding a few mixes them in.
  for (let i = 0; i < 15; i++) next();
  return { next };
}

/** cyrb128: a 128-bit string hash, spread over four 32-bit words (bryc's public-domain hash). */
function cyrb128(text: string): [number, number, number, number] {
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

/** The generator for a match or batch: it replays from its seed, whatever its type. */
export function seededRng(seed: string | number): Rng {
  return createRng(String(seed));
}

/** Uniform in [low, high]. */
export function uniform(rng: Rng, low: number, high: number): number {
  return low + (high - low) * rng.next();
}
