//! Board representation (bitboards + mailbox), attacks, move generation, make move.

pub const WHITE: usize = 0;
pub const BLACK: usize = 1;
pub const PAWN: usize = 0;
pub const KNIGHT: usize = 1;
pub const BISHOP: usize = 2;
pub const ROOK: usize = 3;
pub const QUEEN: usize = 4;
pub const KING: usize = 5;
pub const EMPTY: u8 = 6;
pub const NO_SQ: u8 = 64;

// ------------------------------------------------------------------------------- tables

const fn gen_leaper(deltas: &[(i32, i32)]) -> [u64; 64] {
    let mut t = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let r = (sq / 8) as i32;
        let f = (sq % 8) as i32;
        let mut i = 0;
        while i < deltas.len() {
            let nr = r + deltas[i].0;
            let nf = f + deltas[i].1;
            if nr >= 0 && nr < 8 && nf >= 0 && nf < 8 {
                t[sq] |= 1u64 << (nr * 8 + nf);
            }
            i += 1;
        }
        sq += 1;
    }
    t
}

pub static KNIGHT_ATTACKS: [u64; 64] =
    gen_leaper(&[(1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1)]);
pub static KING_ATTACKS: [u64; 64] =
    gen_leaper(&[(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)]);
pub static PAWN_ATTACKS: [[u64; 64]; 2] = [gen_leaper(&[(1, -1), (1, 1)]), gen_leaper(&[(-1, -1), (-1, 1)])];

// Ray directions: 0 N, 1 NE, 2 E, 3 NW (positive: first blocker = lsb), 4 S, 5 SW, 6 W, 7 SE.
const DIRS: [(i32, i32); 8] = [(1, 0), (1, 1), (0, 1), (1, -1), (-1, 0), (-1, -1), (0, -1), (-1, 1)];

const fn gen_rays() -> [[u64; 64]; 8] {
    let mut t = [[0u64; 64]; 8];
    let mut d = 0;
    while d < 8 {
        let mut sq = 0;
        while sq < 64 {
            let mut r = (sq / 8) as i32 + DIRS[d].0;
            let mut f = (sq % 8) as i32 + DIRS[d].1;
            while r >= 0 && r < 8 && f >= 0 && f < 8 {
                t[d][sq] |= 1u64 << (r * 8 + f);
                r += DIRS[d].0;
                f += DIRS[d].1;
            }
            sq += 1;
        }
        d += 1;
    }
    t
}

static RAYS: [[u64; 64]; 8] = gen_rays();

#[inline(always)]
fn pos_ray(d: usize, sq: usize, occ: u64) -> u64 {
    let a = RAYS[d][sq];
    let b = a & occ;
    if b != 0 {
        a ^ RAYS[d][b.trailing_zeros() as usize]
    } else {
        a
    }
}

#[inline(always)]
fn neg_ray(d: usize, sq: usize, occ: u64) -> u64 {
    let a = RAYS[d][sq];
    let b = a & occ;
    if b != 0 {
        a ^ RAYS[d][63 - b.leading_zeros() as usize]
    } else {
        a
    }
}

#[inline(always)]
pub fn bishop_attacks(sq: usize, occ: u64) -> u64 {
    pos_ray(1, sq, occ) | pos_ray(3, sq, occ) | neg_ray(5, sq, occ) | neg_ray(7, sq, occ)
}

#[inline(always)]
pub fn rook_attacks(sq: usize, occ: u64) -> u64 {
    pos_ray(0, sq, occ) | pos_ray(2, sq, occ) | neg_ray(4, sq, occ) | neg_ray(6, sq, occ)
}

// Zobrist keys, generated at compile time with splitmix64.
const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (s, z ^ (z >> 31))
}

const fn gen_keys() -> [u64; 12 * 64 + 16 + 8 + 1] {
    let mut t = [0u64; 12 * 64 + 16 + 8 + 1];
    let mut s = 0x1234_5678_9abc_def0u64;
    let mut i = 0;
    while i < t.len() {
        let (ns, v) = splitmix(s);
        s = ns;
        t[i] = v;
        i += 1;
    }
    t
}

static KEYS: [u64; 12 * 64 + 16 + 8 + 1] = gen_keys();

