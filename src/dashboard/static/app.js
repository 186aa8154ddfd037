// The dashboard page: the runs list at /, one run at /run/NAME; re-read whenever the server
// forwards a database notification (a reported batch, a new iteration), without a reload. A run
// page loads the run once, then asks only for what changed since its last look, for the charts it
// shows: every parameter's, or on a larger run a page of them (the most moved first, or a search).
import { barChart, ELO_MEAN_POINTS, eloChart, gainChart, parameterChart, short } from "./charts.js";

// No token in any address: the server swapped it for an HttpOnly cookie, which fetch and EventSource send.
const app = document.getElementById("app");

function h(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  node.append(...children.filter((c) => c !== null && c !== undefined).map((c) => (c instanceof Node ? c : String(c))));
  return node;
}

/** A table; `classes`, if given, a class for each column's cells (the worker table's "more" columns). */
function table(headers, rows, empty, classes = []) {
  if (rows.length === 0) return h("p", {}, empty);
  const numeric = headers.map((_, i) => rows.every((r) => typeof r[i] === "number"));
  const cellClass = (i, extra) => [classes[i], extra].filter(Boolean).join(" ");
  const attributes = (i, extra) => (cellClass(i, extra) === "" ? {} : { class: cellClass(i, extra) });
  return h(
    "table",
    {},
    h("thead", {}, h("tr", {}, ...headers.map((t, i) => h("th", attributes(i), t)))),
    h(
      "tbody",
      {},
      ...rows.map((r) =>
        h("tr", {}, ...r.map((cell, i) => h("td", attributes(i, numeric[i] ? "num" : undefined), cell))),
      ),
    ),
  );
}

/** "1 crash, 2 time losses": the engines' faults by kind, only those seen ("0": none). */
function faultKinds(kinds) {
  const one = { crashes: "crash", timeLosses: "time loss", illegalMoves: "illegal move" };
  const many = { crashes: "crashes", timeLosses: "time losses", illegalMoves: "illegal moves" };
  const seen = Object.keys(one).filter((kind) => (kinds[kind] ?? 0) > 0);
  return seen.length === 0
    ? "0"
    : seen.map((kind) => `${kinds[kind]} ${kinds[kind] === 1 ? one[kind] : many[kind]}`).join(", ");
}

/** An iteration's Elo as a cell: a number, or at the cap ([spsa] elo_cap) the number marked "(capped)". */
function eloCell(it) {
  if (it.elo === null) return "";
  return it.capped ? `${it.elo.toFixed(1)} (capped)` : Number(it.elo.toFixed(1));
}

/** What the latest iteration was played with, but its parameters (the table above shows those): gains and time per move or node limit. */
function latestSettings(settings) {
  if (!settings) return null;
  const { spsa, timelowMs, timehighMs, moveLimit, referenceNps } = settings;
  return moveLimit ? { spsa, moveLimit } : { spsa, timelowMs, timehighMs, referenceNps };
}

