//! What a Poker Chess seat (or a spectator) may know, as the typed view behind
//! `Visible::view_of`.

use schemars::JsonSchema;
use serde::Serialize;

use super::state::{Event, Phase, PokerChessState, TurnStep};
use crate::chess::Color;
use crate::game::PlayerAction;
use crate::rules::Visible;
use crate::view::{
    CardText, Cell, Header, Held, MoveParts, PieceText, Side, Viewer, chess_cells, face, faces,
};

/// A Poker Chess view: the board, both hands (face down but for the viewer's own, also at
/// the end), the played card, the discards, the draw pile and the history as the viewer saw
/// it.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct PokerChessView {
    /// The common header.
    #[serde(flatten)]
    pub header: Header,
    /// Where the turn is: `deal` (chance deals), `card` (the side to move plays a card or
    /// discards a pair), `move` (it makes the move its played card allows) or `over`.
    pub phase: PokerChessPhase,
    /// The position as FEN.
    pub fen: String,
    /// Every piece on the board.
    pub board: Vec<Cell>,
    /// The two seats: seat 0 plays white, seat 1 black.
    pub seats: Vec<PokerChessSeat>,
    /// The card played this turn, face up, while its move is to be made (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "CardText")]
    pub played_card: Option<CardText>,
    /// Every card played or discarded, face up, sorted by card id.
    pub discards: Vec<CardText>,
    /// Cards left in the draw pile.
    pub deck_remaining: u32,
    /// Every event so far, in order, as the viewer saw it: each deal, card played, move and
    /// discard.
    pub events: Vec<PokerChessEvent>,
}

/// One event of a Poker Chess game as the viewer saw it, told apart by `kind`. A card is
/// written as in the action structs; a dealt card the viewer may not see is null.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PokerChessEvent {
    /// Chance dealt a card to a seat.
    Deal {
        /// The seat that received it.
        seat: usize,
        /// The card: its text for the seat that received it (and nobody else), else null.
        card: Option<CardText>,
    },
    /// A seat played a card face up; the move it allows follows.
    Play {
        /// The seat that played it.
        seat: usize,
        /// The card.
        card: CardText,
    },
    /// A seat made a chess move.
    Move {
        /// The seat that moved (0 white, 1 black).
        seat: usize,
        /// The move's squares and promotion (`from`, `to`, `promotion`), as in its action
        /// struct; castling is the king's move.
        #[serde(flatten)]
        squares: MoveParts,
        /// The move in UCI (`e2e4`, `e7e8q`), its action text.
        uci: String,
        /// The piece it captured, as its FEN letter (`p` a black pawn); absent when it
        /// captured nothing.
        #[serde(skip_serializing_if = "Option::is_none")]
        #[schemars(with = "PieceText")]
        captured: Option<PieceText>,
    },
    /// A seat showed and discarded two cards it could not play.
    Discard {
        /// The seat that discarded them.
        seat: usize,
        /// The two cards, in card id order.
        cards: [CardText; 2],
    },
}

impl PokerChessEvent {
    /// `event` as `viewer` saw it.
    fn of(event: Event, viewer: Viewer) -> PokerChessEvent {
        match event {
            Event::Deal { seat, card } => PokerChessEvent::Deal {
                seat,
                card: face(card, viewer.sees(2, |v| v == Some(seat))),
            },
            Event::Play { seat, card } => PokerChessEvent::Play {
                seat,
                card: CardText::of(card),
            },
            Event::Move { seat, mv, captured } => {
                let victim = if seat == 0 {
                    Color::Black
                } else {
                    Color::White
                };
                PokerChessEvent::Move {
                    seat,
                    squares: MoveParts::of(mv),
                    uci: mv.to_string(),
                    captured: captured.map(|piece| PieceText::of(victim, piece)),
                }
            }
            Event::Discard { seat, cards } => PokerChessEvent::Discard {
                seat,
                cards: cards.map(CardText::of),
            },
        }
    }
}

/// Where a Poker Chess turn is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PokerChessPhase {
    /// Chance deals a card.
    Deal,
    /// The side to move plays a card or discards a pair.
    Card,
    /// The side to move makes the move its played card allows.
    Move,
    /// The game is over.
    Over,
}

/// A Poker Chess seat.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct PokerChessSeat {
    /// The seat.
    pub seat: usize,
    /// The side it plays.
    pub color: Side,
    /// Its hand, sorted by card id (face down unless it is the viewer's).
    #[serde(flatten)]
    pub hand: Held,
    /// Points scored so far.
    pub points: u32,
}

impl Visible for PokerChessState {
    type View = PokerChessView;

    /// What `viewer` may know.
    fn view_of(&self, _history: &[PlayerAction], viewer: Viewer) -> PokerChessView {
        let (phase, played_card) = match self.phase {
            Phase::Deal { .. } => (PokerChessPhase::Deal, None),
            Phase::Turn(TurnStep::Card) => (PokerChessPhase::Card, None),
            Phase::Turn(TurnStep::Move(card)) => (PokerChessPhase::Move, Some(CardText::of(card))),
            Phase::Over => (PokerChessPhase::Over, None),
        };
        PokerChessView {
            header: Header::of(self, viewer),
            phase,
            fen: self.board.to_fen(),
            board: chess_cells(&self.board),
            seats: (0..2)
                .map(|seat| PokerChessSeat {
                    seat,
                    color: Side::of_seat(seat),
                    hand: Held::of(self.hands[seat].iter(), viewer.sees(2, |v| v == Some(seat))),
                    points: self.points[seat],
                })
                .collect(),
            played_card,
            discards: faces(self.discards.iter()),
            deck_remaining: self.pile.len(),
            events: self
                .events
                .iter()
                .map(|&event| PokerChessEvent::of(event, viewer))
                .collect(),
        }
    }
}