#[inline(always)]
fn piece_key(c: usize, p: usize, sq: usize) -> u64 {
    KEYS[(c * 6 + p) * 64 + sq]
}
#[inline(always)]
fn castle_key(c: u8) -> u64 {
    KEYS[768 + c as usize]
}
#[inline(always)]
fn ep_key(sq: u8) -> u64 {
    KEYS[784 + (sq as usize & 7)]
}
#[inline(always)]
fn side_key() -> u64 {
    KEYS[792]
}

const fn gen_castle_mask() -> [u8; 64] {
    let mut t = [15u8; 64];
    t[0] = 15 & !2;
    t[4] = 15 & !3;
    t[7] = 15 & !1;
    t[56] = 15 & !8;
    t[60] = 15 & !12;
    t[63] = 15 & !4;
    t
}
static CASTLE_MASK: [u8; 64] = gen_castle_mask();

// ------------------------------------------------------------------------------- moves

pub const FLAG_QUIET: u16 = 0;
pub const FLAG_DOUBLE: u16 = 1;
pub const FLAG_KCASTLE: u16 = 2;
pub const FLAG_QCASTLE: u16 = 3;
pub const FLAG_CAPTURE: u16 = 4;
pub const FLAG_EP: u16 = 5;
pub const FLAG_PROMO: u16 = 8; // + (piece - KNIGHT), + 4 when capturing

#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub struct Move(pub u16);

impl Move {
    pub const NONE: Move = Move(0);
    #[inline(always)]
    pub fn new(from: usize, to: usize, flag: u16) -> Move {
        Move(from as u16 | ((to as u16) << 6) | (flag << 12))
    }
    #[inline(always)]
    pub fn from(self) -> usize {
        (self.0 & 63) as usize
    }
    #[inline(always)]
    pub fn to(self) -> usize {
        ((self.0 >> 6) & 63) as usize
    }
    #[inline(always)]
    pub fn flag(self) -> u16 {
        self.0 >> 12
    }
    #[inline(always)]
    pub fn is_capture(self) -> bool {
        self.flag() & 4 != 0
    }
    #[inline(always)]
    pub fn is_promo(self) -> bool {
        self.flag() & 8 != 0
    }
    #[inline(always)]
    pub fn promo_piece(self) -> usize {
        (self.flag() & 3) as usize + KNIGHT
    }
    pub fn is_none(self) -> bool {
        self.0 == 0
    }
    pub fn uci(self) -> String {
        if self.is_none() {
            return "0000".to_string();
        }
        let mut s = format!("{}{}", sq_name(self.from()), sq_name(self.to()));
        if self.is_promo() {
            s.push(['n', 'b', 'r', 'q'][self.promo_piece() - KNIGHT]);
        }
        s
    }
}

pub fn sq_name(sq: usize) -> String {
    let f = (b'a' + (sq % 8) as u8) as char;
    let r = (b'1' + (sq / 8) as u8) as char;
    format!("{}{}", f, r)
}

pub struct MoveList {
    pub moves: [Move; 256],
    pub len: usize,
}

impl MoveList {
    pub fn new() -> MoveList {
        MoveList { moves: [Move::NONE; 256], len: 0 }
    }
    #[inline(always)]
    fn push(&mut self, m: Move) {
        self.moves[self.len] = m;
        self.len += 1;
    }
}

// ------------------------------------------------------------------------------- position

#[derive(Copy, Clone)]
pub struct Position {
    pub pieces: [u64; 6],
    pub colors: [u64; 2],
    pub board: [u8; 64],
    pub stm: usize,
    pub castling: u8,
    pub ep: u8,
    pub halfmove: u16,
    pub fullmove: u16,
    pub hash: u64,
}

pub const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

impl Position {
    pub fn empty() -> Position {
        Position {
            pieces: [0; 6],
            colors: [0; 2],
            board: [EMPTY; 64],
            stm: WHITE,
            castling: 0,
            ep: NO_SQ,
            halfmove: 0,
            fullmove: 1,
            hash: 0,
        }
    }

    pub fn startpos() -> Position {
        Position::from_fen(START_FEN).unwrap()
    }

