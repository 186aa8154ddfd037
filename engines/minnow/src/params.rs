//! The engine's runtime parameters: the tunables of `engine_constants.rs` (settable through
//! UCI options) and the tables derived from them.

use std::ops::{Deref, DerefMut};

use crate::board::KING;
use crate::engine_constants::Tunables;
use crate::pst::{PST_EG, PST_MG};

pub struct Params {
    tunables: Tunables,

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

    /// Set an option by (case-insensitive) name. Returns false if the name is unknown.
    pub fn set_option(&mut self, name: &str, value: &str) -> bool {
        let parsed: Option<f64> = value.trim().parse::<f64>().ok();
        let mut found = false;
        for mut spin in self.tunables.spins() {
            if spin.name.eq_ignore_ascii_case(name) {
                if let Some(x) = parsed {
                    spin.set(x);
                }
                found = true;
            }
        }
        if found {
            self.finalize();
        }
        found
    }
}
