//! minnow: a small UCI chess engine whose strength depends on `engine_constants.rs`.

// First: `tunables!` is used by engine_constants.rs.
#[macro_use]
mod tunables;

mod batch;
mod board;
mod engine_constants;
mod eval;
mod params;
mod pst;
mod search;

use board::*;
use search::{Limits, Searcher};
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

const DEFAULT_HASH_MB: usize = 16;

struct Engine {
    pos: Position,
    game_hist: Vec<u64>,
    searcher: Option<Box<Searcher>>,
    handle: Option<JoinHandle<Box<Searcher>>>,
    stop: Arc<AtomicBool>,
}

impl Engine {
    fn new() -> Engine {
        let stop = Arc::new(AtomicBool::new(false));
        Engine {
            pos: Position::startpos(),
            game_hist: Vec::new(),
            searcher: Some(Box::new(Searcher::new(DEFAULT_HASH_MB, stop.clone()))),
            handle: None,
            stop,
        }
    }

    /// Stop any running search and take the searcher back.
    fn finish_search(&mut self) {
        if let Some(h) = self.handle.take() {
            self.stop.store(true, Ordering::SeqCst);
            match h.join() {
                Ok(s) => self.searcher = Some(s),
                Err(_) => self.searcher = Some(Box::new(Searcher::new(DEFAULT_HASH_MB, self.stop.clone()))),
            }
        }
    }

    fn searcher(&mut self) -> &mut Searcher {
        self.finish_search();
        self.searcher.as_mut().unwrap()
    }

    fn set_position(&mut self, tokens: &[&str]) {
        let mut i = 1;
        let mut pos = if tokens.get(1) == Some(&"fen") {
            let mut fen = Vec::new();
            i = 2;
            while i < tokens.len() && tokens[i] != "moves" {
                fen.push(tokens[i]);
                i += 1;
            }
            match Position::from_fen(&fen.join(" ")) {
                Some(p) => p,
                None => {
                    println!("info string invalid fen");
                    return;
                }
            }
        } else {
            if tokens.get(1) == Some(&"startpos") {
                i = 2;
            }
            Position::startpos()
        };
        let mut hist = Vec::new();
        if tokens.get(i) == Some(&"moves") {
            for mv in &tokens[i + 1..] {
                match pos.parse_move(mv) {
                    Some(m) => {
                        hist.push(pos.hash);
                        pos = pos.make(m).unwrap();
                    }
                    None => {
                        println!("info string illegal move {}", mv);
                        break;
                    }
                }
            }
        }
        self.pos = pos;
        self.game_hist = hist;
    }

    fn go(&mut self, tokens: &[&str]) {
        let mut l = Limits::default();
        let mut i = 1;
        let num = |i: usize| tokens.get(i + 1).and_then(|s| s.parse::<i64>().ok()).map(|v| v.max(0) as u64);
        while i < tokens.len() {
            match tokens[i] {
                "depth" => l.depth = num(i).map(|v| v as i32),
                "nodes" => l.nodes = num(i),
                "movetime" => l.movetime = num(i),
                "wtime" => l.wtime = num(i),
                "btime" => l.btime = num(i),
                "winc" => l.winc = num(i),
                "binc" => l.binc = num(i),
                "movestogo" => l.movestogo = num(i),
                "infinite" => l.infinite = true,
                _ => {}
            }
            i += 1;
        }
        if l.depth.is_none() && l.nodes.is_none() && l.movetime.is_none() && l.wtime.is_none() && l.btime.is_none() {
            l.infinite = true;
        }
        self.finish_search();
        self.stop.store(false, Ordering::SeqCst);
        let mut s = self.searcher.take().unwrap();
        let pos = self.pos;
        let hist = self.game_hist.clone();
        self.handle = Some(std::thread::spawn(move || {
            let best = s.think(&pos, &hist, &l);
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "bestmove {}", best.uci());
            let _ = out.flush();
            s
        }));
    }
}

