//! `evalbatch`: scores many positions in one round trip, for Texel tuning.
//!
//! Protocol (not UCI): `evalbatch [static|qsearch|both]`, then one FEN per line, then a
//! line `end` (or an empty line). The reply is one line per FEN, in order: the static
//! evaluation, the quiescence score, or both separated by a space, in centipawns from
//! white's view; `none` for a FEN that does not parse. The current option values apply,
//! so a tuner sets evaluation terms with `setoption` and never rebuilds.
//!
//! `evalbatch MODE again` (no FEN lines follow) scores the previous batch's positions
//! once more: a tuner scores the same positions thousands of times, and reading the FENs
//! costs about three times as much as evaluating them.

use crate::board::{Position, WHITE};
use crate::eval::evaluate;
use crate::search::Searcher;

#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Mode {
    Static,
    Quiescence,
    Both,
}

impl Mode {
    pub fn parse(word: Option<&str>) -> Option<Mode> {
        match word {
            None | Some("static") => Some(Mode::Static),
            Some("qsearch") => Some(Mode::Quiescence),
            Some("both") => Some(Mode::Both),
            _ => None,
        }
    }
}

/// The positions of the last batch (None for a FEN that did not parse), kept for `again`.
#[derive(Default)]
pub struct Batch {
    positions: Vec<Option<Position>>,
}

impl Batch {
    /// Reads FENs until `end` or an empty line, keeps them, and scores them.
    pub fn load(&mut self, mode: Mode, lines: &mut dyn Iterator<Item = String>, searcher: &mut Searcher) -> String {
        self.positions.clear();
        for line in lines {
            let fen = line.trim();
            if fen.is_empty() || fen == "end" {
                break;
            }
            self.positions.push(Position::from_fen(fen));
        }
        self.score(mode, searcher)
    }

    /// One line per kept position, in order.
    pub fn score(&self, mode: Mode, searcher: &mut Searcher) -> String {
        let mut out = String::with_capacity(self.positions.len() * 6);
        for pos in &self.positions {
            let Some(pos) = pos else {
                out.push_str("none\n");
                continue;
            };
            // Both searches score for the side to move; the tuner's labels are white's result.
            let sign = if pos.stm == WHITE { 1 } else { -1 };
            let line = match mode {
                Mode::Static => format!("{}", sign * evaluate(pos, &searcher.params)),
                Mode::Quiescence => format!("{}", sign * searcher.quiescence(pos)),
                Mode::Both => format!("{} {}", sign * evaluate(pos, &searcher.params), sign * searcher.quiescence(pos)),
            };
            out.push_str(&line);
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;

    fn run(mode: Mode, input: &[&str], searcher: &mut Searcher) -> Vec<String> {
        let mut lines = input.iter().map(|s| s.to_string());
        Batch::default().load(mode, &mut lines, searcher).lines().map(String::from).collect()
    }

    #[test]
    fn scores_from_white_view_until_end() {
        let mut s = Searcher::new(1, Arc::new(AtomicBool::new(true)));
        // White a queen up, once with white and once with black to move; then a bad FEN.
        let input = ["4k3/8/8/8/8/8/8/3QK3 w - - 0 1", "4k3/8/8/8/8/8/8/3QK3 b - - 0 1", "not a fen", "end", "4k3/8/8/8/8/8/8/4K3 w - - 0 1"];
        let out = run(Mode::Static, &input, &mut s);
        assert_eq!(out.len(), 3, "stops at end: {:?}", out);
        let w: i32 = out[0].parse().unwrap();
        let b: i32 = out[1].parse().unwrap();
        assert!(w > 500 && b > 500, "{:?}", out);
        assert_eq!(out[2], "none");
    }

    #[test]
    fn quiescence_sees_a_hanging_queen_and_options_change_scores() {
        // Black to move takes the undefended white queen on h4.
        let fen = "4k3/8/8/8/3q3Q/8/8/4K3 b - - 0 1";
        let mut s = Searcher::new(1, Arc::new(AtomicBool::new(true)));
        let both = run(Mode::Both, &[fen, ""], &mut s);
        let parts: Vec<i32> = both[0].split(' ').map(|x| x.parse().unwrap()).collect();
        assert!(parts[1] < parts[0] - 500, "static {} qsearch {}", parts[0], parts[1]);
        let before: i32 = run(Mode::Static, &["4k3/8/8/8/8/8/8/3QK3 w - - 0 1"], &mut s)[0].parse().unwrap();
        assert!(s.params.set_option("QUEEN_VALUE_EG", "1500"));
        assert!(s.params.set_option("QUEEN_VALUE_MG", "1500"));
        s.params.apply_options();
        let after: i32 = run(Mode::Static, &["4k3/8/8/8/8/8/8/3QK3 w - - 0 1"], &mut s)[0].parse().unwrap();
        assert!(after > before + 300, "before {} after {}", before, after);
    }

    #[test]
    fn again_rescores_the_kept_positions_with_new_options() {
        let mut s = Searcher::new(1, Arc::new(AtomicBool::new(true)));
        let mut batch = Batch::default();
        let fens = ["4k3/8/8/8/8/8/8/3QK3 w - - 0 1", "bad", "4k3/8/8/8/8/8/8/3QK3 b - - 0 1"];
        let mut lines = fens.iter().map(|f| f.to_string());
        let first = batch.load(Mode::Static, &mut lines, &mut s);
        assert_eq!(batch.score(Mode::Static, &mut s), first);
        assert!(s.params.set_option("QUEEN_VALUE_EG", "1500"));
        assert!(s.params.set_option("QUEEN_VALUE_MG", "1500"));
        s.params.apply_options();
        let again: Vec<String> = batch.score(Mode::Static, &mut s).lines().map(String::from).collect();
        let before: Vec<String> = first.lines().map(String::from).collect();
        assert_eq!(again.len(), 3);
        assert_eq!(again[1], "none");
        for i in [0, 2] {
            let (b, a): (i32, i32) = (before[i].parse().unwrap(), again[i].parse().unwrap());
            assert!(a > b + 300, "position {}: before {} after {}", i, b, a);
        }
    }
}
