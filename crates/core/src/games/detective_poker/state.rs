//! The Detective Poker state: the current hand's cards, chips, action cards and bets, the
//! points, and the fixed order of a hand's events with explicit chance; the rules on it
//! (legal sets, applying an action, scoring, returns). What a seat observes is in `observe.rs`,
//! the state as text and JSON in `text.rs`.
//!
//! A hand is always the same sequence of `6n + 8` history entries (n = players): the private
//! cards, then the shown cards (each starting left of the dealer), the preflop bets, a burn and
//! the three flop cards, the flop bets, a burn and the turn, the turn bets, a burn and the
//! river, the river bets. The hand is scored when its last bet is placed and the next hand's
//! deal follows; so the kind of every history entry follows from its index alone.

// Seats and betting rounds index several parallel arrays at once; index loops read best.
#![allow(clippy::needless_range_loop)]

use std::sync::Arc;

use super::Config;
use super::rules::{
    ALL_ACTION_CARDS, ActionCard, Bet, CARD_CHOICES, Judged, MAX_SEATS, STREETS, judge, max_amount,
};
use crate::cards::{Card, CardSet, NUM_ORDINARY};
use crate::game::{Action, Player, PlayerAction, points_rewards, rank_rewards};
use crate::poker::eval::{HandValue, best_of, evaluate_partial};
use crate::rng::GameRng;
use crate::rules::{Illegal, Rules};

/// Community cards on the board during each betting round.
const COMMUNITY_AT: [usize; STREETS] = [0, 3, 4, 5];

/// What one history entry of a hand is, by its index in the hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// Chance deals `seat` its private card.
    Private(usize),
    /// Chance deals `seat` its shown card.
    Shown(usize),
    /// Chance burns a card before betting round `street` (1..4).
    Burn(usize),
    /// Chance deals community card `index` (0..5).
    Community(usize),
    /// `seat` bets in betting round `street`.
    Bet {
        /// The betting round, 0..4.
        street: usize,
        /// The bettor.
        seat: usize,
    },
}

/// The kind of entry `step` (0..6n+8) of a hand dealt by `dealer` with `n` players.
#[inline]
pub fn event_at(n: usize, dealer: usize, step: usize) -> Event {
    let left = |k: usize| (dealer + k) % n;
    if step < n {
        return Event::Private(left(1 + step));
    }
    if step < 2 * n {
        return Event::Shown(left(1 + step - n));
    }
    // After the hole cards: four betting rounds, the last three preceded by a burn and cards.
    let mut at = 2 * n;
    for street in 0..STREETS {
        if street > 0 {
            let cards = COMMUNITY_AT[street] - COMMUNITY_AT[street - 1];
            if step == at {
                return Event::Burn(street);
            }
            if step <= at + cards {
                return Event::Community(COMMUNITY_AT[street - 1] + step - at - 1);
            }
            at += 1 + cards;
        }
        if step < at + n {
            return Event::Bet {
                street,
                seat: left(1 + street + step - at),
            };
        }
        at += n;
    }
    unreachable!("step {step} is past the end of a hand")
}

/// The cards and bets of one hand.
#[derive(Clone, Copy, Debug, Default)]
pub struct HandCards {
    /// Each seat's private card (seen by its owner only).
    pub private: [Option<Card>; MAX_SEATS],
    /// Each seat's shown card (seen by everyone but its owner).
    pub shown: [Option<Card>; MAX_SEATS],
    /// Flop, turn and river, in order.
    pub community: [Option<Card>; 5],
    /// The burned cards before flop, turn and river.
    pub burns: [Option<Card>; 3],
    /// Bets by betting round and bettor.
    pub bets: [[Option<Bet>; MAX_SEATS]; STREETS],
}

impl HandCards {
    /// Records a card dealt by chance at `event`.
    fn deal(&mut self, event: Event, card: Card) {
        match event {
            Event::Private(s) => self.private[s] = Some(card),
            Event::Shown(s) => self.shown[s] = Some(card),
            Event::Burn(street) => self.burns[street - 1] = Some(card),
            Event::Community(i) => self.community[i] = Some(card),
            Event::Bet { .. } => unreachable!("a bet is not dealt"),
        }
    }

