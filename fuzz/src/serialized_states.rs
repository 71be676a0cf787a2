//! Serialized states: the first line is a game string, the rest a serialized state given to
//! `Game::deserialize_state` (the same text also goes to each registered game with default
//! parameters). A state that deserializes goes through every conformance check (legal
//! actions, masks, observations, views, strings, clone and serialization round trips,
//! information hiding) and one legal move after it.

use checkraise_core::game::Game;
use checkraise_core::{GameRng, registry};

use crate::{check, game_from, random_move, split_first_line};

/// Feeds one input.
pub fn run(data: &[u8]) {
    let (first, rest) = split_first_line(data);
    if let Some(game) = game_from(&first) {
        exercise(game.as_ref(), &rest);
    }
    for entry in registry::entries() {
        if let Ok(game) = registry::make_game::<&str, &str>(entry.info.name, []) {
            exercise(game.as_ref(), &rest);
        }
    }
}

fn exercise(game: &dyn Game, text: &str) {
    let Ok(state) = game.deserialize_state(text) else {
        return;
    };
    let mut rng = GameRng::new(text.len() as u64);
    check(game, state.as_ref(), &mut rng);
    let mut next = state.clone_box();
    random_move(next.as_mut(), &mut rng);
    let back = game
        .deserialize_state(&next.serialize())
        .expect("a state's serialization reads back");
    assert_eq!(back.serialize(), next.serialize());
}
