//! The Hold'em Poker Chess state: hands of no-limit hold'em with explicit chance, placements
//! on the grid, the showdown, and what each seat may see.

use std::any::Any;
use std::fmt::{self, Write as _};
use std::sync::Arc;

use serde_json::json;

use super::betting::{BetAction, Betting, MAX_SEATS};
use super::grid::CellSet;
use super::showdown::{GridCard, SeatHand, seat_hand};
use super::{Config, INFO, NUM_SIZES, SIZE_NAMES};
use crate::cards::{Card, CardSet};
use crate::game::{
    Action, EventLayout, GameError, Player, PlayerAction, State, check_turn,
    write_information_state,
};
use crate::params::Params;
use crate::poker::eval::HandValue;
use crate::rng::GameRng;

/// No card in a slot.
const NO_CARD: u8 = 255;
/// A placeholder showdown hand.
const EMPTY_HAND: SeatHand = SeatHand {
    seat: 0,
    value: HandValue::NONE,
    cards: CardSet::EMPTY,
    pool: CardSet::EMPTY,
    attacked: CardSet::EMPTY,
};
/// A placeholder grid card.
const EMPTY_GRID_CARD: GridCard = GridCard {
    card: Card(0),
    pos: (0, 0),
    owner: None,
};
/// Planes per grid cell in the observation: community, placed by seat 0..10, 13 ranks, 4 suits.
const CELL_PLANES: usize = 1 + MAX_SEATS + 13 + 4;
/// Floats per seat in the observation.
const SEAT_FEATURES: usize = 8;

/// Number of floats in an observation.
pub fn observation_size(config: &Config) -> usize {
    CELL_PLANES * config.cells + 52 + SEAT_FEATURES * MAX_SEATS + 2 * MAX_SEATS + 5 + 6
}

/// Where the game is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Chance deals a hole or community card.
    Deal,
    /// The seat to act places cards (after the flop) and then bets.
    Bet,
    /// A seat that does not bet on this street places cards and says done (`allin_place`).
    Place,
    /// The game is over.
    Over,
}

/// A hole card placed on the grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlacedCard {
    /// Who placed it.
    pub seat: u8,
    /// Which hole card (0 or 1, deal order).
    pub slot: u8,
    /// The card.
    pub card: Card,
    /// The cell.
    pub cell: u16,
}

/// A finished hand, kept for views, information strings and resampling.
#[derive(Clone, Debug)]
pub struct HandRecord {
    /// The button of the hand.
    pub button: usize,
    /// Each seat's hole cards (none for seats not dealt in).
    pub holes: [[u8; 2]; MAX_SEATS],
    /// The community cards dealt.
    pub community: CardSet,
    /// The showdown hands, `num_hands` of them (none when the hand was won uncontested).
    hands: [SeatHand; MAX_SEATS],
    /// How many showdown hands there are.
    num_hands: u8,
    /// The cards revealed at the showdown.
    pub revealed: CardSet,
    /// Each seat's stack after the hand.
    pub stacks_after: [u32; MAX_SEATS],
    /// What each seat won from the pot.
    pub won: [u32; MAX_SEATS],
}

impl HandRecord {
    /// The showdown hands, in seat order (empty when the hand was won uncontested).
    pub fn hands(&self) -> &[SeatHand] {
        &self.hands[..self.num_hands as usize]
    }
}

/// A Hold'em Poker Chess state.
#[derive(Clone, Debug)]
pub struct HoldemState {
    config: Arc<Config>,
    params: Arc<Params>,
    hand_no: u32,
    betting: Betting,
    holes: [[u8; 2]; MAX_SEATS],
    kept: [u8; MAX_SEATS],
    deal_order: [u8; MAX_SEATS],
    num_dealt_seats: u8,
    holes_dealt: u8,
    community: [u8; 5],
    num_community: u8,
    placed: [PlacedCard; 2 * MAX_SEATS],
    num_placed: u8,
    occupied: CellSet,
    adjacent: CellSet,
    deck: CardSet,
    phase: Phase,
    placed_this_turn: u8,
    place_queue: u16,
    place_seat: usize,
    records: Vec<HandRecord>,
    history: Vec<PlayerAction>,
}

/// The code of a hole card dealt to another seat and not revealed (cards are 0..52).
const HIDDEN_CARD: usize = 52;
/// The first code of a seat's action (its action id follows).
const ACTION_CODES: usize = 53;

/// The history rows of an information-state tensor. Codes: a card seen (a board card, a
/// hole card dealt to the viewer, or one revealed at that hand's showdown) is its card id;
/// another hole card is `HIDDEN_CARD`; a seat's action is `ACTION_CODES` + its id (a
/// placement's id says which hole slot and which cell, both public, not which card).
pub fn event_layout(config: &Config) -> EventLayout {
    EventLayout::new(
        config.players,
        ACTION_CODES + config.num_actions(),
        config.max_game_length(),
    )
}

impl HoldemState {
    /// What seat `viewer` saw of each history entry (codes of `event_layout`), replaying
    /// the history to tell hole cards from board cards and which hand each belongs to.
    fn event_codes(&self, viewer: usize) -> Vec<u32> {
        let mut replay = HoldemState::new(self.config.clone(), self.params.clone());
        let mut out = Vec::with_capacity(self.history.len());
        for entry in &self.history {
            let code = match entry.player {
                Player::Chance => {
                    let m = replay.num_dealt_seats;
                    let hand = replay.records.len();
                    let hidden = replay.holes_dealt < 2 * m && {
                        let seat = replay.deal_order[(replay.holes_dealt % m) as usize] as usize;
                        seat != viewer
                            && !self
                                .records
                                .get(hand)
                                .is_some_and(|r| r.revealed.contains(Card(entry.action as u8)))
                    };
                    if hidden {
                        HIDDEN_CARD as u32
                    } else {
                        entry.action
                    }
                }
                _ => (ACTION_CODES as u32) + entry.action,
            };
            out.push(code);
            replay
                .apply_action(entry.action)
                .expect("the history replays");
        }
        out
    }

