//! The Kuhn poker state: the cards dealt, the betting so far and the chips in the pot; the
//! rules on it (who acts, the legal sets, applying an action, the winner and the returns).
//! What a seat observes is in `observe.rs`, the state as text in `text.rs`.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Serialize;

use super::Config;
use super::rules::{MAX_SEATS, Move};
use crate::game::{Action, Player};
use crate::rng::GameRng;
use crate::rules::{Illegal, Rules};

/// The most actions a betting round can have (five seats: every seat once, four twice).
const MAX_MOVES: usize = 2 * MAX_SEATS - 1;

/// Where a seat stands in the betting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SeatStatus {
    /// It has not acted yet.
    Waiting,
    /// It passed before anyone bet (it may still have to answer a later bet).
    Checked,
    /// It made the first bet.
    Bet,
    /// It called the first bet.
    Called,
    /// It passed after the first bet: out of the pot.
    Folded,
}

/// A Kuhn poker state.
#[derive(Clone, Debug)]
pub struct KuhnPokerState {
    pub(super) config: Arc<Config>,
    /// Each seat's card index (valid for the seats below `dealt`).
    cards: [u8; MAX_SEATS],
    /// Cards dealt so far: seats `0..dealt` have theirs.
    dealt: usize,
    /// The betting so far, in order; the k-th move is seat `k % players`'s.
    moves: [Move; MAX_MOVES],
    /// Moves made.
    num_moves: usize,
    /// The seat that made the first bet.
    first_bettor: Option<usize>,
    /// Chips each seat has put in: its ante, plus one after a bet or call.
    in_pot: [u8; MAX_SEATS],
    /// Whether the betting round is over.
    over: bool,
}

impl KuhnPokerState {
    /// The state before the first card is dealt, every ante in the pot.
    pub fn new(config: Arc<Config>) -> Self {
        KuhnPokerState {
            config,
            cards: [0; MAX_SEATS],
            dealt: 0,
            moves: [Move::Pass; MAX_MOVES],
            num_moves: 0,
            first_bettor: None,
            in_pot: [1; MAX_SEATS],
            over: false,
        }
    }

    /// The typed parameters.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// `seat`'s card index (0 = the lowest), once dealt (the caller decides who may see it).
    pub fn card(&self, seat: usize) -> Option<u8> {
        (seat < self.dealt).then(|| self.cards[seat])
    }

    /// How many cards have been dealt (seats `0..dealt` have theirs).
    pub fn dealt(&self) -> usize {
        self.dealt
    }

    /// The betting so far, in order (the k-th move is seat `k % players`'s).
    pub fn moves(&self) -> &[Move] {
        &self.moves[..self.num_moves]
    }

    /// The seat that made the first bet, if anyone has.
    pub fn first_bettor(&self) -> Option<usize> {
        self.first_bettor
    }

    /// Chips `seat` has put in the pot (1, or 2 after a bet or call).
    pub fn chips_in(&self, seat: usize) -> u32 {
        self.in_pot[seat] as u32
    }

    /// Chips in the pot.
    pub fn pot(&self) -> u32 {
        (0..self.config.players).map(|s| self.chips_in(s)).sum()
    }

    /// Whether the game is over.
    pub fn is_over(&self) -> bool {
        self.over
    }

    /// Where `seat` stands in the betting.
    pub fn status(&self, seat: usize) -> SeatStatus {
        let n = self.config.players;
        let mut status = SeatStatus::Waiting;
        let mut bet_seen = false;
        for (k, m) in self.moves().iter().enumerate() {
            let mover = k % n;
            if mover == seat {
                status = match (m, bet_seen) {
                    (Move::Pass, false) => SeatStatus::Checked,
                    (Move::Bet, false) => SeatStatus::Bet,
                    (Move::Pass, true) => SeatStatus::Folded,
                    (Move::Bet, true) => SeatStatus::Called,
                };
            }
            bet_seen |= *m == Move::Bet;
        }
        status
    }

    /// Whether `seat` is still in the pot: every seat while nobody has bet, else the bettor
    /// and the seats that called (at the end: the seats in the showdown).
    pub fn contends(&self, seat: usize) -> bool {
        self.first_bettor.is_none() || self.in_pot[seat] == 2
    }

    /// The seats that contend for the pot at the end, in seat order (empty before the end).
    pub fn contenders(&self) -> Vec<usize> {
        if !self.over {
            return Vec::new();
        }
        (0..self.config.players)
            .filter(|&s| self.contends(s))
            .collect()
    }

    /// Whether the game ended in a showdown (at least two seats show their cards).
    pub fn showdown(&self) -> bool {
        self.over
            && (0..self.config.players)
                .filter(|&s| self.contends(s))
                .count()
                >= 2
    }