    pub fn from_fen(fen: &str) -> Option<Position> {
        let mut p = Position::empty();
        let parts: Vec<&str> = fen.split_whitespace().collect();
        if parts.len() < 2 {
            return None;
        }
        let mut rank = 7i32;
        let mut file = 0i32;
        for ch in parts[0].chars() {
            match ch {
                '/' => {
                    rank -= 1;
                    file = 0;
                }
                '1'..='8' => file += ch as i32 - '0' as i32,
                _ => {
                    let color = if ch.is_ascii_uppercase() { WHITE } else { BLACK };
                    let piece = match ch.to_ascii_lowercase() {
                        'p' => PAWN,
                        'n' => KNIGHT,
                        'b' => BISHOP,
                        'r' => ROOK,
                        'q' => QUEEN,
                        'k' => KING,
                        _ => return None,
                    };
                    if !(0..8).contains(&rank) || !(0..8).contains(&file) {
                        return None;
                    }
                    p.add(color, piece, (rank * 8 + file) as usize);
                    file += 1;
                }
            }
        }
        p.stm = if parts[1] == "b" { BLACK } else { WHITE };
        if let Some(c) = parts.get(2) {
            for ch in c.chars() {
                match ch {
                    'K' => p.castling |= 1,
                    'Q' => p.castling |= 2,
                    'k' => p.castling |= 4,
                    'q' => p.castling |= 8,
                    _ => {}
                }
            }
        }
        if let Some(e) = parts.get(3) {
            let b = e.as_bytes();
            if b.len() == 2 && (b'a'..=b'h').contains(&b[0]) && (b'1'..=b'8').contains(&b[1]) {
                let sq = ((b[1] - b'1') * 8 + (b[0] - b'a')) as u8;
                // keep the ep square only if a pawn can actually capture there
                let us = p.stm;
                if PAWN_ATTACKS[us ^ 1][sq as usize] & p.pieces[PAWN] & p.colors[us] != 0 {
                    p.ep = sq;
                }
            }
        }
        p.halfmove = parts.get(4).and_then(|s| s.parse().ok()).unwrap_or(0);
        p.fullmove = parts.get(5).and_then(|s| s.parse().ok()).unwrap_or(1);
        if p.pieces[KING] & p.colors[WHITE] == 0 || p.pieces[KING] & p.colors[BLACK] == 0 {
            return None;
        }
        p.hash = p.compute_hash();
        Some(p)
    }

    pub fn compute_hash(&self) -> u64 {
        let mut h = 0;
        for sq in 0..64 {
            let pc = self.board[sq];
            if pc != EMPTY {
                let c = if self.colors[WHITE] & (1 << sq) != 0 { WHITE } else { BLACK };
                h ^= piece_key(c, pc as usize, sq);
            }
        }
        h ^= castle_key(self.castling);
        if self.ep != NO_SQ {
            h ^= ep_key(self.ep);
        }
        if self.stm == BLACK {
            h ^= side_key();
        }
        h
    }

    #[inline(always)]
    fn add(&mut self, c: usize, p: usize, sq: usize) {
        let b = 1u64 << sq;
        self.pieces[p] |= b;
        self.colors[c] |= b;
        self.board[sq] = p as u8;
        self.hash ^= piece_key(c, p, sq);
    }

    #[inline(always)]
    fn remove(&mut self, c: usize, p: usize, sq: usize) {
        let b = 1u64 << sq;
        self.pieces[p] ^= b;
        self.colors[c] ^= b;
        self.board[sq] = EMPTY;
        self.hash ^= piece_key(c, p, sq);
    }

    #[inline(always)]
    pub fn occupied(&self) -> u64 {
        self.colors[0] | self.colors[1]
    }

    #[inline(always)]
    pub fn pieces_of(&self, c: usize, p: usize) -> u64 {
        self.pieces[p] & self.colors[c]
    }

    #[inline(always)]
    pub fn king_sq(&self, c: usize) -> usize {
        (self.pieces[KING] & self.colors[c]).trailing_zeros() as usize
    }

    /// Is `sq` attacked by side `by`?
    #[inline]
    pub fn is_attacked(&self, sq: usize, by: usize) -> bool {
        let them = self.colors[by];
        if KNIGHT_ATTACKS[sq] & them & self.pieces[KNIGHT] != 0 {
            return true;
        }
        if PAWN_ATTACKS[by ^ 1][sq] & them & self.pieces[PAWN] != 0 {
            return true;
        }
        if KING_ATTACKS[sq] & them & self.pieces[KING] != 0 {
            return true;
        }
        let occ = self.occupied();
        let bq = (self.pieces[BISHOP] | self.pieces[QUEEN]) & them;
        if bq != 0 && bishop_attacks(sq, occ) & bq != 0 {
            return true;
        }
        let rq = (self.pieces[ROOK] | self.pieces[QUEEN]) & them;
        rq != 0 && rook_attacks(sq, occ) & rq != 0
    }

