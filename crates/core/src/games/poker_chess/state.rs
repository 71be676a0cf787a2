//! The Poker Chess state and its rules: board, hands, draw pile, discard pile, points, the
//! turn structure (card step, move step) with every draw an explicit chance outcome, the
//! legal sets, applying an action, and the returns. The observation writers and resampling
//! are in `observe.rs`, the text and the view in `text.rs`.

use std::sync::Arc;

use super::moves::{self, options};
use super::table::{self, CARD_CLASS};
use super::{CARD_BASE, Config};
use crate::cards::{Card, CardSet};
use crate::chess::{Board, Color, Move, MoveGenOptions, Piece};
use crate::game::{Action, Player, rank_rewards};
use crate::rng::{GameRng, nth_set_bit};
use crate::error::NotationError;
use crate::rules::{Illegal, Rules};

/// Reads the `fen` parameter: a FEN the chess module accepts, with exactly one king a side.
pub fn parse_start(fen: &str) -> Result<Board, NotationError> {
    let board = Board::from_fen(fen).map_err(|e| NotationError::new(e.to_string()))?;
    for color in [Color::White, Color::Black] {
        let kings = board.colored(color, Piece::King).len();
        if kings != 1 {
            return Err(NotationError::new(format!(
                "{color:?} has {kings} kings; a position needs exactly one king a side"
            )));
        }
    }
    Ok(board)
}

/// Which decision the seat to act faces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TurnStep {
    /// Choose a card to play or a pair to discard.
    Card,
    /// Choose the move the played card allows.
    Move(Card),
}

/// Where the game is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Phase {
    /// Chance deals a card to `seat`: the initial deal (`setup`) or the draw after a turn.
    Deal { seat: usize, setup: bool },
    /// The side to move decides.
    Turn(TurnStep),
    /// The game is over.
    Over,
}

/// One entry of the history, with what it did (parallel to the history `Played` keeps).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// Chance dealt `card` to `seat` (hidden from the other seat).
    Deal {
        /// Who received it.
        seat: usize,
        /// The card.
        card: Card,
    },
    /// `seat` played `card` face up (its move follows).
    Play {
        /// Who played.
        seat: usize,
        /// The card.
        card: Card,
    },
    /// `seat` made a move, capturing `captured` if anything.
    Move {
        /// Who moved.
        seat: usize,
        /// The move (castling as the king's move).
        mv: Move,
        /// The captured piece, if any.
        captured: Option<Piece>,
    },
    /// `seat` showed and discarded two unplayable cards.
    Discard {
        /// Who discarded.
        seat: usize,
        /// The two cards, in id order.
        cards: [Card; 2],
    },
}

/// A Poker Chess state.
#[derive(Clone, Debug)]
pub struct PokerChessState {
    pub(super) config: Arc<Config>,
    opts: MoveGenOptions,
    pub(super) board: Board,
    pub(super) hands: [CardSet; 2],
    pub(super) pile: CardSet,
    pub(super) discards: CardSet,
    pub(super) points: [u32; 2],
    pub(super) phase: Phase,
    /// Card classes the side to move can play (valid at a card step).
    playable: u32,
    pub(super) events: Vec<Event>,
    rewards: [f64; 2],
}

/// The seat of a colour (White is seat 0).
#[inline]
fn seat_of(color: Color) -> usize {
    color as usize
}

/// The (i, j) slots of discard pair `index` for a hand of `hand_size` slots.
pub(super) fn pair_slots(index: usize, hand_size: usize) -> Option<(usize, usize)> {
    let mut k = 0;
    for i in 0..hand_size {
        for j in i + 1..hand_size {
            if k == index {
                return Some((i, j));
            }
            k += 1;
        }
    }
    None
}

/// The discard pair index of slots i < j.
pub(super) fn pair_index(i: usize, j: usize, hand_size: usize) -> usize {
    i * (2 * hand_size - i - 1) / 2 + (j - i - 1)
}

