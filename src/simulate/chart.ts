import type { Summary } from "./aggregate.js";

const MARKS = ["*", "o", "+", "x", "#"];
const COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"];

/** Elo left (mean over seeds) against games, one mark per tuner, for a terminal. */
export function terminalChart(summaries: readonly Summary[], width = 60, height = 14): string {
  const top = niceMax(summaries);
  const budget = lastCheckpoint(summaries);
  const grid = Array.from({ length: height }, () => Array.from({ length: width }, () => " "));
  summaries.forEach((s, t) => {
    s.checkpoints.forEach((games, i) => {
      const col = Math.min(width - 1, Math.round((games / budget) * (width - 1)));
      const row = height - 1 - Math.min(height - 1, Math.round(((s.mean[i] ?? 0) / top) * (height - 1)));
      const line = grid[row];
      if (line) line[col] = MARKS[t % MARKS.length] ?? "*";
    });
  });
  const label = (row: number) => (row === 0 ? top.toFixed(0) : row === height - 1 ? "0" : "").padStart(6);
  const lines = grid.map((cells, row) => `${label(row)} |${cells.join("")}`);
  lines.push(`${"".padStart(6)} +${"-".repeat(width)}`);
  lines.push(`${"".padStart(8)}0${`${budget} games`.padStart(width - 1)}`);
  lines.unshift("Elo left (mean over seeds)");
  lines.push(...summaries.map((s, t) => `  ${MARKS[t % MARKS.length]} ${s.tuner}`));
  return lines.join("\n");
}

/** The same chart as a standalone SVG, with a band of ±1 standard deviation per tuner. */
export function svgChart(summaries: readonly Summary[], title: string): string {
  const [w, h, left, right, top, bottom] = [720, 420, 60, 20, 40, 110];
  const yMax = niceMax(summaries);
  const budget = lastCheckpoint(summaries);
  const x = (games: number) => left + (games / budget) * (w - left - right);
  const y = (elo: number) => top + (1 - Math.min(elo, yMax) / yMax) * (h - top - bottom);
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" font-family="sans-serif" font-size="12">`,
    `<rect width="${w}" height="${h}" fill="white"/>`,
    `<text x="${w / 2}" y="20" text-anchor="middle" font-size="14">${escape(title)}</text>`,
  ];
  for (let i = 0; i <= 5; i++) {
    const elo = (yMax * i) / 5;
    const games = Math.round((budget * i) / 5);
    parts.push(`<line x1="${left}" x2="${w - right}" y1="${y(elo)}" y2="${y(elo)}" stroke="#ddd"/>`);
    parts.push(`<text x="${left - 6}" y="${y(elo) + 4}" text-anchor="end">${elo.toFixed(0)}</text>`);
    parts.push(`<text x="${x(games)}" y="${h - bottom + 16}" text-anchor="middle">${games}</text>`);
  }
  parts.push(`<text x="${(left + w - right) / 2}" y="${h - bottom + 34}" text-anchor="middle">games played</text>`);
  parts.push(
    `<text x="14" y="${(top + h - bottom) / 2}" transform="rotate(-90 14 ` +
      `${(top + h - bottom) / 2})" text-anchor="middle">Elo left</text>`,
  );
  summaries.forEach((s, t) => {
    const colour = COLOURS[t % COLOURS.length] ?? "black";
    const upper = s.checkpoints.map((g, i) => `${x(g)},${y((s.mean[i] ?? 0) + (s.sd[i] ?? 0))}`);
    const lower = s.checkpoints.map((g, i) => `${x(g)},${y(Math.max(0, (s.mean[i] ?? 0) - (s.sd[i] ?? 0)))}`).reverse();
    parts.push(`<polygon points="${[...upper, ...lower].join(" ")}" fill="${colour}" fill-opacity="0.12"/>`);
    parts.push(
      `<polyline points="${s.checkpoints.map((g, i) => `${x(g)},${y(s.mean[i] ?? 0)}`).join(" ")}" ` +
        `fill="none" stroke="${colour}" stroke-width="2"/>`,
    );
    const ly = h - bottom + 54 + t * 16;
    parts.push(
      `<line x1="${left}" x2="${left + 24}" y1="${ly - 4}" y2="${ly - 4}" stroke="${colour}" stroke-width="2"/>`,
    );
    parts.push(`<text x="${left + 30}" y="${ly}">${escape(s.tuner)}</text>`);
  });
  parts.push("</svg>");
  return `${parts.join("\n")}\n`;
}

function niceMax(summaries: readonly Summary[]): number {
  const max = Math.max(1, ...summaries.flatMap((s) => s.mean));
  const magnitude = 10 ** Math.floor(Math.log10(max));
  return Math.ceil(max / magnitude) * magnitude;
}

function lastCheckpoint(summaries: readonly Summary[]): number {
  return Math.max(1, ...summaries.map((s) => s.checkpoints.at(-1) ?? 0));
}

function escape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
