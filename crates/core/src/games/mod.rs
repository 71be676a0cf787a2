//! One module per game. A new game is a module here plus one line in `registry::entries`.

pub mod holdem_chess;
pub mod pokeros;
