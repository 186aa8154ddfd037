// Small SVG charts drawn with DOM calls (no library, no inline markup from data).
const NS = "http://www.w3.org/2000/svg";
/** A parameter's chart, one of a grid; the Elo and games charts are wider, their text the same size on the page. */
const SMALL = { width: 320, height: 160 };
const WIDE = { width: 640, height: 200 };
const PAD = { left: 44, right: 40, top: 20, bottom: 18 };
/**
 * The least span of a θ axis, in steps: an unmoved parameter draws a flat line mid-chart
 * rather than rounding noise blown up to the chart's height; a real move of a few
 * hundredths of a step (a run's first iterations) fills it, read on the steps scale.
 */
const LEAST_SPAN_STEPS = 0.01;
/** Space above and below the trajectory, as a share of its span. */
const MARGIN = 0.08;
/** A bound is drawn (and the axis widened to it) when it lies within this share of the trajectory's span. */
const NEAR_BOUND = 0.5;
/** The Elo chart's mean line: the mean of the last this many points. */
export const ELO_MEAN_POINTS = 10;

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

export function short(v) {
  return String(Number(Number(v).toPrecision(4)));
}

/**
 * Round values (1, 2 or 5 times a power of ten apart) inside [lo, hi], about `count` of them,
 * labelled with as many decimals as their spacing needs (320.05 next to 320.1, not 320.1 twice).
 */
export function niceTicks(lo, hi, count = 4) {
  if (!(hi > lo)) return [{ value: lo, label: short(lo) }];
  const raw = (hi - lo) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  // The round spacing nearest the wanted one (by ratio): between 0.6 and 1.6 times `count` ticks.
  const spacing = [1, 2, 5, 10]
    .map((m) => m * power)
    .reduce((best, s) => (Math.abs(Math.log(s / raw)) < Math.abs(Math.log(best / raw)) ? s : best));
  const decimals = Math.max(0, -Math.floor(Math.log10(spacing) + 1e-9));
  const ticks = [];
  for (let i = Math.ceil(lo / spacing - 1e-9); i * spacing <= hi + spacing * 1e-9; i++) {
    const value = i * spacing;
    ticks.push({ value, label: String(Number(value.toFixed(decimals))) });
  }
  return ticks;
}

/**
 * The y-axis of a θ chart: the trajectory and its start with a margin, at least
 * LEAST_SPAN_STEPS tall, widened to a bound only when the bound is near (within half the
 * trajectory's span); `bounds` are the ones to draw.
 */
export function thetaAxis(values, { start, min, max, step }) {
  let lo = Math.min(start, ...values);
  let hi = Math.max(start, ...values);
  const least = step ? LEAST_SPAN_STEPS * step : Math.max(Math.abs(start) * 1e-3, 1e-9);
  if (hi - lo < least) {
    const middle = (lo + hi) / 2;
    [lo, hi] = [middle - least / 2, middle + least / 2];
  }
  const span = hi - lo;
  const bounds = [];
  if (min !== null && min !== undefined && min >= lo - NEAR_BOUND * span) {
    bounds.push({ label: "min", value: min });
    lo = Math.min(lo, min);
  }
  if (max !== null && max !== undefined && max <= hi + NEAR_BOUND * span) {
    bounds.push({ label: "max", value: max });
    hi = Math.max(hi, max);
  }
  const margin = MARGIN * (hi - lo);
  return { domain: [lo - margin, hi + margin], bounds };
}

/** Games-weighted mean of each point's Elo with the points before it, `window` points in all. */
export function runningMean(points, window = ELO_MEAN_POINTS) {
  return points.map((_, i) => {
    const recent = points.slice(Math.max(0, i - window + 1), i + 1);
    const games = recent.reduce((sum, p) => sum + p.games, 0);
    return games === 0 ? 0 : recent.reduce((sum, p) => sum + p.elo * p.games, 0) / games;
  });
}

