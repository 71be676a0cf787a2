//! checkraise-core: one exact engine for five poker/chess hybrid games.
//!
//! Everything about the games lives here: the `Game`/`State` API (`game`), the registry of
//! games and their parameters (`registry`), cards and poker hand ranking (`cards`, `poker`),
//! the shapes of the games' views (`view`), the games themselves (`games`), seeded chance
//! sampling and envs (`env`), bots (`bots`, IS-MCTS included) and the arena that ranks them
//! (`arena`).
//! The Python and gRPC faces only translate.
//!
//! ```
//! use checkraise_core::{GameRng, Player, make_game_from_string};
//!
//! let game = make_game_from_string("pokeros(players=3,board_size=7)").unwrap();
//! let mut state = game.new_initial_state();
//! // The centre card and the hands are chance outcomes; resolve them with a seeded sampler.
//! checkraise_core::env::resolve_chance(state.as_mut(), &mut GameRng::new(7));
//! assert_eq!(state.current_player(), Player::Seat(0));
//! let first = state.legal_actions()[0];
//! state.apply_action(first).unwrap();
//! // Seat 0 has moved; what each seat may know is its own observation.
//! assert_eq!(state.observation_string(1).lines().count() > 0, true);
//! ```

#![warn(missing_docs)]

// The modules in layers, the lowest first. A module imports only from layers below its own,
// so the crate has no import circles (`tests/layers.rs` checks it).

// Vocabulary; errors, the generator and bit helpers; cards and chess primitives.
pub mod vocabulary;

pub mod error;

pub mod rng;

pub mod cards;
pub mod chess;
pub mod params;

pub mod poker;
pub mod serial;

/// Where observation writers put their entries, and the information state's history rows.
pub mod observation;

// The engine API, and the wrapper that turns a game's rules into a state.
pub mod game;

pub mod rules;

/// The compact encoding of observations (bit planes and scalars) and packed legal masks.
pub mod compact;

// The shapes games' views are made of (on the rules: a view's header reads them).
pub mod view;

// The games.
pub mod games;

// What is built on any game: envs, bots, who plays each seat, batched envs, the registry of
// every game, the arena.
pub mod env;

// Solving small games exactly: CFR, best responses, exploitability.
pub mod solve;

pub mod bots;

pub mod driver;

pub mod table;
pub mod vector;

pub mod registry;

pub mod arena;
#[cfg(any(test, feature = "testing"))]
pub mod conformance;
#[cfg(any(test, feature = "testing"))]
pub mod testing;

// The ladder: pairing, duplicate sets and ratings of bots that come and go.
pub mod ladder;

pub use env::{Env, GameRng};
pub use game::{
    Action, ErrorKind, Game, GameError, GameInfo, NotationError, Player, PlayerAction, State,
};
pub use registry::{make_bot, make_game, make_game_from_string};