    /// The state before the first card of the first hand is dealt.
    pub fn new(config: Arc<Config>, params: Arc<Params>) -> Self {
        let n = config.players;
        let config_hands = config.hands;
        let stacks = vec![config.stack; n];
        let betting = Betting::new(&stacks, 0, config.small_blind, config.big_blind);
        let mut state = HoldemState {
            config,
            params,
            hand_no: 0,
            betting,
            holes: [[NO_CARD; 2]; MAX_SEATS],
            kept: [0; MAX_SEATS],
            deal_order: [0; MAX_SEATS],
            num_dealt_seats: 0,
            holes_dealt: 0,
            community: [NO_CARD; 5],
            num_community: 0,
            placed: [PlacedCard {
                seat: 0,
                slot: 0,
                card: Card(0),
                cell: 0,
            }; 2 * MAX_SEATS],
            num_placed: 0,
            occupied: CellSet::EMPTY,
            adjacent: CellSet::EMPTY,
            deck: CardSet::full_deck(),
            phase: Phase::Deal,
            placed_this_turn: 0,
            place_queue: 0,
            place_seat: 0,
            records: Vec::with_capacity((config_hands as usize).min(16)),
            history: Vec::with_capacity(64),
        };
        state.start_hand(0, &stacks);
        state
    }

    /// Starts a hand: blinds from `stacks`, the button at `button`, an empty grid and a full
    /// deck.
    fn start_hand(&mut self, button: usize, stacks: &[u32]) {
        let n = self.config.players;
        self.betting = Betting::new(
            stacks,
            button,
            self.config.small_blind,
            self.config.big_blind,
        );
        self.holes = [[NO_CARD; 2]; MAX_SEATS];
        self.kept = [0; MAX_SEATS];
        self.num_dealt_seats = 0;
        for k in 1..=n {
            let s = (button + k) % n;
            if self.betting.is_dealt(s) {
                self.deal_order[self.num_dealt_seats as usize] = s as u8;
                self.num_dealt_seats += 1;
            }
        }
        self.holes_dealt = 0;
        self.community = [NO_CARD; 5];
        self.num_community = 0;
        self.num_placed = 0;
        self.occupied = CellSet::EMPTY;
        self.adjacent = CellSet::EMPTY;
        self.deck = CardSet::full_deck();
        self.phase = Phase::Deal;
        self.placed_this_turn = 0;
        self.place_queue = 0;
    }

