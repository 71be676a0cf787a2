//! Hold'em Poker Chess (RULES.md §4), in progress: the betting engine and the card grid.

pub mod betting;
pub mod grid;
