//! Iterative deepening PVS with aspiration windows, transposition table, null move,
//! LMR, reverse futility, futility, late move pruning, SEE pruning, check extension,
//! quiescence search, and time management.

use crate::board::*;
use crate::eval::evaluate;
use crate::engine_constants::ALPHA_PRUNE_MAX_DEPTH;
use crate::params::Params;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

pub const INF: i32 = 32000;
pub const MATE: i32 = 31000;
pub const MAX_PLY: usize = 128;
const MATE_BOUND: i32 = MATE - MAX_PLY as i32;

const BOUND_EXACT: u8 = 1;
const BOUND_LOWER: u8 = 2;
const BOUND_UPPER: u8 = 3;

#[derive(Copy, Clone, Default)]
struct TTEntry {
    key: u64,
    mv: u16,
    score: i16,
    depth: i8,
    bound: u8,
}

#[derive(Default, Clone, Debug)]
pub struct Limits {
    pub depth: Option<i32>,
    pub nodes: Option<u64>,
    pub movetime: Option<u64>,
    pub wtime: Option<u64>,
    pub btime: Option<u64>,
    pub winc: Option<u64>,
    pub binc: Option<u64>,
    pub movestogo: Option<u64>,
    pub infinite: bool,
}

pub struct Searcher {
    pub params: Params,
    tt: Vec<TTEntry>,
    killers: [[Move; 2]; MAX_PLY + 1],
    history: Box<[[[i32; 64]; 64]; 2]>,
    pv: Box<[[Move; MAX_PLY + 1]; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 1],
    pub nodes: u64,
    seldepth: usize,
    stop: Arc<AtomicBool>,
    start: Instant,
    hard_ms: u64,
    node_limit: u64,
    stopped: bool,
    hist: Vec<u64>,
    root_best: Move,
    /// false during the first iteration, so that some move is always searched
    can_stop: bool,
    pub silent: bool,
}