    /// The typed parameters.
    pub fn config(&self) -> &Config {
        &self.config
    }
    /// The betting state of the current (or last) hand.
    pub fn betting(&self) -> &Betting {
        &self.betting
    }
    /// The phase.
    pub fn phase(&self) -> Phase {
        self.phase
    }
    /// The number of the current hand (0-based).
    pub fn hand_no(&self) -> u32 {
        self.hand_no
    }
    /// Finished hands.
    pub fn records(&self) -> &[HandRecord] {
        &self.records
    }
    /// The seat's hole cards in deal order (`None` when not dealt).
    pub fn hole_cards(&self, seat: usize) -> [Option<Card>; 2] {
        self.holes[seat].map(|c| (c != NO_CARD).then_some(Card(c)))
    }
    /// The seat's hole cards not yet placed.
    pub fn kept_cards(&self, seat: usize) -> CardSet {
        let mut set = CardSet::EMPTY;
        for slot in 0..2 {
            if self.kept[seat] >> slot & 1 == 1 {
                set.insert(Card(self.holes[seat][slot]));
            }
        }
        set
    }
    /// The community cards dealt so far.
    pub fn community(&self) -> impl Iterator<Item = Card> + '_ {
        self.community[..self.num_community as usize]
            .iter()
            .map(|&c| Card(c))
    }
    /// The placed cards, in placement order.
    pub fn placed(&self) -> &[PlacedCard] {
        &self.placed[..self.num_placed as usize]
    }
    /// Cards placed in the current turn.
    pub fn placed_this_turn(&self) -> u8 {
        self.placed_this_turn
    }
    /// The seat deciding now (betting or placing), if any.
    pub fn seat_to_act(&self) -> Option<usize> {
        match self.phase {
            Phase::Bet => self.betting.to_act(),
            Phase::Place => Some(self.place_seat),
            _ => None,
        }
    }
    /// Writes every card on the grid (community first, then placed cards in placement order)
    /// into `out`; returns how many.
    fn fill_grid(&self, out: &mut [GridCard; 5 + 2 * MAX_SEATS]) -> usize {
        let w = &self.config.window;
        let mut len = 0;
        for (i, card) in self.community().enumerate() {
            out[len] = GridCard {
                card,
                pos: super::grid::COMMUNITY_CELLS[i],
                owner: None,
            };
            len += 1;
        }
        for p in self.placed() {
            out[len] = GridCard {
                card: p.card,
                pos: w.coords(p.cell as usize),
                owner: Some(p.seat as usize),
            };
            len += 1;
        }
        len
    }

    /// Every card on the grid with its cell and owner.
    pub fn grid_cards(&self) -> Vec<GridCard> {
        let mut grid = [EMPTY_GRID_CARD; 5 + 2 * MAX_SEATS];
        let len = self.fill_grid(&mut grid);
        grid[..len].to_vec()
    }

    /// The cells where a card may be placed now: empty, 8-adjacent to a card, and not the
    /// turn or river cell before that card is dealt.
    pub fn placement_cells(&self) -> CellSet {
        let mut cells = self.adjacent.minus(&self.occupied);
        for (i, &cell) in self.config.community_cells.iter().enumerate() {
            if i >= self.num_community as usize {
                cells.remove(cell);
            }
        }
        cells
    }

    /// Whether the seat to act may place cards now (flop or later, in its turn).
    fn may_place(&self) -> bool {
        match self.phase {
            Phase::Bet => self.betting.street() >= 1,
            Phase::Place => true,
            _ => false,
        }
    }

    /// The raise-to amount of a raise action for the seat to act, if it is legal.
    pub fn raise_amount(&self, seat: usize, action: Action) -> Option<u32> {
        let base = self.config.bet_base() as u32 + 2;
        if action < base || self.phase != Phase::Bet || self.betting.to_act() != Some(seat) {
            return None;
        }
        let (lo, hi) = self.betting.raise_range(seat)?;
        if self.config.all_sizes {
            let to = action - base + 1;
            return (to >= lo && to <= hi).then_some(to);
        }
        let i = (action - base) as usize;
        if i >= NUM_SIZES {
            return None;
        }
        let sizes = self.standard_sizes(seat, lo, hi);
        let to = sizes[i]?;
        // Distinct amounts only: the first option of an amount is the legal one.
        (!sizes[..i].contains(&Some(to))).then_some(to)
    }

    /// The five standard raise-to amounts (min, ½ pot, pot, 2× pot, all-in), `None` when out
    /// of range.
    fn standard_sizes(&self, seat: usize, lo: u32, hi: u32) -> [Option<u32>; NUM_SIZES] {
        let b = &self.betting;
        let pot_after_call = b.pot() as u64 + b.to_call(seat) as u64;
        let current = b.current_bet() as u64;
        let in_range = |to: u64| (to >= lo as u64 && to <= hi as u64).then_some(to as u32);
        [
            Some(lo),
            in_range(current + pot_after_call / 2),
            in_range(current + pot_after_call),
            in_range(current + 2 * pot_after_call),
            Some(hi),
        ]
    }

    /// Calls `f` with each legal action of the seat to act, in increasing order.
    fn for_each_legal(&self, mut f: impl FnMut(Action)) {
        let Some(seat) = self.seat_to_act() else {
            return;
        };
        let cfg = &self.config;
        if self.may_place() && self.kept[seat] != 0 {
            let cells = self.placement_cells();
            for slot in 0..2 {
                if self.kept[seat] >> slot & 1 == 1 {
                    cells.for_each(|cell| f(cfg.place_action(slot, cell)));
                }
            }
        }
        if self.phase == Phase::Place {
            f(cfg.call_action());
            return;
        }
        if self.placed_this_turn == 0 && self.betting.can_fold(seat) {
            f(cfg.fold_action());
        }
        f(cfg.call_action());
        let Some((lo, hi)) = self.betting.raise_range(seat) else {
            return;
        };
        let base = cfg.bet_base() as u32 + 2;
        if cfg.all_sizes {
            for to in lo..=hi {
                f(base + to - 1);
            }
        } else {
            let sizes = self.standard_sizes(seat, lo, hi);
            for i in 0..NUM_SIZES {
                if let Some(to) = sizes[i]
                    && !sizes[..i].contains(&Some(to))
                {
                    f(base + i as u32);
                }
            }
        }
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

    fn apply_chance(&mut self, action: Action) -> Result<(), GameError> {
        let card = match Card::from_id(action) {
            Some(c) if self.deck.contains(c) => c,
            _ => {
                return Err(self.illegal(
                    action,
                    format!(
                        "card id {action} is not in the deck ({} cards left; ids 0..52)",
                        self.deck.len()
                    ),
                ));
            }
        };
        self.deck.remove(card);
        let m = self.num_dealt_seats;
        if self.holes_dealt < 2 * m {
            let k = self.holes_dealt;
            let seat = self.deal_order[(k % m) as usize] as usize;
            let slot = (k / m) as usize;
            self.holes[seat][slot] = card.0;
            self.kept[seat] |= 1 << slot;
            self.holes_dealt += 1;
        } else {
            let i = self.num_community as usize;
            self.community[i] = card.0;
            self.num_community += 1;
            self.put_on_grid(self.config.community_cells[i]);
        }
        self.history.push(PlayerAction {
            player: Player::Chance,
            action,
        });
        self.settle();
        Ok(())
    }

    fn put_on_grid(&mut self, cell: usize) {
        self.occupied.insert(cell);
        self.adjacent = self.adjacent.union(&self.config.neighbours[cell]);
    }

    fn apply_seat(&mut self, seat: usize, action: Action) -> Result<(), GameError> {
        let cfg = &*self.config;
        let (num_actions, bet_base, cells) = (cfg.num_actions(), cfg.bet_base(), cfg.cells);
        let (fold, call, all_sizes) = (cfg.fold_action(), cfg.call_action(), cfg.all_sizes);
        let a = action as usize;
        if a >= num_actions {
            return Err(self.illegal(
                action,
                format!("action ids run from 0 to {}", num_actions - 1),
            ));
        }
        if a < bet_base {
            let (slot, cell) = (a / cells, a % cells);
            self.check_placement(seat, action, slot, cell)?;
            let card = Card(self.holes[seat][slot]);
            self.placed[self.num_placed as usize] = PlacedCard {
                seat: seat as u8,
                slot: slot as u8,
                card,
                cell: cell as u16,
            };
            self.num_placed += 1;
            self.kept[seat] &= !(1 << slot);
            self.placed_this_turn += 1;
            self.put_on_grid(cell);
        } else if self.phase == Phase::Place {
            if action != call {
                return Err(self.illegal(
                    action,
                    format!(
                        "in a placement turn only placements and done ({}) are allowed",
                        call
                    ),
                ));
            }
            self.place_queue &= !(1 << seat);
            self.placed_this_turn = 0;
            self.settle();
        } else {
            let bet = if action == fold {
                if self.placed_this_turn > 0 {
                    return Err(self.illegal(
                        action,
                        "folding is not possible after placing a card this turn (cards are \
                         placed only with a check, call or raise)"
                            .to_string(),
                    ));
                }
                BetAction::Fold
            } else if action == call {
                BetAction::CheckCall
            } else {
                match self.raise_amount(seat, action) {
                    Some(to) => BetAction::RaiseTo(to),
                    None => {
                        let why = match self.betting.raise_range(seat) {
                            None => "raising is not allowed now".to_string(),
                            Some((lo, hi)) => format!(
                                "that raise is not available; raise-to amounts run from {lo} \
                                 to {hi} (all-in){}",
                                if all_sizes {
                                    ""
                                } else {
                                    ", offered as the distinct standard sizes"
                                }
                            ),
                        };
                        return Err(self.illegal(action, why));
                    }
                }
            };
            self.betting
                .apply(seat, bet)
                .map_err(|e| self.illegal(action, e.to_string()))?;
            self.placed_this_turn = 0;
            self.settle();
        }
        Ok(())
    }

    fn check_placement(
        &self,
        seat: usize,
        action: Action,
        slot: usize,
        cell: usize,
    ) -> Result<(), GameError> {
        if !self.may_place() {
            return Err(self.illegal(
                action,
                "cards are placed only on the flop, turn and river".to_string(),
            ));
        }
        if self.kept[seat] >> slot & 1 == 0 {
            return Err(self.illegal(action, format!("hole card {slot} is already placed")));
        }
        let (x, y) = self.config.window.coords(cell);
        if self.occupied.contains(cell) {
            return Err(self.illegal(action, format!("cell {x},{y} is taken")));
        }
        if let Some(i) = self.config.community_cells.iter().position(|&c| c == cell) {
            return Err(self.illegal(
                action,
                format!(
                    "cell {x},{y} is reserved for the {} until it is dealt",
                    if i == 3 { "turn" } else { "river" }
                ),
            ));
        }
        if !self.adjacent.contains(cell) {
            return Err(self.illegal(
                action,
                format!("cell {x},{y} is not 8-adjacent to a card on the table"),
            ));
        }
        Ok(())
    }

    /// Moves on after a change: deals, placement turns, streets, showdowns and new hands.
    fn settle(&mut self) {
        loop {
            if self.phase == Phase::Over {
                return;
            }
            if self.holes_dealt < 2 * self.num_dealt_seats {
                self.phase = Phase::Deal;
                return;
            }
            if let Some(seat) = self.next_in_place_queue() {
                self.phase = Phase::Place;
                self.place_seat = seat;
                return;
            }
            if self.betting.to_act().is_some() {
                self.phase = Phase::Bet;
                return;
            }
            if self.betting.num_in_hand() == 1 || self.betting.street() == 3 {
                self.finish_hand();
                continue;
            }
            let target = [3u8, 4, 5][self.betting.street() as usize];
            if self.num_community < target {
                self.phase = Phase::Deal;
                return;
            }
            self.betting.next_street();
            if self.config.allin_place {
                self.queue_placement_turns();
            }
        }
    }

    /// Seats still in the hand that will not bet on this street (all-in, or alone with
    /// chips) and hold a hole card get a placement turn (`allin_place`).
    fn queue_placement_turns(&mut self) {
        let b = &self.betting;
        let betting_skipped = b.to_act().is_none();
        let mut queue = 0;
        if !self.placement_cells().is_empty() {
            for s in 0..self.config.players {
                if b.is_in_hand(s) && self.kept[s] != 0 && (b.is_all_in(s) || betting_skipped) {
                    queue |= 1 << s;
                }
            }
        }
        self.place_queue = queue;
    }

    fn next_in_place_queue(&self) -> Option<usize> {
        if self.place_queue == 0 {
            return None;
        }
        let n = self.config.players;
        let button = self.betting.button();
        (1..=n)
            .map(|k| (button + k) % n)
            .find(|&s| self.place_queue >> s & 1 == 1)
    }

    /// Pays the pot (showdown or uncontested), records the hand and starts the next one.
    /// Nothing here allocates except a record list that outgrows its capacity.
    fn finish_hand(&mut self) {
        let n = self.config.players;
        let mut strength = [HandValue::NONE; MAX_SEATS];
        let mut hands = [EMPTY_HAND; MAX_SEATS];
        let mut num_hands = 0;
        let mut revealed = CardSet::EMPTY;
        if self.betting.num_in_hand() > 1 {
            let mut grid = [EMPTY_GRID_CARD; 5 + 2 * MAX_SEATS];
            let len = self.fill_grid(&mut grid);
            for seat in (0..n).filter(|&s| self.betting.is_in_hand(s)) {
                let hand = seat_hand(
                    seat,
                    self.kept_cards(seat),
                    &grid[..len],
                    self.config.centre_pawn_both,
                );
                strength[seat] = hand.value;
                revealed.0 |= hand.pool.0;
                hands[num_hands] = hand;
                num_hands += 1;
            }
        }
        let won = self.betting.payouts(&strength);
        let stacks = self.betting.settle(&strength);
        let button = self.betting.button();
        self.records.push(HandRecord {
            button,
            holes: self.holes,
            community: self.community().collect(),
            hands,
            num_hands: num_hands as u8,
            revealed,
            stacks_after: stacks,
            won,
        });
        self.hand_no += 1;
        let with_chips = (0..n).filter(|&s| stacks[s] > 0).count();
        if self.hand_no >= self.config.hands || with_chips < 2 {
            // Keep the last hand's table for the final views; stacks are the settled ones.
            self.phase = Phase::Over;
            return;
        }
        let next_button = (1..=n)
            .map(|k| (button + k) % n)
            .find(|&s| stacks[s] > 0)
            .expect("two seats have chips");
        self.start_hand(next_button, &stacks[..n]);
    }

    /// Each seat's chips now: at the end the settled stacks, during a hand chips behind.
    pub fn chips(&self, seat: usize) -> u32 {
        if self.phase == Phase::Over {
            self.records.last().map_or(0, |r| r.stacks_after[seat])
        } else {
            self.betting.stack(seat)
        }
    }

    fn final_returns(&self) -> Vec<f64> {
        (0..self.config.players)
            .map(|s| self.chips(s) as f64 - self.config.stack as f64)
            .collect()
    }

    /// Whether `viewer` sees the face of a card on the grid or in a hand of the current hand.
    fn sees(&self, viewer: Option<usize>, card: Card, owner: Option<usize>) -> bool {
        owner.is_none()
            || (viewer.is_some() && viewer == owner)
            || (self.phase == Phase::Over
                && self
                    .records
                    .last()
                    .is_some_and(|r| r.revealed.contains(card)))
    }

    fn seat_text(&self, seat: usize) -> String {
        let b = &self.betting;
        let tag = if !b.is_dealt(seat) {
            " out"
        } else if b.has_folded(seat) {
            " folded"
        } else if b.is_all_in(seat) {
            " all-in"
        } else {
            ""
        };
        format!(
            "s{seat}{}: stack {} bet {}/{}{tag}",
            if seat == b.button() { " (button)" } else { "" },
            self.chips(seat),
            b.street_bet(seat),
            b.total_bet(seat)
        )
    }

    /// The grid as text rows, hiding the faces `viewer` may not see (`all` shows every face).
    fn grid_text(&self, viewer: Option<usize>, all: bool) -> String {
        let w = &self.config.window;
        let mut cells: Vec<(i32, i32, String)> = Vec::new();
        for g in self.grid_cards() {
            let face = if all || self.sees(viewer, g.card, g.owner) {
                g.card.to_string()
            } else {
                "??".to_string()
            };
            let text = match g.owner {
                Some(s) => format!("{face}{s}"),
                None => format!("{face} "),
            };
            cells.push((g.pos.0, g.pos.1, text));
        }
        let x0 = cells.iter().map(|c| c.0).min().unwrap_or(0).min(0) - 1;
        let x1 = cells.iter().map(|c| c.0).max().unwrap_or(4).max(4) + 1;
        let y0 = cells.iter().map(|c| c.1).min().unwrap_or(0) - 1;
        let y1 = cells.iter().map(|c| c.1).max().unwrap_or(0) + 1;
        let (x0, x1) = (x0.max(w.x0), x1.min(w.x1));
        let (y0, y1) = (y0.max(w.y0), y1.min(w.y1));
        let mut s = String::from("    ");
        for x in x0..=x1 {
            let _ = write!(s, "{x:>4}");
        }
        s.push('\n');
        for y in (y0..=y1).rev() {
            let _ = write!(s, "{y:>3} ");
            for x in x0..=x1 {
                match cells.iter().find(|c| c.0 == x && c.1 == y) {
                    Some(c) => {
                        let _ = write!(s, " {}", c.2);
                    }
                    None => s.push_str("   ."),
                }
            }
            s.push('\n');
        }
        s
    }

    /// What happened, as seen by `viewer` (`None`: a spectator), one token per event.
    fn events(&self, viewer: Option<usize>) -> Vec<String> {
        let mut replay = HoldemState::new(self.config.clone(), self.params.clone());
        let mut out = Vec::with_capacity(self.history.len() + 4);
        let mut hand = 0;
        out.push(format!("hand0 button{}", replay.betting.button()));
        for entry in &self.history {
            match entry.player {
                Player::Chance => {
                    let card = Card(entry.action as u8);
                    let m = replay.num_dealt_seats;
                    if replay.holes_dealt < 2 * m {
                        let seat = replay.deal_order[(replay.holes_dealt % m) as usize] as usize;
                        if viewer == Some(seat) {
                            out.push(format!("deal s{seat}:{card}"));
                        } else {
                            out.push(format!("deal s{seat}:?"));
                        }
                    } else {
                        out.push(format!("board:{card}"));
                    }
                }
                Player::Seat(seat) => {
                    let who = if viewer == Some(seat) {
                        Some(seat)
                    } else {
                        None
                    };
                    let text = replay.action_text(seat, entry.action, who.is_some());
                    out.push(format!("s{seat}:{text}"));
                }
                _ => {}
            }
            replay
                .apply_action(entry.action)
                .expect("the history replays");
            if replay.records.len() > hand {
                let record = &replay.records[hand];
                out.push(record_text(record, self.config.players));
                hand += 1;
                if replay.phase != Phase::Over {
                    out.push(format!("hand{hand} button{}", replay.betting.button()));
                }
            }
        }
        out
    }

    /// The text of a seat action; `face` shows a placed card's face.
    fn action_text(&self, seat: usize, action: Action, face: bool) -> String {
        let cfg = &self.config;
        let a = action as usize;
        if a < cfg.bet_base() {
            let (slot, cell) = (a / cfg.cells, a % cfg.cells);
            let (x, y) = cfg.window.coords(cell);
            let card = self.holes[seat][slot];
            if face && card != NO_CARD {
                format!("place {}@{x},{y}", Card(card))
            } else {
                format!("place h{slot}@{x},{y}")
            }
        } else {
            self.bet_text(seat, action)
        }
    }

    fn bet_text(&self, seat: usize, action: Action) -> String {
        let cfg = &self.config;
        if action == cfg.fold_action() {
            return "fold".to_string();
        }
        if action == cfg.call_action() {
            if self.phase == Phase::Place {
                return "done".to_string();
            }
            let call = self.betting.to_call(seat);
            return if call == 0 {
                "check".to_string()
            } else {
                format!("call {call}")
            };
        }
        if let Some(to) = self.raise_amount(seat, action) {
            let (_, hi) = self.betting.raise_range(seat).unwrap_or((0, 0));
            return if to == hi {
                format!("raise to {to} (all-in)")
            } else {
                format!("raise to {to}")
            };
        }
        let base = cfg.bet_base() as u32 + 2;
        if cfg.all_sizes {
            format!("raise to {}", action - base + 1)
        } else {
            let i = (action - base) as usize;
            format!("raise {}", SIZE_NAMES.get(i).unwrap_or(&"?"))
        }
    }

    /// The cards `player` has seen in the current hand (community and own hole cards), for
    /// resampling.
    fn seen_in_current_hand(&self, player: usize) -> CardSet {
        let mut seen: CardSet = self.community().collect();
        for c in self.holes[player] {
            if c != NO_CARD {
                seen.insert(Card(c));
            }
        }
        seen
    }
}

