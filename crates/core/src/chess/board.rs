//! The board: piece placement as bit boards, side to move, castling rights, en passant
//! square and clocks; FEN reading and writing; making moves; attack queries.

use std::fmt;

use super::tables::{bishop_attacks, king_attacks, knight_attacks, pawn_attacks, rook_attacks};
use super::{ChessError, Move, piece_char};
use cozy_chess_types::{BitBoard, Color, File, Piece, Rank, Square};

/// The standard start position.
pub const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Castling rights (standard chess: king on the e-file, rooks on the a- and h-files).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CastlingRights(pub u8);

impl CastlingRights {
    /// No rights.
    pub const NONE: CastlingRights = CastlingRights(0);
    /// All four rights.
    pub const ALL: CastlingRights = CastlingRights(0b1111);

    #[inline]
    const fn bit(color: Color, short: bool) -> u8 {
        1 << (color as u8 * 2 + if short { 0 } else { 1 })
    }

    /// Whether `color` may still castle short (`short`) or long.
    #[inline]
    pub const fn has(self, color: Color, short: bool) -> bool {
        self.0 & Self::bit(color, short) != 0
    }

    /// The rights with one right set or cleared.
    #[inline]
    pub const fn set(self, color: Color, short: bool, allowed: bool) -> CastlingRights {
        if allowed {
            CastlingRights(self.0 | Self::bit(color, short))
        } else {
            CastlingRights(self.0 & !Self::bit(color, short))
        }
    }
}

/// A piece removed from the board by a move: what it was and where it stood (differs from
/// the move's destination only for en passant).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Capture {
    /// The captured piece (of the mover's opponent).
    pub piece: Piece,
    /// Where it stood.
    pub square: Square,
}

/// A chess position. Check is not a concept here: any position with at most 16 pieces per
/// colour and no pawn on the first or last rank is allowed, with or without kings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Board {
    pieces: [BitBoard; Piece::NUM],
    colors: [BitBoard; Color::NUM],
    side_to_move: Color,
    castling: CastlingRights,
    en_passant: Option<Square>,
    halfmove_clock: u32,
    fullmove_number: u32,
}

impl Default for Board {
    fn default() -> Self {
        Board::start()
    }
}

/// Castling rights lost when a piece leaves or arrives on a square (rook and king homes).
const fn rights_kept(square: Square) -> u8 {
    match square {
        Square::E1 => !0b0011,
        Square::H1 => !0b0001,
        Square::A1 => !0b0010,
        Square::E8 => !0b1100,
        Square::H8 => !0b0100,
        Square::A8 => !0b1000,
        _ => !0,
    }
}

impl Board {
    /// The standard start position.
    pub fn start() -> Board {
        Board::from_fen(START_FEN).expect("the start position is valid FEN")
    }

    /// An empty board, white to move, no rights.
    pub const fn empty() -> Board {
        Board {
            pieces: [BitBoard::EMPTY; Piece::NUM],
            colors: [BitBoard::EMPTY; Color::NUM],
            side_to_move: Color::White,
            castling: CastlingRights::NONE,
            en_passant: None,
            halfmove_clock: 0,
            fullmove_number: 1,
        }
    }

    /// Squares holding `piece` of either colour.
    #[inline]
    pub fn pieces(&self, piece: Piece) -> BitBoard {
        self.pieces[piece as usize]
    }

    /// Squares holding pieces of `color`.
    #[inline]
    pub fn colors(&self, color: Color) -> BitBoard {
        self.colors[color as usize]
    }

    /// Squares holding `piece` of `color`.
    #[inline]
    pub fn colored(&self, color: Color, piece: Piece) -> BitBoard {
        self.pieces[piece as usize] & self.colors[color as usize]
    }

    /// All occupied squares.
    #[inline]
    pub fn occupied(&self) -> BitBoard {
        self.colors[0] | self.colors[1]
    }

    /// The colour of the piece on `square`, if any.
    #[inline]
    pub fn color_on(&self, square: Square) -> Option<Color> {
        if self.colors[0].has(square) {
            Some(Color::White)
        } else if self.colors[1].has(square) {
            Some(Color::Black)
        } else {
            None
        }
    }

    /// The piece type on `square`, if any.
    #[inline]
    pub fn piece_on(&self, square: Square) -> Option<Piece> {
        if !self.occupied().has(square) {
            return None;
        }
        Piece::ALL
            .into_iter()
            .find(|&p| self.pieces[p as usize].has(square))
    }

