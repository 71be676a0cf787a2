//! Game parameters: the whole input as a game string (`pokeros(players=3)`), and again as a
//! name on the first line with one `key=value` per line after it. A game that is made is
//! played for a few seeded moves with the conformance checks at each state.

use checkraise_core::make_game;

use crate::{check, game_from, random_move, split_first_line};

/// Feeds one input.
pub fn run(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Some(game) = game_from(&text) {
        exercise(game.as_ref(), data);
    }
    let (name, rest) = split_first_line(data);
    let pairs: Vec<(String, String)> = rest
        .lines()
        .map(|line| match line.split_once('=') {
            Some((k, v)) => (k.to_string(), v.to_string()),
            None => (line.to_string(), String::new()),
        })
        .collect();
    if let Ok(game) = make_game(&name, pairs) {
        exercise(game.as_ref(), data);
    }
}

/// A made game: its facts, and a few seeded moves from the start, checked.
fn exercise(game: &dyn checkraise_core::Game, data: &[u8]) {
    let _ = (game.num_players(), game.num_distinct_actions());
    let _ = (game.max_chance_outcomes(), game.max_game_length());
    let _ = (
        game.observation_scalars(),
        game.information_state_tensor_size(),
    );
    // The parameters read back make the same game.
    let again = checkraise_core::registry::rebuild(game.info().name, game.params())
        .expect("a made game's parameters are valid");
    assert_eq!(again.params(), game.params());
    let seed = data
        .iter()
        .fold(0u64, |h, &b| h.rotate_left(5) ^ u64::from(b));
    let mut rng = checkraise_core::GameRng::new(seed);
    let mut state = game.new_initial_state();
    for step in 0..12 {
        if step % 4 == 0 {
            check(game, state.as_ref(), &mut rng);
        }
        if state.is_terminal() {
            break;
        }
        random_move(state.as_mut(), &mut rng);
    }
}
