//! The engine's runtime parameters: the tunables of `engine_constants.rs` (settable through
//! UCI options) and the tables derived from them.

use std::collections::HashMap;
use std::ops::{Deref, DerefMut};

use crate::board::KING;
use crate::engine_constants::Tunables;
use crate::pst::{PST_EG, PST_MG};

pub struct Params {
    tunables: Tunables,
    /// Option name (lower case) → its place in `spins()`, made at the first `setoption`: a
    /// name is found without walking every option (a tune sets thousands per batch).
    option_index: Option<HashMap<String, usize>>,
    /// Values set since the last `apply_options`, applied together (the tables are rebuilt once).
    pending: Vec<(usize, f64)>,

    // derived tables, rebuilt by `finalize`
    pub lmr: [[u8; 64]; 64],
    /// material + PST, [colour][piece][square], middlegame and endgame
    pub psqt_mg: [[[i32; 64]; 6]; 2],
    pub psqt_eg: [[[i32; 64]; 6]; 2],
    /// middlegame piece values for SEE and delta pruning (king = 0)
    pub see_values: [i32; 6],
    /// (mg, eg) per square attacked, for knight, bishop, rook, queen
    pub mobility: [(i32, i32); 4],
}

/// The tunables read as fields: `params.LMR_MIN_DEPTH`.
impl Deref for Params {
    type Target = Tunables;
    fn deref(&self) -> &Tunables {
        &self.tunables
    }
}

impl DerefMut for Params {
    fn deref_mut(&mut self) -> &mut Tunables {
        &mut self.tunables
    }
}

impl Default for Params {
    fn default() -> Self {
        let mut p = Params {
            tunables: Tunables::default(),
            option_index: None,
            pending: Vec::new(),
            lmr: [[0; 64]; 64],
            psqt_mg: [[[0; 64]; 6]; 2],
            psqt_eg: [[[0; 64]; 6]; 2],
            see_values: [0; 6],
            mobility: [(0, 0); 4],
        };
        p.finalize();
        p
    }
}

impl Params {
    /// Recompute derived tables after any change.
    pub fn finalize(&mut self) {
        let t = &self.tunables;
        for d in 0..64 {
            for m in 0..64 {
                self.lmr[d][m] = if d == 0 || m == 0 {
                    0
                } else {
                    let r = t.LMR_BASE + (d as f64).ln() * (m as f64).ln() / t.LMR_DIVISOR.max(0.01);
                    r.floor().clamp(0.0, 60.0) as u8
                };
            }
        }
        let piece_values = [t.PAWN_VALUE, t.KNIGHT_VALUE, t.BISHOP_VALUE, t.ROOK_VALUE, t.QUEEN_VALUE];
        for piece in 0..6 {
            let (vmg, veg) = if piece == KING { (0, 0) } else { piece_values[piece] };
            self.see_values[piece] = vmg;
            for sq in 0..64 {
                // tables are drawn rank 8 first: white square sq is at index sq ^ 56
                self.psqt_mg[0][piece][sq] = vmg + PST_MG[piece][sq ^ 56];
                self.psqt_eg[0][piece][sq] = veg + PST_EG[piece][sq ^ 56];
                self.psqt_mg[1][piece][sq] = vmg + PST_MG[piece][sq];
                self.psqt_eg[1][piece][sq] = veg + PST_EG[piece][sq];
            }
        }
        self.mobility = [t.KNIGHT_MOBILITY, t.BISHOP_MOBILITY, t.ROOK_MOBILITY, t.QUEEN_MOBILITY];
    }

    /// Print one `option` line per tunable.
    pub fn print_uci_options(&mut self) {
        for spin in self.tunables.spins() {
            let (default, min, max) = spin.shown();
            println!("option name {} type spin default {} min {} max {}", spin.name, default, min, max);
        }
    }

    /// Set an option by (case-insensitive) name, from the next `apply_options` on. Returns
    /// false if the name is unknown.
    pub fn set_option(&mut self, name: &str, value: &str) -> bool {
        let tunables = &mut self.tunables;
        let index = self.option_index.get_or_insert_with(|| {
            tunables.spins().iter().enumerate().map(|(i, spin)| (spin.name.to_ascii_lowercase(), i)).collect()
        });
        let Some(&i) = index.get(&name.to_ascii_lowercase()) else { return false };
        if let Ok(x) = value.trim().parse::<f64>() {
            self.pending.push((i, x));
        }
        true
    }

    /// Applies the options set since the last call, then rebuilds the derived tables once.
    pub fn apply_options(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let pending = std::mem::take(&mut self.pending);
        let mut spins = self.tunables.spins();
        for (i, x) in pending {
            spins[i].set(x);
        }
        drop(spins);
        self.finalize();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_found_by_name_in_any_case_and_applied_together() {
        let mut p = Params::default();
        assert!(p.set_option("knight_value_mg", "400"));
        assert!(p.set_option("LMR_BASE_X100", "150"));
        assert!(!p.set_option("NO_SUCH_OPTION", "1"));
        // Not applied until apply_options: the search reads one consistent set.
        assert_eq!(p.KNIGHT_VALUE.0, crate::engine_constants::KNIGHT_VALUE.0);
        p.apply_options();
        assert_eq!(p.KNIGHT_VALUE.0, 400);
        assert_eq!(p.LMR_BASE, 1.5);
        // The derived tables follow: material + PST of a white knight holds the new value.
        assert_eq!(p.see_values[crate::board::KNIGHT], 400);
        // Out of range is clamped as before; the last of two values of one option wins.
        assert!(p.set_option("KNIGHT_VALUE_MG", "100000"));
        assert!(p.set_option("KNIGHT_VALUE_MG", "350"));
        p.apply_options();
        assert_eq!(p.KNIGHT_VALUE.0, 350);
    }
}