    /// The colour and piece on `square`, if any.
    #[inline]
    pub fn on(&self, square: Square) -> Option<(Color, Piece)> {
        Some((self.color_on(square)?, self.piece_on(square)?))
    }

    /// The square of `color`'s king (the lowest one if several), if it has one.
    #[inline]
    pub fn king(&self, color: Color) -> Option<Square> {
        self.colored(color, Piece::King).next_square()
    }

    /// Who moves next.
    #[inline]
    pub fn side_to_move(&self) -> Color {
        self.side_to_move
    }

    /// Sets who moves next (clears the en passant square, which belonged to the other side).
    pub fn set_side_to_move(&mut self, color: Color) {
        if color != self.side_to_move {
            self.en_passant = None;
        }
        self.side_to_move = color;
    }

    /// The castling rights.
    #[inline]
    pub fn castling_rights(&self) -> CastlingRights {
        self.castling
    }

    /// Sets the castling rights (no consistency check; generation also checks the pieces).
    pub fn set_castling_rights(&mut self, rights: CastlingRights) {
        self.castling = rights;
    }

    /// The square a pawn of the side to move may capture onto en passant, if any.
    #[inline]
    pub fn en_passant(&self) -> Option<Square> {
        self.en_passant
    }

    /// Sets the en passant square.
    pub fn set_en_passant(&mut self, square: Option<Square>) {
        self.en_passant = square;
    }

    /// Half-moves since the last capture or pawn move.
    #[inline]
    pub fn halfmove_clock(&self) -> u32 {
        self.halfmove_clock
    }

    /// The move number, starting at 1 and incremented after black moves.
    #[inline]
    pub fn fullmove_number(&self) -> u32 {
        self.fullmove_number
    }

    /// Sets both clocks.
    pub fn set_clocks(&mut self, halfmove_clock: u32, fullmove_number: u32) {
        self.halfmove_clock = halfmove_clock;
        self.fullmove_number = fullmove_number;
    }

    /// Puts `piece` of `color` on `square`, replacing whatever stood there.
    #[inline]
    pub fn put(&mut self, square: Square, color: Color, piece: Piece) {
        self.remove(square);
        let bb = square.bitboard();
        self.pieces[piece as usize] |= bb;
        self.colors[color as usize] |= bb;
    }

    /// Removes and returns whatever stood on `square`.
    #[inline]
    pub fn remove(&mut self, square: Square) -> Option<(Color, Piece)> {
        let found = self.on(square)?;
        let bb = square.bitboard();
        self.pieces[found.1 as usize] ^= bb;
        self.colors[found.0 as usize] ^= bb;
        Some(found)
    }

    /// Pieces of `by` attacking `square` with the current occupancy (pawns attack
    /// diagonally forward; en passant is not counted; the piece on `square`, if any, does
    /// not matter).
    #[inline]
    pub fn attackers_of(&self, square: Square, by: Color) -> BitBoard {
        let occupied = self.occupied();
        let theirs = self.colors(by);
        let rooks = self.pieces(Piece::Rook) | self.pieces(Piece::Queen);
        let bishops = self.pieces(Piece::Bishop) | self.pieces(Piece::Queen);
        theirs
            & ((pawn_attacks(!by, square) & self.pieces(Piece::Pawn))
                | (knight_attacks(square) & self.pieces(Piece::Knight))
                | (king_attacks(square) & self.pieces(Piece::King))
                | (rook_attacks(square, occupied) & rooks)
                | (bishop_attacks(square, occupied) & bishops))
    }

    /// Whether any piece of `by` attacks `square`.
    #[inline]
    pub fn is_attacked(&self, square: Square, by: Color) -> bool {
        !self.attackers_of(square, by).is_empty()
    }