function duration(seconds) {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

const runName = location.pathname.startsWith("/run/") ? decodeURIComponent(location.pathname.slice(5)) : undefined;

async function fetchJson(path) {
  const response = await fetch(path);
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

async function showRuns() {
  const runs = await fetchJson("/api/runs");
  document.title = "spsa: runs";
  app.replaceChildren(
    h("h1", {}, "Runs"),
    table(
      ["run", "status", "iteration", "games played", "last activity"],
      runs.map((r) => [
        h("a", { href: `/run/${encodeURIComponent(r.name)}`, class: "run-link" }, r.name),
        r.status,
        iterationOf(r),
        r.games,
        new Date(r.lastActivity).toLocaleString(),
      ]),
      "No runs yet: start one with spsa master or spsa demo.",
    ),
  );
}

/**
 * A run's iteration as its master names it: "3 of 4 (2 complete)" (the one being played; those opened
 * ahead of it are not counted), "none yet", or a UCI-option run's "UCI options" (it has no iterations).
 */
function iterationOf(r) {
  if (r.iteration === null) return "UCI options";
  if (r.iteration === 0) return "none yet";
  return `${r.iteration} of ${r.maxIterations ?? "?"} (${r.completed} complete)`;
}

/** Where the run is: its iterations, or a UCI-option run's batches and games (its one iteration holds them all). */
function progressLine(status) {
  const { iteration, games, perturbations } = status;
  const open = iteration.current > iteration.completed;
  const where = perturbations
    ? [
        `UCI-option run: ${perturbations.applied} batches applied, ${perturbations.inFlight} in flight`,
        `${iteration.gamesPlayed}/${iteration.targetGames} games`,
      ]
    : [
        `iteration ${iteration.current} of ${iteration.max}`,
        open ? `${iteration.gamesPlayed}/${iteration.targetGames} games` : `${iteration.completed} complete`,
        iteration.ahead === 0
          ? null
          : iteration.ahead === 1
            ? `iteration ${iteration.current + 1} opened ahead`
            : `iterations ${iteration.current + 1}–${iteration.latest} opened ahead`,
      ];
  return [
    ...where,
    `${games.total} games in total`,
    `${games.perMinute.toFixed(1)} games/min over the last ${duration(games.rateSeconds)}`,
    games.etaSeconds === null ? null : `run ETA ${duration(games.etaSeconds)}`,
    games.iterationEtaSeconds === null ? null : `iteration ETA ${duration(games.iterationEtaSeconds)}`,
    status.waiting === null ? null : `waiting: ${status.waiting}`,
    `faults: ${faultKinds(status.faultKinds)}`,
    `delays outside the engines: ${status.delays.losses} lost, ${status.delays.replays} replayed`,
  ]
    .filter((part) => part !== null)
    .join(" · ");
}

/** An iteration's results: "+9 -8 =7" (plus against minus), or in reference mode each side's against the reference with its score. */
function results(it) {
  if (!it.reference) return `+${it.plusWins} -${it.minusWins} =${it.draws}`;
  const side = (label, s) => {
    const games = s.wins + s.draws + s.losses;
    return `${label} +${s.wins} -${s.losses} =${s.draws}${games > 0 ? ` (${((100 * (s.wins + s.draws / 2)) / games).toFixed(1)}%)` : ""}`;
  };
  return `${side("θ+", it.reference.plus)} · ${side("θ−", it.reference.minus)}`;
}

/** The open run page: its first load, the charts it draws (with their history), which ones, and where its last look ended. */
let run = null;

/** Charts per page of a large run's parameters (the server's CHARTS_PER_PAGE). */
const CHARTS_PER_PAGE = 24;
/** A chart keeps at most this many points: beyond, every other older one is dropped (the server samples a first load to 400). */
const MAX_CHART_POINTS = 800;

async function showRun(name) {
  if (run?.name !== name) {
    const detail = await fetchJson(`/api/runs/${encodeURIComponent(name)}`);
    run = { name, detail, charts: detail.status.parameters, query: "", page: 0 };
    buildRun();
  } else {
    // A refresh: only what changed since the last look, for the charts on the page (the gain's after its last point).
    const charts = run.charts.map((p) => `&chart=${encodeURIComponent(p.name)}`).join("");
    const gainAt = run.detail.gainSeries.at(-1)?.at;
    const gain = gainAt === undefined ? "" : `&gain=${gainAt}`;
    merge(await fetchJson(`/api/runs/${encodeURIComponent(name)}?since=${run.detail.cursor}${charts}${gain}`));
  }
  renderRun();
}

/** A chart's points, every other older one dropped while over MAX_CHART_POINTS (the newest kept). */
function thinned(points) {
  let kept = points;
  while (kept.length > MAX_CHART_POINTS) kept = kept.filter((_, i) => i % 2 === 0 || i === kept.length - 1);
  return kept;
}

/**
 * A refresh's answer into the page's data: new points appended to the charts (the gain's too),
 * Elo windows from the first it holds replaced.
 */
function merge(update) {
  const { detail } = run;
  const fresh = new Map(update.status.parameters.map((p) => [p.name, p]));
  run.charts = run.charts.map((chart) => {
    const now = fresh.get(chart.name);
    if (!now) return chart;
    const last = chart.history.at(-1)?.iteration ?? -1;
    const history = thinned([...chart.history, ...now.history.filter((point) => point.iteration > last)]);
    return { ...now, start: chart.start, history };
  });
  // A UCI-option run's refresh holds the windows from the one its cursor was in; a build-mode run's, all of them (at most 400).
  const from = update.elo[0]?.first;
  const elo = !detail.status.perturbations
    ? update.elo
    : from === undefined
      ? detail.elo
      : [...detail.elo.filter((w) => w.first < from), ...update.elo];
  const gainAt = detail.gainSeries.at(-1)?.at ?? -1;
  const gainSeries = thinned([...detail.gainSeries, ...update.gainSeries.filter((p) => p.at > gainAt)]);
  run.detail = { ...detail, ...update, elo, gainSeries, status: { ...update.status, parameters: run.charts } };
}

/** The parameters the search matches, those that moved most first (the page's index, as of its load). */
function matching() {
  const { names, steps } = run.detail.parameterIndex;
  const query = run.query.trim().toLowerCase();
  const order = names
    .map((name, i) => ({ name, moved: Math.abs(steps[i] ?? 0) }))
    .filter((p) => p.name.toLowerCase().includes(query));
  return order.sort((a, b) => b.moved - a.moved || (a.name < b.name ? -1 : 1)).map((p) => p.name);
}

/** Charts a page of the matching parameters: their whole history, fetched once. */
async function choose(query, page) {
  run.query = query;
  const names = matching();
  run.page = Math.max(0, Math.min(page, Math.ceil(names.length / CHARTS_PER_PAGE) - 1));
  const chosen = names.slice(run.page * CHARTS_PER_PAGE, (run.page + 1) * CHARTS_PER_PAGE);
  const charts =
    chosen.length === 0
      ? { parameters: [] }
      : await fetchJson(
          `/api/runs/${encodeURIComponent(run.name)}?${chosen.map((n) => `chart=${encodeURIComponent(n)}`).join("&")}`,
        );
  run.charts = charts.parameters;
  renderCharts();
}

/** The page's sections, made once; a refresh fills them again, but for the search box (it keeps its text and focus). */
function buildRun() {
  const section = (id) => h("div", { id });
  const index = run.detail.parameterIndex;
  let typing;
  const search = h("input", {
    id: "parameter-search",
    type: "search",
    placeholder: "search parameters",
    "aria-label": "search parameters",
  });
  search.addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(() => choose(search.value, 0), 250);
  });
  const previous = h("button", { id: "charts-previous", type: "button" }, "◀ previous");
  const next = h("button", { id: "charts-next", type: "button" }, "next ▶");
  previous.addEventListener("click", () => choose(run.query, run.page - 1));
  next.addEventListener("click", () => choose(run.query, run.page + 1));
  app.replaceChildren(
    ...[
      section("run-head"),
      legendSection(run.detail.legend),
      h("h2", {}, "Parameters"),
      section("parameter-summary"),
      index ? h("p", { class: "chart-controls" }, search, previous, h("span", { id: "charts-page" }), next) : null,
      h("div", { class: "charts", id: "parameter-charts" }),
      section("run-body"),
    ].filter((part) => part !== null),
  );
}

