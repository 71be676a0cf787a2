//! The Pokeros state: board, hands, deck, points, and the turn structure with explicit chance.

use std::fmt;
use std::sync::Arc;

use serde::Serialize;

use super::Config;
use super::rules::{Board, Placement, score_placement};
use crate::cards::{Card, CardSet, HiddenCards, NUM_CARD_IDS};
use crate::game::{
    Action, DenseSink, EventLayout, GameError, ObservationEntries, ObservationSink, Player,
    PlayerAction, points_rewards, rank_rewards,
};
use crate::rng::GameRng;
use crate::rules::{GameDef, Illegal, Played, Rules};

/// Most seats a Pokeros game has.
const MAX_SEATS: usize = 4;
/// Feature planes per board cell: 13 ranks, 4 suits, 1 joker.
const CELL_PLANES: usize = 18;

/// Where the game is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
enum Phase {
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
    config: Arc<Config>,
    board: Board,
    hands: [CardSet; MAX_SEATS],
    deck: CardSet,
    points: [u32; MAX_SEATS],
    phase: Phase,
    to_move: usize,
    moves: Vec<Move>,
    rewards: [f64; MAX_SEATS],
}

/// Number of floats in a Pokeros observation.
pub fn observation_size(config: &Config) -> usize {
    CELL_PLANES * config.cells() + 2 * NUM_CARD_IDS + 4 * MAX_SEATS + 1
}

/// The history rows of an information-state tensor. Codes: a card seen dealt (or the
/// centre card) is its card id; a deal to another seat's hidden hand is `NUM_CARD_IDS`; a
/// placement is `NUM_CARD_IDS + 1 + cell × NUM_CARD_IDS + card` (the card and the cell, both
/// public; never the action id, whose hand slot would tell the order of the hidden hand).
pub fn event_layout(config: &Config) -> EventLayout {
    EventLayout::new(
        config.players,
        NUM_CARD_IDS + 1 + config.cells() * NUM_CARD_IDS,
        config.max_game_length(),
    )
}

impl PokerosState {
    /// What seat `viewer` saw of each history entry (codes of `event_layout`).
    fn codes(&self, history: &[PlayerAction], viewer: usize) -> Vec<u32> {
        let targets = self.deal_targets(history);
        let mut moves = self.moves.iter();
        history
            .iter()
            .zip(targets)
            .map(|(entry, target)| match entry.player {
                Player::Seat(_) => {
                    let m = moves.next().expect("a move per placement");
                    (NUM_CARD_IDS + 1 + m.cell * NUM_CARD_IDS + m.card.0 as usize) as u32
                }
                _ => match target {
                    Some(seat) if seat != viewer && !self.hands_public() => NUM_CARD_IDS as u32,
                    _ => entry.action,
                },
            })
            .collect()
    }

    /// Seat `player`'s observation, entry by entry (the layout is in `docs/games/pokeros.md`).
    fn write_observation(&self, player: usize, out: &mut impl ObservationSink) {
        let cells = self.config.cells();
        for (cell, card) in self.board.cards() {
            if card.is_joker() {
                out.set(17 * cells + cell, 1.0);
            } else {
                out.set(card.rank().0 as usize * cells + cell, 1.0);
                out.set((13 + card.suit().0 as usize) * cells + cell, 1.0);
            }
        }
        let mut at = CELL_PLANES * cells;
        for c in self.hands[player].iter() {
            out.set(at + c.0 as usize, 1.0);
        }
        at += NUM_CARD_IDS;
        if self.hands_public() && self.phase == Phase::Turn {
            for c in self.hands[self.to_move].iter() {
                out.set(at + c.0 as usize, 1.0);
            }
        }
        at += NUM_CARD_IDS;
        let n = self.config.players;
        for s in 0..n {
            out.set(at + s, self.points[s] as f32 / 100.0);
            out.set(
                at + MAX_SEATS + s,
                self.hands[s].len() as f32 / self.config.slots() as f32,
            );
        }
        at += 2 * MAX_SEATS;
        out.set(at + player, 1.0);
        at += MAX_SEATS;
        if self.phase == Phase::Turn {
            out.set(at + self.to_move, 1.0);
        }
        at += MAX_SEATS;
        out.set(at, self.deck.len() as f32 / self.config.deck.len() as f32);
    }

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

