//! IS-MCTS's tests: moves, information, belief chains, memory.

use std::collections::HashMap;

use super::*;
use crate::bots::policy::PolicyNet;
use crate::bots::policy::{SafetensorsFile, TensorValues};
use crate::registry::make_game;

/// The game's shipped policy with its policy head zeroed: every legal action is equally
/// likely, so every deal weighs the same.
fn indifferent(game: &dyn Game) -> OpponentModel {
    let mut file = SafetensorsFile::read(game.shipped_policy().unwrap()).unwrap();
    for (name, tensor) in &mut file.tensors {
        if name.starts_with("policy.")
            && let TensorValues::F32(values) = &mut tensor.values
        {
            values.iter_mut().for_each(|v| *v = 0.0);
        }
    }
    OpponentModel::Policy(Arc::new(
        PolicyNet::from_bytes(&file.to_bytes().unwrap()).unwrap(),
    ))
}

/// Detective Poker and a decision in it with at least `entries` history entries, reached
/// by the heuristic's play from `seed`, with the seat to decide.
fn decision(seed: u64, entries: usize) -> (Arc<dyn Game>, Box<dyn State>, usize) {
    let game = make_game::<&str, &str>("detective_poker", []).unwrap();
    let mut state = game.new_initial_state();
    let mut rng = GameRng::new(seed);
    loop {
        crate::env::resolve_chance(state.as_mut(), &mut rng);
        let Player::Seat(seat) = state.current_player() else {
            panic!("the game ended first");
        };
        if state.history().len() >= entries {
            return (game, state, seat);
        }
        let action = state.heuristic_action(seat, &mut rng);
        state.apply_action(action).unwrap();
    }
}

/// Under a belief that weighs every deal alike, the local moves alone sample the deals the
/// searcher cannot tell apart uniformly: at the turn round, each of the five cards it has
/// not seen (its own shown card, the two other private cards, two burns) takes each of the
/// 45 cards it has not seen about equally often, and every deal the chain holds has the
/// searcher's information.
#[test]
fn local_moves_deal_the_hidden_cards_evenly_under_an_indifferent_belief() {
    let (game, state, seat) = decision(5, 18);
    let setup = BeliefSetup::new(game.as_ref(), indifferent(game.as_ref()));
    let mut chain = Chain::new(&setup, 11);
    let info = state.information_state_string(seat);
    assert!(chain.step(
        state.resample_from_infostate(seat, &mut GameRng::new(3)),
        seat
    ));
    let steps = 6000;
    let mut counts: HashMap<(usize, Action), u32> = HashMap::new();
    let mut moved = 0;
    for _ in 0..steps {
        moved += usize::from(chain.local_step(seat));
        let deal = chain.current();
        assert_eq!(deal.information_state_string(seat), info);
        for &i in chain.hidden.as_ref().unwrap() {
            *counts.entry((i, deal.history()[i].action)).or_default() += 1;
        }
    }
    let hidden = chain.hidden.clone().unwrap();
    assert_eq!(hidden.len(), 5, "hidden entries {hidden:?}");
    assert!(moved > steps / 2, "{moved} of {steps} local moves accepted");
    let expected = steps as f64 / 45.0;
    for &i in &hidden {
        let seen: Vec<u32> = counts
            .iter()
            .filter(|((j, _), _)| *j == i)
            .map(|(_, &n)| n)
            .collect();
        assert_eq!(seen.len(), 45, "entry {i} took {} cards", seen.len());
        let (lo, hi) = (*seen.iter().min().unwrap(), *seen.iter().max().unwrap());
        assert!(
            lo as f64 > expected / 2.5 && (hi as f64) < expected * 2.5,
            "entry {i}: counts from {lo} to {hi}, {expected:.0} expected"
        );
    }
}

/// With the heuristic as the belief, late in a hand a local move (one card dealt again) is
/// accepted far more often than a uniform proposal (a whole new deal), and the chain's
/// weight is always its deal's.
#[test]
fn local_moves_are_accepted_more_often_than_new_deals() {
    let (game, state, seat) = decision(8, 23);
    let setup = BeliefSetup::new(game.as_ref(), OpponentModel::Heuristic);
    let mut chain = Chain::new(&setup, 12);
    let mut rng = GameRng::new(4);
    chain.step(state.resample_from_infostate(seat, &mut rng), seat);
    let (mut local, mut uniform) = (0, 0);
    for _ in 0..300 {
        local += usize::from(chain.local_step(seat));
        uniform += usize::from(chain.step(state.resample_from_infostate(seat, &mut rng), seat));
        let (deal, weight, _) = chain.current.as_ref().unwrap();
        let deal = deal.clone();
        let weight = *weight;
        assert_eq!(chain.log_weight(deal.as_ref(), seat), weight);
    }
    assert!(
        local > 2 * uniform.max(1),
        "local moves accepted {local} times, new deals {uniform}"
    );
}
