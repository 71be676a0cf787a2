//! Prediction Chess as text: action names and their parsing, the observation and
//! information-state strings, and `Display` (the view is in `view.rs`).

use std::fmt;

use schemars::JsonSchema;
use serde::Serialize;

use super::rules::Prediction;
use super::state::{Phase, PredictionChessState, TurnRecord};
use super::{
    NUM_ACTIONS, NUM_SQUARE_PAIRS, PASS, action_move, move_action, pair_action, seat_color,
};
use crate::chess::{Color, Move, Rank, piece_char};
use crate::game::{Action, GameError, Player, PlayerAction};
use crate::rules::{Describe, Structured};
use crate::view::MoveParts;

/// A move in UCI, or `pass`.
pub(super) fn uci(mv: Option<Move>) -> String {
    mv.map_or_else(|| "pass".to_string(), |m| m.to_string())
}

/// A prediction as `from` `to` squares (`e7e5`), or `pass`.
pub(super) fn prediction_text(p: Option<Prediction>) -> String {
    p.map_or_else(|| "pass".to_string(), |p| format!("{}{}", p.from, p.to))
}

impl Describe for PredictionChessState {
    /// A readable, unique name for `action` by `player` at the current node.
    fn action_to_string(&self, player: Player, action: Action) -> String {
        let Player::Seat(seat) = player else {
            return format!("action#{action}");
        };
        if seat > 1 || action as usize >= NUM_ACTIONS {
            return format!("action#{action}");
        }
        let predict = self.phase == Phase::Predict;
        let text = if action == PASS {
            "pass".to_string()
        } else if predict && action >= NUM_SQUARE_PAIRS {
            format!("promotion#{action}")
        } else {
            match action_move(seat_color(seat), action) {
                Some(mv) => mv.to_string(),
                None => format!("promotion#{action}"),
            }
        };
        if predict {
            format!("predict {text}")
        } else {
            text
        }
    }

    /// The inverse of `action_to_string`.
    fn string_to_action(&self, player: Player, text: &str) -> Result<Action, GameError> {
        let bad = |reason: String| GameError::bad_action_string(text, player, reason);
        let Player::Seat(seat) = player else {
            return Err(bad(format!(
                "{player} takes no actions in Prediction Chess"
            )));
        };
        if seat > 1 {
            return Err(bad("Prediction Chess has seats 0 and 1".to_string()));
        }
        let mut body = text.trim();
        let predict = self.phase == Phase::Predict;
        if let Some(rest) = body.strip_prefix("predict ") {
            if !predict {
                return Err(bad(
                    "this is the move node; predictions come at the prediction node".to_string(),
                ));
            }
            body = rest.trim();
        }
        if body == "pass" {
            return Ok(PASS);
        }
        if let Some(n) = body.strip_prefix("promotion#")
            && let Ok(a) = n.parse::<Action>()
            && (NUM_SQUARE_PAIRS..PASS).contains(&a)
        {
            return Ok(a);
        }
        let mv = Move::from_uci(body).map_err(|e| {
            bad(format!(
                "{e}; write a move in UCI (e2e4, e7e8q), 'pass', or at the prediction node \
                 'predict e7e5'"
            ))
        })?;
        match mv.promotion {
            None => pair_action(mv.from, mv.to).ok_or_else(|| {
                bad(format!(
                    "no piece can go from {} to {} (not a queen line or knight jump)",
                    mv.from, mv.to
                ))
            }),
            Some(_) if predict => Err(bad(
                "a prediction is a (from, to) pair without a promotion piece".to_string(),
            )),
            Some(_) => {
                let color = seat_color(seat);
                let df = mv.to.file() as i32 - mv.from.file() as i32;
                if mv.from.rank() != Rank::Seventh.relative_to(color)
                    || mv.to.rank() != Rank::Eighth.relative_to(color)
                    || df.abs() > 1
                {
                    return Err(bad(format!(
                        "a promotion by seat {seat} goes from its 7th rank to its 8th rank, \
                         straight or one file aside"
                    )));
                }
                move_action(mv).ok_or_else(|| bad("not a promotion move".to_string()))
            }
        }
    }

