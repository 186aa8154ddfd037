#!/usr/bin/env node
// Minimal UCI match runner used to measure minnow's strength before the project's own
// `compete` command existed. Games are played in pairs from the same random opening
// (OPENING_PLIES random legal plies) with colours swapped. Adjudication by chess.js.
//
// usage: node match.mjs --a "CMD" --b "CMD" [--games N] [--movetime MS] [--tc WTIME+INC]
//          [--opening-plies 4] [--seed 1] [--a-opts "NAME=V,NAME=V"] [--b-opts ...]
import { Chess } from "chess.js";
import { spawn } from "node:child_process";

const args = Object.fromEntries(
  process.argv.slice(2).reduce((acc, v, i, a) => (v.startsWith("--") ? [...acc, [v.slice(2), a[i + 1]]] : acc), []),
);
const games = Number(args.games ?? 20);
const movetime = Number(args.movetime ?? 100);
const tc = args.tc; // e.g. "10000+100"
const openingPlies = Number(args["opening-plies"] ?? 4);
let seed = Number(args.seed ?? 1);
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed / 2147483648);

class Engine {
  constructor(cmd, opts) {
    this.proc = spawn("sh", ["-c", cmd], { stdio: ["pipe", "pipe", "inherit"] });
    this.buf = "";
    this.waiters = [];
    this.proc.stdout.on("data", (d) => {
      this.buf += d.toString();
      let i;
      while ((i = this.buf.indexOf("\n")) >= 0) {
        const line = this.buf.slice(0, i).trim();
        this.buf = this.buf.slice(i + 1);
        for (const w of [...this.waiters]) {
          if (line.startsWith(w.prefix)) {
            this.waiters.splice(this.waiters.indexOf(w), 1);
            w.resolve(line);
          }
        }
      }
    });
    this.opts = opts ? opts.split(",").map((kv) => kv.split("=")) : [];
  }
  send(s) {
    this.proc.stdin.write(s + "\n");
  }
  wait(prefix, ms = 60000) {
    return new Promise((resolve, reject) => {
      const w = { prefix, resolve };
      this.waiters.push(w);
      setTimeout(() => reject(new Error("timeout waiting for " + prefix)), ms);
    });
  }
  async init() {
    this.send("uci");
    await this.wait("uciok");
    for (const [k, v] of this.opts) this.send(`setoption name ${k} value ${v}`);
    this.send("isready");
    await this.wait("readyok");
  }
}

const A = new Engine(args.a, args["a-opts"]);
const B = new Engine(args.b, args["b-opts"]);
await A.init();
await B.init();

let score = 0, wins = 0, losses = 0, draws = 0, overruns = 0, maxOver = 0;
const reasons = {};
let opening = [];
for (let g = 0; g < games; g++) {
  if (g % 2 === 0) {
    const c = new Chess();
    opening = [];
    for (let i = 0; i < openingPlies; i++) {
      const ms = c.moves({ verbose: true });
      const m = ms[Math.floor(rand() * ms.length)];
      c.move(m);
      opening.push(m.from + m.to + (m.promotion ?? ""));
    }
  }
  const aWhite = g % 2 === 0;
  const white = aWhite ? A : B, black = aWhite ? B : A;
  const chess = new Chess();
  const moves = [];
  for (const m of opening) {
    chess.move({ from: m.slice(0, 2), to: m.slice(2, 4), promotion: m[4] });
    moves.push(m);
  }
  for (const e of [A, B]) {
    e.send("ucinewgame");
    e.send("isready");
    await e.wait("readyok");
  }
  let result = null, reason = "";
  const clock = tc ? tc.split("+").map(Number) : null;
  const time = clock ? [clock[0], clock[0]] : null;
  while (!result) {
    const side = chess.turn() === "w" ? 0 : 1;
    const e = side === 0 ? white : black;
    e.send("position startpos moves " + moves.join(" "));
    const t0 = Date.now();
    if (clock) e.send(`go wtime ${time[0]} btime ${time[1]} winc ${clock[1]} binc ${clock[1]}`);
    else e.send(`go movetime ${movetime}`);
    const line = await e.wait("bestmove");
    const used = Date.now() - t0;
    if (clock) {
      time[side] -= used;
      if (time[side] < 0) { result = side === 0 ? "0-1" : "1-0"; reason = "time"; break; }
      time[side] += clock[1];
    } else if (used > movetime) {
      maxOver = Math.max(maxOver, used - movetime);
      if (used > movetime + 50) overruns++;
    }
    const mv = line.split(/\s+/)[1];
    let ok = null;
    try { ok = chess.move({ from: mv.slice(0, 2), to: mv.slice(2, 4), promotion: mv[4] }); } catch { ok = null; }
    if (!ok) { result = side === 0 ? "0-1" : "1-0"; reason = "illegal " + mv; break; }
    moves.push(mv);
    if (chess.isCheckmate()) { result = side === 0 ? "1-0" : "0-1"; reason = "mate"; }
    else if (chess.isStalemate()) { result = "1/2"; reason = "stalemate"; }
    else if (chess.isInsufficientMaterial()) { result = "1/2"; reason = "material"; }
    else if (chess.isThreefoldRepetition()) { result = "1/2"; reason = "repetition"; }
    else if (chess.isDraw()) { result = "1/2"; reason = "50-move"; }
    else if (moves.length >= 400) { result = "1/2"; reason = "length"; }
  }
  const aScore = result === "1/2" ? 0.5 : (result === "1-0") === aWhite ? 1 : 0;
  score += aScore;
  if (aScore === 1) wins++; else if (aScore === 0) losses++; else draws++;
  reasons[reason] = (reasons[reason] ?? 0) + 1;
  console.log(`game ${g + 1}: A ${aWhite ? "white" : "black"} ${result} (${reason}, ${moves.length} plies)  A score ${score}/${g + 1}`);
}
const n = wins + losses + draws;
const s = score / n;
const elo = (x) => (x <= 0 ? -Infinity : x >= 1 ? Infinity : -400 * Math.log10(1 / x - 1));
const dev = Math.sqrt((wins * (1 - s) ** 2 + losses * (0 - s) ** 2 + draws * (0.5 - s) ** 2) / n / n);
console.log(`A vs B: +${wins} -${losses} =${draws}  score ${score}/${n} (${(100 * s).toFixed(1)}%)  Elo ${elo(s).toFixed(0)} +/- ${((elo(Math.min(0.999, s + 1.96 * dev)) - elo(Math.max(0.001, s - 1.96 * dev))) / 2).toFixed(0)}`);
console.log("endings:", JSON.stringify(reasons), ` movetime overruns >50ms: ${overruns}, max overrun ${maxOver} ms`);
A.send("quit");
B.send("quit");
setTimeout(() => process.exit(0), 200);
