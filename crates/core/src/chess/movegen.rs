//! Moves, move lists and pseudo-legal move generation with options for the variant rules.

use std::fmt;
use std::ops::Deref;
use std::str::FromStr;

use super::tables::{bishop_attacks, king_attacks, knight_attacks, pawn_attacks, rook_attacks};
use super::{Board, Capture, ChessError, PieceSet};
use cozy_chess_types::{BitBoard, Color, File, Piece, Rank, Square};

/// Which rules of standard chess the generator applies; variants pick theirs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MoveGenOptions {
    /// Castling (standard: king from the e-file two squares toward a rook on its corner,
    /// with the right, and every square between them empty).
    pub castling: bool,
    /// Whether castling may start from or pass through a square attacked by the opponent
    /// (standard chess: no; the destination is never checked here, as for any move).
    pub castle_through_attacks: bool,
    /// En passant captures (for the side to move, onto the board's en passant square).
    pub en_passant: bool,
    /// The pieces a pawn may promote to; empty means a pawn may not move onto its last rank.
    pub promotions: PieceSet,
}

impl MoveGenOptions {
    /// Standard chess rules (castling not through attacked squares, en passant, promotion
    /// to knight, bishop, rook or queen), check aside.
    pub const STANDARD: MoveGenOptions = MoveGenOptions {
        castling: true,
        castle_through_attacks: false,
        en_passant: true,
        promotions: PieceSet::PROMOTIONS,
    };
    /// No castling, no en passant, standard promotions.
    pub const SIMPLE: MoveGenOptions = MoveGenOptions {
        castling: false,
        castle_through_attacks: false,
        en_passant: false,
        promotions: PieceSet::PROMOTIONS,
    };
}

impl Default for MoveGenOptions {
    fn default() -> Self {
        MoveGenOptions::STANDARD
    }
}

/// A move: from, to, and the promotion piece. Castling is the king's two-square move
/// (`e1g1`), as in UCI.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    /// The square the piece leaves.
    pub from: Square,
    /// The square it goes to.
    pub to: Square,
    /// The promotion piece, for a pawn reaching its last rank.
    pub promotion: Option<Piece>,
}

impl Move {
    /// A move without promotion.
    #[inline]
    pub const fn new(from: Square, to: Square) -> Move {
        Move {
            from,
            to,
            promotion: None,
        }
    }

    /// Reads a UCI move: `e2e4`, `e7e8q` (promotion letter n, b, r or q).
    pub fn from_uci(text: &str) -> Result<Move, ChessError> {
        let bad = |reason: &str| ChessError::BadUci {
            text: text.to_string(),
            reason: reason.to_string(),
        };
        if !text.is_ascii() || !(4..=5).contains(&text.len()) {
            return Err(bad(
                "expected from and to squares and an optional promotion letter, like e2e4 or e7e8q",
            ));
        }
        let from: Square = text[0..2]
            .parse()
            .map_err(|_| bad("the first two characters must be a square a1..h8"))?;
        let to: Square = text[2..4]
            .parse()
            .map_err(|_| bad("characters 3 and 4 must be a square a1..h8"))?;
        let promotion = match text.get(4..5) {
            None => None,
            Some("n") => Some(Piece::Knight),
            Some("b") => Some(Piece::Bishop),
            Some("r") => Some(Piece::Rook),
            Some("q") => Some(Piece::Queen),
            Some(_) => return Err(bad("the promotion letter must be n, b, r or q")),
        };
        if from == to {
            return Err(bad("from and to squares must differ"));
        }
        Ok(Move {
            from,
            to,
            promotion,
        })
    }
}

impl FromStr for Move {
    type Err = ChessError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Move::from_uci(s)
    }
}

impl fmt::Display for Move {
    /// The move in UCI.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from, self.to)?;
        if let Some(p) = self.promotion {
            write!(f, "{p}")?;
        }
        Ok(())
    }
}

/// The pseudo-legal targets of one piece, as a bit board. For a pawn, targets on its last
/// rank stand for one move per promotion piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PieceMoves {
    /// The moving piece.
    pub piece: Piece,
    /// Its square.
    pub from: Square,
    /// The squares it may move to.
    pub to: BitBoard,
}

/// The most moves a list holds: enough for any position with at most 16 pieces a colour
/// (16 queens × 27 + 2 castlings < 512).
pub const MAX_MOVES: usize = 512;

