//! The prototype's greedy bot: try every (cell, card) pair and take the one whose hands sum
//! to the most points, ignoring the multiplier; ties go to the last pair tried, in cell-major,
//! card-minor order (cards in id order). No lookahead.

use super::PokerosState;
use super::rules::base_score;
use crate::game::Action;

/// The greedy action for the seat to move.
pub fn greedy_action(state: &PokerosState) -> Action {
    let seat = state.to_move();
    let config = state.config();
    let slots = config.slots();
    let hand: Vec<_> = state.hand(seat).iter().collect();
    let mut best: Option<(u32, Action)> = None;
    state.board().for_each_legal(|cell| {
        for (slot, &card) in hand.iter().enumerate() {
            let score = base_score(state.board(), cell, card, config);
            if best.is_none_or(|(b, _)| score >= b) {
                best = Some((score, (cell * slots + slot) as Action));
            }
        }
    });
    best.expect("the seat to move has a legal placement").1
}