    fn card_in_slot(&self, seat: usize, slot: usize) -> Option<Card> {
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

    fn render_board(&self, f: &mut dyn fmt::Write) -> fmt::Result {
        let cards: Vec<(i32, i32, Card)> = self
            .board
            .cards()
            .map(|(cell, card)| {
                let (x, y) = self.coords(cell);
                (x, y, card)
            })
            .collect();
        if cards.is_empty() {
            return writeln!(f, "(empty board)");
        }
        let (x0, x1) = (
            cards.iter().map(|c| c.0).min().unwrap(),
            cards.iter().map(|c| c.0).max().unwrap(),
        );
        let (y0, y1) = (
            cards.iter().map(|c| c.1).min().unwrap(),
            cards.iter().map(|c| c.1).max().unwrap(),
        );
        write!(f, "    ")?;
        for x in x0..=x1 {
            write!(f, "{x:>3}")?;
        }
        writeln!(f)?;
        for y in (y0..=y1).rev() {
            write!(f, "{y:>3} ")?;
            for x in x0..=x1 {
                match self.cell_at(x, y).and_then(|c| self.board.card(c)) {
                    Some(card) => write!(f, " {card}")?,
                    None => write!(f, "  .")?,
                }
            }
            writeln!(f)?;
        }
        Ok(())
    }

    fn hand_text(hand: CardSet) -> String {
        hand.iter()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// History entry `entry` as seat `viewer` saw it (`target`: the seat a deal went to).
    fn event_text(
        &self,
        entry: PlayerAction,
        target: Option<usize>,
        viewer: usize,
        move_index: &mut usize,
    ) -> String {
        match entry.player {
            Player::Seat(s) => {
                let m = &self.moves[*move_index];
                *move_index += 1;
                let (x, y) = self.coords(m.cell);
                format!("s{s}:{}@{x},{y}+{}", m.card, m.placement.points)
            }
            _ => {
                let card = Card(entry.action as u8);
                match target {
                    None => format!("centre:{card}"),
                    Some(seat) if seat == viewer || self.hands_public() => {
                        format!("deal s{seat}:{card}")
                    }
                    Some(seat) => format!("deal s{seat}:?"),
                }
            }
        }
    }

    /// The seat each chance entry of `history` dealt to (None for the centre card and for
    /// placements). Replays the turn structure, which depends only on hand sizes, not on
    /// which cards.
    fn deal_targets(&self, history: &[PlayerAction]) -> Vec<Option<usize>> {
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

    fn chance_outcomes(&self) -> Vec<(Action, f64)> {
        self.deck.uniform_outcomes()
    }

    fn sample_chance_outcome(&self, rng: &mut GameRng) -> Action {
        rng.choose_bit(self.deck.0)
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

    fn rewards(&self) -> Vec<f64> {
        self.rewards[..self.config.players].to_vec()
    }

    fn add_rewards_to(&self, out: &mut [f64]) {
        crate::game::add_rewards(out, &self.rewards[..self.config.players]);
    }

    fn action_to_string(&self, player: Player, action: Action) -> String {
        match player {
            Player::Chance => match Card::from_id(action) {
                Some(c) => c.to_string(),
                None => format!("card#{action}"),
            },
            Player::Seat(seat) if seat < self.config.players => {
                let slots = self.config.slots();
                let (cell, slot) = (action as usize / slots, action as usize % slots);
                if cell >= self.config.cells() {
                    return format!("action#{action}");
                }
                let (x, y) = self.coords(cell);
                match self.card_in_slot(seat, slot) {
                    Some(card) => format!("{card}@{x},{y}"),
                    None => format!("slot{slot}@{x},{y}"),
                }
            }
            _ => format!("action#{action}"),
        }
    }

    fn string_to_action(&self, player: Player, text: &str) -> Result<Action, GameError> {
        let bad = |reason: String| GameError::bad_action_string(text, player, reason);
        match player {
            Player::Chance => text
                .trim()
                .parse::<Card>()
                .map(|c| c.0 as Action)
                .map_err(|e| bad(e.to_string())),
            Player::Seat(seat) if seat < self.config.players => {
                let (card_text, at) = text
                    .trim()
                    .split_once('@')
                    .ok_or_else(|| bad("expected CARD@X,Y, e.g. Kd@1,0".to_string()))?;
                let (xs, ys) = at
                    .split_once(',')
                    .ok_or_else(|| bad("expected CARD@X,Y, e.g. Kd@1,0".to_string()))?;
                let (x, y): (i32, i32) = (
                    xs.trim()
                        .parse()
                        .map_err(|_| bad(format!("'{xs}' is not a column")))?,
                    ys.trim()
                        .parse()
                        .map_err(|_| bad(format!("'{ys}' is not a row")))?,
                );
                let cell = self
                    .cell_at(x, y)
                    .ok_or_else(|| bad(format!("{x},{y} is outside the board")))?;
                let slots = self.config.slots();
                if let Some(slot) = card_text.strip_prefix("slot") {
                    let slot: usize = slot
                        .parse()
                        .ok()
                        .filter(|s| *s < slots)
                        .ok_or_else(|| bad(format!("no hand slot '{slot}'")))?;
                    return Ok((cell * slots + slot) as Action);
                }
                let card: Card = card_text
                    .parse()
                    .map_err(|e: crate::cards::BadCard| bad(e.to_string()))?;
                let hand = self.hands[seat];
                if !hand.contains(card) {
                    return Err(bad(format!("{card} is not in seat {seat}'s hand")));
                }
                let slot = (hand.0 & ((1u64 << card.0) - 1)).count_ones() as usize;
                Ok((cell * slots + slot) as Action)
            }
            _ => Err(bad(format!("{player} takes no actions"))),
        }
    }

    fn observation_tensor(&self, player: usize, out: &mut [f32]) {
        out.fill(0.0);
        self.write_observation(player, &mut DenseSink(out));
    }

    fn observation_entries(&self, player: usize, out: &mut ObservationEntries) -> bool {
        self.write_observation(player, out);
        true
    }

    fn event_codes(&self, history: &[PlayerAction], viewer: usize) -> Vec<u32> {
        self.codes(history, viewer)
    }

    fn observation_string(&self, player: usize) -> String {
        let mut s = String::new();
        let _ = self.render_board(&mut s);
        s.push_str(&format!("hand: {}\n", Self::hand_text(self.hands[player])));
        for seat in 0..self.config.players {
            if seat != player {
                if self.hands_public() {
                    s.push_str(&format!(
                        "s{seat} shows: {}\n",
                        Self::hand_text(self.hands[seat])
                    ));
                } else {
                    s.push_str(&format!("s{seat} holds {} cards\n", self.hands[seat].len()));
                }
            }
        }
        s.push_str(&format!(
            "points: {:?}\ndeck: {}\nto act: {}\n",
            self.points(),
            self.deck.len(),
            self.current_player()
        ));
        s
    }

    fn information_state_string(&self, history: &[PlayerAction], player: usize) -> String {
        let mut move_index = 0;
        let events: Vec<String> = history
            .iter()
            .zip(self.deal_targets(history))
            .map(|(&entry, target)| self.event_text(entry, target, player, &mut move_index))
            .collect();
        format!("seat {player} | {}", events.join(" "))
    }

    fn view(&self, _history: &[PlayerAction], viewer: Option<usize>) -> serde_json::Value {
        crate::view::to_json(&self.view_of(viewer))
    }

    fn resample(&self, history: &[PlayerAction], player: usize, rng: &mut GameRng) -> Played<Self> {
        let mut unknown = self.deck;
        if !self.hands_public() {
            for seat in (0..self.config.players).filter(|&s| s != player) {
                unknown.0 |= self.hands[seat].0;
            }
        }
        let mut hidden = HiddenCards::new(unknown, rng);
        let mut moves = self.moves.iter();
        Played::replay_with(
            PokerosState::new(self.config.clone()),
            history,
            |replay, entry| match entry.player {
                Player::Chance => hidden.replace(Card(entry.action as u8)).0 as Action,
                _ => {
                    let m = moves.next().expect("one move per seat action");
                    replay
                        .action_for(m.card, m.cell)
                        .expect("the placed card is held")
                }
            },
        )
    }

    fn heuristic(&self, _seat: usize, _rng: &mut GameRng) -> Action {
        super::bot::greedy_action(self)
    }
}

impl fmt::Display for PokerosState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.render_board(f)?;
        for seat in 0..self.config.players {
            writeln!(
                f,
                "s{seat}: {:>3} points, hand: {}",
                self.points[seat],
                Self::hand_text(self.hands[seat])
            )?;
        }
        write!(
            f,
            "deck: {} cards; to act: {}",
            self.deck.len(),
            self.current_player()
        )
    }
}
