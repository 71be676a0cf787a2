//! The heuristic: a fixed move from the seat's hand and whether it faces a bet. It draws
//! nothing.
//!
//! | hand | nothing to call | facing a bet |
//! |---|---|---|
//! | a pair with the public card, or a king | bet | raise (call once the round's two raises are made) |
//! | a queen (no pair) | check | call |
//! | a jack (no pair) | check | fold |

use super::rules::{MAX_RAISES, Move, rank};
use super::state::LeducPokerState;
use crate::rng::GameRng;

/// The rank of a king.
const KING: u8 = 2;
/// The rank of a queen.
const QUEEN: u8 = 1;

/// How the heuristic rates `seat`'s hand now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hand {
    /// A pair with the public card, or a king: bet and raise.
    Strong,
    /// A queen without a pair: check and call.
    Middle,
    /// A jack without a pair: check, and fold to a bet.
    Weak,
}

/// How the heuristic rates `seat`'s hand (its card must be dealt).
pub fn hand(state: &LeducPokerState, seat: usize) -> Hand {
    let card = state
        .card(seat)
        .expect("a seat acts once both cards are dealt");
    let pair = state.public_card().is_some_and(|p| rank(p) == rank(card));
    match rank(card) {
        _ if pair => Hand::Strong,
        KING => Hand::Strong,
        QUEEN => Hand::Middle,
        _ => Hand::Weak,
    }
}

/// The heuristic's move for `seat` (to act); `rng` is not drawn from.
pub fn choose(state: &LeducPokerState, seat: usize, _rng: &mut GameRng) -> Move {
    match hand(state, seat) {
        Hand::Strong if state.raises() < MAX_RAISES => Move::Raise,
        Hand::Weak if state.facing_bet() => Move::Fold,
        _ => Move::Call,
    }
}
