//! The Hold'em Poker Chess state and its rules: hands of no-limit hold'em with explicit chance,
//! placements on the grid, the turn structure, the showdown and the returns. What each seat
//! sees is in `observe.rs`, the game as text in `text.rs`.

use std::sync::Arc;

use super::betting::{BetAction, Betting, MAX_SEATS};
use super::grid::CellSet;
use super::showdown::{GridCard, SeatHand, seat_hand};
use super::{Config, NUM_SIZES};
use crate::cards::{Card, CardSet};
use crate::game::{Action, Player};
use crate::poker::eval::HandValue;
use crate::rng::GameRng;
use crate::rules::{Illegal, Rules};

/// No card in a slot.
pub(super) const NO_CARD: u8 = 255;
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

/// A Hold'em Poker Chess state (its history is kept by `Played`). The fields that the
/// observation and text writers read (`observe.rs`, `text.rs`) are visible to the game module.
#[derive(Clone, Debug)]
pub struct HoldemState {
    pub(super) config: Arc<Config>,
    pub(super) hand_no: u32,
    pub(super) betting: Betting,
    pub(super) holes: [[u8; 2]; MAX_SEATS],
    pub(super) kept: [u8; MAX_SEATS],
    pub(super) deal_order: [u8; MAX_SEATS],
    pub(super) num_dealt_seats: u8,
    pub(super) holes_dealt: u8,
    pub(super) community: [u8; 5],
    pub(super) num_community: u8,
    placed: [PlacedCard; 2 * MAX_SEATS],
    num_placed: u8,
    occupied: CellSet,
    adjacent: CellSet,
    deck: CardSet,
    pub(super) phase: Phase,
    pub(super) placed_this_turn: u8,
    place_queue: u16,
    place_seat: usize,
    pub(super) records: Vec<HandRecord>,
}

impl HoldemState {
    /// The state before the first card of the first hand is dealt.
    pub fn new(config: Arc<Config>) -> Self {
        let n = config.players;
        let config_hands = config.hands;
        let stacks = vec![config.stack; n];
        let betting = Betting::new(&stacks, 0, config.small_blind, config.big_blind);
        let mut state = HoldemState {
            config,
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

    fn apply_chance(&mut self, action: Action) -> Result<(), Illegal> {
        let card = match Card::from_id(action) {
            Some(c) if self.deck.contains(c) => c,
            _ => {
                return Err(Illegal::new(format!(
                    "card id {action} is not in the deck ({} cards left; ids 0 to 51)",
                    self.deck.len()
                )));
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
        self.settle();
        Ok(())
    }

    fn put_on_grid(&mut self, cell: usize) {
        self.occupied.insert(cell);
        self.adjacent = self.adjacent.union(&self.config.neighbours[cell]);
    }

    fn apply_seat(&mut self, seat: usize, action: Action) -> Result<(), Illegal> {
        let cfg = &*self.config;
        let (num_actions, bet_base, cells) = (cfg.num_actions(), cfg.bet_base(), cfg.cells);
        let (fold, call, all_sizes) = (cfg.fold_action(), cfg.call_action(), cfg.all_sizes);
        let a = action as usize;
        if a >= num_actions {
            return Err(Illegal::new(format!(
                "action ids run from 0 to {}",
                num_actions - 1
            )));
        }
        if a < bet_base {
            let (slot, cell) = (a / cells, a % cells);
            self.check_placement(seat, slot, cell)?;
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
                return Err(Illegal::new(format!(
                    "in a placement turn only placements and done ({}) are allowed",
                    call
                )));
            }
            self.place_queue &= !(1 << seat);
            self.placed_this_turn = 0;
            self.settle();
        } else {
            let bet = if action == fold {
                if self.placed_this_turn > 0 {
                    return Err(Illegal::new(
                        "folding is not possible after placing a card this turn (cards are \
                         placed only with a check, call or raise)",
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
                        return Err(Illegal::new(why));
                    }
                }
            };
            self.betting
                .apply(seat, bet)
                .map_err(|e| Illegal::new(e.to_string()))?;
            self.placed_this_turn = 0;
            self.settle();
        }
        Ok(())
    }

    fn check_placement(&self, seat: usize, slot: usize, cell: usize) -> Result<(), Illegal> {
        if !self.may_place() {
            return Err(Illegal::new(
                "cards are placed only on the flop, turn and river",
            ));
        }
        if self.kept[seat] >> slot & 1 == 0 {
            return Err(Illegal::new(format!("hole card {slot} is already placed")));
        }
        let (x, y) = self.config.window.coords(cell);
        if self.occupied.contains(cell) {
            return Err(Illegal::new(format!("cell {x},{y} is taken")));
        }
        if let Some(i) = self.config.community_cells.iter().position(|&c| c == cell) {
            return Err(Illegal::new(format!(
                "cell {x},{y} is reserved for the {} until it is dealt",
                if i == 3 { "turn" } else { "river" }
            )));
        }
        if !self.adjacent.contains(cell) {
            return Err(Illegal::new(format!(
                "cell {x},{y} is not 8-adjacent to a card on the table"
            )));
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
}

/// The rules are written here; what a seat sees is in `observe.rs` (`Observe`), the text in
/// `text.rs` (`Describe`) and the view in `view.rs` (`Visible`).
impl Rules for HoldemState {
    type Config = Config;

    fn config(&self) -> &Config {
        &self.config
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
        match player {
            Player::Chance => out.extend(self.deck.iter().map(|c| c.0 as Action)),
            Player::Seat(_) => self.for_each_legal(|a| out.push(a)),
            _ => {}
        }
    }

    fn action_mask(&self, player: Player, mask: &mut [bool]) {
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

    fn chance_cards(&self) -> CardSet {
        self.deck
    }

    fn apply(&mut self, player: Player, action: Action) -> Result<(), Illegal> {
        match player {
            Player::Seat(seat) => self.apply_seat(seat, action),
            // `Played` calls this only for the player to act: here, chance.
            _ => self.apply_chance(action),
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

    fn heuristic(&self, seat: usize, rng: &mut GameRng) -> Action {
        super::bot::choose(self, seat, rng)
    }
}