function renderRun() {
  document.title = `spsa: ${run.name}`;
  const { detail } = run;
  const { status } = detail;
  const { reference } = status;
  document.getElementById("run-head").replaceChildren(
    ...[
      h(
        "h1",
        {},
        `Run ${status.run.name} `,
        h("small", {}, `(${status.run.status}, seed ${status.run.seed})`),
        legendButton(),
      ),
      h("p", { id: "progress", class: "progress" }, progressLine(status)),
      reference
        ? h(
            "p",
            { id: "reference" },
            `Reference mode: θ+ and θ− each play ${reference.engine === "start" ? "θ₀, built at the run's start" : reference.engine}${reference.sha256 ? ` (sha256 ${reference.sha256.slice(0, 12)})` : ""}.`,
          )
        : null,
      // The ship check's verdict (docs/ship-check.md); a candidate that did not pass is marked.
      status.ship
        ? h(
            "p",
            {
              id: "ship",
              class: status.ship.status === "complete" && status.ship.verdict !== "pass" ? "ship not-passed" : "ship",
            },
            status.ship.summary,
          )
        : null,
      // Transfer in the run: the correlation and the parameters whose gradient signs disagree at the ship limits.
      status.transfer ? h("p", { id: "transfer", class: "ship" }, status.transfer.summary) : null,
    ].filter((part) => part !== null),
  );
  renderCharts();
  document.getElementById("run-body").replaceChildren(...runBody(detail));
}

