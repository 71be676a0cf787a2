//! What a Pokeros seat (or a spectator) may know, as the typed view behind
//! `Visible::view_of`.

use schemars::JsonSchema;
use serde::Serialize;

use super::state::PokerosState;
use crate::game::PlayerAction;
use crate::rules::Visible;
use crate::view::{CardText, Cell, Header, Held, Viewer};

/// A Pokeros view: the board, each seat's hand and points, the deck and every placement.
/// Hands are face down except the viewer's own (every hand is face up with `hand_size=0`);
/// the board and every placement are public.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct PokerosView {
    /// The common header.
    #[serde(flatten)]
    pub header: Header,
    /// The board is `board_size` × `board_size` cells, x and y from `-(board_size / 2)` to
    /// `board_size / 2`, the centre card at 0,0.
    pub board_size: usize,
    /// Every card on the board (`x` to the right, `y` upwards), all face up.
    pub board: Vec<Cell>,
    /// Each seat, in seat order.
    pub seats: Vec<PokerosSeat>,
    /// Cards left in the deck.
    pub deck_remaining: u32,
    /// Every placement, in order.
    pub moves: Vec<PokerosMove>,
}

/// A Pokeros seat.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct PokerosSeat {
    /// The seat.
    pub seat: usize,
    /// Its hand, sorted by card id (face down unless it is the viewer's or hands are public).
    #[serde(flatten)]
    pub hand: Held,
    /// Points scored so far.
    pub points: u32,
}

/// A placement: who placed which card where, and what it scored.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct PokerosMove {
    /// The seat that placed.
    pub seat: usize,
    /// The cell and the card placed on it.
    pub cell: Cell,
    /// The points it paid (after the multiplier).
    pub points: u32,
    /// The hands it formed that scored.
    pub hands: Vec<PokerosScoredHand>,
}

/// A hand formed by a placement.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct PokerosScoredHand {
    /// The hand's name in the scoring table (`pair`, `3-card flush`, ...).
    pub name: String,
    /// How many cards form it.
    pub count: u8,
    /// Its score in the table, before the multiplier.
    pub score: u32,
}

impl Visible for PokerosState {
    type View = PokerosView;

    /// What `viewer` may know.
    fn view_of(&self, _history: &[PlayerAction], viewer: Viewer) -> PokerosView {
        let players = self.config().players;
        let board = self
            .board()
            .cards()
            .map(|(cell, card)| {
                let (x, y) = self.coords(cell);
                Cell::with_card(x, y, Some(CardText::of(card)))
            })
            .collect();
        let seats = (0..players)
            .map(|seat| PokerosSeat {
                seat,
                hand: Held::of(
                    self.hand(seat).iter(),
                    viewer.sees(players, |v| v == Some(seat)) || self.hands_public(),
                ),
                points: self.points()[seat],
            })
            .collect();
        let moves = self
            .moves()
            .iter()
            .map(|m| {
                let (x, y) = self.coords(m.cell);
                PokerosMove {
                    seat: m.seat,
                    cell: Cell::with_card(x, y, Some(CardText::of(m.card))),
                    points: m.placement.points,
                    hands: m
                        .placement
                        .hands
                        .iter()
                        .map(|h| PokerosScoredHand {
                            name: h.hand.name().to_string(),
                            count: h.cards,
                            score: h.score,
                        })
                        .collect(),
                }
            })
            .collect();
        PokerosView {
            header: Header::of(self, viewer),
            board_size: self.config().board_size,
            board,
            seats,
            deck_remaining: self.deck().len(),
            moves,
        }
    }
}
