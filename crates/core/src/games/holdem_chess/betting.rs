//! No-limit Texas hold'em betting for 2–10 seats, on its own: blinds, button, heads-up order,
//! minimum raises, incomplete all-in raises that do not reopen the betting, side pots, split
//! pots and odd chips. Nothing here knows about cards: the showdown hands strengths to
//! [`Betting::payouts`].
//!
//! Conventions (docs/games/holdem_chess.md and standard no-limit rules):
//! - Seats that start the hand with no chips are not dealt in.
//! - Heads-up the button posts the small blind, acts first preflop and last after the flop;
//!   otherwise the small blind is the first dealt seat left of the button, the big blind the
//!   next, preflop action starts left of the big blind, and later streets left of the button.
//! - A blind a seat cannot cover is posted all-in; the amount to call preflop is still the
//!   full big blind (chips above a short blind come back as an uncalled side pot).
//! - The minimum raise is the size of the last full raise on the street, at least the big
//!   blind. An all-in raise smaller than that is allowed but does not reopen the betting: a
//!   seat that already acted may raise again only when the bet has grown by at least a full
//!   raise since it last acted (so several short all-ins that add up to a full raise reopen).
//! - Folding is offered only when facing a bet (folding when a check is free is refused), and
//!   raising only while another seat still in the hand has chips behind.

use std::fmt;

/// Most seats at a table.
pub const MAX_SEATS: usize = 10;

/// A betting decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BetAction {
    /// Give up the hand.
    Fold,
    /// Check, or call the current bet (all-in for less when short).
    CheckCall,
    /// Raise (or bet) so that the seat's total bet on this street becomes the amount.
    RaiseTo(u32),
}

/// Why a betting action was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BetError {
    /// Not this seat's turn (or nobody's: the round is over).
    #[error("seat {seat} cannot act: {to_act}")]
    OutOfTurn {
        /// Who tried.
        seat: usize,
        /// Who is to act, in words.
        to_act: String,
    },
    /// A fold when checking is free.
    #[error("folding is not offered when there is no bet to call; check instead")]
    FoldWithoutBet,
    /// A raise when raising is not allowed.
    #[error("raising is not allowed: {0}")]
    RaiseNotAllowed(&'static str),
    /// A raise-to amount below the minimum (and not all-in).
    #[error("raise to {to} is below the minimum raise-to {min} (all-in is {all_in})")]
    RaiseTooSmall {
        /// The amount asked for.
        to: u32,
        /// The smallest legal raise-to.
        min: u32,
        /// The seat's all-in raise-to.
        all_in: u32,
    },
    /// A raise-to amount above the seat's chips.
    #[error("raise to {to} is more than the seat has (all-in is raise to {all_in})")]
    RaiseTooLarge {
        /// The amount asked for.
        to: u32,
        /// The seat's all-in raise-to.
        all_in: u32,
    },
}

/// The betting state of one hand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Betting {
    n: usize,
    stack: [u32; MAX_SEATS],
    street_bet: [u32; MAX_SEATS],
    total_bet: [u32; MAX_SEATS],
    acted_level: [u32; MAX_SEATS],
    dealt: u16,
    in_hand: u16,
    acted: u16,
    current_bet: u32,
    min_raise: u32,
    big_blind: u32,
    button: usize,
    small_blind_seat: usize,
    big_blind_seat: usize,
    street: u8,
    to_act: Option<usize>,
}

#[inline]
fn bit(seat: usize) -> u16 {
    1 << seat
}

