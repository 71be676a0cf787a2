//! Hold'em Poker Chess as text: action strings and their parser, the observation and
//! information-state strings, and `Display` (the view is in `view.rs`).

use std::fmt::{self, Write as _};

use schemars::JsonSchema;
use serde::Serialize;

use super::state::{HandRecord, HoldemState, NO_CARD, Phase};
use super::{NUM_SIZES, SIZE_NAMES};
use crate::cards::Card;
use crate::game::{Action, GameError, Player, PlayerAction};
use crate::rules::{Describe, Rules, Structured};

impl Describe for HoldemState {
    /// `action` by `player` as text.
    fn action_to_string(&self, player: Player, action: Action) -> String {
        match player {
            Player::Chance => match Card::from_id(action) {
                Some(c) if action < 52 => c.to_string(),
                _ => format!("card#{action}"),
            },
            Player::Seat(seat) if seat < self.config.players => {
                if action as usize >= self.config.num_actions() {
                    return format!("action#{action}");
                }
                self.action_text(seat, action, true)
            }
            _ => format!("action#{action}"),
        }
    }

    /// The action `text` names for `player`.
    fn string_to_action(&self, player: Player, text: &str) -> Result<Action, GameError> {
        let bad = |reason: String| GameError::bad_action_string(text, player, reason);
        let t = text.trim();
        let cfg = &self.config;
        match player {
            Player::Chance => match t.parse::<Card>() {
                Ok(c) if !c.is_joker() => Ok(c.0 as Action),
                Ok(_) => Err(bad("there are no jokers in this game".to_string())),
                Err(e) => Err(bad(e.to_string())),
            },
            Player::Seat(seat) if seat < cfg.players => {
                if let Some(rest) = t.strip_prefix("place ") {
                    let usage = "expected 'place CARD@X,Y' or 'place hK@X,Y' (K = 0 or 1)";
                    let (what, at) = rest.split_once('@').ok_or_else(|| bad(usage.to_string()))?;
                    let (xs, ys) = at.split_once(',').ok_or_else(|| bad(usage.to_string()))?;
                    let x: i32 = xs
                        .trim()
                        .parse()
                        .map_err(|_| bad(format!("'{xs}' is not a column")))?;
                    let y: i32 = ys
                        .trim()
                        .parse()
                        .map_err(|_| bad(format!("'{ys}' is not a row")))?;
                    let cell = cfg.window.cell(x, y).ok_or_else(|| {
                        bad(format!(
                            "{x},{y} is outside the grid window {}",
                            cfg.window.to_text()
                        ))
                    })?;
                    let what = what.trim();
                    let slot = match what {
                        "h0" => 0,
                        "h1" => 1,
                        _ => {
                            let card: Card = what.parse().map_err(|e| {
                                bad(format!("{e}; or h0/h1 for a hole card by deal order"))
                            })?;
                            self.holes[seat]
                                .iter()
                                .position(|&c| c == card.0)
                                .ok_or_else(|| {
                                    bad(format!("{card} is not a hole card of seat {seat}"))
                                })?
                        }
                    };
                    return Ok(cfg.place_action(slot, cell));
                }
                match t {
                    "fold" => return Ok(cfg.fold_action()),
                    "check" | "call" | "done" => return Ok(cfg.call_action()),
                    _ => {}
                }
                if t.starts_with("call ") {
                    return Ok(cfg.call_action());
                }
                let base = cfg.bet_base() as u32 + 2;
                if let Some(rest) = t.strip_prefix("raise to ") {
                    let amount = rest.trim_end_matches(" (all-in)").trim();
                    let to: u32 = amount
                        .parse()
                        .map_err(|_| bad(format!("'{amount}' is not a chip amount")))?;
                    if cfg.all_sizes {
                        if to == 0 || to > cfg.total_chips() {
                            return Err(bad(format!(
                                "raise-to amounts run from 1 to {}",
                                cfg.total_chips()
                            )));
                        }
                        return Ok(base + to - 1);
                    }
                    return (0..NUM_SIZES as u32)
                        .map(|i| base + i)
                        .find(|&a| self.raise_amount(seat, a) == Some(to))
                        .ok_or_else(|| {
                            bad(format!(
                                "no offered raise is to {to} here; bet_sizes=standard offers \
                                 the legal, distinct amounts of {}",
                                SIZE_NAMES.join(", ")
                            ))
                        });
                }
                if let Some(name) = t.strip_prefix("raise ")
                    && let Some(i) = SIZE_NAMES.iter().position(|&s| s == name.trim())
                    && !cfg.all_sizes
                {
                    return Ok(base + i as u32);
                }
                Err(bad(
                    "expected fold, check, call, done, 'raise to N', or 'place CARD@X,Y'"
                        .to_string(),
                ))
            }
            _ => Err(bad(format!("{player} takes no actions"))),
        }
    }

