//! What a Hold'em Poker Chess seat (or a spectator) may know, as the typed view behind
//! `Visible::view_of`.

use schemars::JsonSchema;
use serde::Serialize;

use super::grid::attacked_cells;
use super::state::{HoldemState, NO_CARD, Phase};
use crate::cards::Card;
use crate::game::{Player, PlayerAction};
use crate::rules::{Describe, Rules, Visible};
use crate::view::{CardText, Cell, Header, Held, LegalAction, Street, Viewer, face, faces};

/// A Hold'em Poker Chess view: the grid, the betting state, each seat's stack, bets and hole
/// cards, and the result of every finished hand. Hole cards are face down but for the
/// viewer's own (and kept cards revealed at the last showdown, at the end); a placed card is
/// face down on the grid to all but its owner until a showdown reveals it.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct HoldemChessView {
    /// The common header.
    #[serde(flatten)]
    pub header: Header,
    /// The hand on the table, from 1 (at the end: the last one played).
    pub hand_number: u32,
    /// Hands in the game.
    pub hands: u32,
    /// Where the hand is: `deal` (chance deals), `bet` (the seat to act places cards and
    /// bets), `place` (a seat that does not bet this street places cards and says done) or
    /// `over`.
    pub phase: HoldemPhase,
    /// The betting round (`preflop`, `flop`, `turn`, `river`); null at the end.
    pub street: Option<Street>,
    /// The button seat.
    pub button: usize,
    /// Chips in the pot.
    pub pot: u32,
    /// The bet to match on this street.
    pub current_bet: u32,
    /// The smallest raise increment now.
    pub min_raise: u32,
    /// The cells cards may occupy.
    pub window: HoldemWindow,
    /// The community cards dealt, in deal order, face up.
    pub community: Vec<CardText>,
    /// Every card on the grid: community cards (no `owner`) and placed hole cards (`owner`
    /// the seat that placed it; face down to other viewers until a showdown reveals it).
    pub board: Vec<Cell>,
    /// What the placed cards the viewer sees face up attack, in board order: each card's cell,
    /// its owner and the window's cells it attacks, by the game's attack rule (with its
    /// `centre_pawn` parameter). A card face down to the viewer is left out: its attacks
    /// would tell its rank.
    pub attacks: Vec<HoldemAttack>,
    /// Each seat, in seat order.
    pub seats: Vec<HoldemSeat>,
    /// Cards placed by the seat to act in its current turn.
    pub placed_this_turn: u8,
    /// Each finished hand's result, in order.
    pub results: Vec<HoldemResult>,
    /// The viewer's legal actions when it is to act (empty otherwise).
    pub legal_actions: Vec<LegalAction>,
}

/// Where a Hold'em Poker Chess hand is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HoldemPhase {
    /// Chance deals a hole or community card.
    Deal,
    /// The seat to act places cards (after the flop) and then bets.
    Bet,
    /// A seat that does not bet on this street places cards and says done.
    Place,
    /// The game is over.
    Over,
}

/// The grid's window: the columns `x0..=x1` and rows `y0..=y1` cards may occupy.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct HoldemWindow {
    /// Leftmost column.
    pub x0: i32,
    /// Rightmost column.
    pub x1: i32,
    /// Bottom row.
    pub y0: i32,
    /// Top row.
    pub y1: i32,
}

/// The cells one placed card attacks.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct HoldemAttack {
    /// The card's column.
    pub x: i32,
    /// The card's row.
    pub y: i32,
    /// The seat that placed it.
    pub owner: usize,
    /// The cells of the window it attacks, in cell order (rows from the top, each left to
    /// right).
    pub cells: Vec<HoldemCell>,
}

/// A cell of the grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct HoldemCell {
    /// Column.
    pub x: i32,
    /// Row.
    pub y: i32,
}

/// A Hold'em Poker Chess seat.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct HoldemSeat {
    /// The seat.
    pub seat: usize,
    /// The hole cards it still holds (not placed), in deal order: face down but for the
    /// viewer's own, and kept cards revealed at the last showdown at the end.
    #[serde(flatten)]
    pub hand: Held,
    /// Its stack.
    pub chips: u32,
    /// Chips it bet on this street.
    pub street_bet: u32,
    /// Chips it bet in this hand.
    pub total_bet: u32,
    /// Whether it was dealt into this hand (a seat with no chips sits out).
    pub dealt: bool,
    /// Whether it folded this hand.
    pub folded: bool,
    /// Whether it is all-in.
    pub all_in: bool,
}

