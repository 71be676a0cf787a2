//! The heuristic bot: estimates how likely each board is to hold the best (and the weakest)
//! hand of the current betting round by Monte Carlo over the cards the seat cannot see (its
//! own shown card and the other players' private cards), then bets on the likeliest board.
//!
//! Chips: the whole allowance on a confident bet (probability at least `CONFIDENT`) and in the
//! river, else one chip, so the chips go where the estimate is sharpest. Action cards: +1 on a
//! confident bet or in the river; Bluff when the weakest board is likelier than the best one;
//! Clockwise and Empty are never used (they add nothing to a bet the bot believes in, and an
//! unused card breaks ties at the end).

use super::DetectivePokerState;
use super::rules::{ActionCard, Bet, STREETS, max_amount};
use super::state::Event;
use crate::rng::GameRng;

/// Deals of the unseen cards per decision.
pub const SAMPLES: usize = 48;
/// A probability at which the bot bets its whole allowance and its +1.
pub const CONFIDENT: f64 = 0.6;

/// Each board's estimated chance of holding the best and the weakest hand of the current
/// betting round, as `seat` sees the state.
pub fn estimate(
    state: &DetectivePokerState,
    seat: usize,
    rng: &mut GameRng,
) -> ([f64; 6], [f64; 6]) {
    let n = state.config().players;
    let street = state.street();
    let seen = state.cards();
    // What the seat knows; a sample fills in the rest.
    let (hand, mut unseen) = seen.seen_by(seat, n);
    let (mut best, mut worst) = ([0.0; 6], [0.0; 6]);
    let mut values = [None; 6];
    for _ in 0..SAMPLES {
        // A partial shuffle deals the n unknown hole cards from the front of `unseen`.
        for k in 0..n {
            let j = k + rng.below((unseen.len() - k) as u64) as usize;
            unseen.swap(k, j);
        }
        let mut sample = hand;
        sample.shown[seat] = Some(unseen[0]);
        for (k, other) in (1..).zip((0..n).filter(|&s| s != seat)) {
            sample.private[other] = Some(unseen[k]);
        }
        for (s, v) in values.iter_mut().enumerate().take(n) {
            *v = Some(sample.value(s, street));
        }
        let (hi, lo) = (
            values[..n].iter().max().copied().flatten(),
            values[..n].iter().min().copied().flatten(),
        );
        for s in 0..n {
            best[s] += (values[s] == hi) as u8 as f64;
            worst[s] += (values[s] == lo) as u8 as f64;
        }
    }
    for s in 0..n {
        best[s] /= SAMPLES as f64;
        worst[s] /= SAMPLES as f64;
    }
    (best, worst)
}

/// The bot's bet for `seat`, which must be to act.
pub fn choose_bet(state: &DetectivePokerState, seat: usize, rng: &mut GameRng) -> Bet {
    let config = state.config();
    let n = config.players;
    let Some(Event::Bet { street, .. }) = state.next_event() else {
        panic!("the Detective Poker bot acts only when a bet is due");
    };
    let (best, worst) = estimate(state, seat, rng);
    let argmax = |p: &[f64; 6]| (0..n).fold(0, |a, s| if p[s] > p[a] { s } else { a });
    let (b, w) = (argmax(&best), argmax(&worst));
    let unused = state.unused_cards(seat);
    let has = |c: ActionCard| unused & c.bit() != 0;
    let river = street == STREETS - 1;
    let bluff = has(ActionCard::Bluff) && worst[w] > best[b];
    let (board, p) = if bluff { (w, worst[w]) } else { (b, best[b]) };
    let most = max_amount(state.chips_left(seat) as u8, street, config.max_bet);
    let amount = if river || p >= CONFIDENT { most } else { 1 };
    let plus_one = !bluff
        && has(ActionCard::PlusOne)
        && (p >= CONFIDENT || river)
        && (!config.expert || p >= 0.5);
    let card = if bluff {
        Some(ActionCard::Bluff)
    } else if plus_one {
        Some(ActionCard::PlusOne)
    } else {
        None
    };
    Bet {
        board: board as u8,
        amount: amount as u8,
        card,
    }
}
