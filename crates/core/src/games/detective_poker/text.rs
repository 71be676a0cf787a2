//! Detective Poker as text: action strings and their parsing, the observation and
//! information-state strings, and `Display` (the whole state; the view is in `view.rs`).

// Seats and betting rounds index several parallel arrays at once; index loops read best.
#![allow(clippy::needless_range_loop)]

use std::fmt;

use schemars::JsonSchema;
use serde::Serialize;

use super::rules::{ActionCard, Bet, STREET_NAMES, STREETS};
use super::state::{DetectivePokerState, Event, event_at};
use crate::cards::{Card, NUM_ORDINARY};
use crate::game::{Action, GameError, Player, PlayerAction};
use crate::rules::{Describe, Rules, Structured};

impl Describe for DetectivePokerState {
    /// A readable, unique name for `action` taken by `player` here.
    fn action_to_string(&self, player: Player, action: Action) -> String {
        match player {
            Player::Chance => match Card::from_id(action) {
                Some(c) if c.0 < NUM_ORDINARY => c.to_string(),
                _ => format!("card#{action}"),
            },
            Player::Seat(seat) if seat < self.config.players => {
                match Bet::decode(action, self.config.players, self.config.max_bet) {
                    Some(bet) => bet.text(),
                    None => format!("action#{action}"),
                }
            }
            _ => format!("action#{action}"),
        }
    }

    /// The inverse of `action_to_string`.
    fn string_to_action(&self, player: Player, text: &str) -> Result<Action, GameError> {
        let bad = |reason: String| GameError::bad_action_string(text, player, reason);
        match player {
            Player::Chance => {
                let card: Card = text
                    .trim()
                    .parse()
                    .map_err(|e: crate::cards::BadCard| bad(e.to_string()))?;
                if card.is_joker() {
                    return Err(bad("Detective Poker uses no jokers".to_string()));
                }
                Ok(card.0 as Action)
            }
            Player::Seat(seat) if seat < self.config.players => {
                let bet = Bet::parse(text).map_err(|e| bad(e.into()))?;
                let n = self.config.players;
                if bet.board as usize >= n {
                    return Err(bad(format!(
                        "board s{} does not exist; the boards are s0..s{}",
                        bet.board,
                        n - 1
                    )));
                }
                if bet.amount as usize > self.config.max_bet {
                    return Err(bad(format!(
                        "a bet is 1 to {} chips, not {}",
                        self.config.max_bet, bet.amount
                    )));
                }
                Ok(bet.encode(self.config.max_bet))
            }
            _ => Err(bad(format!("{player} takes no actions"))),
        }
    }

    /// Seat `player`'s current observation as text.
    fn observation_string(&self, player: usize) -> String {
        let mut s = String::new();
        self.hand_lines(Some(player), &mut s);
        s
    }

    /// Seat `player`'s information state as text, given `history` (this state's).
    fn information_state_string(&self, history: &[PlayerAction], player: usize) -> String {
        let events: Vec<String> = history
            .iter()
            .enumerate()
            .map(|(i, &entry)| self.event_text(i, entry, Some(player)))
            .collect();
        format!("s{player} | {}", events.join(" "))
    }
}

impl DetectivePokerState {
    fn card_text(card: Option<Card>, visible: bool) -> String {
        match (card, visible) {
            (None, _) => "--".to_string(),
            (Some(c), true) => c.to_string(),
            (Some(_), false) => "??".to_string(),
        }
    }

    fn bet_text(bet: Bet, card_visible: bool) -> String {
        if card_visible || bet.card.is_none() {
            bet.text()
        } else {
            format!("bet {} on s{} with ?", bet.amount, bet.board)
        }
    }

    fn cards_text(cards: &[Option<Card>]) -> String {
        let cards: Vec<String> = cards
            .iter()
            .map_while(|c| *c)
            .map(|c| c.to_string())
            .collect();
        if cards.is_empty() {
            "-".to_string()
        } else {
            cards.join(" ")
        }
    }

    fn action_cards_text(set: u8) -> String {
        let names: Vec<&str> = ActionCard::ALL
            .iter()
            .filter(|c| set & c.bit() != 0)
            .map(|c| c.name())
            .collect();
        if names.is_empty() {
            "none".to_string()
        } else {
            names.join(" ")
        }
    }