fn bench(depth: i32) {
    let fens = [
        START_FEN,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        "r1bq1rk1/pp3ppp/2n1pn2/2bp4/2P5/2N1PN2/PPQ1BPPP/R1B2RK1 b - - 3 9",
        "8/8/1k6/8/8/8/6K1/7Q b - - 0 1",
    ];
    let stop = Arc::new(AtomicBool::new(false));
    let mut s = Searcher::new(16, stop);
    s.silent = true;
    let mut nodes = 0;
    let start = Instant::now();
    for fen in fens {
        let pos = Position::from_fen(fen).unwrap();
        s.clear();
        let l = Limits { depth: Some(depth), ..Default::default() };
        s.think(&pos, &[], &l);
        nodes += s.nodes;
    }
    let ms = start.elapsed().as_millis().max(1) as u64;
    println!("bench: {} nodes {} ms {} nps", nodes, ms, nodes * 1000 / ms);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(|s| s.as_str()) == Some("bench") {
        bench(args.get(2).and_then(|s| s.parse().ok()).unwrap_or(10));
        return;
    }
    let mut engine = Engine::new();
    let stdin = std::io::stdin();
    // One iterator over stdin: `evalbatch` reads its FEN lines from it too.
    let mut lines = stdin.lock().lines().map_while(Result::ok);
    let mut batch = batch::Batch::default();
    while let Some(line) = lines.next() {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        if tokens.is_empty() {
            continue;
        }
        // Options set by `setoption` take effect together before any other command (a
        // `setoption` stops the search, so none runs while options are pending).
        if tokens[0] != "setoption" {
            if let Some(s) = engine.searcher.as_mut() {
                s.params.apply_options();
            }
        }
        match tokens[0] {
            "uci" => {
                println!("id name minnow {}", env!("CARGO_PKG_VERSION"));
                println!("id author the SPSA tuner project");
                println!("option name Hash type spin default {} min 1 max 4096", DEFAULT_HASH_MB);
                engine.searcher().params.print_uci_options();
                println!("uciok");
            }
            "isready" => println!("readyok"),
            "ucinewgame" => {
                engine.searcher().clear();
                engine.pos = Position::startpos();
                engine.game_hist.clear();
            }
            "position" => {
                engine.finish_search();
                engine.set_position(&tokens);
            }
            "go" => engine.go(&tokens),
            "stop" => engine.finish_search(),
            "quit" => {
                engine.finish_search();
                break;
            }
            "setoption" => {
                // setoption name <name...> value <value...>
                let ni = tokens.iter().position(|&t| t == "name");
                let vi = tokens.iter().position(|&t| t == "value");
                if let Some(ni) = ni {
                    let end = vi.unwrap_or(tokens.len());
                    let name = tokens[ni + 1..end.max(ni + 1)].join(" ");
                    let value = vi.map(|v| tokens[v + 1..].join(" ")).unwrap_or_default();
                    let s = engine.searcher();
                    if name.eq_ignore_ascii_case("Hash") {
                        if let Ok(mb) = value.trim().parse::<usize>() {
                            s.resize_tt(mb.clamp(1, 4096));
                        }
                    } else if name.eq_ignore_ascii_case("Clear Hash") {
                        s.clear();
                    } else if !s.params.set_option(&name, &value) {
                        println!("info string unknown option {}", name);
                    }
                }
            }
            "perft" => {
                let d = tokens.get(1).and_then(|s| s.parse().ok()).unwrap_or(1);
                let start = Instant::now();
                let n = engine.pos.perft(d);
                println!("perft {} nodes {} time {} ms", d, n, start.elapsed().as_millis());
            }
            "eval" => {
                let pos = engine.pos;
                let s = engine.searcher();
                println!("eval {} cp (side to move)", eval::evaluate(&pos, &s.params));
            }
            "evalbatch" => match batch::Mode::parse(tokens.get(1).copied()) {
                Some(mode) => {
                    let reply = if tokens.get(2) == Some(&"again") {
                        batch.score(mode, engine.searcher())
                    } else {
                        batch.load(mode, &mut lines, engine.searcher())
                    };
                    let _ = std::io::stdout().lock().write_all(reply.as_bytes());
                }
                None => println!("info string evalbatch takes static, qsearch or both"),
            },
            _ => println!("info string unknown command {}", tokens[0]),
        }
        let _ = std::io::stdout().flush();
    }
    engine.finish_search();
}