impl Betting {
    /// Starts a hand: seats with chips are dealt in, blinds are posted and the first seat to
    /// act is found. `stacks.len()` is the table size (2..=10); `button` must be a seat with
    /// chips and at least two seats must have chips.
    pub fn new(stacks: &[u32], button: usize, small_blind: u32, big_blind: u32) -> Betting {
        let n = stacks.len();
        assert!((2..=MAX_SEATS).contains(&n), "2 to 10 seats");
        let mut stack = [0; MAX_SEATS];
        stack[..n].copy_from_slice(stacks);
        let dealt = (0..n)
            .filter(|&s| stack[s] > 0)
            .fold(0u16, |m, s| m | bit(s));
        assert!(dealt.count_ones() >= 2, "two seats with chips");
        assert!(dealt & bit(button) != 0, "the button has chips");
        let mut b = Betting {
            n,
            stack,
            street_bet: [0; MAX_SEATS],
            total_bet: [0; MAX_SEATS],
            acted_level: [0; MAX_SEATS],
            dealt,
            in_hand: dealt,
            acted: 0,
            current_bet: big_blind,
            min_raise: big_blind.max(1),
            big_blind: big_blind.max(1),
            button,
            small_blind_seat: button,
            big_blind_seat: button,
            street: 0,
            to_act: None,
        };
        let (sb, bb) = if dealt.count_ones() == 2 {
            (button, b.next_dealt(button))
        } else {
            let sb = b.next_dealt(button);
            (sb, b.next_dealt(sb))
        };
        b.small_blind_seat = sb;
        b.big_blind_seat = bb;
        b.commit(sb, small_blind);
        b.commit(bb, big_blind);
        b.to_act = b.next_to_act(bb);
        b
    }

    fn next_dealt(&self, seat: usize) -> usize {
        (1..=self.n)
            .map(|k| (seat + k) % self.n)
            .find(|&s| self.dealt & bit(s) != 0)
            .expect("a dealt seat")
    }

    /// Moves up to `amount` chips from the seat's stack into its bets.
    fn commit(&mut self, seat: usize, amount: u32) {
        let amount = amount.min(self.stack[seat]);
        self.stack[seat] -= amount;
        self.street_bet[seat] += amount;
        self.total_bet[seat] += amount;
    }

    /// Whether the seat is in the hand with chips behind.
    fn can_bet(&self, seat: usize) -> bool {
        self.in_hand & bit(seat) != 0 && self.stack[seat] > 0
    }

    fn needs_action(&self, seat: usize) -> bool {
        if !self.can_bet(seat) {
            return false;
        }
        let behind = self.street_bet[seat] < self.current_bet;
        if !behind && self.acted & bit(seat) != 0 {
            return false;
        }
        // Alone with chips and nothing to call: nobody is left to bet against.
        let others = (0..self.n).any(|s| s != seat && self.can_bet(s));
        others || behind
    }

    fn next_to_act(&self, after: usize) -> Option<usize> {
        if self.in_hand.count_ones() < 2 {
            return None;
        }
        (1..=self.n)
            .map(|k| (after + k) % self.n)
            .find(|&s| self.needs_action(s))
    }

