//! Chess moves as Poker Chess sees them: the move ids of the second step of a turn, the card
//! table's description of each move (`MoveTraits`), and the card classes a position allows.
//! Board and generation are the shared `crate::chess` module.

use super::table::{self, MoveTraits, PieceKind};
use super::{CARD_BASE, PROMOTION_BASE};
use crate::chess::{
    BitBoard, Board, Color, File, Move, MoveGenOptions, Piece, PieceSet, Rank, Square,
};

/// The generator options of Poker Chess: castling allowed from and through attacked
/// squares, en passant as the parameter says, free promotion.
pub fn options(en_passant: bool) -> MoveGenOptions {
    MoveGenOptions {
        castling: true,
        castle_through_attacks: true,
        en_passant,
        promotions: PieceSet::PROMOTIONS,
    }
}

/// The promotion pieces in id order.
const PROMOTION_ORDER: [Piece; 4] = [Piece::Queen, Piece::Rook, Piece::Bishop, Piece::Knight];

/// The table's kind for a chess piece.
#[inline]
pub fn kind(piece: Piece) -> PieceKind {
    match piece {
        Piece::Pawn => PieceKind::Pawn,
        Piece::Knight => PieceKind::Knight,
        Piece::Bishop => PieceKind::Bishop,
        Piece::Rook => PieceKind::Rook,
        Piece::Queen => PieceKind::Queen,
        Piece::King => PieceKind::King,
    }
}

/// The move id of a move (see the module docs of `poker_chess`). A promotion more than one
/// file aside has no promotion id and gets its plain `from * 64 + to` id.
#[inline]
pub fn encode(mv: Move) -> u32 {
    match mv.promotion {
        None => mv.from as u32 * 64 + mv.to as u32,
        Some(p) => {
            let (ff, tf) = (mv.from.file() as u32, mv.to.file() as u32);
            if ff.abs_diff(tf) > 1 {
                // No promotion moves that far aside: the plain id, which is never legal.
                return mv.from as u32 * 64 + mv.to as u32;
            }
            let dir = tf + 1 - ff;
            let index = PROMOTION_ORDER.iter().position(|&q| q == p).unwrap_or(0) as u32;
            PROMOTION_BASE + (ff * 3 + dir) * 4 + index
        }
    }
}

/// The move of a move id for a mover of `color`, if the id is a move id.
pub fn decode(id: u32, color: Color) -> Option<Move> {
    if id < PROMOTION_BASE {
        let (from, to) = (
            Square::index((id / 64) as usize),
            Square::index((id % 64) as usize),
        );
        return (from != to).then_some(Move::new(from, to));
    }
    if id >= CARD_BASE {
        return None;
    }
    let k = id - PROMOTION_BASE;
    let (ff, dir, index) = (k / 12, k / 4 % 3, k % 4);
    let tf = (ff + dir).checked_sub(1).filter(|&f| f < 8)?;
    let (from_rank, to_rank) = match color {
        Color::White => (Rank::Seventh, Rank::Eighth),
        Color::Black => (Rank::Second, Rank::First),
    };
    Some(Move {
        from: Square::new(File::index(ff as usize), from_rank),
        to: Square::new(File::index(tf as usize), to_rank),
        promotion: Some(PROMOTION_ORDER[index as usize]),
    })
}

/// The card table's description of `mv`, a pseudo-legal move of the side to move.
pub fn traits(board: &Board, mv: Move) -> Option<MoveTraits> {
    let (color, piece) = board.on(mv.from)?;
    let file_step = (mv.to.file() as i8 - mv.from.file() as i8).abs();
    let is_en_passant = piece == Piece::Pawn && file_step == 1 && board.on(mv.to).is_none();
    Some(MoveTraits {
        piece: kind(piece),
        to_file: mv.to.file() as u8,
        is_capture: board.color_on(mv.to) == Some(!color) || is_en_passant,
        is_en_passant,
        is_castle: piece == Piece::King && file_step == 2,
        from_attacked: board.is_attacked(mv.from, !color),
    })
}

/// The files (bit f = file f) holding at least one square of `bb`.
#[inline]
fn files_of(bb: BitBoard) -> u32 {
    let mut x = bb.0;
    x |= x >> 32;
    x |= x >> 16;
    x |= x >> 8;
    (x & 0xFF) as u32
}