    /// Plays `mv` without checking it: the piece on `mv.from` (of either colour) moves,
    /// captures what stands on `mv.to` (or the en passant pawn), promotes, castles when a
    /// king moves two files (the rook follows); rights, en passant square, clocks and side
    /// to move are updated (the side to move becomes the mover's opponent). Returns what was
    /// captured. A move from an empty square changes nothing and returns `None`.
    pub fn make_move(&mut self, mv: Move) -> Option<Capture> {
        let (color, piece) = self.on(mv.from)?;
        let mut capture = self.remove(mv.to).map(|(_, p)| Capture {
            piece: p,
            square: mv.to,
        });
        self.remove(mv.from);
        let mut new_ep = None;
        match piece {
            Piece::Pawn => {
                if capture.is_none()
                    && mv.from.file() != mv.to.file()
                    && Some(mv.to) == self.en_passant
                {
                    let victim = Square::new(mv.to.file(), mv.from.rank());
                    capture = self.remove(victim).map(|(_, p)| Capture {
                        piece: p,
                        square: victim,
                    });
                }
                let from_rank = mv.from.rank() as i8;
                let to_rank = mv.to.rank() as i8;
                if (to_rank - from_rank).abs() == 2 {
                    new_ep = Some(Square::new(
                        mv.from.file(),
                        Rank::index(((from_rank + to_rank) / 2) as usize),
                    ));
                }
            }
            Piece::King => {
                let from_file = mv.from.file() as i8;
                let to_file = mv.to.file() as i8;
                if (to_file - from_file).abs() == 2 {
                    let rank = mv.from.rank();
                    let (rook_from, rook_to) = if to_file > from_file {
                        (File::H, File::F)
                    } else {
                        (File::A, File::D)
                    };
                    let rook_from = Square::new(rook_from, rank);
                    if let Some((c, Piece::Rook)) = self.on(rook_from)
                        && c == color
                    {
                        self.remove(rook_from);
                        self.put(Square::new(rook_to, rank), color, Piece::Rook);
                    }
                }
            }
            _ => {}
        }
        self.put(mv.to, color, mv.promotion.unwrap_or(piece));
        self.castling.0 &= rights_kept(mv.from) & rights_kept(mv.to);
        self.en_passant = new_ep;
        if piece == Piece::Pawn || capture.is_some() {
            self.halfmove_clock = 0;
        } else {
            self.halfmove_clock += 1;
        }
        if color == Color::Black {
            self.fullmove_number += 1;
        }
        self.side_to_move = !color;
        capture
    }

