//! Kuhn poker as text: action names and their parsing, the observation and information-state
//! strings, `Display` (the whole state) and the action struct (the view is in `view.rs`).

use std::fmt;

use schemars::JsonSchema;
use serde::Serialize;

use super::rules::{Meaning, Move, deck_text, parse_card};
use super::state::KuhnPokerState;
use crate::game::{Action, GameError, Player, PlayerAction};
use crate::rules::{Describe, Rules, Structured};

impl Describe for KuhnPokerState {
    /// `pass` or `bet` for a seat, the card's name (`K`) for a deal.
    fn action_to_string(&self, player: Player, action: Action) -> String {
        let n = self.config.players;
        match player {
            Player::Chance if (action as usize) < self.config.deck_size() => {
                self.config.card_name(action as u8).to_string()
            }
            Player::Chance => format!("card#{action}"),
            Player::Seat(seat) if seat < n => match Move::from_action(action) {
                Some(m) => m.text().to_string(),
                None => format!("action#{action}"),
            },
            _ => format!("action#{action}"),
        }
    }

    /// `pass`/`p` and `bet`/`b` (any case) for a seat, a card of the deck (`K`, `q`) for chance.
    fn string_to_action(&self, player: Player, text: &str) -> Result<Action, GameError> {
        let bad = |reason: String| GameError::bad_action_string(text, player, reason);
        let n = self.config.players;
        match player {
            Player::Chance => parse_card(n, text).map(Action::from).ok_or_else(|| {
                bad(format!(
                    "expected a card of this deck ({}), e.g. 'K'",
                    deck_text(n)
                ))
            }),
            Player::Seat(seat) if seat < n => Move::parse(text).map(Move::action).map_err(|e| bad(e.into())),
            _ => Err(bad(format!(
                "{player} takes no actions (the seats are 0 to {})",
                n - 1
            ))),
        }
    }

    /// The seat, its card, each seat's chips in the pot and, at the end, the cards shown and
    /// the winner: `s1 K | chips 1 2 1 | pot 4`.
    fn observation_string(&self, player: usize) -> String {
        let mut s = format!("s{player} {}", self.card_text(Some(player), player));
        let chips: Vec<String> = (0..self.config.players)
            .map(|seat| self.chips_in(seat).to_string())
            .collect();
        s.push_str(&format!(
            " | chips {} | pot {}",
            chips.join(" "),
            self.pot()
        ));
        self.push_result(Some(player), &mut s);
        s
    }

    /// `s<seat> cards:<deals> bets:<betting>`, e.g. `s1 cards:?K bets:pb` (see the module
    /// doc).
    fn information_state_string(&self, _history: &[PlayerAction], player: usize) -> String {
        let cards: String = (0..self.dealt())
            .map(|seat| self.card_text(Some(player), seat))
            .collect();
        let bets: String = self.moves().iter().map(|m| m.letter()).collect();
        format!("s{player} cards:{cards} bets:{bets}")
    }
}

impl KuhnPokerState {
    /// `seat`'s card as `viewer` sees it: its name, `?` face down, `-` not dealt yet.
    fn card_text(&self, viewer: Option<usize>, seat: usize) -> char {
        match self.card(seat) {
            None => '-',
            Some(c) if self.sees_card(viewer, seat) => self.config.card_name(c),
            Some(_) => '?',
        }
    }

    /// At the end: ` | shown s0:K s1:Q | s0 wins 2` (or `wins 1 uncontested`), what every
    /// viewer learns.
    fn push_result(&self, viewer: Option<usize>, out: &mut String) {
        let Some(winner) = self.winner() else {
            return;
        };
        let won = self.returns()[winner];
        if self.showdown() {
            let shown: Vec<String> = self
                .contenders()
                .into_iter()
                .map(|s| format!("s{s}:{}", self.card_text(viewer, s)))
                .collect();
            out.push_str(&format!(
                " | shown {} | s{winner} wins {won}",
                shown.join(" ")
            ));
        } else {
            out.push_str(&format!(" | s{winner} wins {won} uncontested"));
        }
    }

    /// The betting in words: `s0 checks, s1 bets, s0 folds`.
    pub(super) fn betting_text(&self) -> String {
        let n = self.config.players;
        let mut bet_seen = false;
        let words: Vec<String> = self
            .moves()
            .iter()
            .enumerate()
            .map(|(k, &m)| {
                let text = format!("s{} {}", k % n, m.meaning(bet_seen).verb());
                bet_seen |= m == Move::Bet;
                text
            })
            .collect();
        words.join(", ")
    }
}

impl fmt::Display for KuhnPokerState {
    /// Everything, every card face up: `cards s0:K s1:J | s0 bets, s1 folds | pot 3 | ...`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.config.players;
        let cards: Vec<String> = (0..n)
            .map(|s| match self.card(s) {
                Some(c) => format!("s{s}:{}", self.config.card_name(c)),
                None => format!("s{s}:-"),
            })
            .collect();
        let betting = self.betting_text();
        write!(
            f,
            "cards {} | betting: {} | pot {}",
            cards.join(" "),
            if betting.is_empty() { "-" } else { &betting },
            self.pot()
        )?;
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

/// A Kuhn poker action: `pass` or `bet`, and what it does here.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct KuhnPokerAction {
    /// The action: `pass` (id 0) or `bet` (id 1).
    pub kind: Move,
    /// What it does at this point of the betting: `check` or `bet` while nobody has bet,
    /// `fold` or `call` after the first bet.
    pub meaning: Meaning,
}

impl Structured for KuhnPokerState {
    type ActionStruct = KuhnPokerAction;

    fn action_struct(&self, seat: usize, action: Action) -> Option<KuhnPokerAction> {
        if seat >= self.config.players {
            return None;
        }
        let kind = Move::from_action(action)?;
        Some(KuhnPokerAction {
            kind,
            meaning: kind.meaning(self.facing_bet()),
        })
    }
}
