//! The Poker Chess heuristic bot against the random bot: it must win at least 90% of 200
//! fixed-seed games (100 as White, 100 as Black; a draw is not a win).

use checkraise_core::bots::{Bot, HeuristicBot, RandomBot};
use checkraise_core::env::resolve_chance;
use checkraise_core::{GameRng, Player, make_game};

/// Plays one game; returns the heuristic seat's return.
fn play(seed: u64, heuristic_seat: usize) -> f64 {
    let game = make_game("poker_chess", Vec::<(String, String)>::new()).unwrap();
    let bots: [Box<dyn Bot>; 2] = if heuristic_seat == 0 {
        [Box::new(HeuristicBot), Box::new(RandomBot)]
    } else {
        [Box::new(RandomBot), Box::new(HeuristicBot)]
    };
    let mut rng = GameRng::new(seed);
    let mut state = game.new_initial_state();
    loop {
        resolve_chance(state.as_mut(), &mut rng);
        match state.current_player() {
            Player::Seat(s) => {
                let a = bots[s].act(state.as_ref(), s, &mut rng);
                state.apply_action(a).unwrap();
            }
            _ => break,
        }
    }
    state.returns()[heuristic_seat]
}

/// The first seed (other bases tried: 20000, 30000, 40000 gave 192, 195, 196 wins).
const SEED_BASE: u64 = 10_000;

#[test]
fn heuristic_beats_random_in_90_percent_of_200_games() {
    let mut wins = 0;
    for g in 0..200u64 {
        if play(SEED_BASE + g, (g % 2) as usize) > 0.0 {
            wins += 1;
        }
    }
    eprintln!("heuristic wins: {wins} of 200");
    assert!(wins >= 180, "the heuristic won only {wins} of 200 games");
}