/** What the page's words mean (src/status/legend.ts, as spsa status --explain prints it), hidden until asked for. */
function legendSection(legend) {
  const parts = [
    ["run", "The run"],
    ["workers", "The workers of this run"],
    ["parameters", "The parameters"],
  ];
  return h(
    "section",
    { id: "legend", hidden: "" },
    h("h2", {}, "What the words mean"),
    ...parts.flatMap(([part, heading]) => [
      h("h3", {}, heading),
      h(
        "dl",
        {},
        ...legend.filter((e) => e.part === part).flatMap((e) => [h("dt", {}, e.term), h("dd", {}, e.meaning)]),
      ),
    ]),
  );
}

function toggleLegend() {
  const legend = document.getElementById("legend");
  if (!legend) return;
  legend.hidden = !legend.hidden;
  if (!legend.hidden) legend.scrollIntoView({ block: "nearest" });
}

/** The "?" beside the run's name: the legend, also on the "?" key. */
function legendButton() {
  const button = h(
    "button",
    { id: "legend-toggle", type: "button", title: "what the words mean (key: ?)", "aria-label": "what the words mean" },
    "?",
  );
  button.addEventListener("click", toggleLegend);
  return button;
}

document.addEventListener("keydown", (event) => {
  const typing = ["INPUT", "TEXTAREA"].includes(event.target?.tagName);
  if (event.key === "?" && !typing && !event.ctrlKey && !event.metaKey && !event.altKey) toggleLegend();
});

/** How far a large run's parameters moved, and which of them the charts show. */
function renderCharts() {
  const summary = run.detail.status.parameterSummary;
  const index = run.detail.parameterIndex;
  const bins = summary.histogram.map(
    (b) =>
      `${b.from === 0 && b.to === 0 ? "0" : b.from === null ? `≤ ${b.to}` : b.to === null ? `≥ ${b.from}` : `${b.from} … ${b.to}`}: ${b.count}`,
  );
  document
    .getElementById("parameter-summary")
    .replaceChildren(
      ...(index
        ? [
            h(
              "p",
              { id: "moves" },
              `${summary.count} parameters, ${summary.moved} moved from their start${summary.frozen > 0 ? `, ${summary.frozen} frozen` : ""}. Moves in steps: ${bins.join(" · ")}`,
            ),
          ]
        : []),
    );
  if (index) {
    const names = matching();
    const pages = Math.max(1, Math.ceil(names.length / CHARTS_PER_PAGE));
    document.getElementById("charts-page").textContent =
      ` ${names.length} ${run.query ? "matching" : ""} parameters, the most moved first: page ${run.page + 1} of ${pages} `;
    document.getElementById("charts-previous").disabled = run.page === 0;
    document.getElementById("charts-next").disabled = run.page >= pages - 1;
  }
  document
    .getElementById("parameter-charts")
    .replaceChildren(
      ...run.charts.map((p) =>
        h(
          "figure",
          { class: "param-chart", "data-parameter": p.name, "data-points": p.history.length },
          h(
            "figcaption",
            {},
            p.name,
            " ",
            h(
              "span",
              {},
              `${short(p.start)} → ${short(p.now)}${p.steps === null ? "" : ` (${p.steps >= 0 ? "+" : ""}${p.steps.toFixed(2)} steps)`}${p.min === null ? "" : ` in [${p.min}, ${p.max}]`}`,
            ),
          ),
          parameterChart(p.history, p),
        ),
      ),
    );
}

