//! Static evaluation: tapered material + PST, mobility, bishop pair, pawn structure,
//! rooks on open files, king safety. Returns centipawns from the side to move's view.

use crate::board::*;
use crate::params::Params;

const FILE_A: u64 = 0x0101_0101_0101_0101;
const FILE_H: u64 = FILE_A << 7;

const fn gen_adjacent() -> [u64; 8] {
    let mut t = [0u64; 8];
    let mut f = 0;
    while f < 8 {
        if f > 0 {
            t[f] |= FILE_A << (f - 1);
        }
        if f < 7 {
            t[f] |= FILE_A << (f + 1);
        }
        f += 1;
    }
    t
}
static ADJACENT_FILES: [u64; 8] = gen_adjacent();

/// Squares in front of a pawn on its own and adjacent files, per colour.
const fn gen_passed() -> [[u64; 64]; 2] {
    let mut t = [[0u64; 64]; 2];
    let mut sq = 0;
    while sq < 64 {
        let f = sq % 8;
        let r = sq / 8;
        let mut files = FILE_A << f;
        if f > 0 {
            files |= FILE_A << (f - 1);
        }
        if f < 7 {
            files |= FILE_A << (f + 1);
        }
        let mut ahead_w = 0u64;
        let mut rr = r + 1;
        while rr < 8 {
            ahead_w |= 0xFFu64 << (rr * 8);
            rr += 1;
        }
        let mut ahead_b = 0u64;
        let mut rr = 0;
        while rr < r {
            ahead_b |= 0xFFu64 << (rr * 8);
            rr += 1;
        }
        t[0][sq] = files & ahead_w;
        t[1][sq] = files & ahead_b;
        sq += 1;
    }
    t
}
static PASSED_MASK: [[u64; 64]; 2] = gen_passed();

const PHASE_WEIGHT: [i32; 6] = [0, 1, 1, 2, 4, 0];

#[inline(always)]
fn popcnt(b: u64) -> i32 {
    b.count_ones() as i32
}

