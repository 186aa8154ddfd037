//! Runtime copy of the tunables in `engine_constants.rs`, settable through UCI options.
//!
//! Option names: scalar `NAME`; array element `NAME_<i>`; (mg, eg) tuple `NAME_MG` /
//! `NAME_EG`; array of tuples `NAME_<i>_MG`. Floats are spin options scaled by 100
//! (`LMR_BASE_X100 = 75` means 0.75); the compiled float is used exactly until set.

use crate::board::{KING, PAWN};
use crate::engine_constants::*;
use crate::pst::{PST_EG, PST_MG};

pub struct Params {
    pub lmr_legal_moves_before_attempt: i32,
    pub lmr_min_depth: i32,
    pub lmr_base: f64,
    pub lmr_divisor: f64,
    pub beta_prune_margin_per_depth: i32,
    pub beta_prune_max_depth: i32,
    pub alpha_prune_margins: [i32; ALPHA_PRUNE_MAX_DEPTH as usize],
    pub null_move_min_depth: i32,
    pub null_move_reduce_depth_base: i32,
    pub null_move_reduce_depth_divisor: i32,
    pub see_prune_margin: i32,
    pub see_prune_max_depth: i32,
    pub lmp_move_thresholds: [i32; LMP_MOVE_THRESHOLDS.len()],
    pub aspiration_windows: [i32; ASPIRATION_WINDOWS.len()],
    pub aspiration_min_depth: i32,
    pub delta_prune_margin: i32,
    pub time_moves_to_go: i32,
    pub time_inc_percent: i32,
    pub time_hard_factor: i32,
    pub time_max_percent: i32,
    /// (mg, eg) for pawn, knight, bishop, rook, queen.
    pub piece_values: [[i32; 2]; 5],
    pub bishop_value_pair: i32,
    pub doubled_pawn_penalty: [i32; 2],
    pub isolated_pawn_penalty: [i32; 2],
    pub passed_pawn_bonus: [[i32; 2]; 8],
    /// (mg, eg) per square for knight, bishop, rook, queen.
    pub mobility: [[i32; 2]; 4],
    pub mobility_baseline: [i32; 4],
    pub rook_open_file_bonus: [i32; 2],
    pub rook_half_open_file_bonus: [i32; 2],
    pub king_attack_weights: [i32; 4],
    pub king_attack_scale: i32,
    pub king_shield_bonus: i32,
    pub king_open_file_penalty: i32,
    pub tempo_bonus: i32,

    // derived tables, rebuilt by `finalize`
    pub lmr: [[u8; 64]; 64],
    /// material + PST, [colour][piece][square], middlegame and endgame
    pub psqt_mg: [[[i32; 64]; 6]; 2],
    pub psqt_eg: [[[i32; 64]; 6]; 2],
    /// middlegame piece values for SEE and delta pruning (king = 0)
    pub see_values: [i32; 6],
}

fn pair(t: (Score, Score)) -> [i32; 2] {
    [t.0, t.1]
}

fn arr<const N: usize, T: Copy + Into<i32>>(a: [T; N]) -> [i32; N] {
    a.map(|x| x.into())
}

impl Default for Params {
    fn default() -> Self {
        let mut p = Params {
            lmr_legal_moves_before_attempt: LMR_LEGAL_MOVES_BEFORE_ATTEMPT as i32,
            lmr_min_depth: LMR_MIN_DEPTH as i32,
            lmr_base: LMR_BASE,
            lmr_divisor: LMR_DIVISOR,
            beta_prune_margin_per_depth: BETA_PRUNE_MARGIN_PER_DEPTH,
            beta_prune_max_depth: BETA_PRUNE_MAX_DEPTH as i32,
            alpha_prune_margins: ALPHA_PRUNE_MARGINS,
            null_move_min_depth: NULL_MOVE_MIN_DEPTH as i32,
            null_move_reduce_depth_base: NULL_MOVE_REDUCE_DEPTH_BASE as i32,
            null_move_reduce_depth_divisor: NULL_MOVE_REDUCE_DEPTH_DIVISOR as i32,
            see_prune_margin: SEE_PRUNE_MARGIN,
            see_prune_max_depth: SEE_PRUNE_MAX_DEPTH as i32,
            lmp_move_thresholds: arr(LMP_MOVE_THRESHOLDS),
            aspiration_windows: ASPIRATION_WINDOWS,
            aspiration_min_depth: ASPIRATION_MIN_DEPTH as i32,
            delta_prune_margin: DELTA_PRUNE_MARGIN,
            time_moves_to_go: TIME_MOVES_TO_GO as i32,
            time_inc_percent: TIME_INC_PERCENT as i32,
            time_hard_factor: TIME_HARD_FACTOR as i32,
            time_max_percent: TIME_MAX_PERCENT as i32,
            piece_values: [
                pair(PAWN_VALUE),
                pair(KNIGHT_VALUE),
                pair(BISHOP_VALUE),
                pair(ROOK_VALUE),
                pair(QUEEN_VALUE),
            ],
            bishop_value_pair: BISHOP_VALUE_PAIR,
            doubled_pawn_penalty: pair(DOUBLED_PAWN_PENALTY),
            isolated_pawn_penalty: pair(ISOLATED_PAWN_PENALTY),
            passed_pawn_bonus: PASSED_PAWN_BONUS.map(pair),
            mobility: [
                pair(KNIGHT_MOBILITY),
                pair(BISHOP_MOBILITY),
                pair(ROOK_MOBILITY),
                pair(QUEEN_MOBILITY),
            ],
            mobility_baseline: MOBILITY_BASELINE,
            rook_open_file_bonus: pair(ROOK_OPEN_FILE_BONUS),
            rook_half_open_file_bonus: pair(ROOK_HALF_OPEN_FILE_BONUS),
            king_attack_weights: KING_ATTACK_WEIGHTS,
            king_attack_scale: KING_ATTACK_SCALE,
            king_shield_bonus: KING_SHIELD_BONUS,
            king_open_file_penalty: KING_OPEN_FILE_PENALTY,
            tempo_bonus: TEMPO_BONUS,
            lmr: [[0; 64]; 64],
            psqt_mg: [[[0; 64]; 6]; 2],
            psqt_eg: [[[0; 64]; 6]; 2],
            see_values: [0; 6],
        };
        p.finalize();
        p
    }
}