    /// The community cards dealt so far.
    pub fn community_cards(&self) -> impl Iterator<Item = Card> + '_ {
        self.community.iter().map_while(|c| *c)
    }

    /// The hand value of `seat`'s board as it stood in betting round `street`: the two cards
    /// preflop, then best 5 of 5, 6, 7 (every card must have been dealt).
    pub fn value(&self, seat: usize, street: usize) -> HandValue {
        let hole = [
            self.private[seat].expect("dealt"),
            self.shown[seat].expect("dealt"),
        ];
        if street == 0 {
            return evaluate_partial(&hole);
        }
        let mut set: CardSet = hole.into_iter().collect();
        for c in &self.community[..COMMUNITY_AT[street]] {
            set.insert(c.expect("dealt"));
        }
        best_of(set)
    }

    /// What `seat` knows of these cards (its private card, the others' shown cards, the
    /// community cards; bets are not copied), and every card it has not seen, in card order.
    pub fn seen_by(&self, seat: usize, n: usize) -> (HandCards, Vec<Card>) {
        let mut hand = HandCards::default();
        hand.private[seat] = self.private[seat];
        for other in (0..n).filter(|&s| s != seat) {
            hand.shown[other] = self.shown[other];
        }
        hand.community = self.community;
        let mut known = CardSet::EMPTY;
        for c in hand
            .private
            .iter()
            .chain(&hand.shown)
            .chain(&hand.community)
            .flatten()
        {
            known.insert(*c);
        }
        let unseen = CardSet(CardSet::full_deck().0 & !known.0).iter().collect();
        (hand, unseen)
    }

    /// Every board's value in each betting round (`None` past the seats).
    pub fn values(&self, n: usize) -> [[Option<HandValue>; MAX_SEATS]; STREETS] {
        let mut out = [[None; MAX_SEATS]; STREETS];
        for (street, row) in out.iter_mut().enumerate() {
            for (seat, v) in row.iter_mut().enumerate().take(n) {
                *v = Some(self.value(seat, street));
            }
        }
        out
    }

    /// Judges every bet of the hand: `[street][bettor]`.
    pub fn judge_all(&self, n: usize, expert: bool) -> [[Option<Judged>; MAX_SEATS]; STREETS] {
        let values = self.values(n);
        let mut out = [[None; MAX_SEATS]; STREETS];
        for street in 0..STREETS {
            for bettor in 0..n {
                if let Some(bet) = self.bets[street][bettor] {
                    out[street][bettor] = Some(judge(bet, &values[street][..n], expert));
                }
            }
        }
        out
    }

    /// Each seat's points from the hand.
    pub fn points(&self, n: usize, expert: bool) -> [i32; MAX_SEATS] {
        let mut points = [0; MAX_SEATS];
        for row in self.judge_all(n, expert) {
            for (bettor, j) in row.iter().enumerate() {
                if let Some(j) = j {
                    points[bettor] += j.points;
                }
            }
        }
        points
    }
}

/// A Detective Poker state.
#[derive(Clone, Debug)]
pub struct DetectivePokerState {
    pub(super) config: Arc<Config>,
    /// The current hand, 0..hands (the last hand once the game is over).
    pub(super) hand: usize,
    /// The next entry of the hand, 0..6n+8.
    step: usize,
    /// Whether the last hand has been scored.
    pub(super) over: bool,
    /// The event at `step` (None once the game is over).
    event: Option<Event>,
    pub(super) cards: HandCards,
    pub(super) deck: CardSet,
    pub(super) chips: [u8; MAX_SEATS],
    pub(super) unused: [u8; MAX_SEATS],
    pub(super) points: [i32; MAX_SEATS],
    pub(super) hand_points: Vec<[i32; MAX_SEATS]>,
    rewards: [f64; MAX_SEATS],
}