    /// Seat `player`'s observation as text.
    fn observation_string(&self, player: usize) -> String {
        let mut s = format!(
            "hand {}/{} street {} pot {}\n",
            self.hand_no + u32::from(self.phase != Phase::Over),
            self.config.hands,
            ["preflop", "flop", "turn", "river"][self.betting.street() as usize],
            self.betting.pot()
        );
        s.push_str(&self.grid_text(Some(player), false));
        let hole: Vec<String> = self
            .hole_cards(player)
            .iter()
            .enumerate()
            .map(|(slot, c)| match c {
                Some(c) if self.kept[player] >> slot & 1 == 1 => c.to_string(),
                Some(c) => format!("({c} placed)"),
                None => "-".to_string(),
            })
            .collect();
        let _ = writeln!(s, "hole: {}", hole.join(" "));
        for seat in 0..self.config.players {
            let _ = writeln!(s, "{}", self.seat_text(seat));
        }
        let _ = write!(s, "to act: {}", self.current_player());
        s
    }

    /// Seat `player`'s information state as text.
    fn information_state_string(&self, history: &[PlayerAction], player: usize) -> String {
        format!(
            "seat {player} | {}",
            self.events(history, Some(player)).join(" ")
        )
    }
}

impl HoldemState {
    fn seat_text(&self, seat: usize) -> String {
        let b = &self.betting;
        let tag = if !b.is_dealt(seat) {
            " out"
        } else if b.has_folded(seat) {
            " folded"
        } else if b.is_all_in(seat) {
            " all-in"
        } else {
            ""
        };
        format!(
            "s{seat}{}: stack {} bet {}/{}{tag}",
            if seat == b.button() { " (button)" } else { "" },
            self.chips(seat),
            b.street_bet(seat),
            b.total_bet(seat)
        )
    }

    /// The grid as text rows, hiding the faces `viewer` may not see (`all` shows every face).
    fn grid_text(&self, viewer: Option<usize>, all: bool) -> String {
        let w = &self.config.window;
        let mut cells: Vec<(i32, i32, String)> = Vec::new();
        for g in self.grid_cards() {
            let face = if all || self.sees(viewer, g.card, g.owner) {
                g.card.to_string()
            } else {
                "??".to_string()
            };
            let text = match g.owner {
                Some(s) => format!("{face}{s}"),
                None => format!("{face} "),
            };
            cells.push((g.pos.0, g.pos.1, text));
        }
        let x0 = cells.iter().map(|c| c.0).min().unwrap_or(0).min(0) - 1;
        let x1 = cells.iter().map(|c| c.0).max().unwrap_or(4).max(4) + 1;
        let y0 = cells.iter().map(|c| c.1).min().unwrap_or(0) - 1;
        let y1 = cells.iter().map(|c| c.1).max().unwrap_or(0) + 1;
        let (x0, x1) = (x0.max(w.x0), x1.min(w.x1));
        let (y0, y1) = (y0.max(w.y0), y1.min(w.y1));
        let mut s = String::from("    ");
        for x in x0..=x1 {
            let _ = write!(s, "{x:>4}");
        }
        s.push('\n');
        for y in (y0..=y1).rev() {
            let _ = write!(s, "{y:>3} ");
            for x in x0..=x1 {
                match cells.iter().find(|c| c.0 == x && c.1 == y) {
                    Some(c) => {
                        let _ = write!(s, " {}", c.2);
                    }
                    None => s.push_str("   ."),
                }
            }
            s.push('\n');
        }
        s
    }

