//! What a Prediction Chess seat (or a spectator) may know, as the typed view behind
//! `Visible::view_of`.

use schemars::JsonSchema;
use serde::Serialize;

use super::rules::Prediction;
use super::state::{EndReason, Phase, PredictionChessState};
use super::{action_move, seat_color};
use crate::chess::Move;
use crate::game::PlayerAction;
use crate::rules::Visible;
use crate::view::{Cell, Header, MoveParts, Side, SquareText, Viewer, chess_cells};

/// A Prediction Chess view: the board, the phase, every revealed turn and, at the
/// prediction node, the viewer's own pending move (never the opponent's).
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct PredictionChessView {
    /// The common header.
    #[serde(flatten)]
    pub header: Header,
    /// The node of the turn: `move` (both seats choose a move), `predict` (both predict the
    /// other's move) or `over`.
    pub phase: Phase,
    /// Turns played.
    pub turn: u32,
    /// Turns in a row without a death or a pawn move (fifty ends the game).
    pub quiet_turns: u32,
    /// The position as FEN.
    pub fen: String,
    /// Every piece on the board.
    pub board: Vec<Cell>,
    /// The two seats: seat 0 plays white, seat 1 black.
    pub seats: Vec<PredictionChessSeat>,
    /// The viewer's own move at the prediction node; null otherwise and always for a
    /// spectator.
    pub my_move: Option<PredictionChessMove>,
    /// Every revealed turn, in order.
    pub turns: Vec<PredictionChessTurn>,
    /// Why the game ended (null while it runs).
    pub end_reason: Option<EndReason>,
    /// The winning seat at the end (null for a draw or while the game runs).
    pub winner: Option<usize>,
}

/// A Prediction Chess seat.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct PredictionChessSeat {
    /// The seat.
    pub seat: usize,
    /// The side it plays.
    pub color: Side,
}

/// A revealed turn of Prediction Chess.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct PredictionChessTurn {
    /// Each seat's move, seat 0 first.
    pub moves: [PredictionChessMove; 2],
    /// Each seat's prediction of the other's move, seat 0 first.
    pub predictions: [PredictionChessPrediction; 2],
    /// Per seat: whether the opponent predicted its move.
    pub predicted: [bool; 2],
    /// Battles fought (0 to 2).
    pub battles: u8,
    /// The pieces that died, each on the square of its battle.
    pub deaths: Vec<Cell>,
}

/// A seat's move, told apart by `kind` as its action struct is: a chess move or a pass.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PredictionChessMove {
    /// A chess move.
    Move {
        /// Its squares and promotion (`from`, `to`, `promotion`), as in its action struct.
        #[serde(flatten)]
        squares: MoveParts,
        /// The move in UCI (`e2e4`, `e7e8q`), its action text.
        uci: String,
    },
    /// No move.
    Pass,
}

impl PredictionChessMove {
    /// The record of `mv` (`None`: a pass).
    fn of(mv: Option<Move>) -> PredictionChessMove {
        match mv {
            Some(mv) => PredictionChessMove::Move {
                squares: MoveParts::of(mv),
                uci: mv.to_string(),
            },
            None => PredictionChessMove::Pass,
        }
    }
}

/// A seat's prediction of the other's move, told apart by `kind` as its action struct is:
/// the two squares of the move it predicts, or a pass.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PredictionChessPrediction {
    /// A predicted move.
    Predict {
        /// The square the opponent's piece is predicted to leave.
        from: SquareText,
        /// The square it is predicted to reach.
        to: SquareText,
    },
    /// No prediction.
    Pass,
}

impl PredictionChessPrediction {
    /// The record of `prediction` (`None`: a pass).
    fn of(prediction: Option<Prediction>) -> PredictionChessPrediction {
        match prediction {
            Some(p) => PredictionChessPrediction::Predict {
                from: SquareText::of(p.from),
                to: SquareText::of(p.to),
            },
            None => PredictionChessPrediction::Pass,
        }
    }
}

impl Visible for PredictionChessState {
    type View = PredictionChessView;

    /// What `viewer` may know: a seat's own pending move is the one seat's alone (null for
    /// everyone too; the next state shows both moves).
    fn view_of(&self, _history: &[PlayerAction], viewer: Viewer) -> PredictionChessView {
        let turns = self
            .turns
            .iter()
            .map(|t| PredictionChessTurn {
                moves: t.moves.map(PredictionChessMove::of),
                predictions: t.predictions.map(PredictionChessPrediction::of),
                predicted: t.resolution.predicted,
                battles: t.resolution.battles,
                deaths: t
                    .resolution
                    .deaths()
                    .map(|d| Cell::with_piece(d.square, d.color, d.piece))
                    .collect(),
            })
            .collect();
        let my_move = viewer.seat().and_then(|v| {
            (self.phase == Phase::Predict && v < 2)
                .then(|| PredictionChessMove::of(action_move(seat_color(v), self.pending[v])))
        });
        PredictionChessView {
            header: Header::of(self, viewer),
            phase: self.phase,
            turn: self.turn,
            quiet_turns: self.quiet_turns,
            fen: self.board.to_fen(),
            board: chess_cells(&self.board),
            seats: (0..2)
                .map(|seat| PredictionChessSeat {
                    seat,
                    color: Side::of_seat(seat),
                })
                .collect(),
            my_move,
            turns,
            end_reason: self.end,
            winner: self.winner,
        }
    }
}
