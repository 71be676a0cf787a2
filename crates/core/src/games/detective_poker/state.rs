//! The Detective Poker state: the current hand's cards, chips, action cards and bets, the
//! points, and the fixed order of a hand's events with explicit chance.
//!
//! A hand is always the same sequence of `6n + 8` history entries (n = players): the private
//! cards, then the shown cards (each starting left of the dealer), the preflop bets, a burn and
//! the three flop cards, the flop bets, a burn and the turn, the turn bets, a burn and the
//! river, the river bets. The hand is scored when its last bet is placed and the next hand's
//! deal follows; so the kind of every history entry follows from its index alone.

// Seats and betting rounds index several parallel arrays at once; index loops read best.
#![allow(clippy::needless_range_loop)]

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use serde_json::json;

use super::rules::{
    ALL_ACTION_CARDS, ActionCard, Bet, CARD_CHOICES, Judged, MAX_SEATS, STREET_NAMES, STREETS,
    judge, max_amount,
};
use super::{Config, INFO};
use crate::cards::{Card, CardSet, NUM_ORDINARY};
use crate::game::{
    Action, EventLayout, GameError, Player, PlayerAction, State, check_turn, points_rewards,
    rank_rewards, write_information_state,
};
use crate::params::Params;
use crate::poker::eval::{HandValue, best_of, evaluate_partial};
use crate::rng::GameRng;

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
    config: Arc<Config>,
    params: Arc<Params>,
    /// The current hand, 0..hands (the last hand once the game is over).
    hand: usize,
    /// The next entry of the hand, 0..6n+8.
    step: usize,
    /// Whether the last hand has been scored.
    over: bool,
    /// The event at `step` (None once the game is over).
    event: Option<Event>,
    cards: HandCards,
    deck: CardSet,
    chips: [u8; MAX_SEATS],
    unused: [u8; MAX_SEATS],
    points: [i32; MAX_SEATS],
    hand_points: Vec<[i32; MAX_SEATS]>,
    history: Vec<PlayerAction>,
    rewards: [f64; MAX_SEATS],
}

/// Number of floats in a Detective Poker observation (see docs/games/detective_poker.md).
pub fn observation_size(config: &Config) -> usize {
    let n = config.players;
    let cards = NUM_ORDINARY as usize;
    2 * n * cards + cards + STREETS * n * bet_features(n) + 4 + 2 * n + STREETS + 3 * n + 1
}

/// Features per bet: board one-hot, amount, card-under flag, card one-hot.
fn bet_features(n: usize) -> usize {
    n + 2 + 4
}

/// The code of a card not seen (another seat's private card, the seat's own shown card, a
/// burn) before the hand reveals it (cards are 0..52).
const HIDDEN_CARD: usize = 52;
/// The first code of a bet seen whole (its action id follows); after those, a bet whose
/// action card stays hidden is coded as the same bet without a card.
const BET_CODES: usize = 53;

/// The history rows of an information-state tensor (codes above).
pub fn event_layout(config: &Config) -> EventLayout {
    EventLayout::new(
        config.players,
        BET_CODES + 2 * config.num_actions(),
        config.max_game_length(),
    )
}

impl DetectivePokerState {
    /// What seat `viewer` saw of each history entry (codes of `event_layout`), as
    /// `event_text` shows it.
    fn event_codes(&self, viewer: usize) -> Vec<u32> {
        let n = self.config.players;
        let len = self.config.hand_length();
        let viewer = Some(viewer);
        self.history
            .iter()
            .enumerate()
            .map(|(index, entry)| {
                let (h, j) = (index / len, index % len);
                let card = |seen: bool| {
                    if seen {
                        entry.action
                    } else {
                        HIDDEN_CARD as u32
                    }
                };
                match event_at(n, h % n, j) {
                    Event::Private(s) => card(self.sees_hole(viewer, s, true, h)),
                    Event::Shown(s) => card(self.sees_hole(viewer, s, false, h)),
                    Event::Burn(_) => HIDDEN_CARD as u32,
                    Event::Community(_) => entry.action,
                    Event::Bet { seat, .. } => {
                        let bet =
                            Bet::decode(entry.action, n, self.config.max_bet).expect("a legal bet");
                        if bet.card.is_none() || self.sees_action_card(viewer, seat, h) {
                            (BET_CODES as u32) + entry.action
                        } else {
                            let plain = Bet { card: None, ..bet }.encode(self.config.max_bet);
                            (BET_CODES + self.config.num_actions()) as u32 + plain
                        }
                    }
                }
            })
            .collect()
    }