/** Axes, the x labels at both ends and the left scale's ticks; `right` adds a second scale. */
function frame({ width, height }, xDomain, yDomain, right, xLabels = xDomain.map(String)) {
  const svg = el("svg", { viewBox: `0 0 ${width} ${height}`, role: "img" });
  const [x0, x1, y0, y1] = [PAD.left, width - PAD.right, height - PAD.bottom, PAD.top];
  const x = scale(xDomain, [x0, x1]);
  const y = scale(yDomain, [y0, y1]);
  svg.append(el("line", { class: "axis", x1: x0, x2: x1, y1: y0, y2: y0 }));
  svg.append(el("line", { class: "axis y-axis", x1: x0, x2: x0, y1: y1, y2: y0 }));
  const left = el("g", { class: "ticks" });
  for (const tick of niceTicks(yDomain[0], yDomain[1], 4)) {
    left.append(el("line", { class: "axis", x1: x0 - 3, x2: x0, y1: y(tick.value), y2: y(tick.value) }));
    left.append(el("text", { x: x0 - 5, y: y(tick.value) + 3, "text-anchor": "end" }, tick.label));
  }
  svg.append(left);
  if (right) {
    // A second scale, in `right.unit`s from `right.origin`: grid lines across, labels on the right.
    const axis = el("g", { class: "right-axis" });
    const toUnits = (v) => (v - right.origin) / right.unit;
    axis.append(el("line", { class: "axis", x1: x1, x2: x1, y1: y1, y2: y0 }));
    for (const tick of niceTicks(toUnits(yDomain[0]), toUnits(yDomain[1]), 4)) {
      const at = y(right.origin + tick.value * right.unit);
      axis.append(el("line", { class: "grid", x1: x0, x2: x1, y1: at, y2: at }));
      axis.append(
        el(
          "text",
          { class: "right-label", x: x1 + 4, y: at + 3 },
          tick.label === "0" ? "0" : `${tick.value > 0 ? "+" : "−"}${tick.label.replace("-", "")}`,
        ),
      );
    }
    axis.append(el("text", { x: x1 + 4, y: y1 - 8 }, right.name));
    svg.append(axis);
  }
  svg.append(el("text", { x: x0, y: height - 4 }, xLabels[0]));
  svg.append(el("text", { x: x1, y: height - 4, "text-anchor": "end" }, xLabels[1]));
  return { svg, x, y };
}

function horizontal(svg, x, y, xDomain, value, className, label) {
  const line = el("line", { class: className, x1: x(xDomain[0]), x2: x(xDomain[1]), y1: y(value), y2: y(value) });
  line.append(el("title", {}, `${label} ${short(value)}`));
  svg.append(line);
}

/**
 * θ of one parameter over the iterations on an axis fitted to its path, the start marked,
 * its bounds when near, and a right scale in steps from the start (fishtest's SPSA charts
 * span [min, max], where a move of a tenth of a step is a flat line).
 */
export function parameterChart(history, { start, min, max, step }) {
  const xs = history.map((p) => p.iteration);
  const { domain, bounds } = thetaAxis(
    history.map((p) => p.value),
    { start, min, max, step },
  );
  const xDomain = [Math.min(...xs), Math.max(...xs, 1)];
  const { svg, x, y } = frame(SMALL, xDomain, domain, step ? { origin: start, unit: step, name: "steps" } : undefined);
  for (const bound of bounds) horizontal(svg, x, y, xDomain, bound.value, "bound", bound.label);
  horizontal(svg, x, y, xDomain, start, "start", "start");
  svg.append(
    el("polyline", {
      class: "theta",
      points: history.map((p) => `${x(p.iteration).toFixed(1)},${y(p.value).toFixed(2)}`).join(" "),
    }),
  );
  return svg;
}

/**
 * Elo of plus against minus per iteration (or per group of iterations on long runs; a
 * UCI-option run's per window of batches, `unit` "batches") with 95 % error bars, cut at the
 * chart's edge so one noisy iteration does not squash the rest, and the running mean as a line.
 */