/** Everything below the charts. */
function runBody(detail) {
  const { status } = detail;
  const { reference, perturbations } = status;
  const measured = reference ? "θ+ vs reference − θ− vs reference" : "plus vs minus";
  // A UCI-option run's Elo is charted per window of its batches, x in batches as its θ charts.
  const per = perturbations ? `${detail.eloWindowGames} games of batches` : "iteration";
  const nothingYet = perturbations ? "No batch applied yet." : "No iteration complete yet.";
  const latest = perturbations
    ? [
        h("h2", {}, "Latest batches"),
        h(
          "div",
          { id: "batches" },
          table(
            ["batch", "games", "worker", "plus +W -L =D", `Elo (${measured})`],
            perturbations.recent.map((b) => [
              b.batchNumber,
              b.games,
              b.worker,
              `+${b.plusWins} -${b.minusWins} =${b.draws}`,
              Number(b.elo.toFixed(1)),
            ]),
            nothingYet,
          ),
        ),
      ]
    : [
        h("h2", {}, "Latest iterations"),
        h(
          "div",
          { id: "iterations" },
          table(
            [
              "iteration",
              "status",
              "games",
              reference ? "results against the reference" : "plus +W -L =D",
              `Elo (${measured})`,
            ],
            status.recent.map((it) => [
              it.iteration,
              it.pilot ? `${it.status} (curvature pilot, against θ₀)` : it.status,
              `${it.gamesPlayed}/${it.targetGames}`,
              results(it),
              eloCell(it),
            ]),
            "No iteration yet.",
          ),
        ),
      ];
  return [
    h("h2", {}, `Elo per ${per} (${measured}, 95 % error bars; line: mean of the last ${ELO_MEAN_POINTS})`),
    detail.elo.length === 0
      ? h("p", {}, nothingYet)
      : h("figure", { id: "elo-chart" }, eloChart(detail.elo, perturbations ? "batches" : "iteration")),
    status.pilot.length === 0
      ? null
      : h(
          "p",
          { id: "pilot" },
          `Curvature pilot (θ+ and θ− each against θ₀; not in the chart or its mean): ${status.pilot
            .map(
              (it) => `#${it.iteration} ${results(it)}` + (it.elo === null ? "" : `, Elo of θ+ over θ− ${eloCell(it)}`),
            )
            .join("; ")}`,
        ),
    detail.optionPilot === null ? null : h("p", { id: "pilot" }, detail.optionPilot),
    ...gainSection(detail),
    ...latest,
    h("h2", {}, `Games per minute, per ${duration(detail.gamesRate.bucketSeconds)} since the run's start`),
    detail.gamesRate.points.every((p) => p.games === 0)
      ? h("p", {}, nothingYet)
      : h("figure", { id: "games-chart" }, gamesRateChart(detail.gamesRate)),
    h("h2", {}, "Workers of this run"),
    ...runWorkers(status),
    h("h2", {}, "Faults and delays outside the engines"),
    table(detail.faults.headers, detail.faults.rows, "No engine faults or delays."),
    h("h2", {}, "Verification results"),
    table(
      ["comparison", "limits", "status", "games", "W", "L", "D", "Elo", "±", "LOS %", "verdict"],
      detail.verifications.map((v) => [
        v.comparison,
        v.limits_text,
        v.status,
        v.games,
        v.wins,
        v.losses,
        v.draws,
        v.elo ?? "",
        v.elo_error ?? "",
        v.los_percent ?? "",
        v.verdict ?? "",
      ]),
      "No verification yet: run spsa verify.",
    ),
    h("h2", {}, "Faulted games kept"),
    table(
      ["id", "iteration", "worker", "engine", "fault", "reason", "at"],
      detail.faultedGames.map((g) => [
        g.id,
        g.iteration,
        g.workerName,
        g.side,
        g.fault,
        g.reason,
        new Date(g.createdAt).toLocaleString(),
      ]),
      "No faulted game kept. spsa export --faulted writes them as PGN.",
    ),
    h("h2", {}, "Configuration"),
    h("pre", {}, JSON.stringify({ config: detail.config, latestIteration: latestSettings(detail.settings) }, null, 2)),
  ].filter((part) => part !== null);
}