pub fn evaluate(pos: &Position, p: &Params) -> i32 {
    let occ = pos.occupied();
    let pawns = [pos.pieces_of(WHITE, PAWN), pos.pieces_of(BLACK, PAWN)];

    // insufficient material: no pawns, no rooks/queens, at most one minor each
    if pawns[0] | pawns[1] == 0 && pos.pieces[ROOK] | pos.pieces[QUEEN] == 0 {
        let minors = pos.pieces[KNIGHT] | pos.pieces[BISHOP];
        if popcnt(minors & pos.colors[WHITE]) <= 1 && popcnt(minors & pos.colors[BLACK]) <= 1 {
            return 0;
        }
    }

    let pawn_att = [
        ((pawns[0] << 7) & !FILE_H) | ((pawns[0] << 9) & !FILE_A),
        ((pawns[1] >> 9) & !FILE_H) | ((pawns[1] >> 7) & !FILE_A),
    ];
    let king_sq = [pos.king_sq(WHITE), pos.king_sq(BLACK)];
    let king_zone = [
        KING_ATTACKS[king_sq[0]] | (1u64 << king_sq[0]),
        KING_ATTACKS[king_sq[1]] | (1u64 << king_sq[1]),
    ];

    let mut mg = [0i32; 2];
    let mut eg = [0i32; 2];
    let mut phase = 0;

    for c in 0..2 {
        let them = c ^ 1;
        let own = pos.colors[c];
        let mobility_area = !own & !pawn_att[them];
        let enemy_zone = king_zone[them];
        let mut attack_units = 0;
        let mut attackers = 0;

        // pawns
        let mut b = pawns[c];
        while b != 0 {
            let sq = b.trailing_zeros() as usize;
            b &= b - 1;
            mg[c] += p.psqt_mg[c][PAWN][sq];
            eg[c] += p.psqt_eg[c][PAWN][sq];
            let f = sq % 8;
            if ADJACENT_FILES[f] & pawns[c] == 0 {
                mg[c] += p.ISOLATED_PAWN_PENALTY.0;
                eg[c] += p.ISOLATED_PAWN_PENALTY.1;
            }
            if PASSED_MASK[c][sq] & pawns[them] == 0 && PASSED_MASK[c][sq] & pawns[c] & (FILE_A << f) == 0 {
                let rank = if c == WHITE { sq / 8 } else { 7 - sq / 8 };
                mg[c] += p.PASSED_PAWN_BONUS[rank].0;
                eg[c] += p.PASSED_PAWN_BONUS[rank].1;
            }
        }
        for f in 0..8 {
            let n = popcnt(pawns[c] & (FILE_A << f));
            if n > 1 {
                mg[c] += (n - 1) * p.DOUBLED_PAWN_PENALTY.0;
                eg[c] += (n - 1) * p.DOUBLED_PAWN_PENALTY.1;
            }
        }

        // pieces
        for piece in KNIGHT..=QUEEN {
            let mut b = pos.pieces[piece] & own;
            let k = piece - KNIGHT;
            while b != 0 {
                let sq = b.trailing_zeros() as usize;
                b &= b - 1;
                mg[c] += p.psqt_mg[c][piece][sq];
                eg[c] += p.psqt_eg[c][piece][sq];
                phase += PHASE_WEIGHT[piece];
                let att = match piece {
                    KNIGHT => KNIGHT_ATTACKS[sq],
                    BISHOP => bishop_attacks(sq, occ),
                    ROOK => rook_attacks(sq, occ),
                    _ => bishop_attacks(sq, occ) | rook_attacks(sq, occ),
                };
                let mob = popcnt(att & mobility_area) - p.MOBILITY_BASELINE[k];
                mg[c] += mob * p.mobility[k].0;
                eg[c] += mob * p.mobility[k].1;
                let za = att & enemy_zone;
                if za != 0 {
                    attackers += 1;
                    attack_units += p.KING_ATTACK_WEIGHTS[k] * popcnt(za);
                }
                if piece == ROOK {
                    let file = FILE_A << (sq % 8);
                    if file & pawns[c] == 0 {
                        if file & pawns[them] == 0 {
                            mg[c] += p.ROOK_OPEN_FILE_BONUS.0;
                            eg[c] += p.ROOK_OPEN_FILE_BONUS.1;
                        } else {
                            mg[c] += p.ROOK_HALF_OPEN_FILE_BONUS.0;
                            eg[c] += p.ROOK_HALF_OPEN_FILE_BONUS.1;
                        }
                    }
                }
            }
        }
        if attackers >= 2 {
            mg[c] += (attack_units * attack_units * p.KING_ATTACK_SCALE / 64).min(800);
        }
        if popcnt(pos.pieces[BISHOP] & own) >= 2 {
            mg[c] += p.BISHOP_VALUE_PAIR;
            eg[c] += p.BISHOP_VALUE_PAIR;
        }

        // king
        let ksq = king_sq[c];
        mg[c] += p.psqt_mg[c][KING][ksq];
        eg[c] += p.psqt_eg[c][KING][ksq];
        let kf = ksq % 8;
        let shield_files = ADJACENT_FILES[kf] | (FILE_A << kf);
        let shield = shield_files & PASSED_MASK[c][ksq] & pawns[c];
        let krank = if c == WHITE { ksq / 8 } else { 7 - ksq / 8 };
        if krank <= 1 {
            // pawns on the two ranks in front of the king
            let near = if c == WHITE { 0xFFFFu64 << ((ksq / 8 + 1) * 8) } else { 0xFFFFu64 << ((ksq / 8).saturating_sub(2) * 8) };
            mg[c] += popcnt(shield & near).min(3) * p.KING_SHIELD_BONUS;
        }
        if pawns[c] & (FILE_A << kf) == 0 {
            mg[c] += p.KING_OPEN_FILE_PENALTY;
        }
    }

    let phase = phase.min(24);
    let mg_score = mg[0] - mg[1];
    let eg_score = eg[0] - eg[1];
    let score = (mg_score * phase + eg_score * (24 - phase)) / 24;
    let score = if pos.stm == WHITE { score } else { -score };
    score + p.TEMPO_BONUS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symmetric() {
        let p = Params::default();
        for fen in [
            START_FEN,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        ] {
            let a = Position::from_fen(fen).unwrap();
            let b = Position::from_fen(&mirror_fen(fen)).unwrap();
            assert_eq!(evaluate(&a, &p), evaluate(&b, &p), "{}", fen);
        }
    }

    fn mirror_fen(fen: &str) -> String {
        let parts: Vec<&str> = fen.split(' ').collect();
        let board: Vec<String> = parts[0]
            .split('/')
            .rev()
            .map(|r| r.chars().map(|c| if c.is_ascii_uppercase() { c.to_ascii_lowercase() } else { c.to_ascii_uppercase() }).collect())
            .collect();
        let stm = if parts[1] == "w" { "b" } else { "w" };
        format!("{} {} - - 0 1", board.join("/"), stm)
    }
}