    /// Seat `player`'s observation as text.
    fn observation_string(&self, player: usize) -> String {
        let mut s = self.board.diagram();
        s.push_str(&format!(
            "seat {player} ({})\n{}\n",
            if player == 0 { "white" } else { "black" },
            self.status_text()
        ));
        if let Some(mv) = self.pending_move(player) {
            s.push_str(&format!("your move: {mv}\n"));
        } else if self.phase == Phase::Predict {
            s.push_str("your move: pass\n");
        }
        if let Some(last) = self.turns.last() {
            s.push_str(&format!("last turn: {}\n", Self::turn_text(last)));
        }
        s
    }

    /// Seat `player`'s information state as text: the start position, the revealed turns
    /// and its own pending move.
    fn information_state_string(&self, _history: &[PlayerAction], player: usize) -> String {
        let mut s = format!("seat {player} | {}", self.config.start);
        for (i, record) in self.turns.iter().enumerate() {
            s.push_str(&format!(" | {}: {}", i + 1, Self::turn_text(record)));
        }
        if self.phase == Phase::Predict {
            s.push_str(&format!(
                " | my move: {}",
                uci(action_move(seat_color(player), self.pending[player.min(1)]))
            ));
        }
        s
    }
}

impl PredictionChessState {
    fn turn_text(record: &TurnRecord) -> String {
        let mut s = format!(
            "w {} (predicts {}) b {} (predicts {})",
            uci(record.moves[0]),
            prediction_text(record.predictions[0]),
            uci(record.moves[1]),
            prediction_text(record.predictions[1]),
        );
        for d in record.resolution.deaths() {
            s.push_str(&format!(" x{}@{}", piece_char(d.color, d.piece), d.square));
        }
        s
    }

    fn status_text(&self) -> String {
        match self.phase {
            Phase::Over => {
                let result = match self.winner {
                    Some(0) => "white wins",
                    Some(_) => "black wins",
                    None => "draw",
                };
                format!("over after {} turns: {result} ({:?})", self.turn, self.end)
            }
            phase => format!(
                "turn {}, {} node, quiet turns {}",
                self.turn + 1,
                if phase == Phase::Move {
                    "move"
                } else {
                    "prediction"
                },
                self.quiet_turns
            ),
        }
    }
}

impl fmt::Display for PredictionChessState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.board.diagram())?;
        writeln!(f, "{}", self.status_text())?;
        if self.phase == Phase::Predict {
            writeln!(
                f,
                "pending: w {} b {}",
                uci(action_move(Color::White, self.pending[0])),
                uci(action_move(Color::Black, self.pending[1]))
            )?;
        }
        match self.turns.last() {
            Some(last) => write!(f, "last turn: {}", Self::turn_text(last)),
            None => write!(f, "no turn yet"),
        }
    }
}

/// What a Prediction Chess action does.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PredictionChessActionKind {
    /// A move of one's own (the move phase).
    Move,
    /// A prediction of the opponent's move (the predict phase).
    Predict,
    /// No move, or no prediction.
    Pass,
}

/// A Prediction Chess action: a move, a prediction of the opponent's move, or a pass.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct PredictionChessAction {
    /// What it does.
    pub kind: PredictionChessActionKind,
    /// The move or the move predicted (`from`, `to`, `promotion`); absent for a pass.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub squares: Option<MoveParts>,
}

impl Structured for PredictionChessState {
    type ActionStruct = PredictionChessAction;

    fn action_struct(&self, seat: usize, action: Action) -> Option<PredictionChessAction> {
        if seat > 1 || action as usize >= NUM_ACTIONS {
            return None;
        }
        let predict = self.phase == Phase::Predict;
        if action == PASS {
            return Some(PredictionChessAction {
                kind: PredictionChessActionKind::Pass,
                squares: None,
            });
        }
        if predict && action >= NUM_SQUARE_PAIRS {
            return None;
        }
        Some(PredictionChessAction {
            kind: if predict {
                PredictionChessActionKind::Predict
            } else {
                PredictionChessActionKind::Move
            },
            squares: Some(MoveParts::of(action_move(seat_color(seat), action)?)),
        })
    }
}
