//! Leduc poker rules that need no state: the deck's cards and their names, the three
//! actions, the bet sizes and what an action means at a point of the betting.

use schemars::JsonSchema;
use serde::Serialize;

use crate::error::NotationError;
use crate::game::Action;

/// Seats at the table.
pub const SEATS: usize = 2;
/// Cards in the deck: three ranks in two suits.
pub const DECK: usize = 6;
/// Raises (the first bet included) a betting round allows.
pub const MAX_RAISES: u32 = 2;
/// Most actions a betting round can have: check, bet, raise, call.
pub const MAX_ROUND_MOVES: usize = 4;
/// Rank names, lowest first.
const RANKS: [char; 3] = ['J', 'Q', 'K'];
/// Suit names: card `2r` is the first suit of rank `r`, card `2r + 1` the second.
const SUITS: [char; 2] = ['s', 'h'];

/// The rank of card `card` (0 = J, 1 = Q, 2 = K).
pub fn rank(card: u8) -> u8 {
    card / 2
}

/// The name of card `card`: its rank, then its suit (`Js`, `Jh`, `Qs`, `Qh`, `Ks`, `Kh`).
pub fn card_name(card: u8) -> String {
    let card = card as usize;
    format!("{}{}", RANKS[card / 2], SUITS[card % 2])
}

/// The card named `text` (`Ks`, any case, spaces around allowed), if the deck has it.
pub fn parse_card(text: &str) -> Option<u8> {
    let text = text.trim();
    (0..DECK as u8).find(|&c| card_name(c).eq_ignore_ascii_case(text))
}

/// The deck as text, lowest first: `Js Jh Qs Qh Ks Kh`.
pub fn deck_text() -> String {
    (0..DECK as u8)
        .map(card_name)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Chips a bet or raise adds in betting round `round` (0 or 1): 2, then 4.
pub fn raise_size(round: usize) -> u32 {
    2 << round
}

/// A seat's action.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Move {
    /// Give up the pot (only when facing a bet).
    Fold,
    /// Check (nothing to call) or call (match the bet).
    #[default]
    Call,
    /// Bet (nothing to call) or raise (call and bet again).
    Raise,
}

impl Move {
    /// The action id: 0 fold, 1 call, 2 raise.
    pub fn action(self) -> Action {
        self as Action
    }

    /// The move of an action id, if it is one.
    pub fn from_action(action: Action) -> Option<Move> {
        match action {
            0 => Some(Move::Fold),
            1 => Some(Move::Call),
            2 => Some(Move::Raise),
            _ => None,
        }
    }

    /// The action's text: `fold`, `call` or `raise`.
    pub fn text(self) -> &'static str {
        match self {
            Move::Fold => "fold",
            Move::Call => "call",
            Move::Raise => "raise",
        }
    }

    /// One letter: `f`, `c` or `r` (as information-state strings write the betting).
    pub fn letter(self) -> char {
        match self {
            Move::Fold => 'f',
            Move::Call => 'c',
            Move::Raise => 'r',
        }
    }

    /// Parses a move in any case, spaces around allowed: `fold`/`f`, `call`/`c`,
    /// `raise`/`r`; `check`/`k` (a call) and `bet`/`b` (a raise) only when there is nothing
    /// to call (`facing_bet` false).
    pub fn parse(text: &str, facing_bet: bool) -> Result<Move, NotationError> {
        match (text.trim().to_ascii_lowercase().as_str(), facing_bet) {
            ("fold" | "f", _) => Ok(Move::Fold),
            ("call" | "c", _) => Ok(Move::Call),
            ("raise" | "r", _) => Ok(Move::Raise),
            ("check" | "k", false) => Ok(Move::Call),
            ("bet" | "b", false) => Ok(Move::Raise),
            ("check" | "k" | "bet" | "b", true) => Err(NotationError::new(
                "there is a bet to answer: 'fold' (or 'f'), 'call' (or 'c') or 'raise' (or 'r')",
            )),
            _ => Err(NotationError::new(
                "expected 'fold' (or 'f'), 'call' (or 'c', 'check', 'k') or 'raise' (or 'r', \
                 'bet', 'b')",
            )),
        }
    }

    /// What this move does when the seat faces a bet (`facing_bet`) or not.
    pub fn meaning(self, facing_bet: bool) -> Meaning {
        match (self, facing_bet) {
            (Move::Fold, _) => Meaning::Fold,
            (Move::Call, false) => Meaning::Check,
            (Move::Call, true) => Meaning::Call,
            (Move::Raise, false) => Meaning::Bet,
            (Move::Raise, true) => Meaning::Raise,
        }
    }
}

/// What a move does at the point of the betting it is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Meaning {
    /// A call with nothing to call.
    Check,
    /// The round's first bet.
    Bet,
    /// Matching the bet.
    Call,
    /// Matching the bet and betting again.
    Raise,
    /// Giving up the pot.
    Fold,
}

impl Meaning {
    /// The verb for a seat doing it (`checks`, `bets`, `calls`, `raises`, `folds`).
    pub fn verb(self) -> &'static str {
        match self {
            Meaning::Check => "checks",
            Meaning::Bet => "bets",
            Meaning::Call => "calls",
            Meaning::Raise => "raises",
            Meaning::Fold => "folds",
        }
    }
}

/// The result of a showdown between `a` and `b` (cards) with `public` on the board: a
/// positive number when `a` wins, negative when `b` does, 0 for a split. A pair with the
/// public card beats any card without; otherwise the higher rank wins.
pub fn compare(a: u8, b: u8, public: u8) -> i32 {
    let strength = |c: u8| {
        let pair = rank(c) == rank(public);
        (pair as i32) * 10 + rank(c) as i32
    };
    strength(a) - strength(b)
}