impl PokerChessState {
    /// The state before the deal.
    pub fn new(config: Arc<Config>) -> Self {
        let capacity = 3 * config.deck.len() as usize;
        PokerChessState {
            opts: options(config.en_passant),
            board: config.start,
            hands: [CardSet::EMPTY; 2],
            pile: config.deck,
            discards: CardSet::EMPTY,
            points: [0; 2],
            phase: Phase::Deal {
                seat: 0,
                setup: true,
            },
            playable: 0,
            events: Vec::with_capacity(capacity),
            rewards: [0.0; 2],
            config,
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

    /// The draw pile (hidden from both seats).
    pub fn pile(&self) -> CardSet {
        self.pile
    }

    /// The public discard pile: every card played, discarded or shown.
    pub fn discards(&self) -> CardSet {
        self.discards
    }

    /// Points per seat.
    pub fn points(&self) -> [u32; 2] {
        self.points
    }

    /// The events so far, one per history entry.
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// The decision the seat to act faces, if a seat is to act.
    pub fn step(&self) -> Option<TurnStep> {
        match self.phase {
            Phase::Turn(step) => Some(step),
            _ => None,
        }
    }

    /// The seat whose colour is to move on the board.
    pub fn to_move(&self) -> usize {
        seat_of(self.board.side_to_move())
    }

    /// The generator options of this game.
    pub fn move_options(&self) -> &MoveGenOptions {
        &self.opts
    }

    /// Whether `card` allows some move of the side to move now.
    pub fn is_playable(&self, card: Card) -> bool {
        self.playable >> CARD_CLASS[card.0 as usize] & 1 == 1
    }

    /// The card in hand slot `slot` of `seat` (slots in card id order).
    pub fn card_in_slot(&self, seat: usize, slot: usize) -> Option<Card> {
        let hand = self.hands[seat];
        (slot < hand.len() as usize).then(|| Card(nth_set_bit(hand.0, slot as u32) as u8))
    }

    /// The hand slot of `card` in `seat`'s hand, if held.
    pub fn slot_of(&self, seat: usize, card: Card) -> Option<usize> {
        let hand = self.hands[seat];
        hand.contains(card)
            .then(|| (hand.0 & ((1u64 << card.0) - 1)).count_ones() as usize)
    }

    /// The action playing `card` (at a card step), if the side to move holds it.
    pub fn play_action(&self, card: Card) -> Option<Action> {
        let slot = self.slot_of(self.to_move(), card)?;
        Some(CARD_BASE + slot as Action)
    }

    /// The action discarding `a` and `b` (at a card step), if the side to move holds both.
    pub fn discard_action(&self, a: Card, b: Card) -> Option<Action> {
        let seat = self.to_move();
        let (i, j) = (self.slot_of(seat, a)?, self.slot_of(seat, b)?);
        if i == j {
            return None;
        }
        let (i, j) = (i.min(j), i.max(j));
        let h = self.config.hand_size;
        Some(CARD_BASE + (h + pair_index(i, j, h)) as Action)
    }

    /// The action id of a move (at a move step).
    pub fn move_action(&self, mv: Move) -> Action {
        moves::encode(mv)
    }

    /// The moves (ids and moves) the card `card` allows the side to move now.
    pub fn moves_for(&self, card: Card) -> Vec<(Action, Move)> {
        let mut out = Vec::new();
        moves::for_each_allowed(
            &self.board,
            &self.opts,
            CARD_CLASS[card.0 as usize] as u32,
            |id, mv| out.push((id, mv)),
        );
        out.sort_unstable_by_key(|m| m.0);
        out
    }

    /// Moves on after the state changed: deals, the next turn, or the end.
    fn settle(&mut self) {
        loop {
            match self.phase {
                Phase::Turn(_) | Phase::Over => return,
                Phase::Deal { seat, setup } => {
                    if (self.hands[seat].len() as usize) < self.config.hand_size
                        && !self.pile.is_empty()
                    {
                        return;
                    }
                    if setup && seat == 0 {
                        self.phase = Phase::Deal {
                            seat: 1,
                            setup: true,
                        };
                    } else {
                        self.start_turn();
                    }
                }
            }
        }
    }

    /// Starts the side to move's turn, or ends the game if it can do nothing.
    fn start_turn(&mut self) {
        self.playable = moves::playable_classes(&self.board, &self.opts);
        let hand = self.hands[self.to_move()];
        let playable = table::playable_cards(hand, self.playable);
        let dead = hand.len() - playable.len();
        if playable.is_empty() && dead < 2 {
            self.phase = Phase::Over;
        } else {
            self.phase = Phase::Turn(TurnStep::Card);
        }
    }

    fn apply_chance(&mut self, action: Action) -> Result<(), Illegal> {
        let Phase::Deal { seat, .. } = self.phase else {
            unreachable!("chance acts only at deals");
        };
        let card = match Card::from_id(action) {
            Some(c) if self.pile.contains(c) => c,
            _ => {
                return Err(Illegal::new(format!(
                    "card id {action} is not in the draw pile ({} cards left)",
                    self.pile.len()
                )));
            }
        };
        self.pile.remove(card);
        self.hands[seat].insert(card);
        self.rewards = [0.0; 2];
        self.events.push(Event::Deal { seat, card });
        self.settle();
        Ok(())
    }

    fn apply_card_step(&mut self, action: Action) -> Result<(), Illegal> {
        let seat = self.to_move();
        let h = self.config.hand_size;
        let held = self.hands[seat].len() as usize;
        if action < CARD_BASE || action as usize >= self.config.num_actions() {
            return Err(Illegal::new(format!(
                "this is the card step: play a card ({} to {}) or discard a pair ({} to {})",
                CARD_BASE,
                CARD_BASE as usize + h - 1,
                CARD_BASE as usize + h,
                self.config.num_actions() - 1
            )));
        }
        let index = (action - CARD_BASE) as usize;
        if index < h {
            let Some(card) = self.card_in_slot(seat, index) else {
                return Err(Illegal::new(format!(
                    "hand slot {index} is empty (the hand holds {held} cards)"
                )));
            };
            if !self.is_playable(card) {
                return Err(Illegal::new(format!(
                    "{card} allows {}, and no move here is one",
                    table::card_meaning(card)
                )));
            }
            self.hands[seat].remove(card);
            self.discards.insert(card);
            self.rewards = [0.0; 2];
            self.phase = Phase::Turn(TurnStep::Move(card));
            self.events.push(Event::Play { seat, card });
            return Ok(());
        }
        let (i, j) = pair_slots(index - h, h).expect("the id is in range");
        let (Some(a), Some(b)) = (self.card_in_slot(seat, i), self.card_in_slot(seat, j)) else {
            return Err(Illegal::new(format!(
                "hand slots {i} and {j} are not both filled (the hand holds {held} cards)"
            )));
        };
        for card in [a, b] {
            if self.is_playable(card) {
                let example = self
                    .moves_for(card)
                    .first()
                    .map(|m| m.1.to_string())
                    .unwrap_or_default();
                return Err(Illegal::new(format!(
                    "{card} is playable (it allows {example}); only two unplayable cards may be \
                     discarded"
                )));
            }
        }
        self.hands[seat].remove(a);
        self.hands[seat].remove(b);
        self.discards.insert(a);
        self.discards.insert(b);
        // The discard uses the ply: the other side moves next and en passant lapses.
        let mover = self.board.side_to_move();
        self.board.set_side_to_move(!mover);
        self.rewards = [0.0; 2];
        self.events.push(Event::Discard {
            seat,
            cards: [a, b],
        });
        self.phase = Phase::Deal { seat, setup: false };
        self.settle();
        Ok(())
    }

    fn apply_move_step(&mut self, card: Card, action: Action) -> Result<(), Illegal> {
        let color = self.board.side_to_move();
        let seat = seat_of(color);
        let Some(mv) = moves::decode(action, color) else {
            return Err(Illegal::new(format!(
                "this is the move step for {card}: choose a move id below {CARD_BASE} that \
                 {card} allows"
            )));
        };
        if let Err(e) = self.board.check_move(color, mv, &self.opts) {
            return Err(Illegal::new(e.to_string()));
        }
        let traits = moves::traits(&self.board, mv).expect("a checked move has a piece");
        if !table::card_allows(card, &traits) {
            return Err(Illegal::new(format!(
                "{card} allows {}; {mv} is not such a move",
                table::card_meaning(card)
            )));
        }
        let captured = self.board.make_move(mv).map(|c| c.piece);
        self.rewards = [0.0; 2];
        if let Some(piece) = captured {
            let value = self.config.values.of(moves::kind(piece));
            self.points[seat] += value;
            if !self.config.rank_reward {
                self.rewards[seat] = value as f64;
                self.rewards[1 - seat] = -(value as f64);
            }
        }
        self.events.push(Event::Move { seat, mv, captured });
        if captured == Some(Piece::King) {
            self.phase = Phase::Over;
        } else {
            self.phase = Phase::Deal { seat, setup: false };
            self.settle();
        }
        Ok(())
    }

    fn end_if_over(&mut self) {
        if self.phase == Phase::Over && self.config.rank_reward {
            self.rewards = self.returns_array();
        }
    }

    fn returns_array(&self) -> [f64; 2] {
        let (a, b) = (self.points[0] as f64, self.points[1] as f64);
        if !self.config.rank_reward {
            [a - b, b - a]
        } else if self.phase == Phase::Over {
            let r = rank_rewards(&[a, b]);
            [r[0], r[1]]
        } else {
            [0.0; 2]
        }
    }
}

/// The rules `Played` calls. What a seat saw of the history is read from `events`, one per
/// history entry (`observe.rs`, with the observation and resampling); the text is in
/// `text.rs` and the view in `view.rs`.
impl Rules for PokerChessState {
    type Config = Config;

    fn config(&self) -> &Config {
        &self.config
    }

    fn current_player(&self) -> Player {
        match self.phase {
            Phase::Deal { .. } => Player::Chance,
            Phase::Turn(_) => Player::Seat(self.to_move()),
            Phase::Over => Player::Terminal,
        }
    }

    fn legal_actions_into(&self, player: Player, out: &mut Vec<Action>) {
        match (player, self.phase) {
            (Player::Chance, _) => out.extend(self.pile.iter().map(|c| c.0 as Action)),
            (Player::Seat(seat), Phase::Turn(TurnStep::Card)) => {
                let hand = self.hands[seat];
                let h = self.config.hand_size;
                let held = hand.len() as usize;
                let playable = table::playable_cards(hand, self.playable);
                for slot in 0..held {
                    let card = Card(nth_set_bit(hand.0, slot as u32) as u8);
                    if playable.contains(card) {
                        out.push(CARD_BASE + slot as Action);
                    }
                }
                for i in 0..held {
                    let a = Card(nth_set_bit(hand.0, i as u32) as u8);
                    if playable.contains(a) {
                        continue;
                    }
                    for j in i + 1..held {
                        let b = Card(nth_set_bit(hand.0, j as u32) as u8);
                        if !playable.contains(b) {
                            out.push(CARD_BASE + (h + pair_index(i, j, h)) as Action);
                        }
                    }
                }
            }
            (Player::Seat(_), Phase::Turn(TurnStep::Move(card))) => {
                moves::for_each_allowed(
                    &self.board,
                    &self.opts,
                    CARD_CLASS[card.0 as usize] as u32,
                    |id, _| out.push(id),
                );
                out.sort_unstable();
            }
            _ => {}
        }
    }

    fn action_mask(&self, player: Player, mask: &mut [bool]) {
        match (player, self.phase) {
            (Player::Chance, _) => {
                for c in self.pile.iter() {
                    if let Some(m) = mask.get_mut(c.0 as usize) {
                        *m = true;
                    }
                }
            }
            (Player::Seat(seat), Phase::Turn(TurnStep::Card)) => {
                let hand = self.hands[seat];
                let h = self.config.hand_size;
                let held = hand.len() as usize;
                let playable = table::playable_cards(hand, self.playable);
                for i in 0..held {
                    let a = Card(nth_set_bit(hand.0, i as u32) as u8);
                    if playable.contains(a) {
                        mask[CARD_BASE as usize + i] = true;
                        continue;
                    }
                    for j in i + 1..held {
                        let b = Card(nth_set_bit(hand.0, j as u32) as u8);
                        if !playable.contains(b) {
                            mask[CARD_BASE as usize + h + pair_index(i, j, h)] = true;
                        }
                    }
                }
            }
            (Player::Seat(_), Phase::Turn(TurnStep::Move(card))) => {
                moves::for_each_allowed(
                    &self.board,
                    &self.opts,
                    CARD_CLASS[card.0 as usize] as u32,
                    |id, _| mask[id as usize] = true,
                );
            }
            _ => {}
        }
    }

    fn chance_cards(&self) -> CardSet {
        self.pile
    }

    fn apply(&mut self, _player: Player, action: Action) -> Result<(), Illegal> {
        match self.phase {
            Phase::Deal { .. } => self.apply_chance(action)?,
            Phase::Turn(TurnStep::Card) => self.apply_card_step(action)?,
            Phase::Turn(TurnStep::Move(card)) => self.apply_move_step(card, action)?,
            Phase::Over => unreachable!("no action is applied at a terminal state"),
        }
        self.end_if_over();
        Ok(())
    }

    fn returns(&self) -> Vec<f64> {
        self.returns_array().to_vec()
    }

    fn reward_slice(&self) -> &[f64] {
        &self.rewards
    }

    fn heuristic(&self, _seat: usize, _rng: &mut GameRng) -> Action {
        super::bot::greedy_action(self)
    }
}