    /// All pieces of both colours attacking `sq` given occupancy `occ`.
    #[inline]
    pub fn attackers_to(&self, sq: usize, occ: u64) -> u64 {
        (PAWN_ATTACKS[BLACK][sq] & self.pieces_of(WHITE, PAWN))
            | (PAWN_ATTACKS[WHITE][sq] & self.pieces_of(BLACK, PAWN))
            | (KNIGHT_ATTACKS[sq] & self.pieces[KNIGHT])
            | (KING_ATTACKS[sq] & self.pieces[KING])
            | (bishop_attacks(sq, occ) & (self.pieces[BISHOP] | self.pieces[QUEEN]))
            | (rook_attacks(sq, occ) & (self.pieces[ROOK] | self.pieces[QUEEN]))
    }

    #[inline]
    pub fn in_check(&self) -> bool {
        self.is_attacked(self.king_sq(self.stm), self.stm ^ 1)
    }

    /// Non-pawn, non-king material present for side c (null move safety).
    pub fn has_pieces(&self, c: usize) -> bool {
        self.colors[c] & !(self.pieces[PAWN] | self.pieces[KING]) != 0
    }

    /// Piece captured by `m` (PAWN for en passant), or EMPTY.
    #[inline(always)]
    pub fn captured(&self, m: Move) -> usize {
        if m.flag() == FLAG_EP {
            PAWN
        } else {
            self.board[m.to()] as usize
        }
    }

    /// Make a pseudo-legal move; None if it leaves the mover's king in check.
    pub fn make(&self, m: Move) -> Option<Position> {
        let mut p = *self;
        let us = self.stm;
        let them = us ^ 1;
        let from = m.from();
        let to = m.to();
        let flag = m.flag();
        let piece = self.board[from] as usize;

        if p.ep != NO_SQ {
            p.hash ^= ep_key(p.ep);
            p.ep = NO_SQ;
        }
        p.halfmove += 1;

        if m.is_capture() {
            if flag == FLAG_EP {
                p.remove(them, PAWN, to ^ 8);
            } else {
                p.remove(them, self.board[to] as usize, to);
            }
            p.halfmove = 0;
        }
        p.remove(us, piece, from);
        if m.is_promo() {
            p.add(us, m.promo_piece(), to);
        } else {
            p.add(us, piece, to);
        }
        if piece == PAWN {
            p.halfmove = 0;
            if flag == FLAG_DOUBLE {
                let ep = (from + to) / 2;
                if PAWN_ATTACKS[us][ep] & p.pieces[PAWN] & p.colors[them] != 0 {
                    p.ep = ep as u8;
                    p.hash ^= ep_key(p.ep);
                }
            }
        } else if flag == FLAG_KCASTLE {
            p.remove(us, ROOK, to + 1);
            p.add(us, ROOK, to - 1);
        } else if flag == FLAG_QCASTLE {
            p.remove(us, ROOK, to - 2);
            p.add(us, ROOK, to + 1);
        }
        let nc = p.castling & CASTLE_MASK[from] & CASTLE_MASK[to];
        if nc != p.castling {
            p.hash ^= castle_key(p.castling) ^ castle_key(nc);
            p.castling = nc;
        }
        p.stm = them;
        p.hash ^= side_key();
        if us == BLACK {
            p.fullmove += 1;
        }
        if p.is_attacked(p.king_sq(us), them) {
            return None;
        }
        Some(p)
    }

    pub fn make_null(&self) -> Position {
        let mut p = *self;
        if p.ep != NO_SQ {
            p.hash ^= ep_key(p.ep);
            p.ep = NO_SQ;
        }
        p.stm ^= 1;
        p.hash ^= side_key();
        p.halfmove += 1;
        p
    }

