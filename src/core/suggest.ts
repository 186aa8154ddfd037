/** Levenshtein distance, for "did you mean" suggestions on unknown names. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * The closest candidate if it is close enough to be a likely typo, else a candidate that
 * extends the name by whole words (`KNIGHT_VALUE` → `KNIGHT_VALUE_PAIR`), else undefined.
 */
export function nearest(name: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  if (bestDistance <= Math.max(2, Math.floor(name.length / 3))) return best;
  const lower = name.toLowerCase();
  const extensions = candidates.filter(
    (c) => c.toLowerCase().startsWith(`${lower}_`) || c.toLowerCase().endsWith(`_${lower}`),
  );
  return extensions.sort((a, b) => a.length - b.length)[0];
}

/** " (did you mean `x`?)" or "" — appended to unknown-name messages. */
export function didYouMean(name: string, candidates: readonly string[]): string {
  const guess = nearest(name, candidates);
  return guess === undefined ? "" : ` (did you mean \`${guess}\`?)`;
}
