//! Poker Chess as text: action names and their parsing, the observation and
//! information-state strings, and `Display` (the view is in `view.rs`).

use std::fmt;

use schemars::JsonSchema;
use serde::Serialize;

use super::state::{Event, Phase, PokerChessState, TurnStep, pair_index, pair_slots};
use super::{CARD_BASE, moves};
use crate::cards::{Card, CardSet};
use crate::chess::{Color, Move};
use crate::game::{Action, GameError, Player, PlayerAction};
use crate::rules::{Describe, Rules, Structured};
use crate::view::MoveParts;

impl PokerChessState {
    /// The cards of `hand`, space-separated.
    fn hand_text(hand: CardSet) -> String {
        hand.iter()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// A history entry's event as seat `viewer` saw it (`None`: a spectator).
    fn event_text(event: Event, viewer: Option<usize>) -> String {
        match event {
            Event::Deal { seat, card } => {
                if Some(seat) == viewer {
                    format!("deal s{seat}:{card}")
                } else {
                    format!("deal s{seat}:?")
                }
            }
            Event::Play { seat, card } => format!("s{seat} plays {card}"),
            Event::Move { seat, mv, captured } => match captured {
                Some(p) => format!("s{seat} {mv}x{}", moves::kind(p).letter()),
                None => format!("s{seat} {mv}"),
            },
            Event::Discard { seat, cards } => {
                format!("s{seat} discards {} {}", cards[0], cards[1])
            }
        }
    }
}

impl Describe for PokerChessState {
    /// A move in UCI, `play CARD` or `discard CARD CARD`.
    fn action_to_string(&self, player: Player, action: Action) -> String {
        match player {
            Player::Chance => match Card::from_id(action) {
                Some(c) => c.to_string(),
                None => format!("card#{action}"),
            },
            Player::Seat(seat) if seat < 2 => {
                let h = self.config.hand_size;
                if action < CARD_BASE {
                    let color = if seat == 0 {
                        Color::White
                    } else {
                        Color::Black
                    };
                    return match moves::decode(action, color) {
                        Some(mv) => mv.to_string(),
                        None => format!("action#{action}"),
                    };
                }
                let index = (action - CARD_BASE) as usize;
                if index < h {
                    match self.card_in_slot(seat, index) {
                        Some(card) => format!("play {card}"),
                        None => format!("play slot{index}"),
                    }
                } else if let Some((i, j)) = pair_slots(index - h, h) {
                    match (self.card_in_slot(seat, i), self.card_in_slot(seat, j)) {
                        (Some(a), Some(b)) => format!("discard {a} {b}"),
                        _ => format!("discard slot{i} slot{j}"),
                    }
                } else {
                    format!("action#{action}")
                }
            }
            _ => format!("action#{action}"),
        }
    }

    /// The inverse of `action_to_string` (a card may also be named by its hand slot,
    /// `slotN`).
    fn string_to_action(&self, player: Player, text: &str) -> Result<Action, GameError> {
        let bad = |reason: String| GameError::bad_action_string(text, player, reason);
        let seat = match player {
            Player::Chance => {
                return text
                    .trim()
                    .parse::<Card>()
                    .map(|c| c.0 as Action)
                    .map_err(|e| bad(e.to_string()));
            }
            Player::Seat(seat) if seat < 2 => seat,
            _ => return Err(bad(format!("{player} takes no actions"))),
        };
        let h = self.config.hand_size;
        let words: Vec<&str> = text.split_whitespace().collect();
        let slot = |word: &str| -> Result<usize, GameError> {
            if let Some(n) = word.strip_prefix("slot") {
                return n
                    .parse::<usize>()
                    .ok()
                    .filter(|&s| s < h)
                    .ok_or_else(|| bad(format!("no hand slot '{n}' (slots 0 to {})", h - 1)));
            }
            let card: Card = word
                .parse()
                .map_err(|e: crate::cards::BadCard| bad(e.to_string()))?;
            self.slot_of(seat, card)
                .ok_or_else(|| bad(format!("{card} is not in seat {seat}'s hand")))
        };
        match words.as_slice() {
            ["play", card] => Ok(CARD_BASE + slot(card)? as Action),
            ["discard", a, b] => {
                let (i, j) = (slot(a)?, slot(b)?);
                if i == j {
                    return Err(bad("a discard needs two different cards".to_string()));
                }
                Ok(CARD_BASE + (h + pair_index(i.min(j), i.max(j), h)) as Action)
            }
            [uci] => {
                let mv: Move = uci.parse().map_err(|e: crate::chess::ChessError| {
                    bad(format!(
                        "{e}; expected 'play CARD', 'discard CARD CARD' or a move like e2e4"
                    ))
                })?;
                if mv.promotion.is_some() {
                    let color = if seat == 0 {
                        Color::White
                    } else {
                        Color::Black
                    };
                    let (ff, tf) = (mv.from.file() as i8, mv.to.file() as i8);
                    if (ff - tf).abs() > 1 || moves::decode(moves::encode(mv), color) != Some(mv) {
                        return Err(bad(format!(
                            "{mv} is not a promotion of {color:?} (from its 7th rank to its 8th, \
                             straight or one file aside)"
                        )));
                    }
                    return Ok(moves::encode(mv));
                }
                Ok(moves::encode(mv))
            }
            _ => Err(bad(
                "expected 'play CARD', 'discard CARD CARD' or a move like e2e4".to_string(),
            )),
        }
    }