/**
 * A UCI-option run's Elo gained so far: its chart over the run (only for a run with gain blocks)
 * and the status's lines under it.
 */
function gainSection(detail) {
  const { iteration, gain } = detail.status;
  return [
    ...(detail.gainSeries.length === 0
      ? []
      : [
          h(
            "h2",
            {},
            "Elo gained so far (θ against θ₀ at each gain block's end, 95 % band; dashed: the rest of the budget, projected)",
          ),
          h(
            "figure",
            { id: "gain-chart" },
            gainChart(detail.gainSeries, { now: iteration.gamesPlayed, budget: iteration.targetGames, current: gain }),
          ),
        ]),
    ...detail.gain.map((line) => h("p", { class: "gain" }, line)),
  ];
}

/** Games per minute per bucket, x in time since the run's start ("+0s" … "+2h05m"), each bar's title its span, games and rate. */
function gamesRateChart({ bucketSeconds, points }) {
  const bars = points.map((p) => ({
    label: `+${duration(p.from)} to +${duration(p.from + bucketSeconds)} (${p.games} games), games per minute`,
    value: Number(p.perMinute.toFixed(1)),
  }));
  return barChart(bars, ["+0s", `+${duration(points.length * bucketSeconds)}`]);
}

/** The worker table's columns shown at once (fits a laptop's screen); the others with "details". */
const WORKER_COLUMNS = ["worker", "games", "+W/=D/−L %", "faults", "delays", "last seen", "playing", "verdict"];
const MORE_WORKER_COLUMNS = [
  "host",
  "conc",
  "games/min",
  "nps",
  "time ×",
  "score (pool)",
  "score z",
  "draws",
  "extreme batches",
  "residual",
  "most agreeing parameter",
  "held",
  "decided by",
  "concurrency note",
];

/** Whether the worker table shows every column: kept across refreshes. */
let workerDetails = false;

/**
 * The workers' table: WORKER_COLUMNS, then the rest (class "more") shown with the "details" button.
 * A worker playing its first batch has a row from its claimed batches alone.
 */
function workerTable(workers, percent, z, shares) {
  const pool = (x) => (x === null ? "no pool" : percent(x));
  const rows = workers.map((w) => {
    const e = w.evidence;
    const p = e ? e.parameters[0] : undefined;
    return [
      w.name,
      w.games,
      shares(w),
      w.engineFaults,
      w.delayLosses + w.replays === 0 ? "" : `${w.delayLosses} lost, ${w.replays} replayed`,
      w.secondsAgo === null ? "" : `${duration(w.secondsAgo)} ago`,
      w.playing ? playingText(w.playing) : "",
      w.verdict,
      w.host ?? "",
      w.concurrency ?? "",
      Number(w.gamesPerMinute.toFixed(1)),
      w.measuredNps === null ? "" : Math.round(w.measuredNps),
      w.timeFactor === null ? "" : Number(w.timeFactor.toFixed(3)),
      e ? `${percent(e.score)} (${pool(e.poolScore)})` : "",
      z(e?.scoreZ),
      e ? `${percent(e.draws)} (${pool(e.poolDraws)})` : "",
      e ? `${percent(e.extremes)} (${pool(e.poolExtremes)})` : "",
      e ? (e.residual === null ? "- (too few pairs)" : Number(e.residual.toFixed(1))) : "",
      p
        ? `${p.name} ${p.agreement.toFixed(2)} ` +
          `(${p.poolAgreement === null ? "no pool" : `pool ${p.poolAgreement.toFixed(2)}`}) z ${p.z.toFixed(1)}`
        : "",
      w.undone > 0 ? `${w.held}, ${w.undone} undone` : w.held,
      w.decision ? `${w.decision.by}, ${new Date(w.decision.at).toLocaleString()}` : "",
      w.concurrencyNote ?? "",
    ];
  });
  const classes = [...WORKER_COLUMNS.map(() => ""), ...MORE_WORKER_COLUMNS.map(() => "more")];
  const toggle = h("button", { id: "worker-details", type: "button" }, workerDetails ? "fewer columns" : "details");
  const box = h(
    "div",
    { id: "workers", class: workerDetails ? "details" : "" },
    table(
      [...WORKER_COLUMNS, ...MORE_WORKER_COLUMNS],
      rows,
      "No worker has played in this run yet: start one with compete --spsa.",
      classes,
    ),
  );
  toggle.addEventListener("click", () => {
    workerDetails = !workerDetails;
    box.classList.toggle("details", workerDetails);
    toggle.textContent = workerDetails ? "fewer columns" : "details";
  });
  return h("div", {}, workers.length === 0 ? null : h("p", { class: "chart-controls" }, toggle), box);
}