    /// Reads a FEN (six fields; the two clocks may be left out). Refuses, with a reason:
    /// malformed fields, more than 16 pieces of a colour, pawns on the first or last rank,
    /// castling rights without the king and rook on their home squares, an en passant
    /// square not just behind a pawn of the side that did not move.
    pub fn from_fen(fen: &str) -> Result<Board, ChessError> {
        let bad = |reason: String| ChessError::BadFen {
            fen: fen.to_string(),
            reason,
        };
        let fields: Vec<&str> = fen.split_whitespace().collect();
        if fields.len() != 6 && fields.len() != 4 {
            return Err(bad(format!(
                "expected 6 fields (placement, side, castling, en passant, halfmove clock, \
                 fullmove number) or the first 4, got {}",
                fields.len()
            )));
        }
        let mut board = Board::empty();
        let ranks: Vec<&str> = fields[0].split('/').collect();
        if ranks.len() != 8 {
            return Err(bad(format!(
                "the placement has {} ranks, expected 8 separated by '/'",
                ranks.len()
            )));
        }
        for (i, text) in ranks.iter().enumerate() {
            let rank = Rank::index(7 - i);
            let mut file = 0usize;
            for ch in text.chars() {
                if let Some(d) = ch.to_digit(10) {
                    if !(1..=8).contains(&d) {
                        return Err(bad(format!("empty-square count '{ch}' must be 1 to 8")));
                    }
                    file += d as usize;
                } else {
                    let piece = Piece::try_from(ch.to_ascii_lowercase()).map_err(|_| {
                        bad(format!(
                            "'{ch}' is not a piece; use PNBRQK for white, pnbrqk for black, \
                             digits for empty squares"
                        ))
                    })?;
                    if file >= 8 {
                        return Err(bad(format!(
                            "rank {} has more than 8 squares",
                            rank as usize + 1
                        )));
                    }
                    let color = if ch.is_ascii_uppercase() {
                        Color::White
                    } else {
                        Color::Black
                    };
                    board.put(Square::new(File::index(file), rank), color, piece);
                    file += 1;
                }
                if file > 8 {
                    return Err(bad(format!(
                        "rank {} has more than 8 squares",
                        rank as usize + 1
                    )));
                }
            }
            if file != 8 {
                return Err(bad(format!(
                    "rank {} has {file} squares, expected 8",
                    rank as usize + 1
                )));
            }
        }
        for color in Color::ALL {
            if board.colors(color).len() > 16 {
                return Err(bad(format!("{color:?} has more than 16 pieces")));
            }
        }
        if !(board.pieces(Piece::Pawn) & (Rank::First.bitboard() | Rank::Eighth.bitboard()))
            .is_empty()
        {
            return Err(bad("a pawn stands on the first or last rank".to_string()));
        }
        board.side_to_move = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            other => return Err(bad(format!("side to move '{other}' must be 'w' or 'b'"))),
        };
        if fields[2] != "-" {
            for ch in fields[2].chars() {
                let (color, short) = match ch {
                    'K' => (Color::White, true),
                    'Q' => (Color::White, false),
                    'k' => (Color::Black, true),
                    'q' => (Color::Black, false),
                    _ => {
                        return Err(bad(format!(
                            "castling '{}' must be '-' or letters from KQkq",
                            fields[2]
                        )));
                    }
                };
                if board.castling.has(color, short) {
                    return Err(bad(format!("castling right '{ch}' repeats")));
                }
                let rank = Rank::First.relative_to(color);
                let rook_file = if short { File::H } else { File::A };
                if board.on(Square::new(File::E, rank)) != Some((color, Piece::King))
                    || board.on(Square::new(rook_file, rank)) != Some((color, Piece::Rook))
                {
                    return Err(bad(format!(
                        "castling right '{ch}' needs the king on its e-file home square and \
                         the rook on its {}-file corner",
                        if short { 'h' } else { 'a' }
                    )));
                }
                board.castling = board.castling.set(color, short, true);
            }
        }
        if fields[3] != "-" {
            let square: Square = fields[3].parse().map_err(|_| {
                bad(format!(
                    "en passant '{}' must be '-' or a square",
                    fields[3]
                ))
            })?;
            let mover = !board.side_to_move;
            let pawn = Square::new(square.file(), Rank::Fourth.relative_to(mover));
            if square.rank() != Rank::Third.relative_to(mover)
                || board.occupied().has(square)
                || board.on(pawn) != Some((mover, Piece::Pawn))
            {
                return Err(bad(format!(
                    "en passant square {square} must be empty, on the {} rank, just behind a \
                     {mover:?} pawn that double-stepped",
                    if mover == Color::White { "3rd" } else { "6th" }
                )));
            }
            board.en_passant = Some(square);
        }
        if fields.len() == 6 {
            board.halfmove_clock = fields[4]
                .parse()
                .map_err(|_| bad(format!("halfmove clock '{}' must be a number", fields[4])))?;
            board.fullmove_number = fields[5]
                .parse()
                .map_err(|_| bad(format!("fullmove number '{}' must be a number", fields[5])))?;
            if board.fullmove_number == 0 {
                return Err(bad("fullmove number must be at least 1".to_string()));
            }
        }
        Ok(board)
    }

    /// The position as FEN.
    pub fn to_fen(&self) -> String {
        self.to_string()
    }

    /// The placement as an 8-line diagram, rank 8 first, '.' for empty squares.
    pub fn diagram(&self) -> String {
        let mut out = String::with_capacity(8 * 9);
        for rank in Rank::ALL.into_iter().rev() {
            for file in File::ALL {
                out.push(match self.on(Square::new(file, rank)) {
                    Some((c, p)) => piece_char(c, p),
                    None => '.',
                });
            }
            out.push('\n');
        }
        out
    }
}

impl fmt::Display for Board {
    /// The position as FEN.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for rank in Rank::ALL.into_iter().rev() {
            let mut empty = 0;
            for file in File::ALL {
                match self.on(Square::new(file, rank)) {
                    Some((c, p)) => {
                        if empty > 0 {
                            write!(f, "{empty}")?;
                            empty = 0;
                        }
                        write!(f, "{}", piece_char(c, p))?;
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                write!(f, "{empty}")?;
            }
            if rank != Rank::First {
                f.write_str("/")?;
            }
        }
        let side = if self.side_to_move == Color::White {
            "w"
        } else {
            "b"
        };
        write!(f, " {side} ")?;
        if self.castling == CastlingRights::NONE {
            f.write_str("-")?;
        } else {
            for (ch, color, short) in [
                ('K', Color::White, true),
                ('Q', Color::White, false),
                ('k', Color::Black, true),
                ('q', Color::Black, false),
            ] {
                if self.castling.has(color, short) {
                    write!(f, "{ch}")?;
                }
            }
        }
        match self.en_passant {
            Some(sq) => write!(f, " {sq}")?,
            None => f.write_str(" -")?,
        }
        write!(f, " {} {}", self.halfmove_clock, self.fullmove_number)
    }
}