    /// Number of seats at the table.
    pub fn num_seats(&self) -> usize {
        self.n
    }
    /// The seat to act, or `None` when the betting round (or the hand) is over.
    pub fn to_act(&self) -> Option<usize> {
        self.to_act
    }
    /// The street: 0 preflop, 1 flop, 2 turn, 3 river.
    pub fn street(&self) -> u8 {
        self.street
    }
    /// The button seat.
    pub fn button(&self) -> usize {
        self.button
    }
    /// The seat that posted the small blind.
    pub fn small_blind_seat(&self) -> usize {
        self.small_blind_seat
    }
    /// The seat that posted the big blind.
    pub fn big_blind_seat(&self) -> usize {
        self.big_blind_seat
    }
    /// Chips behind (not yet bet).
    pub fn stack(&self, seat: usize) -> u32 {
        self.stack[seat]
    }
    /// Chips bet on this street.
    pub fn street_bet(&self, seat: usize) -> u32 {
        self.street_bet[seat]
    }
    /// Chips bet in this hand.
    pub fn total_bet(&self, seat: usize) -> u32 {
        self.total_bet[seat]
    }
    /// Whether the seat was dealt in.
    pub fn is_dealt(&self, seat: usize) -> bool {
        self.dealt & bit(seat) != 0
    }
    /// Whether the seat is still in the hand (dealt and not folded).
    pub fn is_in_hand(&self, seat: usize) -> bool {
        self.in_hand & bit(seat) != 0
    }
    /// Whether the seat folded.
    pub fn has_folded(&self, seat: usize) -> bool {
        self.is_dealt(seat) && !self.is_in_hand(seat)
    }
    /// Whether the seat is in the hand with no chips behind.
    pub fn is_all_in(&self, seat: usize) -> bool {
        self.is_in_hand(seat) && self.stack[seat] == 0
    }
    /// Seats still in the hand, as a bit mask.
    pub fn in_hand_mask(&self) -> u16 {
        self.in_hand
    }
    /// Number of seats still in the hand.
    pub fn num_in_hand(&self) -> usize {
        self.in_hand.count_ones() as usize
    }
    /// Number of seats in the hand with chips behind.
    pub fn num_can_bet(&self) -> usize {
        (0..self.n).filter(|&s| self.can_bet(s)).count()
    }
    /// The highest bet on this street.
    pub fn current_bet(&self) -> u32 {
        self.current_bet
    }
    /// The size of the last full raise (at least the big blind).
    pub fn min_raise(&self) -> u32 {
        self.min_raise
    }
    /// All chips bet in this hand.
    pub fn pot(&self) -> u32 {
        self.total_bet[..self.n].iter().sum()
    }
    /// Chips on the table: stacks plus the pot (constant during a hand).
    pub fn total_chips(&self) -> u32 {
        self.stack[..self.n].iter().sum::<u32>() + self.pot()
    }
    /// What the seat must add to call (capped by its stack).
    pub fn to_call(&self, seat: usize) -> u32 {
        self.current_bet
            .saturating_sub(self.street_bet[seat])
            .min(self.stack[seat])
    }
    /// Whether the seat may fold now (only when facing a bet).
    pub fn can_fold(&self, seat: usize) -> bool {
        self.street_bet[seat] < self.current_bet
    }
    /// Whether the betting round is over (no seat to act).
    pub fn round_over(&self) -> bool {
        self.to_act.is_none()
    }

