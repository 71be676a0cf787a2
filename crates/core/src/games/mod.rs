//! One module per game. A new game is a module here plus one line in `registry::entries`.

pub mod poker_chess;
pub mod pokeros;