/// A fixed-capacity list of moves (no allocation).
#[derive(Clone)]
pub struct MoveList {
    moves: [Move; MAX_MOVES],
    len: usize,
}

impl MoveList {
    /// An empty list.
    pub fn new() -> MoveList {
        MoveList {
            moves: [Move::new(Square::A1, Square::A1); MAX_MOVES],
            len: 0,
        }
    }

    /// Empties the list.
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Appends a move (ignored when full, which no board of at most 16 pieces a colour
    /// can cause).
    #[inline]
    pub fn push(&mut self, mv: Move) {
        if self.len < MAX_MOVES {
            self.moves[self.len] = mv;
            self.len += 1;
        }
    }

    /// The moves.
    #[inline]
    pub fn as_slice(&self) -> &[Move] {
        &self.moves[..self.len]
    }
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList::new()
    }
}

impl fmt::Debug for MoveList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl Deref for MoveList {
    type Target = [Move];
    fn deref(&self) -> &[Move] {
        self.as_slice()
    }
}

/// The squares between two squares of one rank (exclusive), for castling.
fn between_on_rank(rank: Rank, a: File, b: File) -> BitBoard {
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    let mut bb = BitBoard::EMPTY;
    for f in (lo as usize + 1)..(hi as usize) {
        bb |= Square::new(File::index(f), rank).bitboard();
    }
    bb
}

impl Board {
    /// Pseudo-legal targets of a pawn of `color` on `from`: one step forward onto an empty
    /// square, two from the start rank when both are empty, diagonally onto an opponent's
    /// piece (or the en passant square when enabled and `color` is to move). With no
    /// promotion pieces, squares on the last rank are left out.
    #[inline]
    pub fn pawn_targets(&self, color: Color, from: Square, opts: &MoveGenOptions) -> BitBoard {
        let occupied = self.occupied();
        let attacks = pawn_attacks(color, from);
        let mut targets = attacks & self.colors(!color);
        if opts.en_passant
            && color == self.side_to_move()
            && let Some(ep) = self.en_passant()
            && attacks.has(ep)
        {
            targets |= ep.bitboard();
        }
        let dir = if color == Color::White { 1 } else { -1 };
        if let Some(one) = from.try_offset(0, dir)
            && !occupied.has(one)
        {
            targets |= one.bitboard();
            if from.rank() == Rank::Second.relative_to(color)
                && let Some(two) = one.try_offset(0, dir)
                && !occupied.has(two)
            {
                targets |= two.bitboard();
            }
        }
        if opts.promotions.is_empty() {
            targets &= !Rank::Eighth.relative_to(color).bitboard();
        }
        targets
    }

    /// The castling destinations (g- and c-file squares) of `color`'s king on `from`.
    pub fn castle_targets(&self, color: Color, from: Square, opts: &MoveGenOptions) -> BitBoard {
        let mut targets = BitBoard::EMPTY;
        if !opts.castling {
            return targets;
        }
        let rank = Rank::First.relative_to(color);
        if from != Square::new(File::E, rank) {
            return targets;
        }
        let occupied = self.occupied();
        for (short, rook_file, king_to, passes) in [
            (true, File::H, File::G, File::F),
            (false, File::A, File::C, File::D),
        ] {
            if !self.castling_rights().has(color, short)
                || self.on(Square::new(rook_file, rank)) != Some((color, Piece::Rook))
                || !(between_on_rank(rank, File::E, rook_file) & occupied).is_empty()
            {
                continue;
            }
            if !opts.castle_through_attacks
                && (self.is_attacked(from, !color)
                    || self.is_attacked(Square::new(passes, rank), !color))
            {
                continue;
            }
            targets |= Square::new(king_to, rank).bitboard();
        }
        targets
    }

    /// Pseudo-legal targets of `piece` of `color` standing on `from`.
    #[inline]
    pub fn targets_of(
        &self,
        color: Color,
        piece: Piece,
        from: Square,
        opts: &MoveGenOptions,
    ) -> BitBoard {
        let not_own = !self.colors(color);
        let occupied = self.occupied();
        match piece {
            Piece::Pawn => self.pawn_targets(color, from, opts),
            Piece::Knight => knight_attacks(from) & not_own,
            Piece::Bishop => bishop_attacks(from, occupied) & not_own,
            Piece::Rook => rook_attacks(from, occupied) & not_own,
            Piece::Queen => {
                (rook_attacks(from, occupied) | bishop_attacks(from, occupied)) & not_own
            }
            Piece::King => (king_attacks(from) & not_own) | self.castle_targets(color, from, opts),
        }
    }

