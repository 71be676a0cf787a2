//! Kuhn poker rules that need no state: the deck's card names, the two actions and what an
//! action means at a point of the betting.

use schemars::JsonSchema;
use serde::Serialize;

use crate::error::NotationError;
use crate::game::Action;

/// Most seats a game can have.
pub const MAX_SEATS: usize = 5;
/// Most cards a deck can have (one more than the seats).
pub const MAX_CARDS: usize = MAX_SEATS + 1;
/// Every card name, lowest first; a deck of `n` cards is the last `n` of them.
const NAMES: [char; MAX_CARDS] = ['8', '9', 'T', 'J', 'Q', 'K'];

/// The name of card `index` (0 = the lowest) in the deck of a game of `players` seats.
pub fn card_name(players: usize, index: u8) -> char {
    NAMES[MAX_CARDS - (players + 1) + index as usize]
}

/// The index of the card named `text` (one letter or digit, any case) in the deck of a game
/// of `players` seats, if the deck has it.
pub fn parse_card(players: usize, text: &str) -> Option<u8> {
    let mut chars = text.trim().chars();
    let (Some(c), None) = (chars.next(), chars.next()) else {
        return None;
    };
    let c = c.to_ascii_uppercase();
    (0..=players as u8).find(|&i| card_name(players, i) == c)
}

/// The deck of a game of `players` seats as text, lowest first (`J Q K`).
pub fn deck_text(players: usize) -> String {
    (0..=players as u8)
        .map(|i| card_name(players, i).to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A seat's action.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Move {
    /// Check (nobody has bet yet) or fold (after a bet).
    #[default]
    Pass,
    /// Bet (nobody has bet yet) or call (after a bet).
    Bet,
}

impl Move {
    /// The action id: 0 for pass, 1 for bet.
    pub fn action(self) -> Action {
        self as Action
    }

    /// The move of an action id, if it is one.
    pub fn from_action(action: Action) -> Option<Move> {
        match action {
            0 => Some(Move::Pass),
            1 => Some(Move::Bet),
            _ => None,
        }
    }

    /// The action's text: `pass` or `bet`.
    pub fn text(self) -> &'static str {
        match self {
            Move::Pass => "pass",
            Move::Bet => "bet",
        }
    }

    /// One letter: `p` or `b` (as information-state strings write the betting).
    pub fn letter(self) -> char {
        match self {
            Move::Pass => 'p',
            Move::Bet => 'b',
        }
    }

    /// Parses `pass`, `p`, `bet` or `b`, in any case, with spaces around allowed.
    pub fn parse(text: &str) -> Result<Move, NotationError> {
        match text.trim().to_ascii_lowercase().as_str() {
            "pass" | "p" => Ok(Move::Pass),
            "bet" | "b" => Ok(Move::Bet),
            _ => Err(NotationError::new(
                "expected 'pass' (or 'p': check, or fold after a bet) or 'bet' (or 'b': bet, \
                 or call after a bet)",
            )),
        }
    }

    /// What this move does when a bet has (`after_bet`) or has not been made.
    pub fn meaning(self, after_bet: bool) -> Meaning {
        match (self, after_bet) {
            (Move::Pass, false) => Meaning::Check,
            (Move::Bet, false) => Meaning::Bet,
            (Move::Pass, true) => Meaning::Fold,
            (Move::Bet, true) => Meaning::Call,
        }
    }
}

/// What a move does at the point of the betting it is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Meaning {
    /// A pass before anyone bet.
    Check,
    /// The first bet: one more chip.
    Bet,
    /// A bet after the first bet: one more chip to stay in.
    Call,
    /// A pass after the first bet: out of the pot.
    Fold,
}

impl Meaning {
    /// The verb for a seat doing it (`checks`, `bets`, `calls`, `folds`).
    pub fn verb(self) -> &'static str {
        match self {
            Meaning::Check => "checks",
            Meaning::Bet => "bets",
            Meaning::Call => "calls",
            Meaning::Fold => "folds",
        }
    }
}