/// Odd-numbered files a, c, e, g (bits 0, 2, 4, 6).
const ODD_FILES: u32 = 0b0101_0101;

/// The card classes the side to move can play here: the OR of every move's classes.
pub fn playable_classes(board: &Board, opts: &MoveGenOptions) -> u32 {
    let color = board.side_to_move();
    let mut classes = 0u32;
    board.for_each_piece_moves(color, opts, |pm| {
        let files = files_of(pm.to);
        if pm.piece == Piece::Pawn {
            classes |= files << table::BLACK_FILE;
            if files & ODD_FILES != 0 {
                classes |= 1 << table::BLACK_ODD;
            }
            if files & !ODD_FILES != 0 {
                classes |= 1 << table::BLACK_EVEN;
            }
            if !(pm.to & !pm.from.file().bitboard()).is_empty() {
                classes |= 1 << table::BLACK_CAPTURE;
            }
        } else {
            classes |= files << table::RED_FILE | 1 << piece_class(pm.piece);
        }
        if classes & 1 << table::JOKER == 0 && board.is_attacked(pm.from, !color) {
            classes |= 1 << table::JOKER;
        }
    });
    classes
}

/// The red class of a non-pawn piece.
#[inline]
fn piece_class(piece: Piece) -> u32 {
    match piece {
        Piece::Knight => table::RED_KNIGHT,
        Piece::Bishop => table::RED_BISHOP,
        Piece::Rook => table::RED_ROOK,
        Piece::Queen => table::RED_QUEEN,
        _ => table::RED_KING,
    }
}

/// Calls `f` with the id of every move of the side to move that a card of class `class`
/// allows (promotions once per piece, queen first), in generation order.
pub fn for_each_allowed(
    board: &Board,
    opts: &MoveGenOptions,
    class: u32,
    mut f: impl FnMut(u32, Move),
) {
    let color = board.side_to_move();
    const PAWN: &[Piece] = &[Piece::Pawn];
    const NON_PAWNS: &[Piece] = &[
        Piece::Knight,
        Piece::Bishop,
        Piece::Rook,
        Piece::Queen,
        Piece::King,
    ];
    let file_mask = |files: u32| {
        let mut bb = 0u64;
        for file in 0..8 {
            if files >> file & 1 == 1 {
                bb |= 0x0101_0101_0101_0101 << file;
            }
        }
        BitBoard(bb)
    };
    let (pieces, to_mask, captures, attacked): (&[Piece], BitBoard, bool, bool) = match class {
        0..=7 => (PAWN, file_mask(1 << class), false, false),
        table::BLACK_ODD => (PAWN, file_mask(ODD_FILES), false, false),
        table::BLACK_EVEN => (PAWN, file_mask(!ODD_FILES & 0xFF), false, false),
        table::BLACK_CAPTURE => (PAWN, BitBoard::FULL, true, false),
        11..=18 => (
            NON_PAWNS,
            file_mask(1 << (class - table::RED_FILE)),
            false,
            false,
        ),
        table::RED_ROOK => (&[Piece::Rook], BitBoard::FULL, false, false),
        table::RED_KNIGHT => (&[Piece::Knight], BitBoard::FULL, false, false),
        table::RED_BISHOP => (&[Piece::Bishop], BitBoard::FULL, false, false),
        table::RED_QUEEN => (&[Piece::Queen], BitBoard::FULL, false, false),
        table::RED_KING => (&[Piece::King], BitBoard::FULL, false, false),
        _ => (&Piece::ALL, BitBoard::FULL, false, true),
    };
    let last_rank = Rank::Eighth.relative_to(color).bitboard();
    for &piece in pieces {
        for from in board.colored(color, piece) {
            if attacked && !board.is_attacked(from, !color) {
                continue;
            }
            let mut targets = board.targets_of(color, piece, from, opts) & to_mask;
            if captures {
                targets &= !from.file().bitboard();
            }
            for to in targets {
                if piece == Piece::Pawn && last_rank.has(to) {
                    for p in PROMOTION_ORDER {
                        let mv = Move {
                            from,
                            to,
                            promotion: Some(p),
                        };
                        f(encode(mv), mv);
                    }
                } else {
                    let mv = Move::new(from, to);
                    f(encode(mv), mv);
                }
            }
        }
    }
}
