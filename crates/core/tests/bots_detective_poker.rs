//! The Detective Poker heuristic bot against two random bots: in 200 fixed-seed 3-player
//! games (the heuristic seat rotating 0, 1, 2) it must finish with strictly more points than
//! each random player in at least 90% of them. Run in release for speed:
//! `cargo test -p checkraise-core --release --test bots_detective_poker`.

use checkraise_core::GameRng;
use checkraise_core::bots::{Bot, HeuristicBot, RandomBot};
use checkraise_core::conformance::game;
use checkraise_core::game::Player;
use checkraise_core::games::detective_poker::DetectivePokerState;
use checkraise_core::rules::rules_of;

/// Plays one game; returns whether the heuristic seat beat both random seats on points.
fn heuristic_wins(spec: &str, seed: u64) -> bool {
    let g = game(spec);
    let hero = (seed % 3) as usize;
    let mut rng = GameRng::new(seed);
    let mut state = g.new_initial_state();
    let (smart, random) = (HeuristicBot, RandomBot);
    while !state.is_terminal() {
        let a = match state.current_player() {
            Player::Chance => state.sample_chance_outcome(&mut rng),
            Player::Seat(s) if s == hero => smart.act(state.as_ref(), s, &mut rng),
            Player::Seat(s) => random.act(state.as_ref(), s, &mut rng),
            other => panic!("unexpected {other}"),
        };
        state.apply_action(a).unwrap();
    }
    let state: &DetectivePokerState = rules_of(state.as_ref()).unwrap();
    let points = state.points();
    (0..3).all(|s| s == hero || points[hero] > points[s])
}

fn win_rate(spec: &str) -> usize {
    (0..200u64)
        .filter(|&seed| heuristic_wins(spec, seed))
        .count()
}

#[test]
fn heuristic_beats_random_in_90_percent() {
    let wins = win_rate("detective_poker");
    eprintln!("heuristic beat both random players in {wins} of 200 games");
    assert!(wins >= 180, "heuristic won {wins} of 200 games");
}

#[test]
fn heuristic_beats_random_in_expert_mode() {
    let wins = win_rate("detective_poker(expert=true)");
    eprintln!("expert: heuristic beat both random players in {wins} of 200 games");
    assert!(wins >= 180, "heuristic won {wins} of 200 expert games");
}
