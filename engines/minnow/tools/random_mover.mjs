#!/usr/bin/env node
// A UCI engine that plays a uniformly random legal move. Uses chess.js from the repo's
// node_modules (run `npm ci` in the repo root first). Usage: node random_mover.mjs
import { Chess } from "chess.js";
import { createInterface } from "node:readline";

let game = new Chess();
const rl = createInterface({ input: process.stdin });
const out = (s) => process.stdout.write(s + "\n");

rl.on("line", (line) => {
  const t = line.trim().split(/\s+/);
  switch (t[0]) {
    case "uci":
      out("id name random_mover");
      out("id author the SPSA tuner project");
      out("uciok");
      break;
    case "isready":
      out("readyok");
      break;
    case "ucinewgame":
      game = new Chess();
      break;
    case "position": {
      let i = 1;
      if (t[1] === "fen") {
        const m = t.indexOf("moves");
        game = new Chess(t.slice(2, m < 0 ? t.length : m).join(" "));
        i = m < 0 ? t.length : m;
      } else {
        game = new Chess();
        i = 2;
      }
      if (t[i] === "moves") {
        for (const mv of t.slice(i + 1)) {
          game.move({ from: mv.slice(0, 2), to: mv.slice(2, 4), promotion: mv[4] });
        }
      }
      break;
    }
    case "go": {
      const moves = game.moves({ verbose: true });
      const m = moves[Math.floor(Math.random() * moves.length)];
      out("bestmove " + (m ? m.from + m.to + (m.promotion ?? "") : "0000"));
      break;
    }
    case "quit":
      process.exit(0);
  }
});