    /// Why the seat may not raise now, or `None` when it may.
    fn raise_refusal(&self, seat: usize) -> Option<&'static str> {
        if !self.can_bet(seat) {
            return Some("the seat is not in the hand with chips");
        }
        if self.street_bet[seat] + self.stack[seat] <= self.current_bet {
            return Some("the seat's chips do not cover more than a call");
        }
        if !(0..self.n).any(|s| s != seat && self.can_bet(s)) {
            return Some("every other seat in the hand is all-in");
        }
        if self.acted & bit(seat) != 0 && self.current_bet < self.acted_level[seat] + self.min_raise
        {
            return Some(
                "the seat already acted and the bet has not grown by a full raise since \
                 (a short all-in does not reopen the betting)",
            );
        }
        None
    }

    /// The legal raise-to range `(min, max)` of the seat, `max` being all-in; `None` when it
    /// may not raise. Every integer in the range is legal.
    pub fn raise_range(&self, seat: usize) -> Option<(u32, u32)> {
        if self.raise_refusal(seat).is_some() {
            return None;
        }
        let all_in = self.street_bet[seat] + self.stack[seat];
        Some(((self.current_bet + self.min_raise).min(all_in), all_in))
    }

    /// Checks an action without applying it.
    pub fn check(&self, seat: usize, action: BetAction) -> Result<(), BetError> {
        if self.to_act != Some(seat) {
            return Err(BetError::OutOfTurn {
                seat,
                to_act: match self.to_act {
                    Some(s) => format!("seat {s} is to act"),
                    None => "the betting round is over".to_string(),
                },
            });
        }
        match action {
            BetAction::Fold if !self.can_fold(seat) => Err(BetError::FoldWithoutBet),
            BetAction::Fold | BetAction::CheckCall => Ok(()),
            BetAction::RaiseTo(to) => {
                if let Some(why) = self.raise_refusal(seat) {
                    return Err(BetError::RaiseNotAllowed(why));
                }
                let (min, all_in) = self.raise_range(seat).expect("raising is allowed");
                if to > all_in {
                    Err(BetError::RaiseTooLarge { to, all_in })
                } else if to < min {
                    Err(BetError::RaiseTooSmall { to, min, all_in })
                } else {
                    Ok(())
                }
            }
        }
    }

    /// Applies the seat's action (refused with no change when illegal).
    pub fn apply(&mut self, seat: usize, action: BetAction) -> Result<(), BetError> {
        self.check(seat, action)?;
        match action {
            BetAction::Fold => self.in_hand &= !bit(seat),
            BetAction::CheckCall => self.commit(seat, self.current_bet - self.street_bet[seat]),
            BetAction::RaiseTo(to) => {
                let raise = to - self.current_bet;
                if raise >= self.min_raise {
                    self.min_raise = raise;
                }
                self.commit(seat, to - self.street_bet[seat]);
                self.current_bet = to;
            }
        }
        self.acted |= bit(seat);
        self.acted_level[seat] = self.current_bet;
        self.to_act = self.next_to_act(seat);
        Ok(())
    }

    /// Starts the next street (after the round is over): bets reset, action from the first
    /// seat left of the button that needs to act.
    pub fn next_street(&mut self) {
        debug_assert!(self.round_over() && self.street < 3);
        self.street += 1;
        self.street_bet = [0; MAX_SEATS];
        self.current_bet = 0;
        self.min_raise = self.big_blind;
        self.acted = 0;
        self.to_act = self.next_to_act(self.button);
    }

    /// What each seat wins from the pot, given the strength of each seat still in the hand
    /// (`strength[s]` for seats in the hand; larger wins; ignored for others). Side pots are
    /// layered by contribution; a split pot's odd chips go one each to the winners in seat
    /// order starting left of the button. With one seat in the hand it wins everything.
    pub fn payouts<T: Ord + Copy>(&self, strength: &[T]) -> [u32; MAX_SEATS] {
        let mut won = [0u32; MAX_SEATS];
        let mut left = self.total_bet;
        loop {
            let level = (0..self.n)
                .filter(|&s| self.is_in_hand(s) && left[s] > 0)
                .map(|s| left[s])
                .min();
            let Some(level) = level else { break };
            let eligible = (0..self.n)
                .filter(|&s| self.is_in_hand(s) && left[s] > 0)
                .fold(0u16, |m, s| m | bit(s));
            let mut layer = 0;
            for amount in left[..self.n].iter_mut() {
                let take = (*amount).min(level);
                *amount -= take;
                layer += take;
            }
            self.split(layer, strength, eligible, &mut won);
        }
        // Chips of folded seats above every live seat's contribution (cannot happen with legal
        // betting, kept for conservation): they go to the best live hand.
        let rest: u32 = left[..self.n].iter().sum();
        if rest > 0 {
            self.split(rest, strength, self.in_hand, &mut won);
        }
        won
    }

    fn split<T: Ord + Copy>(
        &self,
        chips: u32,
        strength: &[T],
        eligible: u16,
        won: &mut [u32; MAX_SEATS],
    ) {
        let order = (1..=self.n)
            .map(|k| (self.button + k) % self.n)
            .filter(|&s| eligible & bit(s) != 0);
        let Some(best) = order.clone().map(|s| strength[s]).max() else {
            return;
        };
        let winners = || order.clone().filter(|&s| strength[s] == best);
        let count = winners().count() as u32;
        let (share, mut odd) = (chips / count, chips % count);
        for s in winners() {
            won[s] += share + u32::from(odd > 0);
            odd = odd.saturating_sub(1);
        }
    }

    /// Stacks after the hand: chips behind plus the payouts.
    pub fn settle<T: Ord + Copy>(&self, strength: &[T]) -> [u32; MAX_SEATS] {
        let won = self.payouts(strength);
        let mut out = [0; MAX_SEATS];
        for s in 0..self.n {
            out[s] = self.stack[s] + won[s];
        }
        out
    }
}

