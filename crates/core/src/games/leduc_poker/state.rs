//! The Leduc poker state: the cards dealt, the betting of both rounds and the chips in the
//! pot; the rules on it (who acts, the legal sets, applying an action, the winner and the
//! returns). What a seat observes is in `observe.rs`, the state as text in `text.rs`.

use std::sync::Arc;

use super::Config;
use super::rules::{
    DECK, MAX_RAISES, MAX_ROUND_MOVES, Meaning, Move, SEATS, card_name, compare, deck_text,
    raise_size,
};
use crate::game::{Action, Player};
use crate::rng::GameRng;
use crate::rules::{Illegal, Rules};

/// The index of the public card among the deals (after the two private cards).
pub const PUBLIC: usize = SEATS;

/// One action of the betting, with where it was made and what it did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// The seat that acted.
    pub seat: usize,
    /// The betting round: 0 (before the public card) or 1.
    pub round: usize,
    /// The action.
    pub kind: Move,
    /// What it did.
    pub meaning: Meaning,
}

/// A Leduc poker state.
#[derive(Clone, Debug)]
pub struct LeducPokerState {
    pub(super) config: Arc<Config>,
    /// The cards dealt: seat 0's, seat 1's, then the public card (valid below `dealt`).
    cards: [u8; SEATS + 1],
    /// Cards dealt so far.
    dealt: usize,
    /// The betting of both rounds, in order.
    moves: [Move; 2 * MAX_ROUND_MOVES],
    /// Moves made.
    num_moves: usize,
    /// The number of moves of the first round, once it is over.
    first_round: Option<usize>,
    /// Raises (the first bet included) made in the current round.
    raises: u32,
    /// Chips each seat has put in: its ante, its bets, raises and calls.
    in_pot: [u32; SEATS],
    /// The seat that folded, if one did.
    folded: Option<usize>,
    /// Whether the game is over.
    over: bool,
}

impl LeducPokerState {
    /// The state before the first card is dealt, both antes in the pot.
    pub fn new(config: Arc<Config>) -> Self {
        LeducPokerState {
            config,
            cards: [0; SEATS + 1],
            dealt: 0,
            moves: [Move::Call; 2 * MAX_ROUND_MOVES],
            num_moves: 0,
            first_round: None,
            raises: 0,
            in_pot: [1; SEATS],
            folded: None,
            over: false,
        }
    }

    /// The typed parameters.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// `seat`'s private card (0 to 5: rank `card / 2`), once dealt (the caller decides who
    /// may see it).
    pub fn card(&self, seat: usize) -> Option<u8> {
        (seat < self.dealt.min(SEATS)).then(|| self.cards[seat])
    }

    /// The public card, once dealt.
    pub fn public_card(&self) -> Option<u8> {
        (self.dealt > PUBLIC).then(|| self.cards[PUBLIC])
    }

    /// The card of deal `index` (0 and 1 the seats' cards, 2 the public card), once dealt.
    pub fn deal(&self, index: usize) -> Option<u8> {
        (index < self.dealt).then(|| self.cards[index])
    }

    /// How many cards have been dealt (seat 0's, seat 1's, the public card).
    pub fn dealt(&self) -> usize {
        self.dealt
    }

    /// The betting so far, both rounds, in order.
    pub fn moves(&self) -> &[Move] {
        &self.moves[..self.num_moves]
    }

    /// The moves of betting round `round` (0 or 1) so far.
    pub fn round_moves(&self, round: usize) -> &[Move] {
        let split = self.first_round.unwrap_or(self.num_moves);
        if round == 0 {
            &self.moves[..split]
        } else {
            &self.moves[split..self.num_moves]
        }
    }

    /// The betting round being played (or the last one played): 0 until the public card is
    /// dealt, then 1.
    pub fn round(&self) -> usize {
        usize::from(self.public_card().is_some())
    }

    /// Whether the first betting round is over (the public card is dealt next, or was).
    pub fn first_round_over(&self) -> bool {
        self.first_round.is_some()
    }

    /// Chips `seat` has put in the pot.
    pub fn chips_in(&self, seat: usize) -> u32 {
        self.in_pot[seat]
    }

    /// Chips in the pot.
    pub fn pot(&self) -> u32 {
        self.in_pot.iter().sum()
    }

    /// Raises (the first bet included) made in the current betting round.
    pub fn raises(&self) -> u32 {
        self.raises
    }

    /// Whether the game is over.
    pub fn is_over(&self) -> bool {
        self.over
    }

    /// The seat that folded, if one did.
    pub fn folded(&self) -> Option<usize> {
        self.folded
    }

    /// Whether the game ended in a showdown (nobody folded): both cards are shown.
    pub fn showdown(&self) -> bool {
        self.over && self.folded.is_none()
    }

    /// Whether `seat`'s card was shown at the showdown (public from then on).
    pub fn shown(&self, seat: usize) -> bool {
        self.showdown() && seat < SEATS
    }

    /// The seats that win the pot, once the game is over: the seat that did not fold, else
    /// the better hand at the showdown, both seats on a split.
    pub fn winners(&self) -> Vec<usize> {
        if !self.over {
            return Vec::new();
        }
        if let Some(folded) = self.folded {
            return vec![1 - folded];
        }
        match compare(self.cards[0], self.cards[1], self.cards[PUBLIC]) {
            x if x > 0 => vec![0],
            x if x < 0 => vec![1],
            _ => vec![0, 1],
        }
    }

