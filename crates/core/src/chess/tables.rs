//! Attack tables: knight, king and pawn attacks computed at compile time, slider attacks from
//! the `cozy-chess-types` magic indices, filled once on first use.

use std::sync::LazyLock;

use cozy_chess_types::{
    BitBoard, Color, SLIDING_MOVE_TABLE_SIZE, Square, get_bishop_moves_index,
    get_bishop_moves_slow, get_bishop_relevant_blockers, get_rook_moves_index, get_rook_moves_slow,
    get_rook_relevant_blockers,
};

/// Squares reached from each square by the given (file, rank) steps.
const fn step_table(steps: &[(i8, i8)]) -> [u64; 64] {
    let mut table = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let file = (sq % 8) as i8;
        let rank = (sq / 8) as i8;
        let mut i = 0;
        while i < steps.len() {
            let (df, dr) = steps[i];
            let (f, r) = (file + df, rank + dr);
            if f >= 0 && f < 8 && r >= 0 && r < 8 {
                table[sq] |= 1u64 << (r * 8 + f);
            }
            i += 1;
        }
        sq += 1;
    }
    table
}

const KNIGHT: [u64; 64] = step_table(&[
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
]);
const KING: [u64; 64] = step_table(&[
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
]);
const PAWN_ATTACKS: [[u64; 64]; 2] = [
    step_table(&[(-1, 1), (1, 1)]),
    step_table(&[(-1, -1), (1, -1)]),
];

/// Rook and bishop attacks for every square and relevant blocker set.
static SLIDING: LazyLock<Box<[BitBoard]>> = LazyLock::new(|| {
    let mut table = vec![BitBoard::EMPTY; SLIDING_MOVE_TABLE_SIZE].into_boxed_slice();
    for square in Square::ALL {
        for blockers in get_rook_relevant_blockers(square).iter_subsets() {
            table[get_rook_moves_index(square, blockers)] = get_rook_moves_slow(square, blockers);
        }
        for blockers in get_bishop_relevant_blockers(square).iter_subsets() {
            table[get_bishop_moves_index(square, blockers)] =
                get_bishop_moves_slow(square, blockers);
        }
    }
    table
});

/// Squares a knight on `square` attacks.
#[inline]
pub fn knight_attacks(square: Square) -> BitBoard {
    BitBoard(KNIGHT[square as usize])
}

/// Squares a king on `square` attacks.
#[inline]
pub fn king_attacks(square: Square) -> BitBoard {
    BitBoard(KING[square as usize])
}

/// Squares a pawn of `color` on `square` attacks (the two forward diagonals).
#[inline]
pub fn pawn_attacks(color: Color, square: Square) -> BitBoard {
    BitBoard(PAWN_ATTACKS[color as usize][square as usize])
}

/// Squares a rook on `square` attacks with `occupied` blocking (blockers included).
#[inline]
pub fn rook_attacks(square: Square, occupied: BitBoard) -> BitBoard {
    SLIDING[get_rook_moves_index(square, occupied)]
}

/// Squares a bishop on `square` attacks with `occupied` blocking (blockers included).
#[inline]
pub fn bishop_attacks(square: Square, occupied: BitBoard) -> BitBoard {
    SLIDING[get_bishop_moves_index(square, occupied)]
}

/// Squares a queen on `square` attacks with `occupied` blocking (blockers included).
#[inline]
pub fn queen_attacks(square: Square, occupied: BitBoard) -> BitBoard {
    rook_attacks(square, occupied) | bishop_attacks(square, occupied)
}
