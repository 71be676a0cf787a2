//! Fuzz targets over every input surface of the checkraise engine and its gRPC services.
//!
//! Each module's `run` takes one fuzz input and feeds it to the engine's public API; a panic
//! (or a broken invariant, checked with the conformance gate) is a finding. The AFL++
//! harnesses in `src/bin/` call them (`scripts/fuzz.sh`), and `tests/replay.rs` replays the
//! seed corpus and every regression input through them.

use std::sync::Arc;

use checkraise_core::game::{Action, Game, Player, State};
use checkraise_core::{GameRng, make_game_from_string};

pub mod action_strings;
pub mod bot_specs;
pub mod corpus;
pub mod game_params;
#[cfg(feature = "grpc")]
pub mod grpc_requests;
pub mod serialized_states;
pub mod view_requests;

/// A target's entry point: one input, which must never make it panic.
pub type Entry = fn(&[u8]);

/// Every target: its name and its entry point.
pub const TARGETS: &[(&str, Entry)] = &[
    ("game_params", game_params::run),
    ("action_strings", action_strings::run),
    ("bot_specs", bot_specs::run),
    ("serialized_states", serialized_states::run),
    ("view_requests", view_requests::run),
    #[cfg(feature = "grpc")]
    ("grpc_requests", grpc_requests::run),
];

/// Most moves a target plays from one input, so that one execution stays short.
pub const MAX_STEPS: usize = 64;

/// The input as text (invalid UTF-8 replaced), its first line and the rest.
pub fn split_first_line(data: &[u8]) -> (String, String) {
    let text = String::from_utf8_lossy(data);
    match text.split_once('\n') {
        Some((first, rest)) => (first.to_string(), rest.to_string()),
        None => (text.into_owned(), String::new()),
    }
}

/// A game from a game string; a refused string is no game (the error is the expected answer).
pub fn game_from(text: &str) -> Option<Arc<dyn Game>> {
    make_game_from_string(text).ok()
}

/// The leading `seed steps` numbers of `line` (missing or bad numbers are 0).
pub fn seed_and_steps(line: &str) -> (u64, usize) {
    let mut words = line.split_whitespace();
    let seed = words.next().and_then(|w| w.parse().ok()).unwrap_or(0);
    let steps = words.next().and_then(|w| w.parse().ok()).unwrap_or(0);
    (seed, steps)
}

/// Plays `steps` seeded random moves (chance, joint and single) from the start, at most
/// `MAX_STEPS`, stopping at the end of the game.
pub fn seeded_state(game: &dyn Game, seed: u64, steps: usize) -> (Box<dyn State>, GameRng) {
    let mut rng = GameRng::new(seed);
    let mut state = game.new_initial_state();
    for _ in 0..steps.min(MAX_STEPS) {
        if state.is_terminal() {
            break;
        }
        random_move(state.as_mut(), &mut rng);
    }
    (state, rng)
}

/// Applies one random legal move (a chance outcome, a joint action or a seat's action).
pub fn random_move(state: &mut dyn State, rng: &mut GameRng) {
    match state.current_player() {
        Player::Terminal => {}
        Player::Chance => {
            let a = state.sample_chance_outcome(rng);
            state
                .apply_action(a)
                .expect("a sampled chance outcome applies");
        }
        Player::Simultaneous => {
            let joint = random_joint(state, rng);
            state
                .apply_actions(&joint)
                .expect("a legal joint action applies");
        }
        player => {
            let a = rng.choose(&state.legal_actions_for(player));
            state.apply_action(a).expect("a legal action applies");
        }
    }
}

/// A legal action per seat at a simultaneous node.
pub fn random_joint(state: &dyn State, rng: &mut GameRng) -> Vec<Action> {
    (0..state.num_players())
        .map(|p| rng.choose(&state.legal_actions_for(Player::Seat(p))))
        .collect()
}

/// Every seat, then chance: the players a text or id may be given for.
pub fn players(state: &dyn State) -> Vec<Player> {
    (0..state.num_players())
        .map(Player::Seat)
        .chain([Player::Chance, Player::Terminal, Player::Simultaneous])
        .collect()
}

/// Runs the conformance gate's checks at `state`: every invariant (deeply) and information
/// hiding by resampling.
pub fn check(game: &dyn Game, state: &dyn State, rng: &mut GameRng) {
    checkraise_core::conformance::check_state_deeply(game, state, rng);
}
