//! Leduc poker as text: action names and their parsing, the observation and information-state
//! strings, `Display` (the whole state) and the action struct (the view is in `view.rs`).

use std::fmt;

use schemars::JsonSchema;
use serde::Serialize;

use super::rules::{Meaning, Move, SEATS, card_name, deck_text, parse_card};
use super::state::{LeducPokerState, PUBLIC};
use crate::game::{Action, GameError, Player, PlayerAction};
use crate::rules::{Describe, Rules, Structured};

impl Describe for LeducPokerState {
    /// `fold`, `call` or `raise` for a seat, the card's name (`Ks`) for a deal.
    fn action_to_string(&self, player: Player, action: Action) -> String {
        match player {
            Player::Chance if (action as usize) < super::rules::DECK => card_name(action as u8),
            Player::Chance => format!("card#{action}"),
            Player::Seat(seat) if seat < SEATS => match Move::from_action(action) {
                Some(m) => m.text().to_string(),
                None => format!("action#{action}"),
            },
            _ => format!("action#{action}"),
        }
    }

    /// `fold`/`f`, `call`/`c` and `raise`/`r` (any case) for a seat, and `check`/`k` and
    /// `bet`/`b` when there is nothing to call; a card of the deck (`Ks`, `qh`) for chance.
    fn string_to_action(&self, player: Player, text: &str) -> Result<Action, GameError> {
        let bad = |reason: String| GameError::bad_action_string(text, player, reason);
        match player {
            Player::Chance => parse_card(text).map(Action::from).ok_or_else(|| {
                bad(format!(
                    "expected a card of the deck ({}), e.g. 'Ks'",
                    deck_text()
                ))
            }),
            Player::Seat(seat) if seat < SEATS => Move::parse(text, self.facing_bet())
                .map(Move::action)
                .map_err(|e| bad(e.into())),
            _ => Err(bad(format!(
                "{player} takes no actions (the seats are 0 and 1)"
            ))),
        }
    }

    /// The seat, its card, the public card, each seat's chips in the pot and, at the end,
    /// the cards shown and the result: `s1 Qh | board Ks | chips 5 5 | pot 10`.
    fn observation_string(&self, player: usize) -> String {
        let mut s = format!("s{player} {}", self.card_text(Some(player), player));
        if let Some(card) = self.public_card() {
            s.push_str(&format!(" | board {}", card_name(card)));
        }
        s.push_str(&format!(
            " | chips {} {} | pot {}",
            self.chips_in(0),
            self.chips_in(1),
            self.pot()
        ));
        self.push_result(Some(player), &mut s);
        s
    }

    /// `s<seat> cards:<deals> bets:<betting>`, e.g. `s1 cards:?? Qh Ks bets:rc/c` (see the
    /// module doc).
    fn information_state_string(&self, _history: &[PlayerAction], player: usize) -> String {
        let cards: Vec<String> = (0..self.dealt())
            .map(|i| self.card_text(Some(player), i))
            .collect();
        let mut bets: String = self.round_moves(0).iter().map(|m| m.letter()).collect();
        if self.public_card().is_some() {
            bets.push('/');
            bets.extend(self.round_moves(1).iter().map(|m| m.letter()));
        }
        format!("s{player} cards:{} bets:{bets}", cards.join(" "))
    }
}

impl LeducPokerState {
    /// Deal `index`'s card as `viewer` sees it: its name, `??` face down, `--` not dealt
    /// yet.
    fn card_text(&self, viewer: Option<usize>, index: usize) -> String {
        match self.deal(index) {
            None => "--".to_string(),
            Some(c) if self.sees_deal(viewer, index) => card_name(c),
            Some(_) => "??".to_string(),
        }
    }

    /// At the end: ` | shown s0:Js s1:Qh | s1 wins 5` (or `split`, or `wins 1 uncontested`),
    /// what every viewer learns.
    fn push_result(&self, viewer: Option<usize>, out: &mut String) {
        let winners = self.winners();
        if winners.is_empty() {
            return;
        }
        if self.showdown() {
            out.push_str(&format!(
                " | shown s0:{} s1:{}",
                self.card_text(viewer, 0),
                self.card_text(viewer, 1)
            ));
        }
        match winners[..] {
            [winner] => {
                let won = self.returns()[winner];
                let how = if self.showdown() { "" } else { " uncontested" };
                out.push_str(&format!(" | s{winner} wins {won}{how}"));
            }
            _ => out.push_str(" | split"),
        }
    }

    /// The betting of `round` in words: `s0 checks, s1 bets, s0 calls`.
    fn betting_text(&self, round: usize) -> String {
        let words: Vec<String> = self
            .steps()
            .into_iter()
            .filter(|step| step.round == round)
            .map(|step| format!("s{} {}", step.seat, step.meaning.verb()))
            .collect();
        words.join(", ")
    }
}

impl fmt::Display for LeducPokerState {
    /// Everything, every card face up: `cards s0:Ks s1:Jh board:Qs | round 1: s0 bets, s1
    /// calls | round 2: - | pot 6 | s0 to act`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let deals: Vec<String> = (0..=PUBLIC)
            .map(|i| {
                let name = self.deal(i).map_or("--".to_string(), card_name);
                if i == PUBLIC {
                    format!("board:{name}")
                } else {
                    format!("s{i}:{name}")
                }
            })
            .collect();
        write!(f, "cards {}", deals.join(" "))?;
        for round in 0..=self.round() {
            let betting = self.betting_text(round);
            write!(
                f,
                " | round {}: {}",
                round + 1,
                if betting.is_empty() { "-" } else { &betting }
            )?;
        }
        write!(f, " | pot {}", self.pot())?;
        match self.current_player() {
            Player::Terminal => {
                let mut s = String::new();
                self.push_result(None, &mut s);
                f.write_str(&s)
            }
            to_act => write!(f, " | {to_act} to act"),
        }
    }
}

/// A Leduc poker action: `fold`, `call` or `raise`, and what it does here.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct LeducPokerAction {
    /// The action: `fold` (id 0), `call` (id 1) or `raise` (id 2).
    pub kind: Move,
    /// What it does at this point of the betting: `check` or `bet` with nothing to call,
    /// `fold`, `call` or `raise` facing a bet.
    pub meaning: Meaning,
    /// Chips it puts in the pot.
    pub chips: u32,
}

impl Structured for LeducPokerState {
    type ActionStruct = LeducPokerAction;

    fn action_struct(&self, seat: usize, action: Action) -> Option<LeducPokerAction> {
        if seat >= SEATS {
            return None;
        }
        let kind = Move::from_action(action)?;
        let to_call = self.chips_in(1 - seat).saturating_sub(self.chips_in(seat));
        let chips = match kind {
            Move::Fold => 0,
            Move::Call => to_call,
            Move::Raise => to_call + super::rules::raise_size(self.round()),
        };
        Some(LeducPokerAction {
            kind,
            meaning: kind.meaning(self.facing_bet()),
            chips,
        })
    }
}
