//! Pokeros as text: action names and their parsing, the observation and information-state
//! strings, and `Display` (the view is in `view.rs`).

use std::fmt;

use schemars::JsonSchema;
use serde::Serialize;

use super::state::PokerosState;
use crate::cards::{Card, CardSet};
use crate::game::{Action, GameError, Player, PlayerAction};
use crate::rules::{Describe, Rules, Structured};

impl Describe for PokerosState {
    fn action_to_string(&self, player: Player, action: Action) -> String {
        match player {
            Player::Chance => match Card::from_id(action) {
                Some(c) => c.to_string(),
                None => format!("card#{action}"),
            },
            Player::Seat(seat) if seat < self.config.players => {
                let slots = self.config.slots();
                let (cell, slot) = (action as usize / slots, action as usize % slots);
                if cell >= self.config.cells() {
                    return format!("action#{action}");
                }
                let (x, y) = self.coords(cell);
                match self.card_in_slot(seat, slot) {
                    Some(card) => format!("{card}@{x},{y}"),
                    None => format!("slot{slot}@{x},{y}"),
                }
            }
            _ => format!("action#{action}"),
        }
    }

    fn string_to_action(&self, player: Player, text: &str) -> Result<Action, GameError> {
        let bad = |reason: String| GameError::bad_action_string(text, player, reason);
        match player {
            Player::Chance => text
                .trim()
                .parse::<Card>()
                .map(|c| c.0 as Action)
                .map_err(|e| bad(e.to_string())),
            Player::Seat(seat) if seat < self.config.players => {
                let (card_text, at) = text
                    .trim()
                    .split_once('@')
                    .ok_or_else(|| bad("expected CARD@X,Y, e.g. Kd@1,0".to_string()))?;
                let (xs, ys) = at
                    .split_once(',')
                    .ok_or_else(|| bad("expected CARD@X,Y, e.g. Kd@1,0".to_string()))?;
                let (x, y): (i32, i32) = (
                    xs.trim()
                        .parse()
                        .map_err(|_| bad(format!("'{xs}' is not a column")))?,
                    ys.trim()
                        .parse()
                        .map_err(|_| bad(format!("'{ys}' is not a row")))?,
                );
                let cell = self
                    .cell_at(x, y)
                    .ok_or_else(|| bad(format!("{x},{y} is outside the board")))?;
                let slots = self.config.slots();
                if let Some(slot) = card_text.strip_prefix("slot") {
                    let slot: usize = slot
                        .parse()
                        .ok()
                        .filter(|s| *s < slots)
                        .ok_or_else(|| bad(format!("no hand slot '{slot}'")))?;
                    return Ok((cell * slots + slot) as Action);
                }
                let card: Card = card_text
                    .parse()
                    .map_err(|e: crate::cards::BadCard| bad(e.to_string()))?;
                let hand = self.hands[seat];
                if !hand.contains(card) {
                    return Err(bad(format!("{card} is not in seat {seat}'s hand")));
                }
                let slot = (hand.0 & ((1u64 << card.0) - 1)).count_ones() as usize;
                Ok((cell * slots + slot) as Action)
            }
            _ => Err(bad(format!("{player} takes no actions"))),
        }
    }

    fn observation_string(&self, player: usize) -> String {
        let mut s = String::new();
        let _ = self.render_board(&mut s);
        s.push_str(&format!("hand: {}\n", Self::hand_text(self.hands[player])));
        for seat in 0..self.config.players {
            if seat != player {
                if self.hands_public() {
                    s.push_str(&format!(
                        "s{seat} shows: {}\n",
                        Self::hand_text(self.hands[seat])
                    ));
                } else {
                    s.push_str(&format!("s{seat} holds {} cards\n", self.hands[seat].len()));
                }
            }
        }
        s.push_str(&format!(
            "points: {:?}\ndeck: {}\nto act: {}\n",
            self.points(),
            self.deck.len(),
            self.current_player()
        ));
        s
    }