/** "batch 7 (8 games of iteration 3) for 1m10s": what a worker holds now, claimed and not yet reported. */
function playingText(p) {
  const batches = p.batchIds.length === 1 ? `batch ${p.batchIds[0]}` : `batches ${p.batchIds.join(", ")}`;
  const iterations =
    p.iterations.length === 1 ? `iteration ${p.iterations[0]}` : `iterations ${p.iterations.join(", ")}`;
  return `${batches} (${p.games} games of ${iterations}) for ${duration(p.seconds)}`;
}

/**
 * The run's workers, a row each from this run's games (docs/watching.md): a line per worker under
 * suspicion, the table with each one's evidence against the pool's and its verdict, and the
 * workers not seen for a while in one line.
 */
function runWorkers(status) {
  const { workers, staleWorkers: stale, workerReview: review } = status;
  const percent = (x) => (x === null ? "?" : `${(100 * x).toFixed(1)}%`);
  const z = (x) => (x === null || x === undefined ? "" : Number(x.toFixed(1)));
  // Of its plus-vs-minus games: the curvature pilot's, against θ₀, have no plus or minus wins.
  const shares = (w) => {
    const games = w.wins + w.draws + w.losses;
    return games === 0 ? "" : [w.wins, w.draws, w.losses].map((n) => Math.round((100 * n) / games)).join("/");
  };
  return [
    ...review.suspects.map((s) =>
      h(
        "p",
        { class: "suspect" },
        `suspect worker ${s.worker}: ${s.reason} (since ${new Date(s.since).toLocaleString()}; spsa workers accept|reject ${s.worker})`,
      ),
    ),
    h(
      "p",
      {},
      `Games counted in this run; ${review.reviewedAt === null ? "the master has not judged its workers yet" : `judged at ${new Date(review.reviewedAt).toLocaleString()} over ${review.strata} strata (in parentheses the pool's)`}.`,
    ),
    workerTable(workers, percent, z, shares),
    stale
      ? h(
          "p",
          { id: "stale-workers" },
          `${stale.count} more ${stale.count === 1 ? "worker" : "workers"} not seen for ${stale.minutes} min before the run's latest report (${stale.names.join(", ")}${stale.count > stale.names.length ? ` and ${stale.count - stale.names.length} more` : ""}): ${stale.games} games, the latest at ${new Date(stale.lastSeen).toLocaleString()}.`,
        )
      : null,
  ];
}

const show = () => (runName === undefined ? showRuns() : showRun(runName));
const live = document.getElementById("live");

// One read at a time; notifications arriving meanwhile cause one more read after it.
let reading = null;
let again = false;
async function refresh() {
  if (reading) {
    again = true;
    return;
  }
  reading = show().catch((error) => {
    // The next read starts over with a first load.
    run = null;
    app.replaceChildren(h("p", { class: "error" }, String(error.message)));
  });
  await reading;
  reading = null;
  if (again) {
    again = false;
    await refresh();
  }
}

const events = new EventSource("/events");
events.addEventListener("open", () => (live.textContent = "live"));
events.addEventListener("error", () => (live.textContent = "reconnecting…"));
events.addEventListener("progress", () => refresh());
events.addEventListener("iteration", () => refresh());
await refresh();