    /// Seat `player`'s observation as text.
    fn observation_string(&self, player: usize) -> String {
        let mut s = self.board.diagram();
        s.push_str(&format!("fen: {}\n", self.board));
        s.push_str(&format!("hand: {}\n", Self::hand_text(self.hands[player])));
        s.push_str(&format!(
            "s{} holds {} cards\n",
            1 - player,
            self.hands[1 - player].len()
        ));
        if let Phase::Turn(TurnStep::Move(card)) = self.phase {
            s.push_str(&format!("played: {card}\n"));
        }
        s.push_str(&format!(
            "discards: {}\npile: {}\npoints: {:?}\nto act: {}\n",
            Self::hand_text(self.discards),
            self.pile.len(),
            self.points,
            self.current_player()
        ));
        s
    }

    /// Seat `player`'s information state as text: every event as the seat saw it.
    fn information_state_string(&self, _history: &[PlayerAction], player: usize) -> String {
        let events: Vec<String> = self
            .events
            .iter()
            .map(|&event| Self::event_text(event, Some(player)))
            .collect();
        format!("seat {player} | {}", events.join(", "))
    }
}

impl fmt::Display for PokerChessState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.board.diagram())?;
        writeln!(f, "fen: {}", self.board)?;
        for seat in 0..2 {
            writeln!(
                f,
                "s{seat}: {:>3} points, hand: {}",
                self.points[seat],
                Self::hand_text(self.hands[seat])
            )?;
        }
        if let Phase::Turn(TurnStep::Move(card)) = self.phase {
            writeln!(f, "played: {card}")?;
        }
        write!(
            f,
            "discards: {}; pile: {} cards; to act: {}",
            self.discards.len(),
            self.pile.len(),
            self.current_player()
        )
    }
}

/// What a Poker Chess action does.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PokerChessActionKind {
    /// A chess move (allowed by the card played this turn).
    Move,
    /// Plays a card from the hand.
    Play,
    /// Discards two cards from the hand.
    Discard,
}

/// A Poker Chess action: a card played, two cards discarded, or a chess move.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct PokerChessAction {
    /// What it does.
    pub kind: PokerChessActionKind,
    /// A move's squares and promotion (`from`, `to`, `promotion`).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub squares: Option<MoveParts>,
    /// The card played (`Kd`, a joker `X1`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub card: Option<String>,
    /// The two cards discarded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cards: Option<Vec<String>>,
}

impl Structured for PokerChessState {
    type ActionStruct = PokerChessAction;

    fn action_struct(&self, seat: usize, action: Action) -> Option<PokerChessAction> {
        if seat >= 2 {
            return None;
        }
        let none = PokerChessAction {
            kind: PokerChessActionKind::Move,
            squares: None,
            card: None,
            cards: None,
        };
        if action < CARD_BASE {
            let color = if seat == 0 {
                Color::White
            } else {
                Color::Black
            };
            return Some(PokerChessAction {
                squares: Some(MoveParts::of(moves::decode(action, color)?)),
                ..none
            });
        }
        let h = self.config.hand_size;
        let index = (action - CARD_BASE) as usize;
        if index < h {
            return Some(PokerChessAction {
                kind: PokerChessActionKind::Play,
                card: Some(self.card_in_slot(seat, index)?.to_string()),
                ..none
            });
        }
        let (i, j) = pair_slots(index - h, h)?;
        Some(PokerChessAction {
            kind: PokerChessActionKind::Discard,
            cards: Some(vec![
                self.card_in_slot(seat, i)?.to_string(),
                self.card_in_slot(seat, j)?.to_string(),
            ]),
            ..none
        })
    }
}
