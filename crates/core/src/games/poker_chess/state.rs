//! The Poker Chess state: board, hands, draw pile, discard pile, points, and the turn
//! structure (card step, move step) with every draw an explicit chance outcome.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use serde_json::json;

use super::moves::{self, options};
use super::table::{self, CARD_CLASS};
use super::{CARD_BASE, Config, INFO};
use crate::cards::{Card, CardSet, NUM_CARD_IDS};
use crate::chess::{Board, Color, Move, MoveGenOptions, Piece};
use crate::game::{
    Action, EventLayout, GameError, Player, PlayerAction, State, check_turn, rank_rewards,
    write_information_state,
};
use crate::params::Params;
use crate::rng::{GameRng, nth_set_bit};

/// Number of floats in an observation (see docs/games/poker_chess.md).
pub const OBSERVATION_SIZE: usize = 12 * 64 + 3 * NUM_CARD_IDS + 2 + 2 + 2 + 4 + 8 + 2 + 3;

/// Reads the `fen` parameter: a FEN the chess module accepts, with exactly one king a side.
pub fn parse_start(fen: &str) -> Result<Board, String> {
    let board = Board::from_fen(fen).map_err(|e| e.to_string())?;
    for color in [Color::White, Color::Black] {
        let kings = board.colored(color, Piece::King).len();
        if kings != 1 {
            return Err(format!(
                "{color:?} has {kings} kings; a position needs exactly one king a side"
            ));
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
enum Phase {
    /// Chance deals a card to `seat`: the initial deal (`setup`) or the draw after a turn.
    Deal { seat: usize, setup: bool },
    /// The side to move decides.
    Turn(TurnStep),
    /// The game is over.
    Over,
}

/// One entry of the history, with what it did (parallel to `history`).
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
    config: Arc<Config>,
    params: Arc<Params>,
    opts: MoveGenOptions,
    board: Board,
    hands: [CardSet; 2],
    pile: CardSet,
    discards: CardSet,
    points: [u32; 2],
    phase: Phase,
    /// Card classes the side to move can play (valid at a card step).
    playable: u32,
    history: Vec<PlayerAction>,
    events: Vec<Event>,
    rewards: [f64; 2],
}

/// The seat of a colour (White is seat 0).
#[inline]
fn seat_of(color: Color) -> usize {
    color as usize
}

/// The (i, j) slots of discard pair `index` for a hand of `hand_size` slots.
fn pair_slots(index: usize, hand_size: usize) -> Option<(usize, usize)> {
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
fn pair_index(i: usize, j: usize, hand_size: usize) -> usize {
    i * (2 * hand_size - i - 1) / 2 + (j - i - 1)
}

/// Codes of the history rows of an information-state tensor, in blocks: a card seen dealt
/// (`NUM_CARD_IDS`, then one code for a deal to the other seat), a card played, a move
/// (from, to, promotion piece), a discarded pair.
const PLAY_CODES: usize = NUM_CARD_IDS + 1;
const MOVE_CODES: usize = PLAY_CODES + NUM_CARD_IDS;
const DISCARD_CODES: usize = MOVE_CODES + 64 * 64 * 6;
const EVENT_CODES: usize = DISCARD_CODES + NUM_CARD_IDS * NUM_CARD_IDS;

/// The history rows of an information-state tensor (codes: `EVENT_CODES`' blocks).
pub fn event_layout(config: &Config) -> EventLayout {
    EventLayout::new(2, EVENT_CODES, config.max_game_length())
}

impl PokerChessState {
    /// What seat `viewer` saw of each history entry (codes of `event_layout`). A move's
    /// capture is not coded: the board before it, known from the earlier moves, tells it.
    fn event_codes(&self, viewer: usize) -> Vec<u32> {
        self.events
            .iter()
            .map(|event| {
                (match *event {
                    Event::Deal { seat, card } if seat == viewer => card.0 as usize,
                    Event::Deal { .. } => NUM_CARD_IDS,
                    Event::Play { card, .. } => PLAY_CODES + card.0 as usize,
                    Event::Move { mv, .. } => {
                        let promotion = mv.promotion.map_or(0, |p| p as usize);
                        MOVE_CODES + (mv.from as usize * 64 + mv.to as usize) * 6 + promotion
                    }
                    Event::Discard { cards, .. } => {
                        DISCARD_CODES + cards[0].0 as usize * NUM_CARD_IDS + cards[1].0 as usize
                    }
                }) as u32
            })
            .collect()
    }

    /// The state before the deal.
    pub fn new(config: Arc<Config>, params: Params) -> Self {
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
            history: Vec::with_capacity(capacity),
            events: Vec::with_capacity(capacity),
            rewards: [0.0; 2],
            config,
            params: Arc::new(params),
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

    fn illegal(&self, action: Action, reason: String) -> GameError {
        GameError::IllegalAction {
            action,
            desc: self.action_to_string(self.current_player(), action),
            player: self.current_player(),
            state: self.describe(),
            reason,
        }
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

    fn apply_chance(&mut self, action: Action) -> Result<(), GameError> {
        let Phase::Deal { seat, .. } = self.phase else {
            unreachable!("chance acts only at deals");
        };
        let card = match Card::from_id(action) {
            Some(c) if self.pile.contains(c) => c,
            _ => {
                return Err(self.illegal(
                    action,
                    format!(
                        "card id {action} is not in the draw pile ({} cards left)",
                        self.pile.len()
                    ),
                ));
            }
        };
        self.pile.remove(card);
        self.hands[seat].insert(card);
        self.rewards = [0.0; 2];
        self.push(Player::Chance, action, Event::Deal { seat, card });
        self.settle();
        Ok(())
    }

    fn push(&mut self, player: Player, action: Action, event: Event) {
        self.history.push(PlayerAction { player, action });
        self.events.push(event);
    }

    fn apply_card_step(&mut self, action: Action) -> Result<(), GameError> {
        let seat = self.to_move();
        let h = self.config.hand_size;
        let held = self.hands[seat].len() as usize;
        if action < CARD_BASE || action as usize >= self.config.num_actions() {
            return Err(self.illegal(
                action,
                format!(
                    "this is the card step: play a card ({} to {}) or discard a pair ({} to {})",
                    CARD_BASE,
                    CARD_BASE as usize + h - 1,
                    CARD_BASE as usize + h,
                    self.config.num_actions() - 1
                ),
            ));
        }
        let index = (action - CARD_BASE) as usize;
        if index < h {
            let Some(card) = self.card_in_slot(seat, index) else {
                return Err(self.illegal(
                    action,
                    format!("hand slot {index} is empty (the hand holds {held} cards)"),
                ));
            };
            if !self.is_playable(card) {
                return Err(self.illegal(
                    action,
                    format!(
                        "{card} allows {}, and no move here is one",
                        table::card_meaning(card)
                    ),
                ));
            }
            self.hands[seat].remove(card);
            self.discards.insert(card);
            self.rewards = [0.0; 2];
            self.phase = Phase::Turn(TurnStep::Move(card));
            self.push(Player::Seat(seat), action, Event::Play { seat, card });
            return Ok(());
        }
        let (i, j) = pair_slots(index - h, h).expect("the id is in range");
        let (Some(a), Some(b)) = (self.card_in_slot(seat, i), self.card_in_slot(seat, j)) else {
            return Err(self.illegal(
                action,
                format!("hand slots {i} and {j} are not both filled (the hand holds {held} cards)"),
            ));
        };
        for card in [a, b] {
            if self.is_playable(card) {
                let example = self
                    .moves_for(card)
                    .first()
                    .map(|m| m.1.to_string())
                    .unwrap_or_default();
                return Err(self.illegal(
                    action,
                    format!(
                        "{card} is playable (it allows {example}); only two unplayable cards \
                         may be discarded"
                    ),
                ));
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
        self.push(
            Player::Seat(seat),
            action,
            Event::Discard {
                seat,
                cards: [a, b],
            },
        );
        self.phase = Phase::Deal { seat, setup: false };
        self.settle();
        Ok(())
    }

    fn apply_move_step(&mut self, card: Card, action: Action) -> Result<(), GameError> {
        let color = self.board.side_to_move();
        let seat = seat_of(color);
        let Some(mv) = moves::decode(action, color) else {
            return Err(self.illegal(
                action,
                format!(
                    "this is the move step for {card}: choose a move id below {CARD_BASE} \
                     that {card} allows"
                ),
            ));
        };
        if let Err(e) = self.board.check_move(color, mv, &self.opts) {
            return Err(self.illegal(action, e.to_string()));
        }
        let traits = moves::traits(&self.board, mv).expect("a checked move has a piece");
        if !table::card_allows(card, &traits) {
            return Err(self.illegal(
                action,
                format!(
                    "{card} allows {}; {mv} is not such a move",
                    table::card_meaning(card)
                ),
            ));
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
        self.push(
            Player::Seat(seat),
            action,
            Event::Move { seat, mv, captured },
        );
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
            let r = self.returns();
            self.rewards.copy_from_slice(&r);
        }
    }

    fn hand_text(hand: CardSet) -> String {
        hand.iter()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// History entry `index` as seat `viewer` saw it (`None`: a spectator).
    fn event_text(&self, index: usize, viewer: Option<usize>) -> String {
        match self.events[index] {
            Event::Deal { seat, card } => {
                if Some(seat) == viewer {
                    format!("deal s{seat}:{card}")
                } else {
                    format!("deal s{seat}:?")
                }
            }
            Event::Play { seat, card } => format!("s{seat} plays {card}"),
            Event::Move { seat, mv, captured } => match captured {
                Some(p) => format!("s{seat} {mv}x{}", moves::kind(p).letter()),
                None => format!("s{seat} {mv}"),
            },
            Event::Discard { seat, cards } => {
                format!("s{seat} discards {} {}", cards[0], cards[1])
            }
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

impl State for PokerChessState {
    fn num_players(&self) -> usize {
        2
    }

    fn current_player(&self) -> Player {
        match self.phase {
            Phase::Deal { .. } => Player::Chance,
            Phase::Turn(_) => Player::Seat(self.to_move()),
            Phase::Over => Player::Terminal,
        }
    }

    fn legal_actions_into(&self, player: Player, out: &mut Vec<Action>) {
        out.clear();
        if player != self.current_player() {
            return;
        }
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

    fn legal_action_mask(&self, player: Player, mask: &mut [bool]) {
        mask.fill(false);
        if player != self.current_player() {
            return;
        }
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

    fn chance_outcomes(&self) -> Vec<(Action, f64)> {
        if !self.is_chance_node() {
            return Vec::new();
        }
        let p = 1.0 / self.pile.len() as f64;
        self.pile.iter().map(|c| (c.0 as Action, p)).collect()
    }

    fn sample_chance_outcome(&self, rng: &mut GameRng) -> Action {
        rng.choose_bit(self.pile.0)
    }

    fn apply_action(&mut self, action: Action) -> Result<(), GameError> {
        match self.phase {
            Phase::Deal { .. } => self.apply_chance(action)?,
            Phase::Turn(TurnStep::Card) => self.apply_card_step(action)?,
            Phase::Turn(TurnStep::Move(card)) => self.apply_move_step(card, action)?,
            Phase::Over => return check_turn(self, Player::Terminal),
        }
        self.end_if_over();
        Ok(())
    }

    fn returns(&self) -> Vec<f64> {
        self.returns_array().to_vec()
    }

    fn rewards(&self) -> Vec<f64> {
        self.rewards.to_vec()
    }

    fn add_rewards_to(&self, out: &mut [f64]) {
        crate::game::add_rewards(out, &self.rewards);
    }

    fn history(&self) -> &[PlayerAction] {
        &self.history
    }

    fn action_to_string(&self, player: Player, action: Action) -> String {
        match player {
            Player::Chance => match Card::from_id(action) {
                Some(c) => c.to_string(),
                None => format!("card#{action}"),
            },
            Player::Seat(seat) if seat < 2 => {
                let h = self.config.hand_size;
                if action < CARD_BASE {
                    let color = if seat == 0 {
                        Color::White
                    } else {
                        Color::Black
                    };
                    return match moves::decode(action, color) {
                        Some(mv) => mv.to_string(),
                        None => format!("action#{action}"),
                    };
                }
                let index = (action - CARD_BASE) as usize;
                if index < h {
                    match self.card_in_slot(seat, index) {
                        Some(card) => format!("play {card}"),
                        None => format!("play slot{index}"),
                    }
                } else if let Some((i, j)) = pair_slots(index - h, h) {
                    match (self.card_in_slot(seat, i), self.card_in_slot(seat, j)) {
                        (Some(a), Some(b)) => format!("discard {a} {b}"),
                        _ => format!("discard slot{i} slot{j}"),
                    }
                } else {
                    format!("action#{action}")
                }
            }
            _ => format!("action#{action}"),
        }
    }

    fn string_to_action(&self, player: Player, text: &str) -> Result<Action, GameError> {
        let bad = |reason: String| GameError::BadActionString {
            text: text.to_string(),
            player,
            reason,
        };
        let seat = match player {
            Player::Chance => {
                return text
                    .trim()
                    .parse::<Card>()
                    .map(|c| c.0 as Action)
                    .map_err(|e| bad(e.to_string()));
            }
            Player::Seat(seat) if seat < 2 => seat,
            _ => return Err(bad(format!("{player} takes no actions"))),
        };
        let h = self.config.hand_size;
        let words: Vec<&str> = text.split_whitespace().collect();
        let slot = |word: &str| -> Result<usize, GameError> {
            if let Some(n) = word.strip_prefix("slot") {
                return n
                    .parse::<usize>()
                    .ok()
                    .filter(|&s| s < h)
                    .ok_or_else(|| bad(format!("no hand slot '{n}' (slots 0 to {})", h - 1)));
            }
            let card: Card = word
                .parse()
                .map_err(|e: crate::cards::BadCard| bad(e.to_string()))?;
            self.slot_of(seat, card)
                .ok_or_else(|| bad(format!("{card} is not in seat {seat}'s hand")))
        };
        match words.as_slice() {
            ["play", card] => Ok(CARD_BASE + slot(card)? as Action),
            ["discard", a, b] => {
                let (i, j) = (slot(a)?, slot(b)?);
                if i == j {
                    return Err(bad("a discard needs two different cards".to_string()));
                }
                Ok(CARD_BASE + (h + pair_index(i.min(j), i.max(j), h)) as Action)
            }
            [uci] => {
                let mv: Move = uci.parse().map_err(|e: crate::chess::ChessError| {
                    bad(format!(
                        "{e}; expected 'play CARD', 'discard CARD CARD' or a move like e2e4"
                    ))
                })?;
                if mv.promotion.is_some() {
                    let color = if seat == 0 {
                        Color::White
                    } else {
                        Color::Black
                    };
                    let (ff, tf) = (mv.from.file() as i8, mv.to.file() as i8);
                    if (ff - tf).abs() > 1 || moves::decode(moves::encode(mv), color) != Some(mv) {
                        return Err(bad(format!(
                            "{mv} is not a promotion of {color:?} (from its 7th rank to its 8th, \
                             straight or one file aside)"
                        )));
                    }
                    return Ok(moves::encode(mv));
                }
                Ok(moves::encode(mv))
            }
            _ => Err(bad(
                "expected 'play CARD', 'discard CARD CARD' or a move like e2e4".to_string(),
            )),
        }
    }

    fn observation_tensor(&self, player: usize, out: &mut [f32]) {
        debug_assert_eq!(out.len(), OBSERVATION_SIZE);
        out.fill(0.0);
        for color in [Color::White, Color::Black] {
            for piece in Piece::ALL {
                let plane = color as usize * 6 + piece as usize;
                for sq in self.board.colored(color, piece) {
                    out[plane * 64 + sq as usize] = 1.0;
                }
            }
        }
        let mut at = 12 * 64;
        for c in self.hands[player].iter() {
            out[at + c.0 as usize] = 1.0;
        }
        at += NUM_CARD_IDS;
        for c in self.discards.iter() {
            out[at + c.0 as usize] = 1.0;
        }
        at += NUM_CARD_IDS;
        if let Phase::Turn(TurnStep::Move(card)) = self.phase {
            out[at + card.0 as usize] = 1.0;
        }
        at += NUM_CARD_IDS;
        out[at + player] = 1.0;
        at += 2;
        if let Phase::Turn(step) = self.phase {
            out[at + self.to_move()] = 1.0;
            out[at + 2 + usize::from(step != TurnStep::Card)] = 1.0;
        }
        at += 4;
        let rights = self.board.castling_rights();
        for (i, (color, short)) in [
            (Color::White, true),
            (Color::White, false),
            (Color::Black, true),
            (Color::Black, false),
        ]
        .into_iter()
        .enumerate()
        {
            if rights.has(color, short) {
                out[at + i] = 1.0;
            }
        }
        at += 4;
        if self.config.en_passant
            && let Some(sq) = self.board.en_passant()
        {
            out[at + sq.file() as usize] = 1.0;
        }
        at += 8;
        out[at] = self.points[player] as f32 / 100.0;
        out[at + 1] = self.points[1 - player] as f32 / 100.0;
        at += 2;
        let h = self.config.hand_size as f32;
        out[at] = self.hands[player].len() as f32 / h;
        out[at + 1] = self.hands[1 - player].len() as f32 / h;
        out[at + 2] = self.pile.len() as f32 / self.config.deck.len() as f32;
    }

    fn information_state_tensor(&self, player: usize, out: &mut [f32]) {
        let codes = self.event_codes(player);
        let layout = event_layout(&self.config);
        write_information_state(self, player, OBSERVATION_SIZE, &layout, &codes, out);
    }

    fn observation_string(&self, player: usize) -> String {
        let mut s = self.board.diagram();
        s.push_str(&format!("fen: {}\n", self.board));
        s.push_str(&format!("hand: {}\n", Self::hand_text(self.hands[player])));
        s.push_str(&format!(
            "s{} holds {} cards\n",
            1 - player,
            self.hands[1 - player].len()
        ));
        if let Phase::Turn(TurnStep::Move(card)) = self.phase {
            s.push_str(&format!("played: {card}\n"));
        }
        s.push_str(&format!(
            "discards: {}\npile: {}\npoints: {:?}\nto act: {}\n",
            Self::hand_text(self.discards),
            self.pile.len(),
            self.points,
            self.current_player()
        ));
        s
    }

    fn information_state_string(&self, player: usize) -> String {
        let events: Vec<String> = (0..self.history.len())
            .map(|i| self.event_text(i, Some(player)))
            .collect();
        format!("seat {player} | {}", events.join(", "))
    }

    fn view(&self, viewer: Option<usize>) -> serde_json::Value {
        let hands: Vec<_> = (0..2)
            .map(|seat| {
                let visible = Some(seat) == viewer;
                json!({
                    "seat": seat,
                    "color": if seat == 0 { "white" } else { "black" },
                    "count": self.hands[seat].len(),
                    "cards": visible.then(|| self.hands[seat].iter().map(|c| c.to_string()).collect::<Vec<_>>()),
                })
            })
            .collect();
        let played = match self.phase {
            Phase::Turn(TurnStep::Move(card)) => Some(card.to_string()),
            _ => None,
        };
        let step = match self.phase {
            Phase::Turn(TurnStep::Card) => Some("card"),
            Phase::Turn(TurnStep::Move(_)) => Some("move"),
            _ => None,
        };
        let events: Vec<String> = (0..self.history.len())
            .map(|i| self.event_text(i, viewer))
            .collect();
        let over = self.phase == Phase::Over;
        json!({
            "game": INFO.name,
            "viewer": viewer,
            "fen": self.board.to_fen(),
            "board": self.board.diagram().lines().collect::<Vec<_>>(),
            "hands": hands,
            "played_card": played,
            "step": step,
            "discards": self.discards.iter().map(|c| c.to_string()).collect::<Vec<_>>(),
            "pile_remaining": self.pile.len(),
            "points": self.points,
            "current_player": self.current_player().id(),
            "events": events,
            "terminal": over,
            "returns": over.then(|| self.returns()),
        })
    }

    fn resample_from_infostate(&self, player: usize, rng: &mut GameRng) -> Box<dyn State> {
        let unknown = CardSet(self.pile.0 | self.hands[1 - player].0);
        let mut hidden = crate::cards::HiddenCards::new(unknown, rng);
        let mut out = PokerChessState::new(self.config.clone(), (*self.params).clone());
        for (entry, event) in self.history.iter().zip(&self.events) {
            let action = match *event {
                Event::Deal { card, .. } => hidden.replace(card).0 as Action,
                Event::Play { card, .. } => out.play_action(card).expect("the played card is held"),
                Event::Discard { cards, .. } => out
                    .discard_action(cards[0], cards[1])
                    .expect("the discarded cards are held"),
                Event::Move { .. } => entry.action,
            };
            out.apply_action(action)
                .expect("a resampled history replays");
        }
        Box::new(out)
    }

    fn heuristic_action(&self, seat: usize, rng: &mut GameRng) -> Action {
        super::bot::heuristic(self, seat, rng)
    }

    fn clone_box(&self) -> Box<dyn State> {
        Box::new(self.clone())
    }

    fn serialize(&self) -> String {
        crate::serial::serialize(INFO.name, &self.params, &self.history)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl fmt::Display for PokerChessState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.board.diagram())?;
        writeln!(f, "fen: {}", self.board)?;
        for seat in 0..2 {
            writeln!(
                f,
                "s{seat}: {:>3} points, hand: {}",
                self.points[seat],
                Self::hand_text(self.hands[seat])
            )?;
        }
        if let Phase::Turn(TurnStep::Move(card)) = self.phase {
            writeln!(f, "played: {card}")?;
        }
        write!(
            f,
            "discards: {}; pile: {} cards; to act: {}",
            self.discards.len(),
            self.pile.len(),
            self.current_player()
        )
    }
}
