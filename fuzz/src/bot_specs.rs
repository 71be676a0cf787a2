//! Bot specs: the first line is a game string, the second a bot spec (`ismcts(iterations=9)`),
//! the third `seed steps`. The spec is parsed and built for the game (a policy file path is
//! parsed, never read); a built bot acts once at the seeded state when that is cheap (random,
//! heuristic, the shipped policy, IS-MCTS with its iterations capped and no time budget).

use checkraise_core::bots::BotSpec;
use checkraise_core::game::Player;

use crate::{game_from, seed_and_steps, seeded_state};

/// Most IS-MCTS iterations a bot may think for here.
const MAX_ITERATIONS: u32 = 16;

/// Feeds one input.
pub fn run(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut lines = text.lines();
    let game_line = lines.next().unwrap_or("");
    let spec_line = lines.next().unwrap_or("");
    let (seed, steps) = seed_and_steps(lines.next().unwrap_or(""));
    // The registry's entry point (default parameters) takes any game name and spec.
    let _ = checkraise_core::make_bot(game_line, spec_line);
    let Some(game) = game_from(game_line) else {
        return;
    };
    let Ok(mut spec) = BotSpec::parse::<&str, &str>(spec_line, []) else {
        return;
    };
    match &mut spec {
        BotSpec::Policy { path: Some(_), .. } => return,
        BotSpec::Ismcts(config) => {
            config.iterations = config.iterations.min(MAX_ITERATIONS);
            config.max_ms = None;
        }
        _ => {}
    }
    let Ok(bot) = spec.build(game.as_ref()) else {
        return;
    };
    // The spec string reads back as the same bot.
    let again = BotSpec::parse::<&str, &str>(&bot.spec(), []).expect("a bot's spec parses");
    assert_eq!(
        again.build(game.as_ref()).map(|b| b.spec()).ok(),
        Some(bot.spec())
    );
    let (state, mut rng) = seeded_state(game.as_ref(), seed, steps);
    for seat in 0..state.num_players() + 1 {
        match bot.try_act(state.as_ref(), seat, &mut rng) {
            Ok(action) => assert!(
                state
                    .legal_actions_for(Player::Seat(seat))
                    .contains(&action),
                "{} chose illegal {action} for seat {seat}",
                bot.spec()
            ),
            Err(_) => continue,
        }
    }
}
