const BARS = "▁▂▃▄▅▆▇█";

/**
 * A one-line chart of values, scaled between their own lowest and highest (so a move of a
 * fraction of a step still shows); a flat history is a flat middle line.
 */
export function sparkline(values: readonly number[]): string {
  if (values.length === 0) return "";
  const low = Math.min(...values);
  const high = Math.max(...values);
  const top = BARS.length - 1;
  return values
    .map((v) => BARS[high === low ? Math.floor(top / 2) : Math.round(((v - low) / (high - low)) * top)])
    .join("");
}