fn record_text(record: &HandRecord, n: usize) -> String {
    let mut s = String::from("result");
    if record.num_hands == 0 {
        s.push_str(" uncontested");
    }
    for h in record.hands() {
        let cards: Vec<String> = h.cards.iter().map(|c| c.to_string()).collect();
        let _ = write!(s, " s{}:[{}]", h.seat, cards.join(" "));
    }
    if !record.revealed.is_empty() {
        let cards: Vec<String> = record.revealed.iter().map(|c| c.to_string()).collect();
        let _ = write!(s, " revealed:[{}]", cards.join(" "));
    }
    let won: Vec<String> = (0..n).map(|i| record.won[i].to_string()).collect();
    let _ = write!(s, " won:[{}]", won.join(","));
    s
}

impl State for HoldemState {
    fn num_players(&self) -> usize {
        self.config.players
    }

    fn current_player(&self) -> Player {
        match self.phase {
            Phase::Deal => Player::Chance,
            Phase::Bet | Phase::Place => {
                Player::Seat(self.seat_to_act().expect("a seat is to act"))
            }
            Phase::Over => Player::Terminal,
        }
    }

    fn legal_actions_into(&self, player: Player, out: &mut Vec<Action>) {
        out.clear();
        if player != self.current_player() {
            return;
        }
        match player {
            Player::Chance => out.extend(self.deck.iter().map(|c| c.0 as Action)),
            Player::Seat(_) => self.for_each_legal(|a| out.push(a)),
            _ => {}
        }
    }