    fn information_state_string(&self, history: &[PlayerAction], player: usize) -> String {
        let mut move_index = 0;
        let events: Vec<String> = history
            .iter()
            .zip(self.deal_targets(history))
            .map(|(&entry, target)| self.event_text(entry, target, player, &mut move_index))
            .collect();
        format!("seat {player} | {}", events.join(" "))
    }
}

impl PokerosState {
    fn render_board(&self, f: &mut dyn fmt::Write) -> fmt::Result {
        let cards: Vec<(i32, i32, Card)> = self
            .board
            .cards()
            .map(|(cell, card)| {
                let (x, y) = self.coords(cell);
                (x, y, card)
            })
            .collect();
        if cards.is_empty() {
            return writeln!(f, "(empty board)");
        }
        let (x0, x1) = (
            cards.iter().map(|c| c.0).min().unwrap(),
            cards.iter().map(|c| c.0).max().unwrap(),
        );
        let (y0, y1) = (
            cards.iter().map(|c| c.1).min().unwrap(),
            cards.iter().map(|c| c.1).max().unwrap(),
        );
        write!(f, "    ")?;
        for x in x0..=x1 {
            write!(f, "{x:>3}")?;
        }
        writeln!(f)?;
        for y in (y0..=y1).rev() {
            write!(f, "{y:>3} ")?;
            for x in x0..=x1 {
                match self.cell_at(x, y).and_then(|c| self.board.card(c)) {
                    Some(card) => write!(f, " {card}")?,
                    None => write!(f, "  .")?,
                }
            }
            writeln!(f)?;
        }
        Ok(())
    }

    fn hand_text(hand: CardSet) -> String {
        hand.iter()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// History entry `entry` as seat `viewer` saw it (`target`: the seat a deal went to).
    fn event_text(
        &self,
        entry: PlayerAction,
        target: Option<usize>,
        viewer: usize,
        move_index: &mut usize,
    ) -> String {
        match entry.player {
            Player::Seat(s) => {
                let m = &self.moves[*move_index];
                *move_index += 1;
                let (x, y) = self.coords(m.cell);
                format!("s{s}:{}@{x},{y}+{}", m.card, m.placement.points)
            }
            _ => {
                let card = Card(entry.action as u8);
                match target {
                    None => format!("centre:{card}"),
                    Some(seat) if seat == viewer || self.hands_public() => {
                        format!("deal s{seat}:{card}")
                    }
                    Some(seat) => format!("deal s{seat}:?"),
                }
            }
        }
    }
}

impl fmt::Display for PokerosState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.render_board(f)?;
        for seat in 0..self.config.players {
            writeln!(
                f,
                "s{seat}: {:>3} points, hand: {}",
                self.points[seat],
                Self::hand_text(self.hands[seat])
            )?;
        }
        write!(
            f,
            "deck: {} cards; to act: {}",
            self.deck.len(),
            self.current_player()
        )
    }
}

/// A Pokeros action: a card from the hand placed on a cell.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct PokerosAction {
    /// The card placed (`Kd`, a joker `X1`); `null` when the hand slot is empty.
    pub card: Option<String>,
    /// The card's slot in the hand (cards in the hand are in card order).
    pub slot: usize,
    /// The cell's column, 0 at the centre, growing to the right.
    pub x: i32,
    /// The cell's row, 0 at the centre, growing upward.
    pub y: i32,
}

impl Structured for PokerosState {
    type ActionStruct = PokerosAction;

    fn action_struct(&self, seat: usize, action: Action) -> Option<PokerosAction> {
        if seat >= self.config.players {
            return None;
        }
        let slots = self.config.slots();
        let (cell, slot) = (action as usize / slots, action as usize % slots);
        if cell >= self.config.cells() {
            return None;
        }
        let (x, y) = self.coords(cell);
        Some(PokerosAction {
            card: self.card_in_slot(seat, slot).map(|c| c.to_string()),
            slot,
            x,
            y,
        })
    }
}
