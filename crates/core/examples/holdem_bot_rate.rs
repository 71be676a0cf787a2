//! How often the Hold'em Poker Chess heuristic bot beats the random bot by chips, over
//! fixed-seed two-player games (the heuristic in either seat, a chopped game counting as not
//! beating), for any number of hands per game:
//!
//! `cargo run --release -p checkraise-core --example holdem_bot_rate -- <hands> <first seed> <games>`

use checkraise_core::bots::{Bot, HeuristicBot, RandomBot};
use checkraise_core::game::Player;
use checkraise_core::{GameRng, make_game};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [hands, start, games] = args.as_slice() else {
        eprintln!("usage: holdem_bot_rate <hands> <first seed> <games>");
        std::process::exit(2);
    };
    let (start, games): (u64, u64) = match (start.parse(), games.parse()) {
        (Ok(s), Ok(g)) if g > 0 => (s, g),
        _ => {
            eprintln!("the first seed and the number of games must be numbers (games > 0)");
            std::process::exit(2);
        }
    };
    let game = match make_game("holdem_chess", [("hands", hands.as_str())]) {
        Ok(game) => game,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let heuristic = HeuristicBot;
    let mut wins = 0;
    for g in 0..games {
        let mut rng = GameRng::new(start + g);
        let mut state = game.new_initial_state();
        let hero = (g % 2) as usize;
        while !state.is_terminal() {
            let action = match state.current_player() {
                Player::Chance => state.sample_chance_outcome(&mut rng),
                Player::Seat(s) if s == hero => heuristic.act(state.as_ref(), s, &mut rng),
                Player::Seat(s) => RandomBot.act(state.as_ref(), s, &mut rng),
                other => unreachable!("Hold'em Poker Chess has no {other} nodes"),
            };
            state.apply_action(action).expect("bots play legal actions");
        }
        if state.returns()[hero] > 0.0 {
            wins += 1;
        }
    }
    println!(
        "hands={hands} seeds {start}..{}: the heuristic won {wins} of {games} ({:.1}%)",
        start + games,
        100.0 * wins as f64 / games as f64
    );
}