/// One integer UCI option bound to a field.
pub struct IntOption<'a> {
    pub name: String,
    pub value: &'a mut i32,
    pub min: i32,
    pub max: i32,
}

impl Params {
    /// Recompute derived tables after any change.
    pub fn finalize(&mut self) {
        for d in 0..64 {
            for m in 0..64 {
                self.lmr[d][m] = if d == 0 || m == 0 {
                    0
                } else {
                    let r = self.lmr_base + (d as f64).ln() * (m as f64).ln() / self.lmr_divisor.max(0.01);
                    r.floor().clamp(0.0, 60.0) as u8
                };
            }
        }
        for piece in 0..6 {
            let (vmg, veg) = if piece == KING {
                (0, 0)
            } else {
                (self.piece_values[piece][0], self.piece_values[piece][1])
            };
            self.see_values[piece] = vmg;
            for sq in 0..64 {
                // tables are drawn rank 8 first: white square sq is at index sq ^ 56
                self.psqt_mg[0][piece][sq] = vmg + PST_MG[piece][sq ^ 56];
                self.psqt_eg[0][piece][sq] = veg + PST_EG[piece][sq ^ 56];
                self.psqt_mg[1][piece][sq] = vmg + PST_MG[piece][sq];
                self.psqt_eg[1][piece][sq] = veg + PST_EG[piece][sq];
            }
        }
        let _ = PAWN;
    }

    /// Float options: (UCI name, field, min, max); exposed as spin scaled by 100.
    pub fn float_options(&mut self) -> Vec<(&'static str, &mut f64, f64, f64)> {
        vec![
            ("LMR_BASE_X100", &mut self.lmr_base, 0.0, 3.0),
            ("LMR_DIVISOR_X100", &mut self.lmr_divisor, 0.5, 10.0),
        ]
    }