fn to_tt(score: i32, ply: usize) -> i32 {
    if score > MATE_BOUND {
        score + ply as i32
    } else if score < -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn from_tt(score: i32, ply: usize) -> i32 {
    if score > MATE_BOUND {
        score - ply as i32
    } else if score < -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

impl Searcher {
    pub fn new(hash_mb: usize, stop: Arc<AtomicBool>) -> Searcher {
        let mut s = Searcher {
            params: Params::default(),
            tt: Vec::new(),
            killers: [[Move::NONE; 2]; MAX_PLY + 1],
            history: Box::new([[[0; 64]; 64]; 2]),
            pv: Box::new([[Move::NONE; MAX_PLY + 1]; MAX_PLY + 1]),
            pv_len: [0; MAX_PLY + 1],
            nodes: 0,
            seldepth: 0,
            stop,
            start: Instant::now(),
            hard_ms: u64::MAX,
            node_limit: u64::MAX,
            stopped: false,
            hist: Vec::new(),
            root_best: Move::NONE,
            can_stop: false,
            silent: false,
        };
        s.resize_tt(hash_mb);
        s
    }

    pub fn resize_tt(&mut self, mb: usize) {
        let n = mb.max(1) * 1024 * 1024 / std::mem::size_of::<TTEntry>();
        let entries = if n.is_power_of_two() { n } else { n.next_power_of_two() / 2 };
        self.tt = vec![TTEntry::default(); entries.max(1024)];
    }

    pub fn clear(&mut self) {
        for e in self.tt.iter_mut() {
            *e = TTEntry::default();
        }
        *self.history = [[[0; 64]; 64]; 2];
        self.killers = [[Move::NONE; 2]; MAX_PLY + 1];
    }

    #[inline(always)]
    fn tt_index(&self, key: u64) -> usize {
        (key as usize) & (self.tt.len() - 1)
    }

    fn tt_probe(&self, key: u64) -> Option<TTEntry> {
        let e = self.tt[self.tt_index(key)];
        if e.key == key && e.bound != 0 {
            Some(e)
        } else {
            None
        }
    }

    fn tt_store(&mut self, key: u64, mv: Move, score: i32, depth: i32, bound: u8, ply: usize) {
        let i = self.tt_index(key);
        let e = &mut self.tt[i];
        // keep a deeper entry of the same position unless the new one is exact
        if e.key == key && e.depth as i32 > depth + 2 && bound != BOUND_EXACT {
            return;
        }
        let mv = if mv.is_none() && e.key == key { Move(e.mv) } else { mv };
        *e = TTEntry { key, mv: mv.0, score: to_tt(score, ply) as i16, depth: depth.clamp(-1, 127) as i8, bound };
    }

    fn elapsed_ms(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    #[inline(always)]
    fn check_time(&mut self) {
        if self.nodes & 1023 == 0
            && (self.stop.load(Ordering::Relaxed)
                || (self.can_stop && (self.elapsed_ms() >= self.hard_ms || self.nodes >= self.node_limit)))
        {
            self.stopped = true;
        }
    }

    fn is_repetition(&self, pos: &Position) -> bool {
        let n = self.hist.len();
        let limit = (pos.halfmove as usize).min(n);
        let mut i = 2;
        while i <= limit {
            if self.hist[n - i] == pos.hash {
                return true;
            }
            i += 2;
        }
        false
    }

    /// Search `root` (reached through the game positions in `game_hist`) and return the best move.
    pub fn think(&mut self, root: &Position, game_hist: &[u64], limits: &Limits) -> Move {
        self.start = Instant::now();
        self.stopped = false;
        self.nodes = 0;
        self.hist = game_hist.to_vec();
        self.killers = [[Move::NONE; 2]; MAX_PLY + 1];
        for c in self.history.iter_mut() {
            for f in c.iter_mut() {
                for h in f.iter_mut() {
                    *h /= 4;
                }
            }
        }

        let p = &self.params;
        let mut soft_ms = u64::MAX;
        self.hard_ms = u64::MAX;
        self.node_limit = limits.nodes.unwrap_or(u64::MAX);
        let (time, inc) = if root.stm == WHITE { (limits.wtime, limits.winc) } else { (limits.btime, limits.binc) };
        if let Some(mt) = limits.movetime {
            self.hard_ms = mt.saturating_sub(5).max(1);
            soft_ms = self.hard_ms;
        } else if let Some(t) = time {
            let inc = inc.unwrap_or(0);
            let mtg = limits.movestogo.unwrap_or(p.TIME_MOVES_TO_GO as u64).clamp(1, p.TIME_MOVES_TO_GO.max(1) as u64);
            let overhead = 10;
            let avail = t.saturating_sub(overhead).max(1);
            let soft = avail / mtg + inc * p.TIME_INC_PERCENT as u64 / 100;
            let hard = (soft * p.TIME_HARD_FACTOR as u64).min(avail * p.TIME_MAX_PERCENT as u64 / 100);
            self.hard_ms = hard.max(1);
            soft_ms = soft.min(self.hard_ms).max(1);
        }
        let max_depth = limits.depth.unwrap_or(MAX_PLY as i32 - 1).clamp(1, MAX_PLY as i32 - 1);

        let legal = root.legal_moves();
        let mut best = legal.first().copied().unwrap_or(Move::NONE);
        let mut score = 0;
        if legal.is_empty() {
            return best;
        }

        for depth in 1..=max_depth {
            self.can_stop = depth > 1;
            self.root_best = Move::NONE;
            self.seldepth = 0;
            let s = self.aspiration(root, depth, score);
            if self.stopped {
                if !self.root_best.is_none() {
                    best = self.root_best;
                }
                break;
            }
            score = s;
            if !self.root_best.is_none() {
                best = self.root_best;
            }
            if !self.silent {
                self.print_info(depth, score, best);
            }
            let el = self.elapsed_ms();
            if limits.movetime.is_none() && el >= soft_ms / 2 && time.is_some() {
                break;
            }
            if el >= soft_ms || self.nodes >= self.node_limit {
                break;
            }
            // a mate was found and proven deep enough: no need to go on
            if score.abs() > MATE_BOUND && depth >= (MATE - score.abs()) + 4 {
                break;
            }
        }
        if limits.infinite {
            while !self.stop.load(Ordering::Relaxed) {
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
        }
        best
    }

    fn aspiration(&mut self, root: &Position, depth: i32, prev: i32) -> i32 {
        let windows = self.params.ASPIRATION_WINDOWS;
        if depth < self.params.ASPIRATION_MIN_DEPTH || prev.abs() >= MATE_BOUND {
            return self.negamax(root, -INF, INF, depth, 0, false);
        }
        let mut idx = 0;
        loop {
            let (a, b) = if idx < windows.len() {
                ((prev - windows[idx]).max(-INF), (prev + windows[idx]).min(INF))
            } else {
                (-INF, INF)
            };
            let s = self.negamax(root, a, b, depth, 0, false);
            if self.stopped {
                return s;
            }
            if (s <= a && a > -INF) || (s >= b && b < INF) {
                idx += 1;
                continue;
            }
            return s;
        }
    }

    fn print_info(&self, depth: i32, score: i32, best: Move) {
        let ms = self.elapsed_ms();
        let nps = self.nodes * 1000 / ms.max(1);
        let sc = if score > MATE_BOUND {
            format!("mate {}", (MATE - score + 1) / 2)
        } else if score < -MATE_BOUND {
            format!("mate -{}", (MATE + score + 1) / 2)
        } else {
            format!("cp {}", score)
        };
        let mut pv: Vec<String> = self.pv[0][..self.pv_len[0]].iter().map(|m| m.uci()).collect();
        if pv.is_empty() || pv[0] != best.uci() {
            pv = vec![best.uci()];
        }
        let mut out = std::io::stdout().lock();
        let _ = writeln!(
            out,
            "info depth {} seldepth {} score {} nodes {} nps {} time {} pv {}",
            depth,
            self.seldepth,
            sc,
            self.nodes,
            nps,
            ms,
            pv.join(" ")
        );
        let _ = out.flush();
    }

    fn score_moves(&self, pos: &Position, list: &MoveList, scores: &mut [i32; 256], tt_move: Move, ply: usize) {
        let killers = self.killers[ply];
        for i in 0..list.len {
            let m = list.moves[i];
            scores[i] = if m == tt_move {
                4_000_000
            } else if m.is_capture() || m.is_promo() {
                let victim = pos.captured(m);
                let victim_v = if victim < 6 { self.params.see_values[victim] } else { 0 };
                let attacker = pos.board[m.from()] as i32;
                let promo = if m.is_promo() { self.params.see_values[m.promo_piece()] } else { 0 };
                let base = victim_v * 8 + promo - attacker;
                if m.is_promo() && m.promo_piece() != QUEEN {
                    -1_000_000 + base
                } else if pos.see(m, &self.params.see_values) >= 0 {
                    2_000_000 + base
                } else {
                    -500_000 + base
                }
            } else if m == killers[0] {
                1_000_000
            } else if m == killers[1] {
                900_000
            } else {
                self.history[pos.stm][m.from()][m.to()]
            };
        }
    }

    #[inline(always)]
    fn pick(list: &mut MoveList, scores: &mut [i32; 256], i: usize) -> Move {
        let mut best = i;
        for j in i + 1..list.len {
            if scores[j] > scores[best] {
                best = j;
            }
        }
        list.moves.swap(i, best);
        scores.swap(i, best);
        list.moves[i]
    }

    fn negamax(&mut self, pos: &Position, mut alpha: i32, beta: i32, mut depth: i32, ply: usize, can_null: bool) -> i32 {
        let pv_node = beta - alpha > 1;
        self.pv_len[ply] = 0;
        if ply >= MAX_PLY - 1 {
            return evaluate(pos, &self.params);
        }
        let in_check = pos.in_check();
        if in_check {
            depth += 1;
        }
        if depth <= 0 {
            return self.qsearch(pos, alpha, beta, ply);
        }
        self.nodes += 1;
        if ply > self.seldepth {
            self.seldepth = ply;
        }
        self.check_time();
        if self.stopped {
            return 0;
        }
        if ply > 0 {
            if pos.halfmove >= 100 || self.is_repetition(pos) {
                return 0;
            }
            // mate distance pruning
            let a = alpha.max(-MATE + ply as i32);
            let b = beta.min(MATE - ply as i32 - 1);
            if a >= b {
                return a;
            }
        }

        let tt = self.tt_probe(pos.hash);
        let mut tt_move = Move::NONE;
        if let Some(e) = tt {
            tt_move = Move(e.mv);
            if !pv_node && e.depth as i32 >= depth {
                let s = from_tt(e.score as i32, ply);
                if e.bound == BOUND_EXACT
                    || (e.bound == BOUND_LOWER && s >= beta)
                    || (e.bound == BOUND_UPPER && s <= alpha)
                {
                    return s;
                }
            }
        }

        let static_eval = if in_check { -INF } else { evaluate(pos, &self.params) };

        if !pv_node && !in_check && beta.abs() < MATE_BOUND {
            // reverse futility pruning (beta pruning)
            if depth <= self.params.BETA_PRUNE_MAX_DEPTH
                && static_eval - self.params.BETA_PRUNE_MARGIN_PER_DEPTH * depth >= beta
            {
                return static_eval;
            }
            // null move pruning
            if can_null
                && depth >= self.params.NULL_MOVE_MIN_DEPTH
                && static_eval >= beta
                && pos.has_pieces(pos.stm)
            {
                let r = self.params.NULL_MOVE_REDUCE_DEPTH_BASE
                    + depth / self.params.NULL_MOVE_REDUCE_DEPTH_DIVISOR.max(1);
                let child = pos.make_null();
                self.hist.push(pos.hash);
                let s = -self.negamax(&child, -beta, -beta + 1, depth - 1 - r, ply + 1, false);
                self.hist.pop();
                if self.stopped {
                    return 0;
                }
                if s >= beta {
                    return if s >= MATE_BOUND { beta } else { s };
                }
            }
        }

        let mut list = MoveList::new();
        pos.generate(&mut list, false);
        let mut scores = [0i32; 256];
        self.score_moves(pos, &list, &mut scores, tt_move, ply);

        let orig_alpha = alpha;
        let mut best_score = -INF;
        let mut best_move = Move::NONE;
        let mut legal = 0;
        let mut quiets_seen = 0;
        let mut quiets_tried: [Move; 64] = [Move::NONE; 64];
        let mut n_quiets_tried = 0;
        let prune_ok = !pv_node && !in_check;
        let lmp_len = self.params.LMP_MOVE_THRESHOLDS.len() as i32;

        self.hist.push(pos.hash);
        for i in 0..list.len {
            let m = Self::pick(&mut list, &mut scores, i);
            let is_quiet = !m.is_capture() && !m.is_promo();

            // SEE pruning (captures and quiets that hang material)
            if prune_ok
                && legal > 0
                && best_score > -MATE_BOUND
                && depth <= self.params.SEE_PRUNE_MAX_DEPTH
                && pos.see(m, &self.params.see_values) < -self.params.SEE_PRUNE_MARGIN * depth
            {
                continue;
            }

            let child = match pos.make(m) {
                Some(c) => c,
                None => continue,
            };
            legal += 1;
            if is_quiet {
                quiets_seen += 1;
            }
            let gives_check = child.in_check();

            if prune_ok && legal > 1 && is_quiet && !gives_check && best_score > -MATE_BOUND {
                // late move pruning
                if depth <= lmp_len && quiets_seen > self.params.LMP_MOVE_THRESHOLDS[(depth - 1) as usize] {
                    continue;
                }
                // futility pruning (alpha pruning)
                if depth <= ALPHA_PRUNE_MAX_DEPTH as i32
                    && static_eval + self.params.ALPHA_PRUNE_MARGINS[(depth - 1) as usize] <= alpha
                {
                    continue;
                }
            }

            let new_depth = depth - 1;
            let mut score;
            if legal == 1 {
                score = -self.negamax(&child, -beta, -alpha, new_depth, ply + 1, true);
            } else {
                let mut r = 0;
                if depth >= self.params.LMR_MIN_DEPTH
                    && legal > self.params.LMR_LEGAL_MOVES_BEFORE_ATTEMPT
                    && is_quiet
                    && !in_check
                    && !gives_check
                {
                    r = self.params.lmr[(depth as usize).min(63)][legal.min(63) as usize] as i32;
                    if pv_node {
                        r -= 1;
                    }
                    if m == self.killers[ply][0] || m == self.killers[ply][1] {
                        r -= 1;
                    }
                    r = r.clamp(0, (new_depth - 1).max(0));
                }
                score = -self.negamax(&child, -alpha - 1, -alpha, new_depth - r, ply + 1, true);
                if score > alpha && r > 0 && !self.stopped {
                    score = -self.negamax(&child, -alpha - 1, -alpha, new_depth, ply + 1, true);
                }
                if score > alpha && score < beta && !self.stopped {
                    score = -self.negamax(&child, -beta, -alpha, new_depth, ply + 1, true);
                }
            }
            if self.stopped {
                self.hist.pop();
                return 0;
            }
            if is_quiet && n_quiets_tried < 64 {
                quiets_tried[n_quiets_tried] = m;
                n_quiets_tried += 1;
            }

            if score > best_score {
                best_score = score;
                if score > alpha {
                    best_move = m;
                    alpha = score;
                    if ply == 0 {
                        self.root_best = m;
                    }
                    // update pv
                    self.pv[ply][0] = m;
                    let n = self.pv_len[ply + 1];
                    for k in 0..n {
                        self.pv[ply][k + 1] = self.pv[ply + 1][k];
                    }
                    self.pv_len[ply] = n + 1;
                    if alpha >= beta {
                        if is_quiet {
                            if self.killers[ply][0] != m {
                                self.killers[ply][1] = self.killers[ply][0];
                                self.killers[ply][0] = m;
                            }
                            let bonus = (depth * depth).min(400);
                            let stm = pos.stm;
                            for &q in &quiets_tried[..n_quiets_tried] {
                                let h = &mut self.history[stm][q.from()][q.to()];
                                let b = if q == m { bonus } else { -bonus };
                                *h += b - *h * b.abs() / 16384;
                            }
                        }
                        break;
                    }
                }
            }
        }
        self.hist.pop();

        if legal == 0 {
            return if in_check { -MATE + ply as i32 } else { 0 };
        }
        let bound = if best_score >= beta {
            BOUND_LOWER
        } else if alpha > orig_alpha {
            BOUND_EXACT
        } else {
            BOUND_UPPER
        };
        self.tt_store(pos.hash, best_move, best_score, depth, bound, ply);
        best_score
    }

    /// Quiescence score of `pos` for the side to move, with no time or node limit and
    /// an empty history: the `evalbatch` command's quiet-position score.
    pub fn quiescence(&mut self, pos: &Position) -> i32 {
        self.stopped = false;
        self.can_stop = false;
        self.hist.clear();
        self.stop.store(false, Ordering::Relaxed);
        self.qsearch(pos, -INF, INF, 0)
    }

    fn qsearch(&mut self, pos: &Position, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.nodes += 1;
        self.pv_len[ply] = 0;
        self.check_time();
        if self.stopped {
            return 0;
        }
        if ply > self.seldepth {
            self.seldepth = ply;
        }
        if ply >= MAX_PLY - 1 {
            return evaluate(pos, &self.params);
        }
        let in_check = pos.in_check();
        let mut best = -INF;
        let mut stand = -INF;
        if !in_check {
            stand = evaluate(pos, &self.params);
            if stand >= beta {
                return stand;
            }
            if stand > alpha {
                alpha = stand;
            }
            best = stand;
        }
        let mut list = MoveList::new();
        pos.generate(&mut list, !in_check);
        let mut scores = [0i32; 256];
        for i in 0..list.len {
            let m = list.moves[i];
            let victim = pos.captured(m);
            let v = if victim < 6 { self.params.see_values[victim] } else { 0 };
            scores[i] = if m.is_capture() || m.is_promo() { 100_000 + v * 8 - pos.board[m.from()] as i32 } else { 0 };
        }
        let mut legal = 0;
        for i in 0..list.len {
            let m = Self::pick(&mut list, &mut scores, i);
            if !in_check {
                let victim = pos.captured(m);
                let v = if victim < 6 { self.params.see_values[victim] } else { 0 };
                if !m.is_promo() && stand + v + self.params.DELTA_PRUNE_MARGIN <= alpha {
                    continue;
                }
                if pos.see(m, &self.params.see_values) < 0 {
                    continue;
                }
            }
            let child = match pos.make(m) {
                Some(c) => c,
                None => continue,
            };
            legal += 1;
            let s = -self.qsearch(&child, -beta, -alpha, ply + 1);
            if self.stopped {
                return 0;
            }
            if s > best {
                best = s;
                if s > alpha {
                    alpha = s;
                    if s >= beta {
                        break;
                    }
                }
            }
        }
        if in_check && legal == 0 {
            return -MATE + ply as i32;
        }
        best
    }
}