    /// Pseudo-legal moves. With `noisy_only`, captures and queen promotions only.
    pub fn generate(&self, list: &mut MoveList, noisy_only: bool) {
        let us = self.stm;
        let them = us ^ 1;
        let own = self.colors[us];
        let enemy = self.colors[them];
        let occ = own | enemy;
        let empty = !occ;
        let targets = if noisy_only { enemy } else { !own };

        // pawns
        let pawns = self.pieces[PAWN] & own;
        let (up, rank3, promo_rank): (i32, u64, u64) =
            if us == WHITE { (8, 0xFF_0000, 0xFF00_0000_0000_0000) } else { (-8, 0xFF00_0000_0000, 0xFF) };
        let shift = |b: u64, d: i32| if d > 0 { b << d } else { b >> (-d) };
        let single = shift(pawns, up) & empty;
        let double = shift(single & rank3, up) & empty;
        let mut b = single;
        while b != 0 {
            let to = b.trailing_zeros() as usize;
            b &= b - 1;
            let from = (to as i32 - up) as usize;
            if (1u64 << to) & promo_rank != 0 {
                list.push(Move::new(from, to, FLAG_PROMO + 3));
                if !noisy_only {
                    for k in 0..3 {
                        list.push(Move::new(from, to, FLAG_PROMO + k));
                    }
                }
            } else if !noisy_only {
                list.push(Move::new(from, to, FLAG_QUIET));
            }
        }
        if !noisy_only {
            let mut b = double;
            while b != 0 {
                let to = b.trailing_zeros() as usize;
                b &= b - 1;
                list.push(Move::new((to as i32 - 2 * up) as usize, to, FLAG_DOUBLE));
            }
        }
        let mut b = pawns;
        while b != 0 {
            let from = b.trailing_zeros() as usize;
            b &= b - 1;
            let mut att = PAWN_ATTACKS[us][from] & enemy;
            while att != 0 {
                let to = att.trailing_zeros() as usize;
                att &= att - 1;
                if (1u64 << to) & promo_rank != 0 {
                    for k in (0..4).rev() {
                        list.push(Move::new(from, to, FLAG_PROMO + 4 + k));
                    }
                } else {
                    list.push(Move::new(from, to, FLAG_CAPTURE));
                }
            }
            if self.ep != NO_SQ && PAWN_ATTACKS[us][from] & (1u64 << self.ep) != 0 {
                list.push(Move::new(from, self.ep as usize, FLAG_EP));
            }
        }

        // pieces
        for piece in KNIGHT..=KING {
            let mut b = self.pieces[piece] & own;
            while b != 0 {
                let from = b.trailing_zeros() as usize;
                b &= b - 1;
                let att = match piece {
                    KNIGHT => KNIGHT_ATTACKS[from],
                    BISHOP => bishop_attacks(from, occ),
                    ROOK => rook_attacks(from, occ),
                    QUEEN => bishop_attacks(from, occ) | rook_attacks(from, occ),
                    _ => KING_ATTACKS[from],
                };
                let mut t = att & targets;
                while t != 0 {
                    let to = t.trailing_zeros() as usize;
                    t &= t - 1;
                    let flag = if enemy & (1u64 << to) != 0 { FLAG_CAPTURE } else { FLAG_QUIET };
                    list.push(Move::new(from, to, flag));
                }
            }
        }

        // castling
        if !noisy_only && self.castling != 0 {
            let (k, q, base) = if us == WHITE { (1u8, 2u8, 0usize) } else { (4u8, 8u8, 56usize) };
            if self.castling & k != 0
                && occ & (0b0110_0000u64 << base) == 0
                && !self.is_attacked(base + 4, them)
                && !self.is_attacked(base + 5, them)
                && !self.is_attacked(base + 6, them)
            {
                list.push(Move::new(base + 4, base + 6, FLAG_KCASTLE));
            }
            if self.castling & q != 0
                && occ & (0b0000_1110u64 << base) == 0
                && !self.is_attacked(base + 4, them)
                && !self.is_attacked(base + 3, them)
                && !self.is_attacked(base + 2, them)
            {
                list.push(Move::new(base + 4, base + 2, FLAG_QCASTLE));
            }
        }
    }

    pub fn legal_moves(&self) -> Vec<Move> {
        let mut list = MoveList::new();
        self.generate(&mut list, false);
        list.moves[..list.len].iter().copied().filter(|&m| self.make(m).is_some()).collect()
    }

    pub fn parse_move(&self, s: &str) -> Option<Move> {
        self.legal_moves().into_iter().find(|m| m.uci() == s)
    }

