//! The heuristic: a probability of betting from the seat's card and whether it faces a bet,
//! then a draw.
//!
//! Two players (J Q K) play a Nash equilibrium of the game (the one whose first seat bluffs
//! most):
//!
//! | seat | card | nobody has bet | facing a bet |
//! |---|---|---|---|
//! | 0 | J | bet 1/3 | fold |
//! | 0 | Q | check | call 2/3 (after checking) |
//! | 0 | K | bet | call |
//! | 1 | J | bet 1/3 (after a check) | fold |
//! | 1 | Q | check | call 1/3 |
//! | 1 | K | bet | call |
//!
//! Against it the first seat's expected return is −1/18 and the second's +1/18, and neither
//! gains by playing otherwise.
//!
//! Three or more players: bet with the top card (K) and with the lowest card 1/3 of the time
//! (a bluff) while nobody has bet, else check; call only with the top card, else fold.

use super::rules::Move;
use super::state::KuhnPokerState;
use crate::rng::GameRng;

/// How often the lowest card bets as a bluff while nobody has bet.
pub const BLUFF: f64 = 1.0 / 3.0;

/// The probability that `seat` (to act) bets (or calls) here.
pub fn bet_probability(state: &KuhnPokerState, seat: usize) -> f64 {
    let n = state.config().players;
    let card = state
        .card(seat)
        .expect("a seat acts once every card is dealt") as usize;
    let top = card == n;
    let lowest = card == 0;
    match (state.facing_bet(), n) {
        (false, _) if top => 1.0,
        (false, _) if lowest => BLUFF,
        (false, _) => 0.0,
        (true, _) if top => 1.0,
        // The middle card of two players calls sometimes: more often as the first seat, which
        // checked it and must keep the second seat's bluffs with J from paying.
        (true, 2) if card == 1 => {
            if seat == 0 {
                BLUFF + 1.0 / 3.0
            } else {
                1.0 / 3.0
            }
        }
        (true, _) => 0.0,
    }
}

/// The heuristic's move for `seat` (to act): a bet with `bet_probability`, drawing from `rng`
/// only when that is strictly between 0 and 1.
pub fn choose(state: &KuhnPokerState, seat: usize, rng: &mut GameRng) -> Move {
    let p = bet_probability(state, seat);
    let bet = if p <= 0.0 {
        false
    } else if p >= 1.0 {
        true
    } else {
        rng.unit_f64() < p
    };
    if bet { Move::Bet } else { Move::Pass }
}
