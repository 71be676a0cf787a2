//! What a Poker Chess seat (or a spectator) may know, as the typed view behind
//! `Visible::view_of`.

use schemars::JsonSchema;
use serde::Serialize;

use super::state::{Phase, PokerChessState, TurnStep};
use crate::game::PlayerAction;
use crate::rules::Visible;
use crate::view::{CardText, Cell, Header, Held, Side, chess_cells, faces};

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
    /// Every event so far as the viewer saw it (`deal s0:Kd`, `deal s1:?`, `s0 plays 7h`,
    /// `s0 e2e4`, `s1 discards 2c 3d`).
    pub events: Vec<String>,
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

    /// What `viewer` may know (`None`: a spectator).
    fn view_of(&self, _history: &[PlayerAction], viewer: Option<usize>) -> PokerChessView {
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
                    hand: Held::of(self.hands[seat].iter(), Some(seat) == viewer),
                    points: self.points[seat],
                })
                .collect(),
            played_card,
            discards: faces(self.discards.iter()),
            deck_remaining: self.pile.len(),
            events: self
                .events
                .iter()
                .map(|&event| Self::event_text(event, viewer))
                .collect(),
        }
    }
}