    /// What happened in `history`, as seen by `viewer` (`None`: a spectator), one token per
    /// event.
    fn events(&self, history: &[PlayerAction], viewer: Option<usize>) -> Vec<String> {
        let mut replay = HoldemState::new(self.config.clone());
        let mut out = Vec::with_capacity(history.len() + 4);
        let mut hand = 0;
        out.push(format!("hand0 button{}", replay.betting.button()));
        for entry in history {
            match entry.player {
                Player::Chance => {
                    let card = Card(entry.action as u8);
                    let m = replay.num_dealt_seats;
                    if replay.holes_dealt < 2 * m {
                        let seat = replay.deal_order[(replay.holes_dealt % m) as usize] as usize;
                        if viewer == Some(seat) {
                            out.push(format!("deal s{seat}:{card}"));
                        } else {
                            out.push(format!("deal s{seat}:?"));
                        }
                    } else {
                        out.push(format!("board:{card}"));
                    }
                }
                Player::Seat(seat) => {
                    let who = if viewer == Some(seat) {
                        Some(seat)
                    } else {
                        None
                    };
                    let text = replay.action_text(seat, entry.action, who.is_some());
                    out.push(format!("s{seat}:{text}"));
                }
                _ => {}
            }
            replay
                .apply(entry.player, entry.action)
                .expect("the history replays");
            if replay.records.len() > hand {
                let record = &replay.records[hand];
                out.push(record_text(record, self.config.players));
                hand += 1;
                if replay.phase != Phase::Over {
                    out.push(format!("hand{hand} button{}", replay.betting.button()));
                }
            }
        }
        out
    }

    /// The text of a seat action; `face` shows a placed card's face.
    fn action_text(&self, seat: usize, action: Action, face: bool) -> String {
        let cfg = &self.config;
        let a = action as usize;
        if a < cfg.bet_base() {
            let (slot, cell) = (a / cfg.cells, a % cfg.cells);
            let (x, y) = cfg.window.coords(cell);
            let card = self.holes[seat][slot];
            if face && card != NO_CARD {
                format!("place {}@{x},{y}", Card(card))
            } else {
                format!("place h{slot}@{x},{y}")
            }
        } else {
            self.bet_text(seat, action)
        }
    }

    fn bet_text(&self, seat: usize, action: Action) -> String {
        let cfg = &self.config;
        if action == cfg.fold_action() {
            return "fold".to_string();
        }
        if action == cfg.call_action() {
            if self.phase == Phase::Place {
                return "done".to_string();
            }
            let call = self.betting.to_call(seat);
            return if call == 0 {
                "check".to_string()
            } else {
                format!("call {call}")
            };
        }
        if let Some(to) = self.raise_amount(seat, action) {
            let (_, hi) = self.betting.raise_range(seat).unwrap_or((0, 0));
            return if to == hi {
                format!("raise to {to} (all-in)")
            } else {
                format!("raise to {to}")
            };
        }
        let base = cfg.bet_base() as u32 + 2;
        if cfg.all_sizes {
            format!("raise to {}", action - base + 1)
        } else {
            let i = (action - base) as usize;
            format!("raise {}", SIZE_NAMES.get(i).unwrap_or(&"?"))
        }
    }
}

fn record_text(record: &HandRecord, n: usize) -> String {
    let mut s = String::from("result");
    if record.hands().is_empty() {
        s.push_str(" uncontested");
    }
    for h in record.hands() {
        let cards: Vec<String> = h.cards.iter().map(|c| c.to_string()).collect();
        let _ = write!(s, " s{}:[{}]", h.seat, cards.join(" "));
    }
    if !record.revealed.is_empty() {
        let cards: Vec<String> = record.revealed.iter().map(|c| c.to_string()).collect();
        let _ = write!(s, " revealed:[{}]", cards.join(" "));
    }
    let won: Vec<String> = (0..n).map(|i| record.won[i].to_string()).collect();
    let _ = write!(s, " won:[{}]", won.join(","));
    s
}