export function eloChart(points, unit = "iteration") {
  const mean = runningMean(points);
  const xDomain = [Math.min(...points.map((p) => p.first)), Math.max(...points.map((p) => p.last))];
  const lo = Math.min(0, ...points.map((p) => p.elo));
  const hi = Math.max(0, ...points.map((p) => p.elo));
  const margin = MARGIN * Math.max(hi - lo, 1);
  const yDomain = [lo - margin, hi + margin];
  const clamp = (v) => Math.min(yDomain[1], Math.max(yDomain[0], v));
  const { svg, x, y } = frame(WIDE, xDomain, yDomain);
  svg.append(el("line", { class: "zero", x1: x(xDomain[0]), x2: x(xDomain[1]), y1: y(0), y2: y(0) }));
  for (const p of points) {
    const cx = x((p.first + p.last) / 2);
    if (p.error !== null)
      svg.append(
        el("line", { class: "error", x1: cx, x2: cx, y1: y(clamp(p.elo - p.error)), y2: y(clamp(p.elo + p.error)) }),
      );
    const dot = el("circle", { class: "elo", cx, cy: y(p.elo), r: 3 });
    const [one, many] = unit === "batches" ? ["batch", "batches"] : ["iteration", "iterations"];
    const which = p.first === p.last ? `${one} ${p.first}` : `${many} ${p.first}–${p.last}`;
    const error = p.error === null ? " (too few pairs for an error bar)" : ` ± ${short(p.error)}`;
    dot.append(el("title", {}, `${which}: ${short(p.elo)}${error}`));
    svg.append(dot);
  }
  const line = el("polyline", {
    class: "mean",
    points: points.map((p, i) => `${x((p.first + p.last) / 2).toFixed(1)},${y(mean[i]).toFixed(2)}`).join(" "),
  });
  line.append(el("title", {}, `running mean (last ${ELO_MEAN_POINTS} points): ${short(mean.at(-1) ?? 0)}`));
  svg.append(line);
  return svg;
}

/** Bars (games per minute over time), the x axis labelled at its ends by `labels` ([first, last]). */
export function barChart(bars, labels) {
  const { svg, x, y } = frame(WIDE, [0, bars.length], [0, Math.max(1, ...bars.map((b) => b.value))], undefined, labels);
  const width = (x(1) - x(0)) * 0.8;
  bars.forEach((b, i) => {
    const rect = el("rect", {
      class: "bar",
      x: x(i),
      width: Math.max(1, width),
      y: y(b.value),
      height: y(0) - y(b.value),
    });
    rect.append(el("title", {}, `${b.label}: ${b.value}`));
    svg.append(rect);
  });
  return svg;
}

/** "+12.3" or "−4.5": a signed Elo. */
function signed(v) {
  return `${v >= 0 ? "+" : "−"}${short(Math.abs(v))}`;
}

/** "−3 … +21": an interval whose infinite end (null) reads as "∞". */
function span(low, high) {
  return `${low === null ? "−∞" : signed(low)} … ${high === null ? "+∞" : signed(high)}`;
}

/**
 * An arrow at (cx, edge) pointing off the chart (`up` or down): an interval with no end on that
 * side, drawn open instead of as a huge number.
 */
function openEnd(cx, edge, up, title) {
  const tip = up ? edge - 2 : edge + 2;
  const base = up ? tip + 7 : tip - 7;
  const arrow = el("path", { class: "open-end", d: `M${cx - 4},${base} L${cx},${tip} L${cx + 4},${base}` });
  arrow.append(el("title", {}, title));
  return arrow;
}

/**
 * The Elo gained so far (θ against θ₀) over the run's games: the gain read at each gain block's end
 * with its 95 % band, an infinite end (θ's score too near 100 % or 0 % to bound it) drawn as a band
 * open to the chart's edge with an arrow; and, at the budget, what the rest of it is projected to
 * add to the gain now, as a dashed interval (its line dashed from now). `current` is the status's
 * reading at `now` games: { gain, rest } with null ends where infinite.
 */
