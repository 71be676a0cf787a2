//! Board and pseudo-legal move generation for the chess games, with king capture.
//!
//! Check is ignored: a king is an ordinary piece that can be captured, and the generator
//! lists every pseudo-legal move (pieces block as usual). Variant rules stay in the games;
//! this module exposes options instead ([`MoveGenOptions`]): castling (and whether it may
//! start from or pass through attacked squares), en passant, and the promotion pieces.
//!
//! The low-level types (`Square`, `BitBoard`, `Piece`, `Color`, `File`, `Rank`) are those of
//! `cozy-chess-types` (MIT), re-exported here; attack tables are in [`tables`]. Generation
//! writes into a caller's [`MoveList`] (a fixed array) or calls back per piece with a bit
//! board of targets ([`PieceMoves`]); nothing allocates on the hot path.

mod board;
mod movegen;
pub mod tables;
#[cfg(test)]
mod tests;

pub use board::{Board, Capture, CastlingRights, START_FEN};
pub use cozy_chess_types::{BitBoard, Color, File, Piece, Rank, Square};
pub use movegen::{MAX_MOVES, Move, MoveGenOptions, MoveList, PieceMoves};

/// Every error of the chess module; messages say what was wrong and what is allowed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ChessError {
    /// A FEN string that cannot be read.
    #[error("bad FEN '{fen}': {reason}")]
    BadFen {
        /// The text given.
        fen: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A UCI move string that cannot be read.
    #[error("bad UCI move '{text}': {reason}")]
    BadUci {
        /// The text given.
        text: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A move that is not pseudo-legal in the position.
    #[error("move {mv} is not pseudo-legal here: {reason}")]
    IllegalMove {
        /// The move, in UCI.
        mv: String,
        /// Why it is refused.
        reason: String,
    },
}

/// A set of piece types, as a bit mask over `Piece as usize`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PieceSet(pub u8);

impl PieceSet {
    /// No piece.
    pub const EMPTY: PieceSet = PieceSet(0);
    /// The standard promotion pieces: knight, bishop, rook, queen.
    pub const PROMOTIONS: PieceSet = PieceSet(0b011110);
    /// Only the queen.
    pub const QUEEN: PieceSet = PieceSet(1 << Piece::Queen as u8);

    /// Whether `piece` is in the set.
    #[inline]
    pub const fn contains(self, piece: Piece) -> bool {
        self.0 & (1 << piece as u8) != 0
    }

    /// The set with `piece` added.
    #[inline]
    pub const fn with(self, piece: Piece) -> PieceSet {
        PieceSet(self.0 | (1 << piece as u8))
    }

    /// The set with `piece` removed.
    #[inline]
    pub const fn without(self, piece: Piece) -> PieceSet {
        PieceSet(self.0 & !(1 << piece as u8))
    }

    /// Whether the set is empty.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Number of piece types in the set.
    #[inline]
    pub const fn len(self) -> u32 {
        self.0.count_ones()
    }

    /// The pieces in the set, pawn first, king last.
    pub fn iter(self) -> impl Iterator<Item = Piece> {
        Piece::ALL.into_iter().filter(move |&p| self.contains(p))
    }
}

/// Material value of a piece in pawns: 1, 3, 3, 5, 9, and 100 for the king (more than all
/// other material together, since losing it loses the game).
#[inline]
pub const fn piece_value(piece: Piece) -> u32 {
    match piece {
        Piece::Pawn => 1,
        Piece::Knight | Piece::Bishop => 3,
        Piece::Rook => 5,
        Piece::Queen => 9,
        Piece::King => 100,
    }
}

/// The FEN letter of a piece of a colour (uppercase for white).
pub fn piece_char(color: Color, piece: Piece) -> char {
    let c: char = piece.into();
    match color {
        Color::White => c.to_ascii_uppercase(),
        Color::Black => c,
    }
}
