/**
 * The Elo gained so far and the stop rule in words (docs/gain-so-far.md), one wording for the
 * master's log and `spsa status`.
 */
import type { EloInterval, GainReading } from "./gain-so-far.js";

/** "+38", "−9" (a real minus), "+∞": Elo with its sign, `digits` decimals. */
export function eloText(elo: number, digits = 0): string {
  if (!Number.isFinite(elo)) return elo > 0 ? "+∞" : "−∞";
  const rounded = Number(elo.toFixed(digits));
  return `${rounded < 0 ? "−" : "+"}${Math.abs(rounded).toFixed(digits)}`;
}

/** "+38 Elo (95 %: +21 … +55)": an estimate with its interval, `note` inside the brackets. */
function intervalText({ elo, low, high }: EloInterval, digits: number, unit: string, note = ""): string {
  return `${eloText(elo, digits)}${unit} (95 %: ${eloText(low, digits)} … ${eloText(high, digits)}${note})`;
}

/**
 * "gained so far: +38 Elo (95 %: +21 … +55) from 512 games of θ against θ₀; the rest of the budget:
 * +6 (−9 … +21)".
 */
export function gainLine(reading: GainReading): string {
  const rest = reading.rest
    ? `${eloText(reading.rest.elo)} (${eloText(reading.rest.low)} … ${eloText(reading.rest.high)})`
    : "not projected yet";
  return (
    `gained so far: ${intervalText(reading.gain, 0, " Elo")} from ${reading.games} games of θ against θ₀; ` +
    `the rest of the budget: ${rest}`
  );
}

/**
 * The stop rule's line, once the rest's whole interval lies within ±`below` (nothingLeftToGain):
 * "nothing left to gain: the rest of the budget projected at +0.4 Elo (95 %: −1.2 … +1.9, below 2);
 * stopping (stop_early)", or "… playing on (stop_early = false)".
 */
export function stopLine(rest: EloInterval, below: number, early: boolean): string {
  return (
    `nothing left to gain: the rest of the budget projected at ${intervalText(rest, 1, " Elo", `, below ${below}`)}; ` +
    (early ? "stopping (stop_early)" : "playing on (stop_early = false)")
  );
}
