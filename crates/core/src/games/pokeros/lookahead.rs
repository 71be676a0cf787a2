//! Each placement's two-ply estimate, the `observation=lookahead` block: the points it scores
//! now, less the points the next seat's best reply is expected to score on the board it
//! leaves, plus half the points of the mover's best placement next turn with the cards it
//! keeps.
//!
//! The next seat's reply is valued from what the mover can know: the next seat will hold
//! `m` cards (`min(slots, its hand + the deck)`) drawn from the cards the mover cannot see;
//! each such card's best placement on the new board is found, and the estimate is the
//! expected best of `m` of them drawn at random. The follow-up ignores what the reply takes.
//! Not a rule: an observation feature (measured in `docs/observations.md`).
//!
//! A card on cell `c` changes what a placement scores, and whether it is legal, only on the
//! empty cells at the ends of the runs through `c` (`Board::run_ends`, at most four), so each
//! card's best placement on the current board is found once (its six best cells), and only
//! those cells are scored again per action.

use super::PokerosState;
use super::rules::{Board, score_placement};
use super::state::Phase;
use crate::cards::{Card, CardSet};
use crate::game::Action;

/// How many of a card's best cells are kept: a placement excludes its own cell and at most
/// four run ends, so one of six is left.
const KEPT: usize = 6;

/// A card's best placements on a board: `(points, cell)`, best first, non-zero points only.
#[derive(Clone, Copy, Default)]
struct Best {
    len: usize,
    top: [(u32, usize); KEPT],
}

impl Best {
    fn of(board: &Board, legal: &[usize], card: Card, state: &PokerosState) -> Self {
        let mut best = Best::default();
        for &cell in legal {
            let points = score_placement(board, cell, card, &state.config).points;
            if points == 0 {
                continue;
            }
            let at = best.top[..best.len].partition_point(|&(p, _)| p >= points);
            if at < KEPT {
                let end = best.len.min(KEPT - 1);
                best.top.copy_within(at..end, at + 1);
                best.top[at] = (points, cell);
                best.len = (best.len + 1).min(KEPT);
            }
        }
        best
    }

    /// The best points on a cell not in `excluded`.
    fn excluding(&self, excluded: &[usize]) -> u32 {
        self.top[..self.len]
            .iter()
            .find(|(_, cell)| !excluded.contains(cell))
            .map_or(0, |&(p, _)| p)
    }
}

/// The expected largest of `m` values drawn without replacement from `values` (sorted here).
fn expected_best_of(values: &mut [f64], m: usize) -> f64 {
    values.sort_unstable_by(|a, b| b.total_cmp(a));
    let n = values.len();
    let m = m.min(n);
    if m == 0 {
        return 0.0;
    }
    // Given that none of the i larger values was drawn, value i is drawn with chance
    // m / (n - i).
    let (mut total, mut none_yet) = (0.0, 1.0);
    for (i, &v) in values.iter().enumerate() {
        let chance = (m as f64 / (n - i) as f64).min(1.0);
        total += none_yet * chance * v;
        none_yet *= 1.0 - chance;
        if none_yet == 0.0 {
            break;
        }
    }
    total
}

/// The three terms of one placement's estimate, in points.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Terms {
    /// What the placement scores now.
    pub now: f64,
    /// The next seat's expected best reply on the board it leaves.
    pub reply: f64,
    /// The mover's best placement on that board with a card it keeps.
    pub follow_up: f64,
}

impl Terms {
    /// The block's estimate: `now - reply + follow_up / 2`.
    pub fn estimate(&self) -> f64 {
        self.now - self.reply + self.follow_up / 2.0
    }
}

/// Calls `f(action, estimate)` for every legal action of the seat to move (nothing outside a
/// turn). The estimate is in points.
pub fn for_each_estimate(state: &PokerosState, mut f: impl FnMut(Action, f64)) {
    for_each_terms(state, |action, terms| f(action, terms.estimate()));
}

/// Calls `f(action, terms)` for every legal action of the seat to move (nothing outside a
/// turn).
pub fn for_each_terms(state: &PokerosState, mut f: impl FnMut(Action, Terms)) {
    if state.phase != Phase::Turn {
        return;
    }
    let config = &state.config;
    let mover = state.to_move;
    let slots = config.slots();
    let board = &state.board;
    let hand: Vec<Card> = state.hands[mover].iter().collect();
    // The cards the mover cannot see: the deck, and the other hands unless they are public.
    let mut unseen: CardSet = state.deck;
    if !state.hands_public() {
        for seat in (0..config.players).filter(|&s| s != mover) {
            unseen.0 |= state.hands[seat].0;
        }
    }
    let unseen: Vec<Card> = unseen.iter().collect();
    let next = (mover + 1) % config.players;
    let reply_cards = slots.min(state.hands[next].len() as usize + state.deck.len() as usize);
    let mut legal = Vec::new();
    board.for_each_legal(|cell| legal.push(cell));
    let unseen_best: Vec<Best> = unseen
        .iter()
        .map(|&u| Best::of(board, &legal, u, state))
        .collect();
    let hand_best: Vec<Best> = hand
        .iter()
        .map(|&k| Best::of(board, &legal, k, state))
        .collect();
    // The best points of `card` on `after` (the board with the placement on `cell`).
    let best_after = |best: &Best, card: Card, after: &Board, excluded: &[usize], ends: &[usize]| {
        ends.iter()
            .filter(|&&end| after.is_legal(end))
            .map(|&end| score_placement(after, end, card, config).points)
            .fold(best.excluding(excluded), u32::max)
    };
    let mut replies = Vec::with_capacity(unseen.len());
    for &cell in &legal {
        let ends: Vec<usize> = board.run_ends(cell).into_iter().flatten().collect();
        let mut excluded = ends.clone();
        excluded.push(cell);
        for (slot, &card) in hand.iter().enumerate() {
            let now = score_placement(board, cell, card, config).points;
            let mut after = board.clone();
            after.place(cell, card);
            replies.clear();
            replies.extend(
                unseen
                    .iter()
                    .zip(&unseen_best)
                    .map(|(&u, best)| f64::from(best_after(best, u, &after, &excluded, &ends))),
            );
            let reply = expected_best_of(&mut replies, reply_cards);
            let keep = hand
                .iter()
                .zip(&hand_best)
                .enumerate()
                .filter(|&(other, _)| other != slot)
                .map(|(_, (&k, best))| best_after(best, k, &after, &excluded, &ends))
                .max()
                .unwrap_or(0);
            let terms = Terms {
                now: f64::from(now),
                reply,
                follow_up: f64::from(keep),
            };
            f((cell * slots + slot) as Action, terms);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expected_best_of_matches_counting_every_draw() {
        let values = [5.0, 1.0, 3.0, 3.0, 0.0, 8.0];
        for m in 0..=6 {
            // Every subset of size m, equally likely.
            let n = values.len();
            let (mut sum, mut count) = (0.0, 0);
            for mask in 0u32..1 << n {
                if mask.count_ones() as usize != m {
                    continue;
                }
                let best = (0..n)
                    .filter(|&i| mask >> i & 1 == 1)
                    .map(|i| values[i])
                    .fold(0.0, f64::max);
                sum += best;
                count += 1;
            }
            let want = if count == 0 { 0.0 } else { sum / count as f64 };
            let got = expected_best_of(&mut values.clone(), m);
            assert!((got - want).abs() < 1e-9, "m {m}: {got} against {want}");
        }
    }
}