/// The result of a finished hand.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct HoldemResult {
    /// The hand, from 1.
    pub hand_number: u32,
    /// Its button seat.
    pub button: usize,
    /// The showdown hands, in seat order (empty when the hand was won uncontested).
    pub showdown: Vec<HoldemShowdownHand>,
    /// The cards revealed at the showdown, face up.
    pub revealed: Vec<CardText>,
    /// Chips each seat won from the pot.
    pub won: Vec<u32>,
    /// Each seat's stack after the hand.
    pub chips: Vec<u32>,
}

/// A seat's hand at a showdown.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct HoldemShowdownHand {
    /// The seat.
    pub seat: usize,
    /// The hand, in words (`two pair, kings and fives`).
    pub name: String,
    /// The five cards of its best hand, face up.
    pub cards: Vec<CardText>,
}

impl Visible for HoldemState {
    type View = HoldemChessView;

    /// What `viewer` may know.
    fn view_of(&self, _history: &[PlayerAction], viewer: Viewer) -> HoldemChessView {
        let cfg = &self.config;
        let b = &self.betting;
        let over = self.phase == Phase::Over;
        let grid = self.grid_cards();
        let face_up: Vec<bool> = grid
            .iter()
            .map(|g| viewer.sees(cfg.players, |v| self.sees(v, g.card, g.owner)))
            .collect();
        let board = grid
            .iter()
            .zip(&face_up)
            .map(|(g, &up)| Cell::with_card(g.pos.0, g.pos.1, face(g.card, up)).owned_by(g.owner))
            .collect();
        let attacks = grid
            .iter()
            .zip(&face_up)
            .filter_map(|(g, &up)| {
                let owner = g.owner.filter(|_| up)?;
                let cells = attacked_cells(g.card, g.pos, &cfg.window, cfg.centre_pawn_both);
                Some(HoldemAttack {
                    x: g.pos.0,
                    y: g.pos.1,
                    owner,
                    cells: cells.into_iter().map(|(x, y)| HoldemCell { x, y }).collect(),
                })
            })
            .collect();
        let seats = (0..cfg.players)
            .map(|s| {
                let held = (0..2)
                    .filter(|&slot| self.holes[s][slot] != NO_CARD && self.kept[s] >> slot & 1 == 1)
                    .map(|slot| {
                        let c = Card(self.holes[s][slot]);
                        face(
                            c,
                            viewer.sees(cfg.players, |v| {
                                v == Some(s) || self.sees(None, c, Some(s))
                            }),
                        )
                    })
                    .collect();
                HoldemSeat {
                    seat: s,
                    hand: Held::new(held),
                    chips: self.chips(s),
                    street_bet: b.street_bet(s),
                    total_bet: b.total_bet(s),
                    dealt: b.is_dealt(s),
                    folded: b.has_folded(s),
                    all_in: b.is_all_in(s),
                }
            })
            .collect();
        let results = self
            .records
            .iter()
            .enumerate()
            .map(|(i, r)| HoldemResult {
                hand_number: i as u32 + 1,
                button: r.button,
                showdown: r
                    .hands()
                    .iter()
                    .map(|h| HoldemShowdownHand {
                        seat: h.seat,
                        name: h.value.describe(),
                        cards: faces(h.cards.iter()),
                    })
                    .collect(),
                revealed: faces(r.revealed.iter()),
                won: r.won[..cfg.players].to_vec(),
                chips: r.stacks_after[..cfg.players].to_vec(),
            })
            .collect();
        let legal_actions = match (viewer.seat(), self.current_player()) {
            (Some(v), Player::Seat(s)) if v == s => {
                let mut acts = Vec::new();
                self.legal_actions_into(Player::Seat(s), &mut acts);
                acts.iter()
                    .map(|&a| LegalAction {
                        id: a,
                        text: self.action_to_string(Player::Seat(s), a),
                    })
                    .collect()
            }
            _ => Vec::new(),
        };
        HoldemChessView {
            header: Header::of(self, viewer),
            hand_number: if over { self.hand_no } else { self.hand_no + 1 },
            hands: cfg.hands,
            phase: match self.phase {
                Phase::Deal => HoldemPhase::Deal,
                Phase::Bet => HoldemPhase::Bet,
                Phase::Place => HoldemPhase::Place,
                Phase::Over => HoldemPhase::Over,
            },
            street: (!over).then(|| Street::ALL[b.street() as usize]),
            button: b.button(),
            pot: b.pot(),
            current_bet: b.current_bet(),
            min_raise: b.min_raise(),
            window: HoldemWindow {
                x0: cfg.window.x0,
                x1: cfg.window.x1,
                y0: cfg.window.y0,
                y1: cfg.window.y1,
            },
            community: faces(self.community()),
            board,
            attacks,
            seats,
            placed_this_turn: self.placed_this_turn,
            results,
            legal_actions,
        }
    }
}
