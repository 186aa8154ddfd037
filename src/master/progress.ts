/** The iteration counters the progress line shows. */
export interface IterationCounts {
  iterationNumber: number;
  targetGames: number;
  gamesPlayed: number;
  plusWins: number;
  minusWins: number;
  draws: number;
  faults: number;
}

/**
 * `iteration 3/100 [#######.......] 24/64 games  +9 -8 =7  31.2 games/min  ETA 1m17s`.
 * Speed is measured from `sinceMs` (when this process started watching) and `baseGames`.
 */
export function formatProgress(counts: IterationCounts, maxIterations: number, rate: { sinceMs: number; baseGames: number; nowMs: number }): string {
  const width = 20;
  const filled = Math.round((counts.gamesPlayed / counts.targetGames) * width);
  const bar = "#".repeat(filled) + ".".repeat(width - filled);
  const minutes = (rate.nowMs - rate.sinceMs) / 60_000;
  const perMinute = minutes > 0 ? (counts.gamesPlayed - rate.baseGames) / minutes : 0;
  const remaining = counts.targetGames - counts.gamesPlayed;
  const eta = perMinute > 0 ? formatDuration((remaining / perMinute) * 60) : "?";
  const faults = counts.faults > 0 ? `  faults ${counts.faults}` : "";
  return (
    `iteration ${counts.iterationNumber}/${maxIterations} [${bar}] ${counts.gamesPlayed}/${counts.targetGames} games  ` +
    `+${counts.plusWins} -${counts.minusWins} =${counts.draws}  ${perMinute.toFixed(1)} games/min  ETA ${eta}${faults}`
  );
}

export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}