    /// Pseudo-legal targets of whatever stands on `from` (empty for an empty square).
    pub fn targets(&self, from: Square, opts: &MoveGenOptions) -> BitBoard {
        match self.on(from) {
            Some((color, piece)) => self.targets_of(color, piece, from, opts),
            None => BitBoard::EMPTY,
        }
    }

    /// Calls `f` with the targets of every piece of `color` that has at least one.
    #[inline]
    pub fn for_each_piece_moves(
        &self,
        color: Color,
        opts: &MoveGenOptions,
        mut f: impl FnMut(PieceMoves),
    ) {
        for piece in Piece::ALL {
            for from in self.colored(color, piece) {
                let to = self.targets_of(color, piece, from, opts);
                if !to.is_empty() {
                    f(PieceMoves { piece, from, to });
                }
            }
        }
    }

    /// Whether `color` has any pseudo-legal move.
    pub fn has_moves(&self, color: Color, opts: &MoveGenOptions) -> bool {
        Piece::ALL.into_iter().any(|piece| {
            self.colored(color, piece)
                .into_iter()
                .any(|from| !self.targets_of(color, piece, from, opts).is_empty())
        })
    }

    /// Writes every pseudo-legal move of `color` into `out` (cleared first): pieces in
    /// order pawn..king, squares ascending, promotions knight..queen.
    pub fn generate_moves_for(&self, color: Color, opts: &MoveGenOptions, out: &mut MoveList) {
        out.clear();
        let last_rank = Rank::Eighth.relative_to(color).bitboard();
        self.for_each_piece_moves(color, opts, |pm| {
            for to in pm.to {
                if pm.piece == Piece::Pawn && last_rank.has(to) {
                    for promotion in opts.promotions.iter() {
                        out.push(Move {
                            from: pm.from,
                            to,
                            promotion: Some(promotion),
                        });
                    }
                } else {
                    out.push(Move::new(pm.from, to));
                }
            }
        });
    }

    /// Writes every pseudo-legal move of the side to move into `out` (cleared first).
    pub fn generate_moves(&self, opts: &MoveGenOptions, out: &mut MoveList) {
        self.generate_moves_for(self.side_to_move(), opts, out);
    }

    /// Why `mv` is not a pseudo-legal move of `color` here, or `Ok` when it is.
    pub fn check_move(
        &self,
        color: Color,
        mv: Move,
        opts: &MoveGenOptions,
    ) -> Result<(), ChessError> {
        let refuse = |reason: String| ChessError::IllegalMove {
            mv: mv.to_string(),
            reason,
        };
        let Some((owner, piece)) = self.on(mv.from) else {
            return Err(refuse(format!("{} is empty", mv.from)));
        };
        if owner != color {
            return Err(refuse(format!(
                "the piece on {} is not {color:?}'s",
                mv.from
            )));
        }
        if !self.targets_of(color, piece, mv.from, opts).has(mv.to) {
            return Err(refuse(format!(
                "the {piece:?} on {} cannot move to {}",
                mv.from, mv.to
            )));
        }
        let promotes = piece == Piece::Pawn && mv.to.rank() == Rank::Eighth.relative_to(color);
        match (promotes, mv.promotion) {
            (true, None) => Err(refuse(
                "a pawn reaching the last rank must promote".to_string(),
            )),
            (true, Some(p)) if !opts.promotions.contains(p) => Err(refuse(format!(
                "promotion to {p:?} is not allowed; allowed: {:?}",
                opts.promotions.iter().collect::<Vec<_>>()
            ))),
            (false, Some(_)) => Err(refuse(
                "only a pawn reaching the last rank promotes".to_string(),
            )),
            _ => Ok(()),
        }
    }

    /// Whether `mv` is a pseudo-legal move of `color` here.
    pub fn is_pseudo_legal(&self, color: Color, mv: Move, opts: &MoveGenOptions) -> bool {
        self.check_move(color, mv, opts).is_ok()
    }

    /// Plays a pseudo-legal move of the side to move (checked), returning what it captured;
    /// on error the board is unchanged.
    pub fn play(&mut self, mv: Move, opts: &MoveGenOptions) -> Result<Option<Capture>, ChessError> {
        self.check_move(self.side_to_move(), mv, opts)?;
        Ok(self.make_move(mv))
    }
}
