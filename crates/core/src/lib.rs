//! checkraise-core: one exact engine for five poker/chess hybrid games.
//!
//! Everything about the games lives here: the `Game`/`State` API (`game`), the registry of
//! games and their parameters (`registry`), cards and poker hand ranking (`cards`, `poker`),
//! the games themselves (`games`), seeded chance sampling and envs (`env`), bots (`bots`,
//! IS-MCTS included) and the arena that ranks them (`arena`).
//! The Python and gRPC faces only translate.

pub mod arena;
pub mod bots;
pub mod cards;
pub mod chess;
pub mod conformance;
pub mod env;
pub mod game;
pub mod games;
pub mod poker;
pub mod registry;
pub mod serial;
pub mod vector;

pub use env::{Env, GameRng};
pub use game::{Action, ErrorKind, Game, GameError, GameInfo, Player, PlayerAction, State};
pub use registry::{make_game, make_game_from_string};