export function gainChart(points, { now, budget, current }) {
  const rest = current?.rest ?? null;
  const atBudget = rest && {
    elo: current.gain.elo + rest.elo,
    low: rest.low === null ? null : current.gain.elo + rest.low,
    high: rest.high === null ? null : current.gain.elo + rest.high,
  };
  const values = [0, ...[...points, ...(atBudget ? [atBudget] : [])].flatMap((p) => [p.elo, p.low, p.high])].filter(
    (v) => v !== null,
  );
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const margin = MARGIN * Math.max(hi - lo, 1);
  const yDomain = [lo - margin, hi + margin];
  const xDomain = [0, Math.max(budget, ...points.map((p) => p.at))];
  const { svg, x, y } = frame(WIDE, xDomain, yDomain, undefined, ["0 games", `${xDomain[1]} games`]);
  const [top, bottom] = [y(yDomain[1]), y(yDomain[0])];
  const yOf = (v, edge) => (v === null ? edge : y(v)).toFixed(2);
  svg.append(el("line", { class: "zero", x1: x(xDomain[0]), x2: x(xDomain[1]), y1: y(0), y2: y(0) }));
  const upper = points.map((p) => `${x(p.at).toFixed(1)},${yOf(p.high, top)}`);
  const lower = points.map((p) => `${x(p.at).toFixed(1)},${yOf(p.low, bottom)}`).reverse();
  svg.append(el("polygon", { class: "gain-band", points: [...upper, ...lower].join(" ") }));
  svg.append(
    el("polyline", {
      class: "gain",
      points: points.map((p) => `${x(p.at).toFixed(1)},${y(p.elo).toFixed(2)}`).join(" "),
    }),
  );
  points.forEach((p, i) => {
    const dot = el("circle", {
      class: "gain-point",
      cx: x(p.at).toFixed(1),
      cy: y(p.elo).toFixed(2),
      r: 2,
      "data-at": p.at,
      "data-elo": p.elo,
      "data-low": p.low ?? "",
      "data-high": p.high ?? "",
    });
    dot.append(
      el(
        "title",
        {},
        `after ${p.at} games: ${signed(p.elo)} Elo (95 %: ${span(p.low, p.high)}) from ${p.games} games of θ against θ₀`,
      ),
    );
    svg.append(dot);
    // One arrow per stretch of open ends, at its last point.
    for (const [end, edge, up] of [
      ["high", top, true],
      ["low", bottom, false],
    ])
      if (p[end] === null && points[i + 1]?.[end] !== null)
        svg.append(
          openEnd(
            x(p.at),
            edge,
            up,
            `no ${up ? "upper" : "lower"} end: θ's score against θ₀ too near ${up ? "100" : "0"} % to bound it`,
          ),
        );
  });
  if (atBudget) {
    const bx = x(budget);
    const title = `the rest of the budget (${now} → ${budget} games) projected to add ${signed(rest.elo)} Elo (95 %: ${span(rest.low, rest.high)}) to the gain now`;
    const line = el("line", { class: "projection", x1: x(now), x2: bx, y1: y(current.gain.elo), y2: y(atBudget.elo) });
    line.append(el("title", {}, title));
    const interval = el("line", {
      class: "projection projection-interval",
      x1: bx,
      x2: bx,
      y1: yOf(atBudget.low, bottom),
      y2: yOf(atBudget.high, top),
    });
    interval.append(el("title", {}, title));
    svg.append(line, interval);
    // Caps at its finite ends and a ring at the projection, so it reads as an interval.
    for (const end of [atBudget.low, atBudget.high].filter((v) => v !== null))
      svg.append(el("line", { class: "projection", x1: bx - 5, x2: bx + 5, y1: y(end), y2: y(end) }));
    const projected = el("circle", { class: "projection-point", cx: bx, cy: y(atBudget.elo), r: 3 });
    projected.append(el("title", {}, title));
    svg.append(projected);
    if (atBudget.high === null) svg.append(openEnd(bx, top, true, title));
    if (atBudget.low === null) svg.append(openEnd(bx, bottom, false, title));
  }
  return svg;
}