    fn legal_action_mask(&self, player: Player, mask: &mut [bool]) {
        mask.fill(false);
        if player != self.current_player() {
            return;
        }
        match player {
            Player::Chance => {
                for c in self.deck.iter() {
                    if let Some(m) = mask.get_mut(c.0 as usize) {
                        *m = true;
                    }
                }
            }
            Player::Seat(_) => self.for_each_legal(|a| {
                if let Some(m) = mask.get_mut(a as usize) {
                    *m = true;
                }
            }),
            _ => {}
        }
    }

    fn chance_outcomes(&self) -> Vec<(Action, f64)> {
        if !self.is_chance_node() {
            return Vec::new();
        }
        let p = 1.0 / self.deck.len() as f64;
        self.deck.iter().map(|c| (c.0 as Action, p)).collect()
    }

    fn sample_chance_outcome(&self, rng: &mut GameRng) -> Action {
        rng.choose_bit(self.deck.0)
    }

    fn apply_action(&mut self, action: Action) -> Result<(), GameError> {
        match self.current_player() {
            Player::Chance => self.apply_chance(action),
            Player::Seat(s) => {
                self.apply_seat(s, action)?;
                self.history.push(PlayerAction {
                    player: Player::Seat(s),
                    action,
                });
                Ok(())
            }
            _ => check_turn(self, Player::Chance),
        }
    }

