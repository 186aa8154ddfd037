//! Every tunable number of the engine lives here.
//!
//! The SPSA tool rewrites the literals in this file and rebuilds, so every tunable is a
//! plain literal (or an array / tuple of literals). Each is declared once, in `tunables!`
//! (see `tunables.rs`), which also makes it a UCI option: the value compiled here is the
//! option's default, `#[range(min, max)]` its range (per element, in the constant's units).
//!
//! Naming of UCI options: scalars keep their name (`LMR_MIN_DEPTH`), array elements get
//! `_<index>` (`ALPHA_PRUNE_MARGINS_0`), (middlegame, endgame) tuples get `_MG` / `_EG`
//! (`KNIGHT_VALUE_MG`), arrays of tuples get both (`PASSED_PAWN_BONUS_5_EG`), floats are
//! spin options scaled by 100 (`LMR_BASE_X100`).

/// Centipawns.
pub type Score = i32;

tunables! {
    // ---------------------------------------------------------------------------------------
    // Search: late move reductions. reduction = floor(LMR_BASE + ln(depth) * ln(moves) / LMR_DIVISOR)
    // ---------------------------------------------------------------------------------------

    #[range(0, 20)]
    pub const LMR_LEGAL_MOVES_BEFORE_ATTEMPT: u8 = 3;
    #[range(0, 20)]
    pub const LMR_MIN_DEPTH: u8 = 3;
    #[range(0.0, 3.0)]
    pub const LMR_BASE: f64 = 0.75;
    #[range(0.5, 10.0)]
    pub const LMR_DIVISOR: f64 = 2.5;

    // Reverse futility pruning ("beta pruning"): static eval - margin * depth >= beta.
    #[range(0, 1000)]
    pub const BETA_PRUNE_MARGIN_PER_DEPTH: Score = 90;
    #[range(0, 20)]
    pub const BETA_PRUNE_MAX_DEPTH: u8 = 6;

    // Futility pruning ("alpha pruning") of quiet moves: static eval + margin[depth - 1] <= alpha.
    #[range(0, 2000)]
    pub const ALPHA_PRUNE_MARGINS: [Score; 4] = [130, 260, 400, 550];

    // Null move pruning: R = NULL_MOVE_REDUCE_DEPTH_BASE + depth / NULL_MOVE_REDUCE_DEPTH_DIVISOR.
    #[range(0, 20)]
    pub const NULL_MOVE_MIN_DEPTH: u8 = 3;
    #[range(0, 10)]
    pub const NULL_MOVE_REDUCE_DEPTH_BASE: u8 = 3;
    #[range(1, 20)]
    pub const NULL_MOVE_REDUCE_DEPTH_DIVISOR: u8 = 6;

    // SEE pruning: skip a move when SEE < -SEE_PRUNE_MARGIN * depth (depth <= SEE_PRUNE_MAX_DEPTH).
    #[range(0, 1000)]
    pub const SEE_PRUNE_MARGIN: Score = 70;
    #[range(0, 20)]
    pub const SEE_PRUNE_MAX_DEPTH: u8 = 5;

    // Late move pruning: after this many quiet moves at depth d (index d - 1), skip the rest.
    #[range(0, 100)]
    pub const LMP_MOVE_THRESHOLDS: [u8; 4] = [5, 9, 14, 22];

    // Aspiration windows: successive half-widths around the previous score, then full window.
    #[range(1, 2000)]
    pub const ASPIRATION_WINDOWS: [Score; 3] = [30, 110, 450];
    #[range(1, 30)]
    pub const ASPIRATION_MIN_DEPTH: u8 = 4;

    // Quiescence delta pruning: skip captures that cannot raise alpha even with this margin.
    #[range(0, 2000)]
    pub const DELTA_PRUNE_MARGIN: Score = 200;

    // ---------------------------------------------------------------------------------------
    // Time management (clock mode): soft = time / TIME_MOVES_TO_GO + inc * TIME_INC_PERCENT / 100,
    // hard = min(soft * TIME_HARD_FACTOR, time * TIME_MAX_PERCENT / 100).
    // ---------------------------------------------------------------------------------------

    #[range(1, 200)]
    pub const TIME_MOVES_TO_GO: u32 = 30;
    #[range(0, 200)]
    pub const TIME_INC_PERCENT: u32 = 80;
    #[range(1, 20)]
    pub const TIME_HARD_FACTOR: u32 = 4;
    #[range(1, 100)]
    pub const TIME_MAX_PERCENT: u32 = 40;

    // ---------------------------------------------------------------------------------------
    // Evaluation: (middlegame, endgame) pairs, tapered by game phase.
    // ---------------------------------------------------------------------------------------

    #[range(0, 3000)]
    pub const PAWN_VALUE: (Score, Score) = (82, 94);
    #[range(0, 3000)]
    pub const KNIGHT_VALUE: (Score, Score) = (320, 300);
    #[range(0, 3000)]
    pub const BISHOP_VALUE: (Score, Score) = (335, 310);
    #[range(0, 3000)]
    pub const ROOK_VALUE: (Score, Score) = (480, 520);
    #[range(0, 3000)]
    pub const QUEEN_VALUE: (Score, Score) = (980, 950);

    #[range(-500, 500)]
    pub const BISHOP_VALUE_PAIR: Score = 35;

    #[range(-500, 500)]
    pub const DOUBLED_PAWN_PENALTY: (Score, Score) = (-10, -20);
    #[range(-500, 500)]
    pub const ISOLATED_PAWN_PENALTY: (Score, Score) = (-12, -14);

    /// Indexed by the pawn's rank from its own side (0 = first rank, 7 = eighth rank).
    #[range(-500, 1000)]
    pub const PASSED_PAWN_BONUS: [(Score, Score); 8] =
        [(0, 0), (2, 8), (5, 12), (10, 25), (20, 45), (35, 80), (60, 130), (0, 0)];

    // Mobility: per square attacked that is not ours and not attacked by an enemy pawn,
    // counted from MOBILITY_BASELINE squares.
    #[range(-100, 100)]
    pub const KNIGHT_MOBILITY: (Score, Score) = (4, 4);
    #[range(-100, 100)]
    pub const BISHOP_MOBILITY: (Score, Score) = (5, 5);
    #[range(-100, 100)]
    pub const ROOK_MOBILITY: (Score, Score) = (2, 4);
    #[range(-100, 100)]
    pub const QUEEN_MOBILITY: (Score, Score) = (1, 2);
    #[range(0, 30)]
    pub const MOBILITY_BASELINE: [Score; 4] = [4, 6, 7, 13];

    #[range(-500, 500)]
    pub const ROOK_OPEN_FILE_BONUS: (Score, Score) = (25, 10);
    #[range(-500, 500)]
    pub const ROOK_HALF_OPEN_FILE_BONUS: (Score, Score) = (10, 5);

    // King safety (middlegame only). Attack units per attacker type (N, B, R, Q) on the king
    // zone; penalty = units^2 * KING_ATTACK_SCALE / 64 once two or more pieces attack.
    #[range(0, 50)]
    pub const KING_ATTACK_WEIGHTS: [Score; 4] = [2, 2, 3, 5];
    #[range(0, 200)]
    pub const KING_ATTACK_SCALE: Score = 12;
    #[range(-200, 200)]
    pub const KING_SHIELD_BONUS: Score = 10;
    #[range(-500, 500)]
    pub const KING_OPEN_FILE_PENALTY: Score = -25;

    #[range(-200, 200)]
    pub const TEMPO_BONUS: Score = 10;
}

/// Derived, not tuned directly: futility pruning applies up to this depth.
pub const ALPHA_PRUNE_MAX_DEPTH: u8 = ALPHA_PRUNE_MARGINS.len() as u8;