    /// The state before the first card of the first hand is dealt.
    pub fn new(config: Arc<Config>, params: Arc<Params>) -> Self {
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
            history: Vec::with_capacity(config.hands() * config.hand_length()),
            rewards: [0.0; MAX_SEATS],
            config,
            params,
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
    fn bettors(&self, h: usize, street: usize) -> impl Iterator<Item = usize> + use<> {
        let n = self.config.players;
        (0..n).map(move |k| (h % n + 1 + street + k) % n)
    }

    /// Whether every card and action card of hand `h` has been revealed (it was scored).
    fn revealed(&self, h: usize) -> bool {
        h < self.hand || self.over
    }

    /// The cards chance may deal now: the deck, and in expert mode for a community card only
    /// cards whose rank is not yet on the board.
    pub fn chance_cards(&self) -> CardSet {
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
        let event = self.next_event().expect("a chance node has an event");
        let allowed = self.chance_cards();
        let card = match Card::from_id(action) {
            Some(c) if allowed.contains(c) => c,
            Some(c) if c.0 < NUM_ORDINARY && self.deck.contains(c) => {
                return Err(self.illegal(
                    action,
                    format!(
                        "expert mode: a card of rank {} is already on the board, so {c} would \
                         be replaced; deal a card of another rank",
                        c.rank().char()
                    ),
                ));
            }
            _ => {
                return Err(self.illegal(
                    action,
                    format!(
                        "card id {action} is not in the deck ({} cards left)",
                        self.deck.len()
                    ),
                ));
            }
        };
        self.deck.remove(card);
        self.cards.deal(event, card);
        self.rewards = [0.0; MAX_SEATS];
        self.history.push(PlayerAction {
            player: Player::Chance,
            action,
        });
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

    fn apply_bet(&mut self, action: Action) -> Result<(), GameError> {
        let Some(Event::Bet { street, seat }) = self.next_event() else {
            unreachable!("a seat acts only at a bet")
        };
        let n = self.config.players;
        let Some(bet) = Bet::decode(action, n, self.config.max_bet) else {
            return Err(self.illegal(
                action,
                format!(
                    "action ids run from 0 to {} (board, amount and action card; see the docs)",
                    self.config.num_actions() - 1
                ),
            ));
        };
        if let Some(reason) = self.bet_error(seat, street, bet) {
            return Err(self.illegal(action, reason));
        }
        self.chips[seat] -= bet.amount;
        if let Some(card) = bet.card {
            self.unused[seat] &= !card.bit();
        }
        self.cards.bets[street][seat] = Some(bet);
        self.history.push(PlayerAction {
            player: Player::Seat(seat),
            action,
        });
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
    fn sees_hole(&self, viewer: Option<usize>, seat: usize, private: bool, h: usize) -> bool {
        self.revealed(h)
            || match viewer {
                Some(v) => (v == seat) == private,
                None => false,
            }
    }

    /// Whether `viewer` sees which action card `bettor` put under a bet of hand `h`.
    fn sees_action_card(&self, viewer: Option<usize>, bettor: usize, h: usize) -> bool {
        self.revealed(h) || viewer == Some(bettor)
    }

    fn card_text(card: Option<Card>, visible: bool) -> String {
        match (card, visible) {
            (None, _) => "--".to_string(),
            (Some(c), true) => c.to_string(),
            (Some(_), false) => "??".to_string(),
        }
    }

    fn bet_text(bet: Bet, card_visible: bool) -> String {
        if card_visible || bet.card.is_none() {
            bet.text()
        } else {
            format!("bet {} on s{} with ?", bet.amount, bet.board)
        }
    }

    fn cards_text(cards: &[Option<Card>]) -> String {
        let cards: Vec<String> = cards
            .iter()
            .map_while(|c| *c)
            .map(|c| c.to_string())
            .collect();
        if cards.is_empty() {
            "-".to_string()
        } else {
            cards.join(" ")
        }
    }

    fn action_cards_text(set: u8) -> String {
        let names: Vec<&str> = ActionCard::ALL
            .iter()
            .filter(|c| set & c.bit() != 0)
            .map(|c| c.name())
            .collect();
        if names.is_empty() {
            "none".to_string()
        } else {
            names.join(" ")
        }
    }

    /// The current hand as `viewer` sees it, as text lines.
    fn hand_lines(&self, viewer: Option<usize>, out: &mut String) {
        use std::fmt::Write;
        let n = self.config.players;
        let h = self.hand;
        let _ = writeln!(
            out,
            "hand {}/{} (dealer s{}), {}, {} to act",
            h + 1,
            self.config.hands(),
            self.dealer(),
            if self.over {
                "scored"
            } else {
                STREET_NAMES[self.street()]
            },
            self.current_player()
        );
        for seat in 0..n {
            let _ = writeln!(
                out,
                "s{seat}: private {} shown {} | chips {} | action cards left {} | points {}",
                Self::card_text(
                    self.cards.private[seat],
                    self.sees_hole(viewer, seat, true, h)
                ),
                Self::card_text(
                    self.cards.shown[seat],
                    self.sees_hole(viewer, seat, false, h)
                ),
                self.chips[seat],
                self.unused[seat].count_ones(),
                self.points[seat]
            );
        }
        let _ = writeln!(out, "board: {}", Self::cards_text(&self.cards.community));
        for street in 0..STREETS {
            let bets: Vec<String> = self
                .bettors(h, street)
                .filter_map(|b| {
                    self.cards.bets[street][b].map(|bet| {
                        format!(
                            "s{b} {}",
                            Self::bet_text(bet, self.sees_action_card(viewer, b, h))
                        )
                    })
                })
                .collect();
            if !bets.is_empty() {
                let _ = writeln!(out, "{}: {}", STREET_NAMES[street], bets.join(", "));
            }
        }
        if let Some(last) = self.hand_points.last() {
            let _ = writeln!(out, "last scored hand: points {:?}", &last[..n]);
        }
        if let Some(v) = viewer {
            let _ = writeln!(
                out,
                "your action cards: {}",
                Self::action_cards_text(self.unused[v])
            );
        }
    }

    /// History entry `index` as `viewer` saw it.
    fn event_text(&self, index: usize, viewer: Option<usize>) -> String {
        let n = self.config.players;
        let len = self.config.hand_length();
        let (h, j) = (index / len, index % len);
        let entry = self.history[index];
        let card = || Card(entry.action as u8);
        let mut text = match event_at(n, h % n, j) {
            Event::Private(s) => format!(
                "s{s}.private:{}",
                Self::card_text(Some(card()), self.sees_hole(viewer, s, true, h))
            ),
            Event::Shown(s) => format!(
                "s{s}.shown:{}",
                Self::card_text(Some(card()), self.sees_hole(viewer, s, false, h))
            ),
            Event::Burn(_) => "burn:??".to_string(),
            Event::Community(_) => format!("board:{}", card()),
            Event::Bet { seat, .. } => {
                let bet = Bet::decode(entry.action, n, self.config.max_bet).expect("legal");
                format!(
                    "s{seat}:{}",
                    Self::bet_text(bet, self.sees_action_card(viewer, seat, h)).replace(' ', "_")
                )
            }
        };
        if j == 0 {
            text = format!("[hand {}] {text}", h + 1);
        }
        if j + 1 == len {
            text = format!("{text} [scored {:?}]", &self.hand_points[h][..n]);
        }
        text
    }

    /// The history with everything `player` cannot see resampled: per hand, the cards it
    /// does not know (own shown card, others' private cards, burns, and the deck) permuted at
    /// random, and other seats' action cards under unrevealed bets drawn afresh.
    fn resampled_history(&self, player: usize, rng: &mut GameRng) -> Vec<Action> {
        let n = self.config.players;
        let len = self.config.hand_length();
        let mut out = Vec::with_capacity(self.history.len());
        for (h, entries) in self.history.chunks(len).enumerate() {
            // The cards `player` knows in hand h; every other card may be anywhere.
            let record = self.record_of(h);
            let mut known = CardSet::EMPTY;
            for c in record.community.iter().flatten() {
                known.insert(*c);
            }
            for seat in 0..n {
                if let Some(c) = record.private[seat]
                    && self.sees_hole(Some(player), seat, true, h)
                {
                    known.insert(c);
                }
                if let Some(c) = record.shown[seat]
                    && self.sees_hole(Some(player), seat, false, h)
                {
                    known.insert(c);
                }
            }
            let unknown = CardSet(CardSet::full_deck().0 & !known.0);
            let mut hidden = crate::cards::HiddenCards::new(unknown, rng);
            // Hidden action cards: each other seat's used cards, in a random order.
            let mut order = [[0usize; 4]; MAX_SEATS];
            let mut next = [0usize; MAX_SEATS];
            for o in order.iter_mut() {
                *o = [0, 1, 2, 3];
                rng.shuffle(o);
            }
            for (j, entry) in entries.iter().enumerate() {
                out.push(match event_at(n, h % n, j) {
                    Event::Bet { seat, .. } => {
                        let mut bet =
                            Bet::decode(entry.action, n, self.config.max_bet).expect("legal");
                        if bet.card.is_some() && !self.sees_action_card(Some(player), seat, h) {
                            bet.card = Some(ActionCard::ALL[order[seat][next[seat]]]);
                            next[seat] += 1;
                        }
                        bet.encode(self.config.max_bet)
                    }
                    _ => hidden.replace(Card(entry.action as u8)).0 as Action,
                });
            }
        }
        out
    }

    /// The cards and bets of hand `h`, read from the history.
    fn record_of(&self, h: usize) -> HandCards {
        let n = self.config.players;
        let len = self.config.hand_length();
        let mut record = HandCards::default();
        let end = ((h + 1) * len).min(self.history.len());
        for i in h * len..end {
            let action = self.history[i].action;
            match event_at(n, h % n, i - h * len) {
                Event::Bet { street, seat } => {
                    record.bets[street][seat] = Bet::decode(action, n, self.config.max_bet);
                }
                event => record.deal(event, Card(action as u8)),
            }
        }
        record
    }

    /// The last scored hand, revealed, as JSON.
    fn last_scored_json(&self) -> serde_json::Value {
        let n = self.config.players;
        let h = if self.over {
            self.hand
        } else if self.hand > 0 {
            self.hand - 1
        } else {
            return serde_json::Value::Null;
        };
        let record = self.record_of(h);
        let judged = record.judge_all(n, self.config.expert);
        let mut bets = Vec::new();
        for street in 0..STREETS {
            for bettor in self.bettors(h, street) {
                if let (Some(bet), Some(j)) = (record.bets[street][bettor], judged[street][bettor])
                {
                    bets.push(json!({
                        "street": STREET_NAMES[street], "bettor": bettor, "board": bet.board,
                        "amount": bet.amount, "action_card": bet.card.map(|c| c.name()),
                        "counts_for": j.target, "correct": j.correct, "points": j.points,
                    }));
                }
            }
        }
        json!({
            "hand": h + 1,
            "dealer": h % n,
            "private": (0..n).map(|s| record.private[s].map(|c| c.to_string())).collect::<Vec<_>>(),
            "shown": (0..n).map(|s| record.shown[s].map(|c| c.to_string())).collect::<Vec<_>>(),
            "board": record.community_cards().map(|c| c.to_string()).collect::<Vec<_>>(),
            "bets": bets,
            "points": &self.hand_points[h][..n],
        })
    }
}

impl State for DetectivePokerState {
    fn num_players(&self) -> usize {
        self.config.players
    }

    fn current_player(&self) -> Player {
        match self.next_event() {
            None => Player::Terminal,
            Some(Event::Bet { seat, .. }) => Player::Seat(seat),
            Some(_) => Player::Chance,
        }
    }

    fn legal_actions_into(&self, player: Player, out: &mut Vec<Action>) {
        out.clear();
        if player != self.current_player() {
            return;
        }
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

    fn legal_action_mask(&self, player: Player, mask: &mut [bool]) {
        mask.fill(false);
        if player != self.current_player() {
            return;
        }
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

    fn chance_outcomes(&self) -> Vec<(Action, f64)> {
        if !self.is_chance_node() {
            return Vec::new();
        }
        let cards = self.chance_cards();
        let p = 1.0 / cards.len() as f64;
        cards.iter().map(|c| (c.0 as Action, p)).collect()
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

    fn apply_action(&mut self, action: Action) -> Result<(), GameError> {
        match self.current_player() {
            Player::Chance => self.apply_chance(action),
            Player::Seat(_) => self.apply_bet(action),
            _ => check_turn(self, Player::Chance),
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

    fn rewards(&self) -> Vec<f64> {
        self.rewards[..self.config.players].to_vec()
    }

    fn add_rewards_to(&self, out: &mut [f64]) {
        crate::game::add_rewards(out, &self.rewards[..self.config.players]);
    }

    fn history(&self) -> &[PlayerAction] {
        &self.history
    }

    fn action_to_string(&self, player: Player, action: Action) -> String {
        match player {
            Player::Chance => match Card::from_id(action) {
                Some(c) if c.0 < NUM_ORDINARY => c.to_string(),
                _ => format!("card#{action}"),
            },
            Player::Seat(seat) if seat < self.config.players => {
                match Bet::decode(action, self.config.players, self.config.max_bet) {
                    Some(bet) => bet.text(),
                    None => format!("action#{action}"),
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
        match player {
            Player::Chance => {
                let card: Card = text
                    .trim()
                    .parse()
                    .map_err(|e: crate::cards::BadCard| bad(e.to_string()))?;
                if card.is_joker() {
                    return Err(bad("Detective Poker uses no jokers".to_string()));
                }
                Ok(card.0 as Action)
            }
            Player::Seat(seat) if seat < self.config.players => {
                let bet = Bet::parse(text).map_err(bad)?;
                let n = self.config.players;
                if bet.board as usize >= n {
                    return Err(bad(format!(
                        "board s{} does not exist; the boards are s0..s{}",
                        bet.board,
                        n - 1
                    )));
                }
                if bet.amount as usize > self.config.max_bet {
                    return Err(bad(format!(
                        "a bet is 1 to {} chips, not {}",
                        self.config.max_bet, bet.amount
                    )));
                }
                Ok(bet.encode(self.config.max_bet))
            }
            _ => Err(bad(format!("{player} takes no actions"))),
        }
    }

    fn observation_tensor(&self, player: usize, out: &mut [f32]) {
        let n = self.config.players;
        let h = self.hand;
        let cards = NUM_ORDINARY as usize;
        debug_assert_eq!(out.len(), observation_size(&self.config));
        out.fill(0.0);
        let mut at = 0;
        for (private, hole) in [(true, &self.cards.private), (false, &self.cards.shown)] {
            for seat in 0..n {
                if let Some(c) = hole[seat]
                    && self.sees_hole(Some(player), seat, private, h)
                {
                    out[at + seat * cards + c.0 as usize] = 1.0;
                }
            }
            at += n * cards;
        }
        for c in self.cards.community_cards() {
            out[at + c.0 as usize] = 1.0;
        }
        at += cards;
        let per_bet = bet_features(n);
        for street in 0..STREETS {
            for bettor in 0..n {
                if let Some(bet) = self.cards.bets[street][bettor] {
                    let f = &mut out[at..at + per_bet];
                    f[bet.board as usize] = 1.0;
                    f[n] = bet.amount as f32 / self.config.max_bet as f32;
                    if let Some(c) = bet.card {
                        f[n + 1] = 1.0;
                        if self.sees_action_card(Some(player), bettor, h) {
                            f[n + 2 + c.index()] = 1.0;
                        }
                    }
                }
                at += per_bet;
            }
        }
        for i in 0..4 {
            out[at + i] = (self.unused[player] >> i & 1) as f32;
        }
        at += 4;
        let scale = self.config.max_hand_points() as f32;
        for seat in 0..n {
            out[at + seat] = self.chips[seat] as f32 / self.config.chips as f32;
            out[at + n + seat] = self.points[seat] as f32 / scale;
        }
        at += 2 * n;
        if !self.over {
            out[at + self.street()] = 1.0;
        }
        at += STREETS;
        out[at + self.dealer()] = 1.0;
        at += n;
        if let Player::Seat(s) = self.current_player() {
            out[at + s] = 1.0;
        }
        at += n;
        out[at + player] = 1.0;
        at += n;
        out[at] = h as f32 / self.config.hands() as f32;
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
        let mut s = String::new();
        self.hand_lines(Some(player), &mut s);
        s
    }

    fn information_state_string(&self, player: usize) -> String {
        let events: Vec<String> = (0..self.history.len())
            .map(|i| self.event_text(i, Some(player)))
            .collect();
        format!("s{player} | {}", events.join(" "))
    }

    fn view(&self, viewer: Option<usize>) -> serde_json::Value {
        let n = self.config.players;
        let h = self.hand;
        let seats: Vec<_> = (0..n)
            .map(|seat| {
                let hole = |private: bool, card: Option<Card>| {
                    card.filter(|_| self.sees_hole(viewer, seat, private, h))
                        .map(|c| c.to_string())
                };
                json!({
                    "seat": seat,
                    "private": hole(true, self.cards.private[seat]),
                    "private_dealt": self.cards.private[seat].is_some(),
                    "shown": hole(false, self.cards.shown[seat]),
                    "shown_dealt": self.cards.shown[seat].is_some(),
                    "chips": self.chips[seat],
                    "action_cards_left": self.unused[seat].count_ones(),
                    "action_cards": (viewer == Some(seat) || self.over).then(|| {
                        ActionCard::ALL.iter().filter(|c| self.unused[seat] & c.bit() != 0)
                            .map(|c| c.name()).collect::<Vec<_>>()
                    }),
                    "points": self.points[seat],
                })
            })
            .collect();
        let mut bets = Vec::new();
        for street in 0..STREETS {
            for bettor in self.bettors(h, street) {
                if let Some(bet) = self.cards.bets[street][bettor] {
                    let card = match bet.card {
                        None => json!(null),
                        Some(c) if self.sees_action_card(viewer, bettor, h) => json!(c.name()),
                        Some(_) => json!("hidden"),
                    };
                    bets.push(json!({
                        "street": STREET_NAMES[street], "bettor": bettor, "board": bet.board,
                        "amount": bet.amount, "action_card": card,
                    }));
                }
            }
        }
        json!({
            "game": INFO.name,
            "viewer": viewer,
            "players": n,
            "hand": h + 1,
            "hands": self.config.hands(),
            "dealer": self.dealer(),
            "street": (!self.over).then(|| STREET_NAMES[self.street()]),
            "seats": seats,
            "board": self.cards.community_cards().map(|c| c.to_string()).collect::<Vec<_>>(),
            "burns": self.cards.burns.iter().filter(|b| b.is_some()).count(),
            "bets": bets,
            "last_scored_hand": self.last_scored_json(),
            "current_player": self.current_player().id(),
            "terminal": self.over,
            "returns": self.over.then(|| self.returns()),
        })
    }

    fn resample_from_infostate(&self, player: usize, rng: &mut GameRng) -> Box<dyn State> {
        let actions = self.resampled_history(player, rng);
        let mut out = DetectivePokerState::new(self.config.clone(), self.params.clone());
        for a in actions {
            out.apply_action(a).expect("a resampled history replays");
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

impl fmt::Display for DetectivePokerState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.config.players;
        let mut s = String::new();
        self.hand_lines(None, &mut s);
        f.write_str(&s)?;
        for seat in 0..n {
            writeln!(
                f,
                "s{seat} holds {} {} (action cards {})",
                Self::card_text(self.cards.private[seat], true),
                Self::card_text(self.cards.shown[seat], true),
                Self::action_cards_text(self.unused[seat])
            )?;
        }
        let mut under = Vec::new();
        for street in 0..STREETS {
            for b in 0..n {
                if let Some(Bet { card: Some(c), .. }) = self.cards.bets[street][b] {
                    under.push(format!("{} s{b}: {}", STREET_NAMES[street], c.name()));
                }
            }
        }
        if !under.is_empty() {
            writeln!(f, "under the bets: {}", under.join(", "))?;
        }
        write!(
            f,
            "burns: {}; deck: {} cards",
            Self::cards_text(&self.cards.burns),
            self.deck.len()
        )
    }
}