    /// Static exchange evaluation of `m` with the given piece values.
    pub fn see(&self, m: Move, values: &[i32; 6]) -> i32 {
        let from = m.from();
        let to = m.to();
        let mut gain = [0i32; 32];
        let mut occ = self.occupied();
        let captured = self.captured(m);
        gain[0] = if captured == EMPTY as usize { 0 } else { values[captured] };
        let mut attacker = self.board[from] as usize;
        if m.is_promo() {
            attacker = m.promo_piece();
            gain[0] += values[attacker] - values[PAWN];
        }
        occ ^= 1u64 << from;
        if m.flag() == FLAG_EP {
            occ ^= 1u64 << (to ^ 8);
        }
        let mut side = self.stm ^ 1;
        let mut d = 0;
        let diag = self.pieces[BISHOP] | self.pieces[QUEEN];
        let straight = self.pieces[ROOK] | self.pieces[QUEEN];
        let mut attackers = self.attackers_to(to, occ) & occ;
        loop {
            let mine = attackers & self.colors[side];
            if mine == 0 || d >= 30 {
                break;
            }
            // least valuable attacker
            let mut found = 6;
            let mut bb = 0;
            for p in PAWN..=KING {
                let b = mine & self.pieces[p];
                if b != 0 {
                    found = p;
                    bb = b & b.wrapping_neg();
                    break;
                }
            }
            d += 1;
            gain[d] = values[attacker] - gain[d - 1];
            if gain[d].max(-gain[d - 1]) < 0 {
                break;
            }
            if found == KING && attackers & self.colors[side ^ 1] != 0 {
                // king cannot capture into a defended square
                d -= 1;
                break;
            }
            attacker = found;
            occ ^= bb;
            attackers = (attackers
                | (bishop_attacks(to, occ) & diag)
                | (rook_attacks(to, occ) & straight))
                & occ;
            side ^= 1;
        }
        while d > 0 {
            gain[d - 1] = -(gain[d].max(-gain[d - 1]));
            d -= 1;
        }
        gain[0]
    }

    pub fn perft(&self, depth: u32) -> u64 {
        let mut list = MoveList::new();
        self.generate(&mut list, false);
        let mut n = 0;
        for &m in &list.moves[..list.len] {
            if let Some(p) = self.make(m) {
                n += if depth <= 1 { 1 } else { p.perft(depth - 1) };
            }
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(fen: &str, expected: &[u64]) {
        let p = Position::from_fen(fen).unwrap();
        for (i, &e) in expected.iter().enumerate() {
            assert_eq!(p.perft(i as u32 + 1), e, "perft({}) of {}", i + 1, fen);
        }
    }

    #[test]
    fn perft_startpos() {
        check(START_FEN, &[20, 400, 8902, 197281, 4865609]);
    }

    #[test]
    fn perft_kiwipete() {
        check(
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            &[48, 2039, 97862, 4085603],
        );
    }

    #[test]
    fn perft_position3() {
        check("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", &[14, 191, 2812, 43238, 674624, 11030083]);
    }

    #[test]
    fn perft_position4() {
        check(
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            &[6, 264, 9467, 422333, 15833292],
        );
        // mirrored
        check(
            "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1",
            &[6, 264, 9467, 422333],
        );
    }

    #[test]
    fn perft_position5() {
        check("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", &[44, 1486, 62379, 2103487]);
    }

    #[test]
    fn perft_position6() {
        check(
            "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
            &[46, 2079, 89890, 3894594],
        );
    }

    #[test]
    fn hash_is_incremental() {
        let mut p = Position::from_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1").unwrap();
        for _ in 0..40 {
            let moves = p.legal_moves();
            if moves.is_empty() {
                break;
            }
            let m = moves[(p.hash % moves.len() as u64) as usize];
            p = p.make(m).unwrap();
            assert_eq!(p.hash, p.compute_hash());
        }
    }

    #[test]
    fn see_values() {
        let v = [100, 300, 300, 500, 900, 0];
        // pawn takes defended knight: +300 - ... pawn recaptured => 300 - 100 = 200
        let p = Position::from_fen("4k3/8/3p4/4n3/3P4/8/8/4K3 w - - 0 1").unwrap();
        let m = p.parse_move("d4e5").unwrap();
        assert_eq!(p.see(m, &v), 200);
        // rook takes pawn defended by pawn: 100 - 500
        let p = Position::from_fen("4k3/8/3p4/4p3/8/8/8/4RK2 w - - 0 1").unwrap();
        let m = p.parse_move("e1e5").unwrap();
        assert_eq!(p.see(m, &v), -400);
    }
}
