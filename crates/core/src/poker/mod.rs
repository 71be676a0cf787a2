//! Poker hand ranking for all three uses in the games: the exact-window classification of
//! Pokeros (`window`), and (with Hold'em Poker Chess and Detective Poker) the best hand of at
//! most 5 out of 1–7 cards, missing cards ranking lowest.

pub mod eval;
pub mod window;
