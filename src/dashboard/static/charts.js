// Small SVG charts drawn with DOM calls (no library, no inline markup from data).
const NS = "http://www.w3.org/2000/svg";
const WIDTH = 320;
const HEIGHT = 160;
const PAD = { left: 44, right: 8, top: 8, bottom: 18 };

function el(name, attributes = {}, text) {
  const node = document.createElementNS(NS, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

function scale(domain, range) {
  const [d0, d1] = domain[0] === domain[1] ? [domain[0] - 1, domain[1] + 1] : domain;
  return (v) => range[0] + ((v - d0) / (d1 - d0)) * (range[1] - range[0]);
}

function frame(xDomain, yDomain) {
  const svg = el("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img" });
  const x = scale(xDomain, [PAD.left, WIDTH - PAD.right]);
  const y = scale(yDomain, [HEIGHT - PAD.bottom, PAD.top]);
  svg.append(el("line", { class: "axis", x1: PAD.left, x2: WIDTH - PAD.right, y1: HEIGHT - PAD.bottom, y2: HEIGHT - PAD.bottom }));
  svg.append(el("line", { class: "axis", x1: PAD.left, x2: PAD.left, y1: PAD.top, y2: HEIGHT - PAD.bottom }));
  svg.append(el("text", { x: PAD.left - 4, y: PAD.top + 8, "text-anchor": "end" }, short(yDomain[1])));
  svg.append(el("text", { x: PAD.left - 4, y: HEIGHT - PAD.bottom, "text-anchor": "end" }, short(yDomain[0])));
  svg.append(el("text", { x: PAD.left, y: HEIGHT - 4 }, String(xDomain[0])));
  svg.append(el("text", { x: WIDTH - PAD.right, y: HEIGHT - 4, "text-anchor": "end" }, String(xDomain[1])));
  return { svg, x, y };
}

export function short(v) {
  return String(Number(Number(v).toPrecision(4)));
}

function horizontal(svg, x, y, xDomain, value, className, label) {
  const line = el("line", { class: className, x1: x(xDomain[0]), x2: x(xDomain[1]), y1: y(value), y2: y(value) });
  line.append(el("title", {}, `${label} ${short(value)}`));
  svg.append(line);
}

/** θ of one parameter over the iterations, with its start value and bounds marked (as fishtest's SPSA charts). */
export function parameterChart(history, { start, min, max }) {
  const xs = history.map((p) => p.iteration);
  const values = history.map((p) => p.value);
  const marks = [start, min, max].filter((v) => v !== null && v !== undefined);
  const xDomain = [Math.min(...xs), Math.max(...xs, 1)];
  const { svg, x, y } = frame(xDomain, [Math.min(...values, ...marks), Math.max(...values, ...marks)]);
  if (min !== null) horizontal(svg, x, y, xDomain, min, "bound", "min");
  if (max !== null) horizontal(svg, x, y, xDomain, max, "bound", "max");
  horizontal(svg, x, y, xDomain, start, "start", "start");
  svg.append(el("polyline", { class: "theta", points: history.map((p) => `${x(p.iteration).toFixed(1)},${y(p.value).toFixed(2)}`).join(" ") }));
  return svg;
}

/** Elo per iteration (or per group of iterations on long runs) with 95 % error bars. */
export function eloChart(points) {
  const lows = points.map((p) => p.elo - (p.error ?? 0));
  const highs = points.map((p) => p.elo + (p.error ?? 0));
  const xDomain = [Math.min(...points.map((p) => p.first)), Math.max(...points.map((p) => p.last))];
  const { svg, x, y } = frame(xDomain, [Math.min(0, ...lows), Math.max(0, ...highs)]);
  svg.append(el("line", { class: "zero", x1: x(xDomain[0]), x2: x(xDomain[1]), y1: y(0), y2: y(0) }));
  for (const p of points) {
    const cx = x((p.first + p.last) / 2);
    if (p.error !== null) svg.append(el("line", { class: "error", x1: cx, x2: cx, y1: y(p.elo - p.error), y2: y(p.elo + p.error) }));
    const dot = el("circle", { class: "elo", cx, cy: y(p.elo), r: 2 });
    dot.append(el("title", {}, `iteration ${p.first === p.last ? p.first : `${p.first}–${p.last}`}: ${short(p.elo)} ± ${p.error === null ? "?" : short(p.error)}`));
    svg.append(dot);
  }
  return svg;
}

/** Games per hour as bars. */
export function barChart(bars) {
  const { svg, x, y } = frame([0, bars.length], [0, Math.max(1, ...bars.map((b) => b.value))]);
  const width = (x(1) - x(0)) * 0.8;
  bars.forEach((b, i) => {
    const rect = el("rect", { class: "bar", x: x(i), width: Math.max(1, width), y: y(b.value), height: y(0) - y(b.value) });
    rect.append(el("title", {}, `${b.label}: ${b.value}`));
    svg.append(rect);
  });
  return svg;
}