    /// Whether the seat to act faces a bet (it may fold, and calling costs chips).
    pub fn facing_bet(&self) -> bool {
        self.in_pot[0] != self.in_pot[1]
    }

    /// Every action of the betting, with its seat, round and meaning.
    pub fn steps(&self) -> Vec<Step> {
        let mut in_pot = [1u32; SEATS];
        let mut out = Vec::with_capacity(self.num_moves);
        for (i, &kind) in self.moves().iter().enumerate() {
            let (round, start) = match self.first_round {
                Some(split) if i >= split => (1, split),
                _ => (0, 0),
            };
            let seat = (i - start) % SEATS;
            let other = 1 - seat;
            let facing = in_pot[seat] != in_pot[other];
            match kind {
                Move::Fold => {}
                Move::Call => in_pot[seat] = in_pot[other],
                Move::Raise => in_pot[seat] = in_pot[other] + raise_size(round),
            }
            out.push(Step {
                seat,
                round,
                kind,
                meaning: kind.meaning(facing),
            });
        }
        out
    }

    /// The first move of the current round's index in `moves`.
    fn round_start(&self) -> usize {
        match self.first_round {
            Some(split) if self.public_card().is_some() => split,
            _ => 0,
        }
    }

    /// Whether chance deals now: a private card, or the public card after the first round.
    fn chance_to_deal(&self) -> bool {
        self.dealt < SEATS || (self.first_round.is_some() && self.dealt == PUBLIC)
    }

    fn apply_chance(&mut self, action: Action) -> Result<(), Illegal> {
        if action as usize >= DECK {
            return Err(Illegal::new(format!(
                "card {action} is outside the deck: 0 to {} ({}, lowest first)",
                DECK - 1,
                deck_text()
            )));
        }
        let card = action as u8;
        if let Some(i) = (0..self.dealt).find(|&i| self.cards[i] == card) {
            let to = if i == PUBLIC {
                "the board".to_string()
            } else {
                format!("seat {i}")
            };
            return Err(Illegal::new(format!(
                "card {} was already dealt to {to}",
                card_name(card)
            )));
        }
        self.cards[self.dealt] = card;
        self.dealt += 1;
        Ok(())
    }

    fn apply_move(&mut self, seat: usize, action: Action) -> Result<(), Illegal> {
        let Some(m) = Move::from_action(action) else {
            return Err(Illegal::new(
                "Leduc poker's actions are 0 (fold), 1 (call or check) and 2 (raise or bet)",
            ));
        };
        let other = 1 - seat;
        let facing = self.facing_bet();
        match m {
            Move::Fold if !facing => {
                return Err(Illegal::new(
                    "fold is legal only facing a bet: there is nothing to call",
                ));
            }
            Move::Raise if self.raises >= MAX_RAISES => {
                return Err(Illegal::new(format!(
                    "a betting round allows {MAX_RAISES} raises (the bet included), and both \
                     were made"
                )));
            }
            _ => {}
        }
        let in_round = self.num_moves - self.round_start();
        self.moves[self.num_moves] = m;
        self.num_moves += 1;
        match m {
            Move::Fold => {
                self.folded = Some(seat);
                self.over = true;
            }
            Move::Raise => {
                self.in_pot[seat] = self.in_pot[other] + raise_size(self.round());
                self.raises += 1;
            }
            Move::Call => {
                self.in_pot[seat] = self.in_pot[other];
                // A call of a bet, or the second check, ends the round.
                if in_round >= 1 {
                    if self.round() == 0 {
                        self.first_round = Some(self.num_moves);
                        self.raises = 0;
                    } else {
                        self.over = true;
                    }
                }
            }
        }
        Ok(())
    }

    /// The cards chance may deal now: those not dealt yet, as a bit set of card ids.
    fn undealt(&self) -> u64 {
        let all = (1u64 << DECK) - 1;
        let dealt = self.cards[..self.dealt]
            .iter()
            .fold(0u64, |set, &c| set | 1 << c);
        all & !dealt
    }
}

impl Rules for LeducPokerState {
    type Config = Config;

    fn config(&self) -> &Config {
        &self.config
    }

    fn current_player(&self) -> Player {
        if self.over {
            Player::Terminal
        } else if self.chance_to_deal() {
            Player::Chance
        } else {
            Player::Seat((self.num_moves - self.round_start()) % SEATS)
        }
    }

    /// A seat: call, and raise while the round allows one more; fold only facing a bet.
    fn legal_actions_into(&self, player: Player, out: &mut Vec<Action>) {
        match player {
            Player::Chance => out.extend(crate::rng::set_bits(&[self.undealt()]).map(|c| c as u32)),
            _ => {
                if self.facing_bet() {
                    out.push(Move::Fold.action());
                }
                out.push(Move::Call.action());
                if self.raises < MAX_RAISES {
                    out.push(Move::Raise.action());
                }
            }
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

    /// Zero before the end; then what each seat wins less what it put in (a split pot gives
    /// each seat half).
    fn returns(&self) -> Vec<f64> {
        let winners = self.winners();
        if winners.is_empty() {
            return vec![0.0; SEATS];
        }
        let share = self.pot() as f64 / winners.len() as f64;
        (0..SEATS)
            .map(|s| {
                let won = if winners.contains(&s) { share } else { 0.0 };
                won - self.in_pot[s] as f64
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