    /// The current hand as `viewer` sees it, as text lines.
    fn hand_lines(&self, viewer: Option<usize>, out: &mut String) {
        use std::fmt::Write;
        let n = self.config.players;
        let h = self.hand;
        let _ = writeln!(
            out,
            "hand {}/{} (dealer s{}), {}, {} to act",
            h + 1,
            self.config.hands(),
            self.dealer(),
            if self.over {
                "scored"
            } else {
                STREET_NAMES[self.street()]
            },
            self.current_player()
        );
        for seat in 0..n {
            let _ = writeln!(
                out,
                "s{seat}: private {} shown {} | chips {} | action cards left {} | points {}",
                Self::card_text(
                    self.cards.private[seat],
                    self.sees_hole(viewer, seat, true, h)
                ),
                Self::card_text(
                    self.cards.shown[seat],
                    self.sees_hole(viewer, seat, false, h)
                ),
                self.chips[seat],
                self.unused[seat].count_ones(),
                self.points[seat]
            );
        }
        let _ = writeln!(out, "board: {}", Self::cards_text(&self.cards.community));
        for street in 0..STREETS {
            let bets: Vec<String> = self
                .bettors(h, street)
                .filter_map(|b| {
                    self.cards.bets[street][b].map(|bet| {
                        format!(
                            "s{b} {}",
                            Self::bet_text(bet, self.sees_action_card(viewer, b, h))
                        )
                    })
                })
                .collect();
            if !bets.is_empty() {
                let _ = writeln!(out, "{}: {}", STREET_NAMES[street], bets.join(", "));
            }
        }
        if let Some(last) = self.hand_points.last() {
            let _ = writeln!(out, "last scored hand: points {:?}", &last[..n]);
        }
        if let Some(v) = viewer {
            let _ = writeln!(
                out,
                "your action cards: {}",
                Self::action_cards_text(self.unused[v])
            );
        }
    }

    /// History entry `index`, `entry`, as `viewer` saw it.
    fn event_text(&self, index: usize, entry: PlayerAction, viewer: Option<usize>) -> String {
        let n = self.config.players;
        let len = self.config.hand_length();
        let (h, j) = (index / len, index % len);
        let card = || Card(entry.action as u8);
        let mut text = match event_at(n, h % n, j) {
            Event::Private(s) => format!(
                "s{s}.private:{}",
                Self::card_text(Some(card()), self.sees_hole(viewer, s, true, h))
            ),
            Event::Shown(s) => format!(
                "s{s}.shown:{}",
                Self::card_text(Some(card()), self.sees_hole(viewer, s, false, h))
            ),
            Event::Burn(_) => "burn:??".to_string(),
            Event::Community(_) => format!("board:{}", card()),
            Event::Bet { seat, .. } => {
                let bet = Bet::decode(entry.action, n, self.config.max_bet).expect("legal");
                format!(
                    "s{seat}:{}",
                    Self::bet_text(bet, self.sees_action_card(viewer, seat, h)).replace(' ', "_")
                )
            }
        };
        if j == 0 {
            text = format!("[hand {}] {text}", h + 1);
        }
        if j + 1 == len {
            text = format!("{text} [scored {:?}]", &self.hand_points[h][..n]);
        }
        text
    }
}

impl fmt::Display for DetectivePokerState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.config.players;
        let mut s = String::new();
        self.hand_lines(None, &mut s);
        f.write_str(&s)?;
        for seat in 0..n {
            writeln!(
                f,
                "s{seat} holds {} {} (action cards {})",
                Self::card_text(self.cards.private[seat], true),
                Self::card_text(self.cards.shown[seat], true),
                Self::action_cards_text(self.unused[seat])
            )?;
        }
        let mut under = Vec::new();
        for street in 0..STREETS {
            for b in 0..n {
                if let Some(Bet { card: Some(c), .. }) = self.cards.bets[street][b] {
                    under.push(format!("{} s{b}: {}", STREET_NAMES[street], c.name()));
                }
            }
        }
        if !under.is_empty() {
            writeln!(f, "under the bets: {}", under.join(", "))?;
        }
        write!(
            f,
            "burns: {}; deck: {} cards",
            Self::cards_text(&self.cards.burns),
            self.deck.len()
        )
    }
}

/// A Detective Poker action: a bet of chips on a seat's board, maybe over a face-down action
/// card.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct DetectivePokerAction {
    /// The chips bet.
    pub amount: u8,
    /// The seat whose board the chips go on.
    pub target: u8,
    /// The action card placed face down under the bet (`+1`, `clockwise`, `bluff`,
    /// `empty`), or `null` for none.
    pub action_card: Option<String>,
}

impl Structured for DetectivePokerState {
    type ActionStruct = DetectivePokerAction;

    fn action_struct(&self, seat: usize, action: Action) -> Option<DetectivePokerAction> {
        if seat >= self.config.players {
            return None;
        }
        let bet = Bet::decode(action, self.config.players, self.config.max_bet)?;
        Some(DetectivePokerAction {
            amount: bet.amount,
            target: bet.board,
            action_card: bet.card.map(|c| c.name().to_string()),
        })
    }
}