    /// Whether `seat`'s card was shown at the showdown (public from then on).
    pub fn shown(&self, seat: usize) -> bool {
        self.showdown() && self.contends(seat)
    }

    /// The winner, once the game is over: the contender with the highest card.
    pub fn winner(&self) -> Option<usize> {
        if !self.over {
            return None;
        }
        (0..self.config.players)
            .filter(|&s| self.contends(s))
            .max_by_key(|&s| self.cards[s])
    }

    /// Whether the seat to act faces a bet (pass folds and bet calls).
    pub fn facing_bet(&self) -> bool {
        self.first_bettor.is_some()
    }

    fn apply_chance(&mut self, action: Action) -> Result<(), Illegal> {
        let size = self.config.deck_size();
        if action as usize >= size {
            return Err(Illegal::new(format!(
                "card index {action} is outside the deck: 0 to {} ({}, lowest first)",
                size - 1,
                super::rules::deck_text(self.config.players)
            )));
        }
        let card = action as u8;
        if let Some(seat) = (0..self.dealt).find(|&s| self.cards[s] == card) {
            return Err(Illegal::new(format!(
                "card {} was already dealt to seat {seat}",
                self.config.card_name(card)
            )));
        }
        self.cards[self.dealt] = card;
        self.dealt += 1;
        Ok(())
    }

    fn apply_move(&mut self, seat: usize, action: Action) -> Result<(), Illegal> {
        let Some(m) = Move::from_action(action) else {
            return Err(Illegal::new(
                "Kuhn poker's actions are 0 (pass: check or fold) and 1 (bet: bet or call)",
            ));
        };
        if m == Move::Bet {
            self.first_bettor.get_or_insert(seat);
            self.in_pot[seat] += 1;
        }
        self.moves[self.num_moves] = m;
        self.num_moves += 1;
        // Every seat has acted once after the first bet (the seats before the bettor in a
        // second lap), or every seat checked.
        let n = self.config.players;
        self.over = self.num_moves == n + self.first_bettor.unwrap_or(0);
        Ok(())
    }

    /// The cards chance may deal now: those not dealt yet, as a bit set of card indices.
    fn undealt(&self) -> u64 {
        let all = (1u64 << self.config.deck_size()) - 1;
        let dealt = self.cards[..self.dealt]
            .iter()
            .fold(0u64, |set, &c| set | 1 << c);
        all & !dealt
    }
}

impl Rules for KuhnPokerState {
    type Config = Config;

    fn config(&self) -> &Config {
        &self.config
    }

    fn current_player(&self) -> Player {
        if self.dealt < self.config.players {
            Player::Chance
        } else if self.over {
            Player::Terminal
        } else {
            Player::Seat(self.num_moves % self.config.players)
        }
    }

    fn legal_actions_into(&self, player: Player, out: &mut Vec<Action>) {
        match player {
            Player::Chance => out.extend(crate::rng::set_bits(&[self.undealt()]).map(|c| c as u32)),
            _ => out.extend([Move::Pass.action(), Move::Bet.action()]),
        }
    }

    /// Uniform over the cards not dealt yet.
    fn chance_outcomes(&self) -> Vec<(Action, f64)> {
        let undealt = self.undealt();
        let p = 1.0 / undealt.count_ones() as f64;
        crate::rng::set_bits(&[undealt])
            .map(|c| (c as Action, p))
            .collect()
    }

    fn sample_chance_outcome(&self, rng: &mut GameRng) -> Action {
        rng.choose_bit(self.undealt())
    }

    fn apply(&mut self, player: Player, action: Action) -> Result<(), Illegal> {
        match player {
            Player::Chance => self.apply_chance(action),
            Player::Seat(seat) => self.apply_move(seat, action),
            _ => unreachable!("only chance and the seat to act apply actions"),
        }
    }

    /// Zero before the end; then the winner's pot less its chips, and minus its chips for
    /// every other seat.
    fn returns(&self) -> Vec<f64> {
        let n = self.config.players;
        let Some(winner) = self.winner() else {
            return vec![0.0; n];
        };
        let pot = self.pot() as f64;
        (0..n)
            .map(|s| {
                let put = self.in_pot[s] as f64;
                if s == winner { pot - put } else { -put }
            })
            .collect()
    }

    /// The returns once the last action ended the game, else zeros.
    fn rewards(&self) -> Vec<f64> {
        self.returns()
    }

    fn add_rewards_to(&self, out: &mut [f64]) {
        if self.over {
            crate::game::add_rewards(out, &self.returns());
        }
    }

    fn heuristic(&self, seat: usize, rng: &mut GameRng) -> Action {
        super::bot::choose(self, seat, rng).action()
    }
}