impl fmt::Display for HoldemState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "hand {}/{} {}\n{}",
            self.hand_no + u32::from(self.phase != Phase::Over),
            self.config.hands,
            self.betting,
            self.grid_text(None, true)
        )?;
        for seat in 0..self.config.players {
            let hole: Vec<String> = self
                .hole_cards(seat)
                .iter()
                .enumerate()
                .map(|(slot, c)| match c {
                    Some(c) if self.kept[seat] >> slot & 1 == 1 => c.to_string(),
                    Some(c) => format!("({c})"),
                    None => "-".to_string(),
                })
                .collect();
            writeln!(f, "{} hole {}", self.seat_text(seat), hole.join(" "))?;
        }
        if let Some(r) = self.records.last() {
            writeln!(f, "last hand: {}", record_text(r, self.config.players))?;
        }
        write!(f, "to act: {}", self.current_player())
    }
}

/// What a Hold'em Poker Chess action does.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HoldemChessActionKind {
    /// Places a hole card on a cell (the placement phase).
    Place,
    /// Ends one's placements (the placement phase).
    Done,
    /// Folds the hand.
    Fold,
    /// Checks (nothing to call).
    Check,
    /// Calls `amount` chips.
    Call,
    /// Raises the bet to `amount` chips.
    Raise,
}

/// A Hold'em Poker Chess action: a placement, the end of one's placements, or a bet.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct HoldemChessAction {
    /// What it does.
    pub kind: HoldemChessActionKind,
    /// A placement's hole card (`Kd`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub card: Option<String>,
    /// A placement's hole-card slot (0 or 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slot: Option<usize>,
    /// A placement's cell column.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub x: Option<i32>,
    /// A placement's cell row.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub y: Option<i32>,
    /// A call's chips to call, or the total a raise raises the bet to (when the seat is to
    /// bet: otherwise the amount is not known yet).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub amount: Option<u32>,
    /// A raise that puts every chip of the seat in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub all_in: Option<bool>,
    /// A raise's size, where raises come in named sizes (`min`, `half-pot`, `pot`, `2pot`,
    /// `all-in`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<String>,
}

impl Structured for HoldemState {
    type ActionStruct = HoldemChessAction;

    fn action_struct(&self, seat: usize, action: Action) -> Option<HoldemChessAction> {
        let cfg = &self.config;
        if seat >= cfg.players || action as usize >= cfg.num_actions() {
            return None;
        }
        let bare = |kind| HoldemChessAction {
            kind,
            card: None,
            slot: None,
            x: None,
            y: None,
            amount: None,
            all_in: None,
            size: None,
        };
        let a = action as usize;
        if a < cfg.bet_base() {
            let (slot, cell) = (a / cfg.cells, a % cfg.cells);
            let (x, y) = cfg.window.coords(cell);
            let card = self.holes[seat][slot];
            return Some(HoldemChessAction {
                card: (card != NO_CARD).then(|| Card(card).to_string()),
                slot: Some(slot),
                x: Some(x),
                y: Some(y),
                ..bare(HoldemChessActionKind::Place)
            });
        }
        if action == cfg.fold_action() {
            return Some(bare(HoldemChessActionKind::Fold));
        }
        if action == cfg.call_action() {
            if self.phase == Phase::Place {
                return Some(bare(HoldemChessActionKind::Done));
            }
            let call = self.betting.to_call(seat);
            return Some(if call == 0 {
                bare(HoldemChessActionKind::Check)
            } else {
                HoldemChessAction {
                    amount: Some(call),
                    ..bare(HoldemChessActionKind::Call)
                }
            });
        }
        let base = cfg.bet_base() as u32 + 2;
        let to = self.raise_amount(seat, action);
        let (_, hi) = self.betting.raise_range(seat).unwrap_or((0, 0));
        Some(HoldemChessAction {
            amount: if cfg.all_sizes {
                Some(action - base + 1)
            } else {
                to
            },
            all_in: to.map(|to| to == hi),
            size: (!cfg.all_sizes)
                .then(|| {
                    SIZE_NAMES
                        .get((action - base) as usize)
                        .map(|s| s.to_string())
                })
                .flatten(),
            ..bare(HoldemChessActionKind::Raise)
        })
    }
}
