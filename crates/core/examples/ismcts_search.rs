//! Runs IS-MCTS searches at a game's first decision with a choice, for profiling:
//! `ismcts_search GAME SPEC SEARCHES [PLAYED]` (e.g. `pokeros 'ismcts(iterations=2000,rollout=random)' 20`).
//! With `PLAYED`, the heuristic first plays that many decisions for every seat, so that a
//! belief-weighted search (`belief=heuristic`) has bets to read.

use std::time::Instant;

use checkraise_core::bots::{BotSpec, IsmctsBot};
use checkraise_core::env::{GameRng, advance_to_choice};
use checkraise_core::make_game_from_string;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let game_name = args.get(1).map_or("pokeros", String::as_str);
    let spec = args
        .get(2)
        .map_or("ismcts(iterations=2000,rollout=random)", String::as_str);
    let searches: u32 = args.get(3).map_or(20, |s| s.parse().expect("a count"));
    let played: u32 = args.get(4).map_or(0, |s| s.parse().expect("a count"));
    let game = make_game_from_string(game_name).expect("a game");
    let mut state = game.new_initial_state();
    let mut rng = GameRng::new(1);
    advance_to_choice(state.as_mut(), &mut rng);
    for _ in 0..played {
        if state.is_terminal() {
            break;
        }
        if state.is_simultaneous_node() {
            let joint: Vec<_> = (0..state.num_players())
                .map(|seat| state.heuristic_action(seat, &mut rng))
                .collect();
            state
                .apply_actions(&joint)
                .expect("the heuristic plays legal moves");
        } else if let Some(seat) = state.current_player().seat() {
            let action = state.heuristic_action(seat, &mut rng);
            state
                .apply_action(action)
                .expect("the heuristic plays legal moves");
        }
        advance_to_choice(state.as_mut(), &mut rng);
    }
    assert!(
        !state.is_terminal(),
        "the game ended within {played} decisions"
    );
    let seat = state.current_player().seat().unwrap_or(0);
    let BotSpec::Ismcts(config) = BotSpec::parse::<&str, &str>(spec, []).expect("a spec") else {
        panic!("not an ismcts spec");
    };
    let bot = IsmctsBot::for_game(config, game.as_ref()).expect("a search this game serves");
    let start = Instant::now();
    let mut iterations = 0u64;
    for i in 0..searches {
        iterations += bot
            .search(state.as_ref(), seat, &mut GameRng::new(i as u64))
            .iterations as u64;
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{game_name} {spec}: {iterations} iterations in {secs:.2} s, {:.0}/s",
        iterations as f64 / secs
    );
}