impl fmt::Display for Betting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "street {} pot {} bet {} min raise {}",
            self.street,
            self.pot(),
            self.current_bet,
            self.min_raise
        )?;
        for s in 0..self.n {
            let tag = if !self.is_dealt(s) {
                "out"
            } else if self.has_folded(s) {
                "folded"
            } else if self.stack[s] == 0 {
                "all-in"
            } else {
                "in"
            };
            write!(
                f,
                " | s{s} {tag} stack {} bet {}/{}",
                self.stack[s], self.street_bet[s], self.total_bet[s]
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::GameRng;

    use BetAction::{CheckCall, Fold, RaiseTo};

    #[test]
    fn heads_up_button_posts_small_blind_acts_first_preflop_last_after() {
        let mut b = Betting::new(&[200, 200], 0, 1, 2);
        assert_eq!((b.small_blind_seat(), b.big_blind_seat()), (0, 1));
        assert_eq!((b.street_bet(0), b.street_bet(1)), (1, 2));
        assert_eq!(b.to_act(), Some(0));
        b.apply(0, CheckCall).unwrap();
        assert_eq!(b.to_act(), Some(1), "the big blind has the option");
        b.apply(1, CheckCall).unwrap();
        assert!(b.round_over());
        b.next_street();
        assert_eq!(
            b.to_act(),
            Some(1),
            "the big blind acts first after the flop"
        );
        b.apply(1, CheckCall).unwrap();
        assert_eq!(b.to_act(), Some(0));
        b.apply(0, CheckCall).unwrap();
        assert!(b.round_over());
    }

    #[test]
    fn three_handed_positions() {
        let b = Betting::new(&[200, 200, 200], 0, 1, 2);
        assert_eq!((b.small_blind_seat(), b.big_blind_seat()), (1, 2));
        assert_eq!(b.to_act(), Some(0));
        let mut b = Betting::new(&[200, 200, 200, 200], 1, 1, 2);
        assert_eq!((b.small_blind_seat(), b.big_blind_seat()), (2, 3));
        assert_eq!(b.to_act(), Some(0));
        for s in [0, 1, 2] {
            b.apply(s, CheckCall).unwrap();
        }
        b.apply(3, CheckCall).unwrap();
        b.next_street();
        assert_eq!(b.to_act(), Some(2), "postflop starts left of the button");
    }

    #[test]
    fn busted_seats_are_skipped() {
        let b = Betting::new(&[200, 0, 200, 200], 0, 1, 2);
        assert!(!b.is_dealt(1));
        assert_eq!((b.small_blind_seat(), b.big_blind_seat()), (2, 3));
        assert_eq!(b.to_act(), Some(0));
        let b = Betting::new(&[200, 0, 200], 2, 1, 2);
        assert_eq!((b.small_blind_seat(), b.big_blind_seat()), (2, 0));
        assert_eq!(b.to_act(), Some(2), "heads-up among the seats with chips");
    }

    #[test]
    fn min_raise_after_a_raise() {
        let mut b = Betting::new(&[200, 200, 200], 0, 1, 2);
        assert_eq!(b.raise_range(0), Some((4, 200)));
        b.apply(0, RaiseTo(10)).unwrap(); // a raise of 8
        assert_eq!(b.min_raise(), 8);
        assert_eq!(b.raise_range(1), Some((18, 200)));
        let before = b.clone();
        assert_eq!(
            b.apply(1, RaiseTo(17)),
            Err(BetError::RaiseTooSmall {
                to: 17,
                min: 18,
                all_in: 200
            })
        );
        assert_eq!(
            b.apply(1, RaiseTo(201)),
            Err(BetError::RaiseTooLarge {
                to: 201,
                all_in: 200
            })
        );
        assert_eq!(b, before, "refused actions change nothing");
        b.apply(1, RaiseTo(30)).unwrap(); // a raise of 20
        assert_eq!(b.raise_range(2), Some((50, 200)));
        assert!(matches!(
            b.apply(0, CheckCall),
            Err(BetError::OutOfTurn { .. })
        ));
        // Postflop the minimum bet is the big blind.
        b.apply(2, CheckCall).unwrap();
        b.apply(0, CheckCall).unwrap();
        b.next_street();
        assert_eq!(b.raise_range(1), Some((2, 170)));
        assert_eq!(b.apply(1, Fold), Err(BetError::FoldWithoutBet));
    }

    #[test]
    fn short_all_in_does_not_reopen_betting() {
        // Seat 1 has only 15 behind the small blind: its all-in is an incomplete raise.
        let mut b = Betting::new(&[200, 15, 200], 0, 1, 2);
        b.apply(0, RaiseTo(10)).unwrap();
        b.apply(1, RaiseTo(15)).unwrap(); // short all-in (raise of 5 < 8)
        assert!(b.is_all_in(1));
        assert_eq!(b.min_raise(), 8);
        // Seat 2 has not acted: it may raise, minimum 15 + 8.
        assert_eq!(b.raise_range(2), Some((23, 200)));
        b.apply(2, CheckCall).unwrap();
        // Seat 0 already acted at 10; 15 < 10 + 8: call or fold only.
        assert_eq!(b.to_act(), Some(0));
        assert_eq!(b.raise_range(0), None);
        assert!(matches!(
            b.apply(0, RaiseTo(40)),
            Err(BetError::RaiseNotAllowed(_))
        ));
        b.apply(0, CheckCall).unwrap();
        assert!(b.round_over());
        assert_eq!(b.pot(), 45);
    }

    #[test]
    fn short_all_ins_adding_to_a_full_raise_reopen() {
        let mut b = Betting::new(&[200, 200, 14, 20], 0, 1, 2);
        // seat 1 SB, 2 BB, 3 first.
        b.apply(3, CheckCall).unwrap();
        b.apply(0, RaiseTo(10)).unwrap(); // raise of 8
        b.apply(1, CheckCall).unwrap();
        b.apply(2, RaiseTo(14)).unwrap(); // short, 14 < 18
        b.apply(3, RaiseTo(20)).unwrap(); // short; 20 >= 10 + 8 for seat 0 and seat 1
        assert_eq!(b.to_act(), Some(0));
        assert_eq!(b.raise_range(0), Some((28, 200)));
    }

    #[test]
    fn three_way_all_in_with_two_side_pots() {
        // Button 0, blinds 1 and 2 from seats 1 and 2; seat 3 acts first.
        let mut b = Betting::new(&[300, 50, 100, 150], 0, 1, 2);
        b.apply(3, RaiseTo(150)).unwrap();
        b.apply(0, CheckCall).unwrap();
        b.apply(1, CheckCall).unwrap();
        b.apply(2, CheckCall).unwrap();
        assert!(b.round_over());
        assert!(b.is_all_in(1) && b.is_all_in(2) && b.is_all_in(3));
        assert_eq!(b.pot(), 450);
        // Main pot 4 x 50, first side pot 3 x 50 (seats 0, 2, 3), second 2 x 50 (seats 0, 3).
        assert_eq!(&b.payouts(&[0, 3, 2, 1])[..4], &[0, 200, 150, 100]);
        assert_eq!(&b.payouts(&[4, 3, 2, 1])[..4], &[450, 0, 0, 0]);
        assert_eq!(&b.payouts(&[0, 1, 3, 2])[..4], &[0, 0, 350, 100]);
        // Later streets: nobody can bet (one seat with chips, nothing to call).
        b.next_street();
        assert!(b.round_over());
        // A raise against seats that are all in is refused.
        let mut b = Betting::new(&[50, 100, 200], 0, 1, 2);
        b.apply(0, RaiseTo(50)).unwrap();
        b.apply(1, RaiseTo(100)).unwrap();
        assert_eq!(b.raise_range(2), None);
        assert!(matches!(
            b.apply(2, RaiseTo(200)),
            Err(BetError::RaiseNotAllowed(_))
        ));
    }

    #[test]
    fn split_pot_odd_chip_goes_left_of_the_button() {
        // Button 2: seat 0 posts the small blind and folds, leaving an odd pot of 5.
        let mut b = Betting::new(&[200, 200, 200], 2, 1, 2);
        b.apply(2, CheckCall).unwrap();
        b.apply(0, Fold).unwrap();
        b.apply(1, CheckCall).unwrap();
        assert!(b.round_over());
        assert_eq!(b.pot(), 5);
        // Seats 1 and 2 tie; seat 1 is the first winner left of the button: 3 and 2.
        assert_eq!(&b.payouts(&[0, 9, 9])[..3], &[0, 3, 2]);
        assert_eq!(&b.settle(&[0, 9, 9])[..3], &[199, 201, 200]);
        // Button 0: seats 0 and 2 tie in a pot of 9 (4 + 1 + 4); seat 2 is first left of the
        // button among the winners and takes the odd chip.
        let mut b = Betting::new(&[200, 200, 200], 0, 1, 2);
        b.apply(0, RaiseTo(4)).unwrap();
        b.apply(1, Fold).unwrap();
        b.apply(2, CheckCall).unwrap();
        assert_eq!(b.pot(), 9);
        assert_eq!(&b.payouts(&[5, 0, 5])[..3], &[4, 0, 5]);
    }

    #[test]
    fn ten_seats() {
        let mut b = Betting::new(&[200; 10], 9, 1, 2);
        assert_eq!((b.small_blind_seat(), b.big_blind_seat()), (0, 1));
        assert_eq!(b.to_act(), Some(2));
        for s in 2..10 {
            b.apply(s, CheckCall).unwrap();
        }
        b.apply(0, CheckCall).unwrap();
        b.apply(1, CheckCall).unwrap();
        assert!(b.round_over());
        assert_eq!(b.pot(), 20);
        b.next_street();
        assert_eq!(b.to_act(), Some(0));
    }

    #[test]
    fn short_blinds_post_all_in() {
        let b = Betting::new(&[200, 1], 0, 1, 2);
        // Heads-up: seat 0 button posts 1, seat 1 posts its 1 chip all-in.
        assert!(b.is_all_in(1));
        assert_eq!(
            b.to_act(),
            Some(0),
            "the button must still call the big blind"
        );
        let mut b = b;
        assert_eq!(b.raise_range(0), None);
        b.apply(0, CheckCall).unwrap();
        assert!(b.round_over());
        // Seat 1 wins: the uncalled chip comes back to seat 0.
        assert_eq!(&b.settle(&[0, 1])[..2], &[199, 2]);
    }

    /// Chips are conserved at every step of random betting, and the settled stacks sum to
    /// the chips at the start.
    #[test]
    fn chip_conservation_over_random_play() {
        let mut rng = GameRng::new(99);
        for _ in 0..400 {
            let n = 2 + rng.below(9) as usize;
            let stacks: Vec<u32> = (0..n).map(|_| rng.below(60) as u32).collect();
            let mut stacks = stacks;
            stacks[0] = stacks[0].max(1);
            stacks[1] = stacks[1].max(1);
            let button = 0;
            let total: u32 = stacks.iter().sum();
            let mut b = Betting::new(&stacks, button, 1, 2);
            assert_eq!(b.total_chips(), total);
            loop {
                while let Some(s) = b.to_act() {
                    let action = match rng.below(4) {
                        0 if b.can_fold(s) => Fold,
                        1 | 2 => match b.raise_range(s) {
                            Some((lo, hi)) => RaiseTo(lo + rng.below((hi - lo + 1) as u64) as u32),
                            None => CheckCall,
                        },
                        _ => CheckCall,
                    };
                    b.apply(s, action).unwrap();
                    assert_eq!(b.total_chips(), total);
                    assert!(b.current_bet >= (0..n).map(|s| b.street_bet(s)).max().unwrap());
                }
                if b.num_in_hand() == 1 || b.street() == 3 {
                    break;
                }
                b.next_street();
            }
            let strength: Vec<u64> = (0..n).map(|_| rng.below(3)).collect();
            let after = b.settle(&strength);
            assert_eq!(after[..n].iter().sum::<u32>(), total);
        }
    }
}
