//! The Pokeros state: board, hands, deck, points, and the turn structure with explicit chance.

use std::sync::Arc;

use serde::Serialize;

use super::Config;
use super::rules::{Board, Placement, score_placement};
use crate::cards::{Card, CardSet};
use crate::game::{Action, Player, PlayerAction, points_rewards, rank_rewards};
use crate::rng::GameRng;
use crate::rules::{Illegal, Rules};

/// Most seats a Pokeros game has.
pub(super) const MAX_SEATS: usize = 4;
/// Where the game is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub(super) enum Phase {
    /// Chance turns up the centre card.
    Centre,
    /// Chance deals a card to `seat` (`setup`: the initial deal, else a refill at the start of
    /// the seat's turn).
    Deal { seat: usize, setup: bool },
    /// The seat `to_move` places a card.
    Turn,
    /// The game is over.
    Over,
}

/// One placement, for logs and views.
#[derive(Clone, Debug, Serialize)]
pub struct Move {
    /// Who placed.
    pub seat: usize,
    /// The card placed.
    pub card: Card,
    /// The cell.
    pub cell: usize,
    /// What it scored.
    pub placement: Placement,
}

/// A Pokeros state.
#[derive(Clone, Debug)]
pub struct PokerosState {
    pub(super) config: Arc<Config>,
    pub(super) board: Board,
    pub(super) hands: [CardSet; MAX_SEATS],
    pub(super) deck: CardSet,
    pub(super) points: [u32; MAX_SEATS],
    pub(super) phase: Phase,
    pub(super) to_move: usize,
    pub(super) moves: Vec<Move>,
    rewards: [f64; MAX_SEATS],
}

impl PokerosState {
    /// The state before the centre card is turned up.
    pub fn new(config: Arc<Config>) -> Self {
        let deck = config.deck;
        PokerosState {
            board: Board::new(config.board_size, config.run_cap),
            config,
            hands: [CardSet::EMPTY; MAX_SEATS],
            deck,
            points: [0; MAX_SEATS],
            phase: Phase::Centre,
            to_move: 0,
            moves: Vec::new(),
            rewards: [0.0; MAX_SEATS],
        }
    }

    /// The typed parameters.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The board.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// A seat's hand (the caller decides who may see it).
    pub fn hand(&self, seat: usize) -> CardSet {
        self.hands[seat]
    }

    /// Points scored so far per seat.
    pub fn points(&self) -> &[u32] {
        &self.points[..self.config.players]
    }

    /// Cards left in the deck.
    pub fn deck(&self) -> CardSet {
        self.deck
    }

    /// Every placement so far.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// The seat whose turn it is (or is about to be, during a refill).
    pub fn to_move(&self) -> usize {
        self.to_move
    }

    /// The action placing the hand's `card` on `cell`, if the card is in the mover's hand.
    pub fn action_for(&self, card: Card, cell: usize) -> Option<Action> {
        let hand = self.hands[self.to_move];
        if !hand.contains(card) {
            return None;
        }
        let slot = (hand.0 & ((1u64 << card.0) - 1)).count_ones() as usize;
        Some((cell * self.config.slots() + slot) as Action)
    }

    /// Cell of board coordinates (x right, y up, the centre at 0,0), if inside the window.
    pub fn cell_at(&self, x: i32, y: i32) -> Option<usize> {
        let size = self.config.board_size as i32;
        let c = size / 2;
        let (col, row) = (x + c, c - y);
        (col >= 0 && row >= 0 && col < size && row < size).then(|| (row * size + col) as usize)
    }

    /// Board coordinates (x right, y up, centre 0,0) of a cell.
    pub fn coords(&self, cell: usize) -> (i32, i32) {
        let size = self.config.board_size;
        let c = (size / 2) as i32;
        ((cell % size) as i32 - c, c - (cell / size) as i32)
    }

    pub(super) fn hands_public(&self) -> bool {
        self.config.hand_size == 0
    }

    pub(super) fn card_in_slot(&self, seat: usize, slot: usize) -> Option<Card> {
        let hand = self.hands[seat];
        (slot < hand.len() as usize)
            .then(|| Card(crate::rng::nth_set_bit(hand.0, slot as u32) as u8))
    }

    /// Moves on to the next node after the state changed: deals, turn starts and the end.
    fn settle(&mut self) {
        let n = self.config.players;
        loop {
            match self.phase {
                Phase::Centre | Phase::Turn | Phase::Over => return,
                Phase::Deal { seat, setup: true } => {
                    if seat == n {
                        self.to_move = 0;
                        self.phase = Phase::Deal {
                            seat: 0,
                            setup: false,
                        };
                    } else if (self.hands[seat].len() as usize) < self.config.hand_size
                        && !self.deck.is_empty()
                    {
                        return;
                    } else {
                        self.phase = Phase::Deal {
                            seat: seat + 1,
                            setup: true,
                        };
                    }
                }
                Phase::Deal { seat, setup: false } => {
                    let hand = self.hands[seat];
                    if (hand.len() as usize) < self.config.slots() && !self.deck.is_empty() {
                        return;
                    }
                    self.phase = if hand.is_empty() {
                        Phase::Over
                    } else {
                        Phase::Turn
                    };
                }
            }
        }
    }

