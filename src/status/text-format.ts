/** Formatting shared by the status screens (`spsa status`, `spsa status --texel`). */

/** Left-aligned columns, numbers right-aligned, two spaces apart. */
export function table(header: string[], rows: string[][], empty: string): string[] {
  if (rows.length === 0) return [empty];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const numeric = header.map((_, i) => rows.every((r) => /^[-+]?[\d.?]+$/.test(r[i] ?? "")));
  const format = (row: string[]) =>
    row
      .map((cell, i) => (numeric[i] ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return [format(header), ...rows.map(format)];
}

/** Up to 4 decimals, trailing zeros dropped: θ of an int parameter is fractional. */
export function short(x: number): string {
  return String(Number(x.toFixed(4)));
}

export function signed(x: number, digits: number): string {
  return `${x >= 0 ? "+" : ""}${x.toFixed(digits)}`;
}

/** `2026-11-23 13:18` (UTC). */
export function shortTime(iso: string): string {
  return iso.slice(0, 16).replace("T", " ");
}
