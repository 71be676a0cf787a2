//! The pure rules of a turn: which moves are allowed, and how two simultaneous moves and
//! their predictions resolve into battles, deaths and promotions.

use crate::chess::{Board, Color, Move, MoveGenOptions, Piece, PieceSet, Square};

/// How pawns promote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Promotion {
    /// To a piece type its owner has lost (fewer on the board than a standard set has).
    Lost,
    /// Always to a queen.
    Queen,
}

/// Pieces of each type in a standard set (pawn..king).
pub const STANDARD_SET: [u32; 6] = [8, 2, 2, 2, 1, 1];

/// The piece types `color` may promote to now: under `Lost`, every knight, bishop, rook or
/// queen type of which fewer stand on the board than a standard set has.
pub fn promotion_pieces(board: &Board, color: Color, rule: Promotion) -> PieceSet {
    match rule {
        Promotion::Queen => PieceSet::QUEEN,
        Promotion::Lost => {
            let mut set = PieceSet::EMPTY;
            for piece in [Piece::Knight, Piece::Bishop, Piece::Rook, Piece::Queen] {
                if board.colored(color, piece).len() < STANDARD_SET[piece as usize] {
                    set = set.with(piece);
                }
            }
            set
        }
    }
}

/// The generator options for `color`: no castling, no en passant, its promotion pieces.
#[inline]
pub fn move_options(board: &Board, color: Color, rule: Promotion) -> MoveGenOptions {
    MoveGenOptions {
        castling: false,
        castle_through_attacks: false,
        en_passant: false,
        promotions: promotion_pieces(board, color, rule),
    }
}

/// A prediction of the opponent's move: a (from, to) pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Prediction {
    /// The square the opponent's piece is predicted to leave.
    pub from: Square,
    /// The square it is predicted to reach.
    pub to: Square,
}

impl Prediction {
    /// Whether this prediction names `mv` (the promotion piece is not part of it).
    #[inline]
    pub fn matches(self, mv: Move) -> bool {
        self.from == mv.from && self.to == mv.to
    }
}

/// A piece that died in a battle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Death {
    /// Its colour.
    pub color: Color,
    /// Its type.
    pub piece: Piece,
    /// The square of the battle.
    pub square: Square,
}

/// What happened in a turn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Resolution {
    /// Per seat: whether its move was predicted by the opponent.
    pub predicted: [bool; 2],
    /// Number of battles (0, 1 or 2).
    pub battles: u8,
    /// The pieces that died: up to four (each seat's move can end in a battle that kills both
    /// pieces, or a capture; three happen when a king steps onto a king that stays put while
    /// the other seat captures elsewhere).
    pub deaths: [Option<Death>; 4],
    /// Whether a pawn moved (for the fifty-move rule).
    pub pawn_moved: bool,
}

impl Resolution {
    fn record(&mut self, death: Death) {
        let slot = self.deaths.iter_mut().find(|d| d.is_none());
        debug_assert!(
            slot.is_some(),
            "more deaths in one turn than a turn can have"
        );
        if let Some(slot) = slot {
            *slot = Some(death);
        }
    }

    /// The deaths, in the order they were recorded.
    pub fn deaths(&self) -> impl Iterator<Item = Death> + '_ {
        self.deaths.iter().flatten().copied()
    }
}

/// Carries out a turn on `board`: both moves at once (seat 0 white, seat 1 black; `None` is
/// a pass), then the battles, then promotion of surviving pawns. The moves must be
/// pseudo-legal at the start of the turn; `predictions[s]` is seat s's prediction of the
/// other seat's move.
///
/// Battles: two movers on one square, or a swap with at least one move predicted (decided
/// together), or a mover landing on a piece that stayed (one battle per such mover). A mover
/// whose target moved away simply lands. A king in a battle always dies and never kills: the
/// other piece survives unless it is a king too.
pub fn resolve(
    board: &mut Board,
    moves: [Option<Move>; 2],
    predictions: [Option<Prediction>; 2],
) -> Resolution {
    let colors = [Color::White, Color::Black];
    let mut res = Resolution::default();
    for s in 0..2 {
        res.predicted[s] = match (moves[s], predictions[1 - s]) {
            (Some(mv), Some(p)) => p.matches(mv),
            _ => false,
        };
    }
    let mut movers: [Option<(Piece, Move)>; 2] = [None, None];
    for s in 0..2 {
        if let Some(mv) = moves[s]
            && let Some((_, piece)) = board.remove(mv.from)
        {
            movers[s] = Some((piece, mv));
            res.pawn_moved |= piece == Piece::Pawn;
        }
    }
    let mut mover_dies = [false; 2];
    match movers {
        [Some((pw, mw)), Some((pb, mb))]
            if mw.to == mb.to || (mw.to == mb.from && mb.to == mw.from) =>
        {
            let swap = mw.to != mb.to;
            if !swap || res.predicted[0] || res.predicted[1] {
                res.battles = 1;
                let kings = [pw == Piece::King, pb == Piece::King];
                mover_dies = if kings[0] || kings[1] {
                    kings
                } else if res.predicted[0] != res.predicted[1] {
                    res.predicted
                } else {
                    [true, true]
                };
            }
        }
        _ => {
            for s in 0..2 {
                let Some((piece, mv)) = movers[s] else {
                    continue;
                };
                let Some((color, defender)) = board.on(mv.to) else {
                    continue;
                };
                res.battles += 1;
                let defender_dies = if piece == Piece::King {
                    defender == Piece::King
                } else {
                    defender == Piece::King || !res.predicted[s]
                };
                mover_dies[s] = piece == Piece::King || !defender_dies;
                if defender_dies {
                    board.remove(mv.to);
                    res.record(Death {
                        color,
                        piece: defender,
                        square: mv.to,
                    });
                }
            }
        }
    }
    for s in 0..2 {
        let Some((piece, mv)) = movers[s] else {
            continue;
        };
        if mover_dies[s] {
            res.record(Death {
                color: colors[s],
                piece,
                square: mv.to,
            });
        } else {
            let landed = match (piece, mv.promotion) {
                (Piece::Pawn, Some(promoted)) => promoted,
                _ => piece,
            };
            board.put(mv.to, colors[s], landed);
        }
    }
    res
}