impl DetectivePokerState {
    /// The state before the first card of the first hand is dealt.
    pub fn new(config: Arc<Config>) -> Self {
        let mut state = DetectivePokerState {
            hand: 0,
            step: 0,
            over: false,
            event: None,
            cards: HandCards::default(),
            deck: CardSet::full_deck(),
            chips: [0; MAX_SEATS],
            unused: [0; MAX_SEATS],
            points: [0; MAX_SEATS],
            hand_points: Vec::with_capacity(config.hands()),
            rewards: [0.0; MAX_SEATS],
            config,
        };
        state.start_hand();
        state
    }

    fn start_hand(&mut self) {
        self.step = 0;
        self.event = Some(self.config.event(self.dealer(), 0));
        self.cards = HandCards::default();
        self.deck = CardSet::full_deck();
        self.chips = [self.config.chips as u8; MAX_SEATS];
        self.unused = [ALL_ACTION_CARDS; MAX_SEATS];
    }

    /// The typed parameters.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The current hand's index (0-based).
    pub fn hand(&self) -> usize {
        self.hand
    }

    /// The current hand's dealer.
    pub fn dealer(&self) -> usize {
        self.hand % self.config.players
    }

    /// The next event of the hand (None once the game is over).
    #[inline]
    pub fn next_event(&self) -> Option<Event> {
        self.event
    }

    /// Moves to the next entry of the hand.
    #[inline]
    fn advance(&mut self) {
        self.step += 1;
        if self.step < self.config.hand_length() {
            self.event = Some(self.config.event(self.dealer(), self.step));
        }
    }

    /// The betting round now being played or dealt for (0 = preflop … 3 = river).
    pub fn street(&self) -> usize {
        match self.next_event() {
            Some(Event::Bet { street, .. }) | Some(Event::Burn(street)) => street,
            Some(Event::Community(i)) => COMMUNITY_AT.iter().position(|&c| c > i).unwrap_or(3),
            Some(_) => 0,
            None => STREETS - 1,
        }
    }

    /// The current hand's cards and bets (the caller decides who may see what).
    pub fn cards(&self) -> &HandCards {
        &self.cards
    }

    /// Chips `seat` has left in this hand.
    pub fn chips_left(&self, seat: usize) -> usize {
        self.chips[seat] as usize
    }

    /// The action cards `seat` has not used in this hand (bit i = `ActionCard::ALL[i]`).
    pub fn unused_cards(&self, seat: usize) -> u8 {
        self.unused[seat]
    }

    /// Points per seat.
    pub fn points(&self) -> &[i32] {
        &self.points[..self.config.players]
    }

    /// Each scored hand's points per seat.
    pub fn hand_points(&self) -> &[[i32; MAX_SEATS]] {
        &self.hand_points
    }

    /// Cards not yet dealt in this hand.
    pub fn deck(&self) -> CardSet {
        self.deck
    }

    /// The seats in the order they bet in betting round `street` of hand `h`.
    pub(super) fn bettors(&self, h: usize, street: usize) -> impl Iterator<Item = usize> + use<> {
        let n = self.config.players;
        (0..n).map(move |k| (h % n + 1 + street + k) % n)
    }

    /// Whether every card and action card of hand `h` has been revealed (it was scored).
    fn revealed(&self, h: usize) -> bool {
        h < self.hand || self.over
    }

    fn apply_chance(&mut self, action: Action) -> Result<(), Illegal> {
        let event = self.next_event().expect("a chance node has an event");
        let allowed = self.chance_cards();
        let card = match Card::from_id(action) {
            Some(c) if allowed.contains(c) => c,
            Some(c) if c.0 < NUM_ORDINARY && self.deck.contains(c) => {
                return Err(Illegal::new(format!(
                    "expert mode: a card of rank {} is already on the board, so {c} would be \
                     replaced; deal a card of another rank",
                    c.rank().char()
                )));
            }
            _ => {
                return Err(Illegal::new(format!(
                    "card id {action} is not in the deck ({} cards left)",
                    self.deck.len()
                )));
            }
        };
        self.deck.remove(card);
        self.cards.deal(event, card);
        self.rewards = [0.0; MAX_SEATS];
        self.advance();
        Ok(())
    }

