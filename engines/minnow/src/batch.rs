//! `evalbatch`: scores many positions in one round trip, for Texel tuning.
//!
//! Protocol (not UCI): `evalbatch [static|qsearch|both]`, then one FEN per line, then a
//! line `end` (or an empty line). The reply is one line per FEN, in order: the static
//! evaluation, the quiescence score, or both separated by a space, in centipawns from
//! white's view; `none` for a FEN that does not parse. The current option values apply,
//! so a tuner sets evaluation terms with `setoption` and never rebuilds.

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

/// Scores every FEN until `end` or an empty line; returns the reply, one line per FEN.
pub fn eval_batch(mode: Mode, lines: &mut dyn Iterator<Item = String>, searcher: &mut Searcher) -> String {
    let mut out = String::new();
    for line in lines {
        let fen = line.trim();
        if fen.is_empty() || fen == "end" {
            break;
        }
        let pos = match Position::from_fen(fen) {
            Some(p) => p,
            None => {
                out.push_str("none\n");
                continue;
            }
        };
        // Both searches score for the side to move; the tuner's labels are white's result.
        let sign = if pos.stm == WHITE { 1 } else { -1 };
        let line = match mode {
            Mode::Static => format!("{}", sign * evaluate(&pos, &searcher.params)),
            Mode::Quiescence => format!("{}", sign * searcher.quiescence(&pos)),
            Mode::Both => format!("{} {}", sign * evaluate(&pos, &searcher.params), sign * searcher.quiescence(&pos)),
        };
        out.push_str(&line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;

    fn run(mode: Mode, input: &[&str], searcher: &mut Searcher) -> Vec<String> {
        let mut lines = input.iter().map(|s| s.to_string());
        eval_batch(mode, &mut lines, searcher).lines().map(String::from).collect()
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
        let after: i32 = run(Mode::Static, &["4k3/8/8/8/8/8/8/3QK3 w - - 0 1"], &mut s)[0].parse().unwrap();
        assert!(after > before + 300, "before {} after {}", before, after);
    }
}
