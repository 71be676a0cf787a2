//! The Prediction Chess heuristic bot beats the random bot in at least 90% of 200 fixed-seed
//! games (draws count as not beating), playing each colour in half of them.

use checkraise_core::bots::{Bot, HeuristicBot, RandomBot};
use checkraise_core::env::GameRng;
use checkraise_core::game::Player;
use checkraise_core::registry::make_game;

#[test]
fn heuristic_beats_random_in_90_percent() {
    let game = make_game::<&str, &str>("prediction_chess", []).unwrap();
    let heuristic = HeuristicBot;
    let random = RandomBot;
    let games = 200;
    let mut wins = 0;
    for g in 0..games {
        let hero = (g % 2) as usize;
        let mut rng = GameRng::new(10_000 + g);
        let mut state = game.new_initial_state();
        while !state.is_terminal() {
            assert_eq!(state.current_player(), Player::Simultaneous);
            let joint: Vec<u32> = (0..2)
                .map(|seat| {
                    if seat == hero {
                        heuristic.act(state.as_ref(), seat, &mut rng)
                    } else {
                        random.act(state.as_ref(), seat, &mut rng)
                    }
                })
                .collect();
            state.apply_actions(&joint).unwrap();
        }
        if state.returns()[hero] > 0.0 {
            wins += 1;
        }
    }
    eprintln!("heuristic won {wins} of {games}");
    assert!(
        wins * 10 >= games * 9,
        "the heuristic won {wins} of {games} games"
    );
}