    /// Why `bet` by `seat` is illegal now, if it is.
    fn bet_error(&self, seat: usize, street: usize, bet: Bet) -> Option<String> {
        let n = self.config.players;
        if bet.board as usize >= n {
            return Some(format!(
                "board s{} does not exist; the boards are s0..s{}",
                bet.board,
                n - 1
            ));
        }
        let most = max_amount(self.chips[seat], street, self.config.max_bet);
        if bet.amount as usize > most {
            let later = STREETS - 1 - street;
            return Some(if bet.amount as usize > self.config.max_bet {
                format!(
                    "a bet is 1 to {} chips, not {}",
                    self.config.max_bet, bet.amount
                )
            } else {
                format!(
                    "betting {} of {} chips would leave fewer than one chip for each of the {} \
                     later betting rounds; bet at most {most}",
                    bet.amount, self.chips[seat], later
                )
            });
        }
        if let Some(card) = bet.card
            && self.unused[seat] & card.bit() == 0
        {
            return Some(format!(
                "the {} action card was already used in this hand",
                card.name()
            ));
        }
        None
    }

    fn apply_bet(&mut self, action: Action) -> Result<(), Illegal> {
        let Some(Event::Bet { street, seat }) = self.next_event() else {
            unreachable!("a seat acts only at a bet")
        };
        let n = self.config.players;
        let Some(bet) = Bet::decode(action, n, self.config.max_bet) else {
            return Err(Illegal::new(format!(
                "action ids run from 0 to {} (board, amount and action card; see the docs)",
                self.config.num_actions() - 1
            )));
        };
        if let Some(reason) = self.bet_error(seat, street, bet) {
            return Err(Illegal::new(reason));
        }
        self.chips[seat] -= bet.amount;
        if let Some(card) = bet.card {
            self.unused[seat] &= !card.bit();
        }
        self.cards.bets[street][seat] = Some(bet);
        self.rewards = [0.0; MAX_SEATS];
        self.advance();
        if self.step == self.config.hand_length() {
            self.score_hand();
        }
        Ok(())
    }

    /// Scores the finished hand, then starts the next one or ends the game.
    fn score_hand(&mut self) {
        let n = self.config.players;
        let delta = self.cards.points(n, self.config.expert);
        for (p, d) in self.points.iter_mut().zip(delta) {
            *p += d;
        }
        self.hand_points.push(delta);
        if !self.config.rank_reward {
            let r = points_rewards(&delta[..n].iter().map(|&d| d as f64).collect::<Vec<_>>());
            self.rewards[..n].copy_from_slice(&r);
        }
        if self.hand + 1 == self.config.hands() {
            self.over = true;
            self.event = None;
            if self.config.rank_reward {
                let r = self.returns();
                self.rewards[..n].copy_from_slice(&r);
            }
        } else {
            self.hand += 1;
            self.start_hand();
        }
    }

    /// The final ranking keys: points, then unused action cards of the last hand.
    fn rank_keys(&self) -> Vec<f64> {
        (0..self.config.players)
            .map(|s| self.points[s] as f64 * 8.0 + self.unused[s].count_ones() as f64)
            .collect()
    }

    /// Whether `viewer` sees `seat`'s private (`private` = true) or shown card of hand `h`.
    pub(super) fn sees_hole(
        &self,
        viewer: Option<usize>,
        seat: usize,
        private: bool,
        h: usize,
    ) -> bool {
        self.revealed(h)
            || match viewer {
                Some(v) => (v == seat) == private,
                None => false,
            }
    }

    /// Whether `viewer` sees which action card `bettor` put under a bet of hand `h`.
    pub(super) fn sees_action_card(&self, viewer: Option<usize>, bettor: usize, h: usize) -> bool {
        self.revealed(h) || viewer == Some(bettor)
    }
    /// The cards and bets of hand `h`, read from `history` (this state's).
    pub(super) fn record_of(&self, history: &[PlayerAction], h: usize) -> HandCards {
        let n = self.config.players;
        let len = self.config.hand_length();
        let mut record = HandCards::default();
        let end = ((h + 1) * len).min(history.len());
        for i in h * len..end {
            let action = history[i].action;
            match event_at(n, h % n, i - h * len) {
                Event::Bet { street, seat } => {
                    record.bets[street][seat] = Bet::decode(action, n, self.config.max_bet);
                }
                event => record.deal(event, Card(action as u8)),
            }
        }
        record
    }
}