    fn returns(&self) -> Vec<f64> {
        if self.phase == Phase::Over {
            self.final_returns()
        } else {
            vec![0.0; self.config.players]
        }
    }

    fn rewards(&self) -> Vec<f64> {
        if self.phase == Phase::Over {
            self.final_returns()
        } else {
            vec![0.0; self.config.players]
        }
    }

    fn add_rewards_to(&self, out: &mut [f64]) {
        if self.phase == Phase::Over {
            crate::game::add_rewards(out, &self.final_returns());
        }
    }

    fn history(&self) -> &[PlayerAction] {
        &self.history
    }

    fn action_to_string(&self, player: Player, action: Action) -> String {
        match player {
            Player::Chance => match Card::from_id(action) {
                Some(c) if action < 52 => c.to_string(),
                _ => format!("card#{action}"),
            },
            Player::Seat(seat) if seat < self.config.players => {
                if action as usize >= self.config.num_actions() {
                    return format!("action#{action}");
                }
                self.action_text(seat, action, true)
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
        let t = text.trim();
        let cfg = &self.config;
        match player {
            Player::Chance => match t.parse::<Card>() {
                Ok(c) if !c.is_joker() => Ok(c.0 as Action),
                Ok(_) => Err(bad("there are no jokers in this game".to_string())),
                Err(e) => Err(bad(e.to_string())),
            },
            Player::Seat(seat) if seat < cfg.players => {
                if let Some(rest) = t.strip_prefix("place ") {
                    let usage = "expected 'place CARD@X,Y' or 'place hK@X,Y' (K = 0 or 1)";
                    let (what, at) = rest.split_once('@').ok_or_else(|| bad(usage.to_string()))?;
                    let (xs, ys) = at.split_once(',').ok_or_else(|| bad(usage.to_string()))?;
                    let x: i32 = xs
                        .trim()
                        .parse()
                        .map_err(|_| bad(format!("'{xs}' is not a column")))?;
                    let y: i32 = ys
                        .trim()
                        .parse()
                        .map_err(|_| bad(format!("'{ys}' is not a row")))?;
                    let cell = cfg.window.cell(x, y).ok_or_else(|| {
                        bad(format!(
                            "{x},{y} is outside the grid window {}",
                            cfg.window.to_text()
                        ))
                    })?;
                    let what = what.trim();
                    let slot = match what {
                        "h0" => 0,
                        "h1" => 1,
                        _ => {
                            let card: Card = what.parse().map_err(|e| {
                                bad(format!("{e}; or h0/h1 for a hole card by deal order"))
                            })?;
                            self.holes[seat]
                                .iter()
                                .position(|&c| c == card.0)
                                .ok_or_else(|| {
                                    bad(format!("{card} is not a hole card of seat {seat}"))
                                })?
                        }
                    };
                    return Ok(cfg.place_action(slot, cell));
                }
                match t {
                    "fold" => return Ok(cfg.fold_action()),
                    "check" | "call" | "done" => return Ok(cfg.call_action()),
                    _ => {}
                }
                if t.starts_with("call ") {
                    return Ok(cfg.call_action());
                }
                let base = cfg.bet_base() as u32 + 2;
                if let Some(rest) = t.strip_prefix("raise to ") {
                    let amount = rest.trim_end_matches(" (all-in)").trim();
                    let to: u32 = amount
                        .parse()
                        .map_err(|_| bad(format!("'{amount}' is not a chip amount")))?;
                    if cfg.all_sizes {
                        if to == 0 || to > cfg.total_chips() {
                            return Err(bad(format!(
                                "raise-to amounts run from 1 to {}",
                                cfg.total_chips()
                            )));
                        }
                        return Ok(base + to - 1);
                    }
                    return (0..NUM_SIZES as u32)
                        .map(|i| base + i)
                        .find(|&a| self.raise_amount(seat, a) == Some(to))
                        .ok_or_else(|| {
                            bad(format!(
                                "no offered raise is to {to} here; bet_sizes=standard offers \
                                 the legal, distinct amounts of {}",
                                SIZE_NAMES.join(", ")
                            ))
                        });
                }
                if let Some(name) = t.strip_prefix("raise ")
                    && let Some(i) = SIZE_NAMES.iter().position(|&s| s == name.trim())
                    && !cfg.all_sizes
                {
                    return Ok(base + i as u32);
                }
                Err(bad(
                    "expected fold, check, call, done, 'raise to N', or 'place CARD@X,Y'"
                        .to_string(),
                ))
            }
            _ => Err(bad(format!("{player} takes no actions"))),
        }
    }

    fn observation_tensor(&self, player: usize, out: &mut [f32]) {
        let cfg = &self.config;
        let cells = cfg.cells;
        debug_assert_eq!(out.len(), observation_size(cfg));
        out.fill(0.0);
        let mut mark = |card: Card, cell: usize, owner: Option<usize>, face: bool| {
            match owner {
                None => out[cell] = 1.0,
                Some(s) => out[(1 + s) * cells + cell] = 1.0,
            }
            if face {
                out[(1 + MAX_SEATS + card.rank().0 as usize) * cells + cell] = 1.0;
                out[(1 + MAX_SEATS + 13 + card.suit().0 as usize) * cells + cell] = 1.0;
            }
        };
        for i in 0..self.num_community as usize {
            mark(Card(self.community[i]), cfg.community_cells[i], None, true);
        }
        for p in self.placed() {
            let owner = Some(p.seat as usize);
            let face = self.sees(Some(player), p.card, owner);
            mark(p.card, p.cell as usize, owner, face);
        }
        let mut at = CELL_PLANES * cells;
        for c in self.kept_cards(player).iter() {
            out[at + c.0 as usize] = 1.0;
        }
        at += 52;
        let total = cfg.total_chips() as f32;
        let b = &self.betting;
        for s in 0..cfg.players {
            let f = &mut out[at + s * SEAT_FEATURES..at + (s + 1) * SEAT_FEATURES];
            f[0] = self.chips(s) as f32 / total;
            f[1] = b.street_bet(s) as f32 / total;
            f[2] = b.total_bet(s) as f32 / total;
            f[3] = b.is_dealt(s) as u8 as f32;
            f[4] = b.is_in_hand(s) as u8 as f32;
            f[5] = b.has_folded(s) as u8 as f32;
            f[6] = b.is_all_in(s) as u8 as f32;
            f[7] = (s == b.button()) as u8 as f32;
        }
        at += SEAT_FEATURES * MAX_SEATS;
        out[at + player] = 1.0;
        at += MAX_SEATS;
        if let Some(s) = self.seat_to_act() {
            out[at + s] = 1.0;
        }
        at += MAX_SEATS;
        let street = if self.phase == Phase::Over {
            4
        } else {
            b.street() as usize
        };
        out[at + street] = 1.0;
        at += 5;
        out[at] = b.pot() as f32 / total;
        out[at + 1] = b.current_bet() as f32 / total;
        out[at + 2] = b.min_raise() as f32 / total;
        out[at + 3] = self.placed_this_turn as f32 / 2.0;
        out[at + 4] = self.hand_no as f32 / cfg.hands as f32;
        out[at + 5] = (self.phase == Phase::Place) as u8 as f32;
    }

    fn information_state_tensor(&self, player: usize, out: &mut [f32]) {
        let codes = self.event_codes(player);
        let layout = event_layout(&self.config);
        write_information_state(
            self,
            player,
            observation_size(&self.config),
            &layout,
            &codes,
            out,
        );
    }

    fn observation_string(&self, player: usize) -> String {
        let mut s = format!(
            "hand {}/{} street {} pot {}\n",
            self.hand_no + u32::from(self.phase != Phase::Over),
            self.config.hands,
            ["preflop", "flop", "turn", "river"][self.betting.street() as usize],
            self.betting.pot()
        );
        s.push_str(&self.grid_text(Some(player), false));
        let hole: Vec<String> = self
            .hole_cards(player)
            .iter()
            .enumerate()
            .map(|(slot, c)| match c {
                Some(c) if self.kept[player] >> slot & 1 == 1 => c.to_string(),
                Some(c) => format!("({c} placed)"),
                None => "-".to_string(),
            })
            .collect();
        let _ = writeln!(s, "hole: {}", hole.join(" "));
        for seat in 0..self.config.players {
            let _ = writeln!(s, "{}", self.seat_text(seat));
        }
        let _ = write!(s, "to act: {}", self.current_player());
        s
    }

    fn information_state_string(&self, player: usize) -> String {
        format!("seat {player} | {}", self.events(Some(player)).join(" "))
    }

    fn view(&self, viewer: Option<usize>) -> serde_json::Value {
        let cfg = &self.config;
        let b = &self.betting;
        let grid: Vec<_> = self
            .grid_cards()
            .iter()
            .map(|g| {
                json!({
                    "x": g.pos.0, "y": g.pos.1, "owner": g.owner,
                    "card": self.sees(viewer, g.card, g.owner).then(|| g.card.to_string()),
                })
            })
            .collect();
        let seats: Vec<_> = (0..cfg.players)
            .map(|s| {
                let hole: Vec<_> = (0..2)
                    .map(|slot| {
                        let c = self.holes[s][slot];
                        let visible = c != NO_CARD
                            && (viewer == Some(s)
                                || (self.kept[s] >> slot & 1 == 1
                                    && self.sees(None, Card(c), Some(s))));
                        json!({
                            "kept": self.kept[s] >> slot & 1 == 1,
                            "card": visible.then(|| Card(c).to_string()),
                        })
                    })
                    .collect();
                json!({
                    "seat": s, "chips": self.chips(s), "street_bet": b.street_bet(s),
                    "total_bet": b.total_bet(s), "dealt": b.is_dealt(s),
                    "folded": b.has_folded(s), "all_in": b.is_all_in(s), "hole": hole,
                })
            })
            .collect();
        let results: Vec<_> = self
            .records
            .iter()
            .map(|r| {
                let hands: Vec<_> = r
                    .hands()
                    .iter()
                    .map(|h| {
                        json!({
                            "seat": h.seat, "hand": h.value.describe(),
                            "cards": h.cards.iter().map(|c| c.to_string()).collect::<Vec<_>>(),
                        })
                    })
                    .collect();
                json!({
                    "button": r.button, "showdown": hands,
                    "revealed": r.revealed.iter().map(|c| c.to_string()).collect::<Vec<_>>(),
                    "won": &r.won[..cfg.players], "stacks": &r.stacks_after[..cfg.players],
                })
            })
            .collect();
        let legal: Vec<_> = match (viewer, self.current_player()) {
            (Some(v), Player::Seat(s)) if v == s => {
                let mut acts = Vec::new();
                self.legal_actions_into(Player::Seat(s), &mut acts);
                acts.iter()
                    .map(|&a| json!({"action": a, "text": self.action_to_string(Player::Seat(s), a)}))
                    .collect()
            }
            _ => Vec::new(),
        };
        json!({
            "game": INFO.name,
            "viewer": viewer,
            "current_player": self.current_player().id(),
            "terminal": self.phase == Phase::Over,
            "returns": (self.phase == Phase::Over).then(|| self.returns()),
            // 1-based: the hand on the table, or at the end the last one played.
            "hand": if self.phase == Phase::Over { self.hand_no } else { self.hand_no + 1 },
            "hands": cfg.hands,
            "button": b.button(),
            "street": b.street(),
            "pot": b.pot(),
            "current_bet": b.current_bet(),
            "min_raise": b.min_raise(),
            "window": {"x0": cfg.window.x0, "x1": cfg.window.x1, "y0": cfg.window.y0, "y1": cfg.window.y1},
            "community": self.community().map(|c| c.to_string()).collect::<Vec<_>>(),
            "grid": grid,
            "seats": seats,
            "placement_turn": self.phase == Phase::Place,
            "placed_this_turn": self.placed_this_turn,
            "results": results,
            "legal_actions": legal,
        })
    }

    fn resample_from_infostate(&self, player: usize, rng: &mut GameRng) -> Box<dyn State> {
        // One card map per hand: the cards the player never saw in that hand are shuffled
        // among themselves; everything it saw keeps its identity.
        let hands = self.records.len() + usize::from(self.phase != Phase::Over);
        let mut maps: Vec<crate::cards::HiddenCards> = Vec::with_capacity(hands);
        for h in 0..hands {
            let seen = match self.records.get(h) {
                Some(r) => {
                    let mut seen = r.community;
                    seen.0 |= r.revealed.0;
                    for c in r.holes[player] {
                        if c != NO_CARD {
                            seen.insert(Card(c));
                        }
                    }
                    seen
                }
                None => self.seen_in_current_hand(player),
            };
            let unknown = CardSet(CardSet::full_deck().0 & !seen.0);
            maps.push(crate::cards::HiddenCards::new(unknown, rng));
        }
        let mut out = HoldemState::new(self.config.clone(), self.params.clone());
        for entry in &self.history {
            let action = match entry.player {
                Player::Chance => {
                    maps[out.records.len()].replace(Card(entry.action as u8)).0 as Action
                }
                _ => entry.action,
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

impl fmt::Display for HoldemState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "hand {}/{} {}\n{}",
            self.hand_no + u32::from(self.phase != Phase::Over),
            self.config.hands,
            self.betting,
            self.grid_text(None, true)
        )?;
        for seat in 0..self.config.players {
            let hole: Vec<String> = self
                .hole_cards(seat)
                .iter()
                .enumerate()
                .map(|(slot, c)| match c {
                    Some(c) if self.kept[seat] >> slot & 1 == 1 => c.to_string(),
                    Some(c) => format!("({c})"),
                    None => "-".to_string(),
                })
                .collect();
            writeln!(f, "{} hole {}", self.seat_text(seat), hole.join(" "))?;
        }
        if let Some(r) = self.records.last() {
            writeln!(f, "last hand: {}", record_text(r, self.config.players))?;
        }
        write!(f, "to act: {}", self.current_player())
    }
}
