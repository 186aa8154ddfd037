/** A duration for people: 42s, 3m07s, 2h05m. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

/**
 * "16.8 games/min  iteration ETA 1m17s  run ETA 2h05m": a rate (null or 0: unknown) and named ETAs
 * (null: unknown), as progress lines show them.
 */
export function rateAndEtas(
  perMinute: number | null,
  etas: readonly { name: string; seconds: number | null }[],
): string {
  const rate = perMinute !== null && perMinute > 0 ? perMinute.toFixed(1) : "?";
  return [
    `${rate} games/min`,
    ...etas.map((eta) => `${eta.name} ETA ${eta.seconds === null ? "?" : formatDuration(eta.seconds)}`),
  ].join("  ");
}