    pub fn int_options(&mut self) -> Vec<IntOption<'_>> {
        let mut v: Vec<IntOption> = Vec::new();
        fn one<'a>(v: &mut Vec<IntOption<'a>>, name: &str, value: &'a mut i32, min: i32, max: i32) {
            v.push(IntOption { name: name.to_string(), value, min, max });
        }
        fn array<'a>(v: &mut Vec<IntOption<'a>>, name: &str, a: &'a mut [i32], min: i32, max: i32) {
            for (i, x) in a.iter_mut().enumerate() {
                v.push(IntOption { name: format!("{}_{}", name, i), value: x, min, max });
            }
        }
        fn tuple<'a>(v: &mut Vec<IntOption<'a>>, name: &str, t: &'a mut [i32; 2], min: i32, max: i32) {
            let [mg, eg] = t;
            v.push(IntOption { name: format!("{}_MG", name), value: mg, min, max });
            v.push(IntOption { name: format!("{}_EG", name), value: eg, min, max });
        }
        one(&mut v, "LMR_LEGAL_MOVES_BEFORE_ATTEMPT", &mut self.lmr_legal_moves_before_attempt, 0, 20);
        one(&mut v, "LMR_MIN_DEPTH", &mut self.lmr_min_depth, 0, 20);
        one(&mut v, "BETA_PRUNE_MARGIN_PER_DEPTH", &mut self.beta_prune_margin_per_depth, 0, 1000);
        one(&mut v, "BETA_PRUNE_MAX_DEPTH", &mut self.beta_prune_max_depth, 0, 20);
        array(&mut v, "ALPHA_PRUNE_MARGINS", &mut self.alpha_prune_margins, 0, 2000);
        one(&mut v, "NULL_MOVE_MIN_DEPTH", &mut self.null_move_min_depth, 0, 20);
        one(&mut v, "NULL_MOVE_REDUCE_DEPTH_BASE", &mut self.null_move_reduce_depth_base, 0, 10);
        one(&mut v, "NULL_MOVE_REDUCE_DEPTH_DIVISOR", &mut self.null_move_reduce_depth_divisor, 1, 20);
        one(&mut v, "SEE_PRUNE_MARGIN", &mut self.see_prune_margin, 0, 1000);
        one(&mut v, "SEE_PRUNE_MAX_DEPTH", &mut self.see_prune_max_depth, 0, 20);
        array(&mut v, "LMP_MOVE_THRESHOLDS", &mut self.lmp_move_thresholds, 0, 100);
        array(&mut v, "ASPIRATION_WINDOWS", &mut self.aspiration_windows, 1, 2000);
        one(&mut v, "ASPIRATION_MIN_DEPTH", &mut self.aspiration_min_depth, 1, 30);
        one(&mut v, "DELTA_PRUNE_MARGIN", &mut self.delta_prune_margin, 0, 2000);
        one(&mut v, "TIME_MOVES_TO_GO", &mut self.time_moves_to_go, 1, 200);
        one(&mut v, "TIME_INC_PERCENT", &mut self.time_inc_percent, 0, 200);
        one(&mut v, "TIME_HARD_FACTOR", &mut self.time_hard_factor, 1, 20);
        one(&mut v, "TIME_MAX_PERCENT", &mut self.time_max_percent, 1, 100);
        let [p, n, b, r, q] = &mut self.piece_values;
        tuple(&mut v, "PAWN_VALUE", p, 0, 3000);
        tuple(&mut v, "KNIGHT_VALUE", n, 0, 3000);
        tuple(&mut v, "BISHOP_VALUE", b, 0, 3000);
        tuple(&mut v, "ROOK_VALUE", r, 0, 3000);
        tuple(&mut v, "QUEEN_VALUE", q, 0, 3000);
        one(&mut v, "BISHOP_VALUE_PAIR", &mut self.bishop_value_pair, -500, 500);
        tuple(&mut v, "DOUBLED_PAWN_PENALTY", &mut self.doubled_pawn_penalty, -500, 500);
        tuple(&mut v, "ISOLATED_PAWN_PENALTY", &mut self.isolated_pawn_penalty, -500, 500);
        for (i, t) in self.passed_pawn_bonus.iter_mut().enumerate() {
            tuple(&mut v, &format!("PASSED_PAWN_BONUS_{}", i), t, -500, 1000);
        }
        let [mn, mb, mr, mq] = &mut self.mobility;
        tuple(&mut v, "KNIGHT_MOBILITY", mn, -100, 100);
        tuple(&mut v, "BISHOP_MOBILITY", mb, -100, 100);
        tuple(&mut v, "ROOK_MOBILITY", mr, -100, 100);
        tuple(&mut v, "QUEEN_MOBILITY", mq, -100, 100);
        array(&mut v, "MOBILITY_BASELINE", &mut self.mobility_baseline, 0, 30);
        tuple(&mut v, "ROOK_OPEN_FILE_BONUS", &mut self.rook_open_file_bonus, -500, 500);
        tuple(&mut v, "ROOK_HALF_OPEN_FILE_BONUS", &mut self.rook_half_open_file_bonus, -500, 500);
        array(&mut v, "KING_ATTACK_WEIGHTS", &mut self.king_attack_weights, 0, 50);
        one(&mut v, "KING_ATTACK_SCALE", &mut self.king_attack_scale, 0, 200);
        one(&mut v, "KING_SHIELD_BONUS", &mut self.king_shield_bonus, -200, 200);
        one(&mut v, "KING_OPEN_FILE_PENALTY", &mut self.king_open_file_penalty, -500, 500);
        one(&mut v, "TEMPO_BONUS", &mut self.tempo_bonus, -200, 200);
        v
    }

    /// Print one `option` line per tunable.
    pub fn print_uci_options(&mut self) {
        for o in self.int_options() {
            println!("option name {} type spin default {} min {} max {}", o.name, o.value, o.min, o.max);
        }
        for (name, value, min, max) in self.float_options() {
            println!(
                "option name {} type spin default {} min {} max {}",
                name,
                (*value * 100.0).round() as i64,
                (min * 100.0).round() as i64,
                (max * 100.0).round() as i64
            );
        }
    }

    /// Set an option by (case-insensitive) name. Returns false if the name is unknown.
    pub fn set_option(&mut self, name: &str, value: &str) -> bool {
        let parsed: Option<f64> = value.trim().parse::<f64>().ok();
        let mut found = false;
        for o in self.int_options() {
            if o.name.eq_ignore_ascii_case(name) {
                if let Some(x) = parsed {
                    *o.value = (x.round() as i64).clamp(o.min as i64, o.max as i64) as i32;
                }
                found = true;
            }
        }
        for (n, v, min, max) in self.float_options() {
            if n.eq_ignore_ascii_case(name) {
                if let Some(x) = parsed {
                    *v = (x / 100.0).clamp(min, max);
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