impl Rules for DetectivePokerState {
    type Config = Config;

    fn config(&self) -> &Config {
        &self.config
    }

    fn current_player(&self) -> Player {
        match self.next_event() {
            None => Player::Terminal,
            Some(Event::Bet { seat, .. }) => Player::Seat(seat),
            Some(_) => Player::Chance,
        }
    }

    fn legal_actions_into(&self, _player: Player, out: &mut Vec<Action>) {
        match self.next_event() {
            Some(Event::Bet { street, seat }) => {
                let b = self.config.max_bet;
                let most = max_amount(self.chips[seat], street, b);
                let unused = self.unused[seat];
                for board in 0..self.config.players {
                    for amount in 1..=most {
                        let base = ((board * b + amount - 1) * CARD_CHOICES) as Action;
                        out.push(base);
                        for (i, c) in ActionCard::ALL.iter().enumerate() {
                            if unused & c.bit() != 0 {
                                out.push(base + 1 + i as Action);
                            }
                        }
                    }
                }
            }
            Some(_) => out.extend(self.chance_cards().iter().map(|c| c.0 as Action)),
            None => {}
        }
    }

    fn action_mask(&self, _player: Player, mask: &mut [bool]) {
        match self.next_event() {
            Some(Event::Bet { street, seat }) => {
                let b = self.config.max_bet;
                let most = max_amount(self.chips[seat], street, b);
                let unused = self.unused[seat];
                for board in 0..self.config.players {
                    for amount in 1..=most {
                        let base = (board * b + amount - 1) * CARD_CHOICES;
                        mask[base] = true;
                        for i in 0..4 {
                            mask[base + 1 + i] = unused >> i & 1 == 1;
                        }
                    }
                }
            }
            Some(_) => {
                for c in self.chance_cards().iter() {
                    if let Some(m) = mask.get_mut(c.0 as usize) {
                        *m = true;
                    }
                }
            }
            None => {}
        }
    }

    /// The cards chance may deal now: the deck, and in expert mode for a community card only
    /// cards whose rank is not yet on the board.
    fn chance_cards(&self) -> CardSet {
        match self.next_event() {
            Some(Event::Community(_)) if self.config.expert => {
                let mut ranks = 0u64;
                for c in self.cards.community_cards() {
                    ranks |= 0xF << (c.rank().0 as u64 * 4);
                }
                CardSet(self.deck.0 & !ranks)
            }
            Some(Event::Bet { .. }) | None => CardSet::EMPTY,
            Some(_) => self.deck,
        }
    }

    fn sample_chance_outcome(&self, rng: &mut GameRng) -> Action {
        // Rejection from the 52 card ids: uniform over the set, which always holds at least 21
        // of them (6 players, expert mode, the river: 19 cards dealt, 12 of board ranks).
        let cards = self.chance_cards().0;
        loop {
            let id = rng.below(NUM_ORDINARY as u64);
            if cards >> id & 1 == 1 {
                return id as Action;
            }
        }
    }

    fn apply(&mut self, player: Player, action: Action) -> Result<(), Illegal> {
        match player {
            Player::Chance => self.apply_chance(action),
            _ => self.apply_bet(action),
        }
    }

    fn returns(&self) -> Vec<f64> {
        if !self.config.rank_reward {
            let points: Vec<f64> = self.points().iter().map(|&p| p as f64).collect();
            points_rewards(&points)
        } else if self.over {
            rank_rewards(&self.rank_keys())
        } else {
            vec![0.0; self.config.players]
        }
    }

    fn reward_slice(&self) -> &[f64] {
        &self.rewards[..self.config.players]
    }

    fn heuristic(&self, seat: usize, rng: &mut GameRng) -> Action {
        super::bot::choose_bet(self, seat, rng).encode(self.config.max_bet)
    }
}
