//! Detective Poker rules that need no state: the action cards, the bet encoding, the chip rule and
//! the scoring of a hand's bets against the boards' hand values (docs/games/detective_poker.md).
//!
//! Scoring is written against plain hand values (`u32`, larger is better), so it can be tested
//! with made-up values; the state computes them with the shared evaluator.

use serde::Serialize;

use crate::error::NotationError;

/// Most seats a game can have (the `players` house rule allows up to 6).
pub const MAX_SEATS: usize = 6;
/// Betting rounds per hand: preflop, flop, turn, river.
pub const STREETS: usize = 4;
/// The betting rounds' names.
pub const STREET_NAMES: [&str; STREETS] = ["preflop", "flop", "turn", "river"];
/// Choices of action card per bet: none, then the four cards.
pub const CARD_CHOICES: usize = 5;

/// One of the four action cards each player holds in every hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum ActionCard {
    /// One more point if the bet is correct (expert: one point lost if wrong).
    PlusOne,
    /// The bet counts for the next board clockwise from the one bet on.
    Clockwise,
    /// The bet is correct when its board holds the weakest hand.
    Bluff,
    /// No effect.
    Empty,
}

impl ActionCard {
    /// The four cards in encoding order.
    pub const ALL: [ActionCard; 4] = [
        ActionCard::PlusOne,
        ActionCard::Clockwise,
        ActionCard::Bluff,
        ActionCard::Empty,
    ];

    /// The card's bit in a set of action cards (bit 0 = +1 … bit 3 = Empty).
    #[inline]
    pub fn bit(self) -> u8 {
        1 << self.index()
    }

    /// The card's index 0..4.
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The card's name as written in action strings.
    pub fn name(self) -> &'static str {
        match self {
            ActionCard::PlusOne => "+1",
            ActionCard::Clockwise => "clockwise",
            ActionCard::Bluff => "bluff",
            ActionCard::Empty => "empty",
        }
    }

    /// The card for a name (case-insensitive; `plus1`/`plusone` also accepted for `+1`).
    pub fn from_name(text: &str) -> Option<ActionCard> {
        match text.to_ascii_lowercase().as_str() {
            "+1" | "plus1" | "plusone" => Some(ActionCard::PlusOne),
            "clockwise" => Some(ActionCard::Clockwise),
            "bluff" => Some(ActionCard::Bluff),
            "empty" => Some(ActionCard::Empty),
            _ => None,
        }
    }
}

/// All four action cards, as a set.
pub const ALL_ACTION_CARDS: u8 = 0b1111;

/// One bet: chips on a board, maybe with an action card under it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Bet {
    /// The seat whose board the chips lie on.
    pub board: u8,
    /// How many chips (1..=max_bet).
    pub amount: u8,
    /// The action card face down under the bet, if any.
    pub card: Option<ActionCard>,
}

impl Bet {
    /// The action id of this bet: `((board * max_bet) + amount - 1) * 5 + card`, where card is
    /// 0 for none and 1 + the card's index otherwise.
    #[inline]
    pub fn encode(self, max_bet: usize) -> u32 {
        let card = self.card.map_or(0, |c| c.index() + 1);
        ((self.board as usize * max_bet + self.amount as usize - 1) * CARD_CHOICES + card) as u32
    }

    /// The bet for an action id, if the id is inside the action space of `players` seats.
    #[inline]
    pub fn decode(action: u32, players: usize, max_bet: usize) -> Option<Bet> {
        let action = action as usize;
        if action >= players * max_bet * CARD_CHOICES {
            return None;
        }
        let card = action % CARD_CHOICES;
        let rest = action / CARD_CHOICES;
        Some(Bet {
            board: (rest / max_bet) as u8,
            amount: (rest % max_bet + 1) as u8,
            card: (card > 0).then(|| ActionCard::ALL[card - 1]),
        })
    }

    /// The bet as text: `bet 2 on s1`, `bet 2 on s1 with bluff`.
    pub fn text(self) -> String {
        match self.card {
            None => format!("bet {} on s{}", self.amount, self.board),
            Some(c) => format!("bet {} on s{} with {}", self.amount, self.board, c.name()),
        }
    }

    /// Parses `bet A on sB [with CARD]` (case-insensitive, extra spaces allowed).
    pub fn parse(text: &str) -> Result<Bet, NotationError> {
        let usage = "expected 'bet AMOUNT on sSEAT' or 'bet AMOUNT on sSEAT with CARD' \
                     (CARD: +1, clockwise, bluff, empty), e.g. 'bet 2 on s1 with +1'";
        let words: Vec<String> = text
            .split_whitespace()
            .map(|w| w.to_ascii_lowercase())
            .collect();
        let w: Vec<&str> = words.iter().map(String::as_str).collect();
        let (amount, board, card) = match w.as_slice() {
            ["bet", amount, "on", board] => (*amount, *board, None),
            ["bet", amount, "on", board, "with", card] => (*amount, *board, Some(*card)),
            _ => return Err(NotationError::new(usage)),
        };
        let amount: u8 = amount
            .parse()
            .ok()
            .filter(|a| *a >= 1)
            .ok_or_else(|| NotationError::new(format!("'{amount}' is not a chip count (1 or more)")))?;
        let board: u8 = board
            .strip_prefix('s')
            .and_then(|b| b.parse().ok())
            .ok_or_else(|| NotationError::new(format!("'{board}' is not a seat (s0, s1, ...)")))?;
        let card = match card {
            None => None,
            Some(c) => Some(ActionCard::from_name(c).ok_or_else(|| {
                NotationError::new(format!(
                    "'{c}' is not an action card (+1, clockwise, bluff, empty)"
                ))
            })?),
        };
        Ok(Bet {
            board,
            amount,
            card,
        })
    }
}

/// The most chips a player with `chips_left` may bet in betting round `street` (0..4): at
/// most `max_bet`, keeping one chip for each later round of the hand.
#[inline]
pub fn max_amount(chips_left: u8, street: usize, max_bet: usize) -> usize {
    let keep = STREETS - 1 - street;
    (chips_left as usize).saturating_sub(keep).min(max_bet)
}

/// The outcome of one bet at scoring.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Judged {
    /// The board the bet counts for (the next clockwise board with Clockwise).
    pub target: u8,
    /// Whether the bet is correct.
    pub correct: bool,
    /// Points it scores (negative only for a wrong +1 in expert mode).
    pub points: i32,
}

/// Judges one bet given the boards' hand values at its betting round (`values[..players]`,
/// larger is better). Ties: every tied board is best, and every tied board is weakest.
pub fn judge<V: Ord>(bet: Bet, values: &[V], expert: bool) -> Judged {
    let n = values.len();
    let target = match bet.card {
        Some(ActionCard::Clockwise) => (bet.board as usize + 1) % n,
        _ => bet.board as usize,
    };
    let value = &values[target];
    let correct = match bet.card {
        Some(ActionCard::Bluff) => values.iter().all(|v| value <= v),
        _ => values.iter().all(|v| value >= v),
    };
    let points = match (correct, bet.card) {
        (true, Some(ActionCard::PlusOne)) => bet.amount as i32 + 1,
        (true, _) => bet.amount as i32,
        (false, Some(ActionCard::PlusOne)) if expert => -1,
        (false, _) => 0,
    };
    Judged {
        target: target as u8,
        correct,
        points,
    }
}