    fn apply_chance(&mut self, action: Action) -> Result<(), Illegal> {
        let card = match Card::from_id(action) {
            Some(c) if self.deck.contains(c) => c,
            _ => {
                return Err(Illegal::new(format!(
                    "card id {action} is not in the deck ({} cards left)",
                    self.deck.len()
                )));
            }
        };
        self.deck.remove(card);
        match self.phase {
            Phase::Centre => {
                self.board.place(self.config.centre(), card);
                self.phase = Phase::Deal {
                    seat: 0,
                    setup: true,
                };
            }
            Phase::Deal { seat, .. } => self.hands[seat].insert(card),
            _ => unreachable!("chance acts only at Centre and Deal"),
        }
        self.rewards = [0.0; MAX_SEATS];
        self.settle();
        Ok(())
    }

    fn apply_placement(&mut self, action: Action) -> Result<(), Illegal> {
        let slots = self.config.slots();
        let (cell, slot) = (action as usize / slots, action as usize % slots);
        if cell >= self.config.cells() {
            return Err(Illegal::new(format!(
                "action ids run from 0 to {}",
                self.config.cells() * slots - 1
            )));
        }
        let seat = self.to_move;
        let Some(card) = self.card_in_slot(seat, slot) else {
            return Err(Illegal::new(format!(
                "hand slot {slot} is empty (the hand holds {} cards)",
                self.hands[seat].len()
            )));
        };
        if !self.board.is_legal(cell) {
            let (x, y) = self.coords(cell);
            let reason = if self.board.card(cell).is_some() {
                format!("cell {x},{y} is already taken")
            } else if !self.board.is_frontier(cell) {
                format!("cell {x},{y} is not orthogonally next to a card")
            } else {
                format!("a card at {x},{y} would make a row or column run longer than 5")
            };
            return Err(Illegal::new(reason));
        }
        let placement = score_placement(&self.board, cell, card, &self.config);
        self.board.place(cell, card);
        self.hands[seat].remove(card);
        self.points[seat] += placement.points;
        let n = self.config.players;
        self.rewards = [0.0; MAX_SEATS];
        if !self.config.rank_reward {
            let mut delta = [0.0; MAX_SEATS];
            delta[seat] = placement.points as f64;
            let r = points_rewards(&delta[..n]);
            self.rewards[..n].copy_from_slice(&r);
        }
        self.moves.push(Move {
            seat,
            card,
            cell,
            placement,
        });
        if !self.board.has_legal() {
            self.phase = Phase::Over;
        } else {
            self.to_move = (seat + 1) % n;
            self.phase = Phase::Deal {
                seat: self.to_move,
                setup: false,
            };
            self.settle();
        }
        if self.phase == Phase::Over && self.config.rank_reward {
            let r = self.returns();
            self.rewards[..n].copy_from_slice(&r);
        }
        Ok(())
    }

    fn seat_points_f64(&self) -> Vec<f64> {
        self.points().iter().map(|&p| p as f64).collect()
    }

    /// The seat each chance entry of `history` dealt to (None for the centre card and for
    /// placements). Replays the turn structure, which depends only on hand sizes, not on
    /// which cards.
    pub(super) fn deal_targets(&self, history: &[PlayerAction]) -> Vec<Option<usize>> {
        let mut replay = PokerosState::new(self.config.clone());
        let mut out = Vec::with_capacity(history.len());
        for entry in history {
            out.push(match replay.phase {
                Phase::Deal { seat, .. } => Some(seat),
                _ => None,
            });
            replay
                .apply(entry.player, entry.action)
                .expect("the history replays");
        }
        out
    }
}

impl Rules for PokerosState {
    type Config = Config;

    fn config(&self) -> &Config {
        &self.config
    }

    fn current_player(&self) -> Player {
        match self.phase {
            Phase::Centre | Phase::Deal { .. } => Player::Chance,
            Phase::Turn => Player::Seat(self.to_move),
            Phase::Over => Player::Terminal,
        }
    }

    fn legal_actions_into(&self, player: Player, out: &mut Vec<Action>) {
        match player {
            Player::Chance => out.extend(self.deck.iter().map(|c| c.0 as Action)),
            Player::Seat(seat) => {
                let slots = self.config.slots();
                let held = self.hands[seat].len() as usize;
                self.board.for_each_legal(|cell| {
                    for slot in 0..held {
                        out.push((cell * slots + slot) as Action);
                    }
                });
            }
            _ => {}
        }
    }

    fn action_mask(&self, player: Player, mask: &mut [bool]) {
        match player {
            Player::Seat(seat) => {
                let slots = self.config.slots();
                let held = self.hands[seat].len() as usize;
                self.board.for_each_legal(|cell| {
                    mask[cell * slots..cell * slots + held].fill(true);
                });
            }
            Player::Chance => {
                for c in self.deck.iter() {
                    if let Some(m) = mask.get_mut(c.0 as usize) {
                        *m = true;
                    }
                }
            }
            _ => {}
        }
    }

    fn chance_cards(&self) -> CardSet {
        self.deck
    }

    fn apply(&mut self, player: Player, action: Action) -> Result<(), Illegal> {
        match player {
            Player::Chance => self.apply_chance(action),
            _ => self.apply_placement(action),
        }
    }

    fn returns(&self) -> Vec<f64> {
        let points = self.seat_points_f64();
        if !self.config.rank_reward {
            points_rewards(&points)
        } else if self.phase == Phase::Over {
            rank_rewards(&points)
        } else {
            vec![0.0; self.config.players]
        }
    }

    fn reward_slice(&self) -> &[f64] {
        &self.rewards[..self.config.players]
    }

    fn heuristic(&self, _seat: usize, _rng: &mut GameRng) -> Action {
        super::bot::greedy_action(self)
    }
}
