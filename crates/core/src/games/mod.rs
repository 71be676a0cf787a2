//! One module per game. A new game is a module here plus one line in `registry::entries`.

pub mod detective_poker;
pub mod holdem_chess;
pub mod poker_chess;
pub mod pokeros;
pub mod prediction_chess;
