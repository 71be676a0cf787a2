//! Prediction Chess (docs/games/prediction_chess.md): both players move at once, each also
//! predicting the other's move; battles on shared squares are decided by the predictions.
//!
//! | fact | value |
//! |---|---|
//! | name | `prediction_chess` |
//! | players | 2 (seat 0 white, seat 1 black) |
//! | chance | none (deterministic) |
//! | information | imperfect: a seat's pending move is hidden until both reveal |
//! | dynamics | simultaneous: two joint-action nodes per turn (moves, then predictions) |
//! | utility | zero-sum rank rewards: win +1, loss −1, draw 0 |
//! | reward model | terminal |
//!
//! A turn is two simultaneous nodes. At the first each seat chooses its own move; at the
//! second each seat predicts the other's move, having seen its own move but not the other's
//! (both are revealed only after the predictions). This is the same game as choosing move and
//! prediction together, with a small action space (1889) shared by both nodes:
//! - `0..1792`: a (from, to) pair, numbered in (from, to) order among the 1792 pairs a queen
//!   or a knight could ever travel (every pseudo-legal move is one): a move (not a promotion)
//!   at the move node, a predicted (from, to) of the opponent at the prediction node;
//! - `1792 + (from_file * 3 + to_file − from_file + 1) * 4 + k`: a promotion move, `k` =
//!   knight, bishop, rook, queen; the ranks are the mover's seventh and eighth;
//! - `1888`: pass (the move of a seat with no pseudo-legal move, or the prediction of it).

pub mod bot;
mod observe;
pub mod rules;
mod state;
mod text;
mod view;

use std::sync::Arc;

use crate::chess::{Board, Color, File, Move, Piece, Rank, START_FEN, Square};
use crate::game::{
    Action, ChanceMode, Dynamics, GameEntry, GameError, GameInfo, Information, RewardModel, Utility,
};
use crate::params::{ParamSpec, Params};
use crate::rules::{GameDef, RulesGame};

pub use rules::{Death, Prediction, Promotion, Resolution};
pub use state::{EndReason, Phase, PredictionChessState, TurnRecord};
pub use view::{PredictionChessSeat, PredictionChessTurn, PredictionChessView};

/// The game's facts.
pub static INFO: GameInfo = GameInfo {
    name: "prediction_chess",
    long_name: "Prediction Chess",
    description: "Chess with simultaneous moves: each player secretly chooses a move and a \
                  prediction of the opponent's move; predicted attackers lose their battles \
                  and kings are captured, not mated.",
    min_players: 2,
    max_players: 2,
    chance: ChanceMode::Deterministic,
    information: Information::Imperfect,
    dynamics: Dynamics::Simultaneous,
    utility: Utility::ZeroSum,
    reward_model: RewardModel::Terminal,
};

/// The game's parameters.
pub static PARAMS: &[ParamSpec] = &[
    ParamSpec::int("max_turns", 1, 10_000, "200").about("after this many turns the game is a draw"),
    ParamSpec::bool("fifty_move", "true")
        .about("50 turns in a row without a death or a pawn move end in a draw"),
    ParamSpec::choice("promotion", &["lost", "queen"], "lost").about(
        "lost: promote to a piece type its owner has lost (none lost: no move \
         onto the last rank); queen: always to a queen",
    ),
    ParamSpec::text("fen", START_FEN).about(
        "the start position as FEN (one king a side; side to move, castling, \
         en passant and clocks are ignored)",
    ),
];

/// The registry entry.
pub const ENTRY: GameEntry = PredictionChessGame::ENTRY;

/// A Prediction Chess game.
pub type PredictionChessGame = RulesGame<Config>;

/// Whether a queen or a knight could ever travel from square `a` to square `b`.
const fn geometric(a: usize, b: usize) -> bool {
    let (df, dr) = (
        (b % 8) as i32 - (a % 8) as i32,
        (b / 8) as i32 - (a / 8) as i32,
    );
    let (af, ar) = (df.abs(), dr.abs());
    a != b && (df == 0 || dr == 0 || af == ar || (af == 1 && ar == 2) || (af == 2 && ar == 1))
}

/// Pair tables: for each square the bit board of squares a queen or knight could reach
/// from it, the id of each (from, to) pair (of the next pair where there is none), and the
/// pairs by id.
#[allow(clippy::type_complexity)]
const PAIR_TABLES: ([u64; 64], [[u16; 64]; 64], [(u8, u8); 1792]) = {
    let mut reach = [0u64; 64];
    let mut first = [[0u16; 64]; 64];
    let mut pairs = [(0u8, 0u8); 1792];
    let mut next = 0;
    let mut from = 0;
    while from < 64 {
        let mut to = 0;
        while to < 64 {
            first[from][to] = next as u16;
            if geometric(from, to) {
                reach[from] |= 1 << to;
                pairs[next] = (from as u8, to as u8);
                next += 1;
            }
            to += 1;
        }
        from += 1;
    }
    assert!(next == 1792);
    (reach, first, pairs)
};

/// Number of (from, to) pair actions: the plain moves and predictions.
pub const NUM_SQUARE_PAIRS: Action = 1792;
/// First promotion action.
pub const PROMOTION_BASE: Action = NUM_SQUARE_PAIRS;
/// Number of promotion actions (8 files × 3 directions × 4 pieces).
pub const NUM_PROMOTIONS: Action = 96;
/// The pass action.
pub const PASS: Action = PROMOTION_BASE + NUM_PROMOTIONS;
/// Size of the action space.
pub const NUM_ACTIONS: usize = PASS as usize + 1;
/// Turns without a death or pawn move that end the game under `fifty_move`.
pub const FIFTY_MOVE_TURNS: u32 = 50;

/// The colour of a seat.
#[inline]
pub fn seat_color(seat: usize) -> Color {
    if seat == 0 {
        Color::White
    } else {
        Color::Black
    }
}

/// The action of a move (promotion moves use the promotion block; the mover's colour is
/// implied by the seat); `None` for a (from, to) no piece could travel.
#[inline]
pub fn move_action(mv: Move) -> Option<Action> {
    match mv.promotion {
        None => pair_action(mv.from, mv.to),
        Some(piece) => {
            let from_file = mv.from.file() as u32;
            let dir = mv.to.file() as i32 - from_file as i32 + 1;
            if !(0..3).contains(&dir) || !(1..=4).contains(&(piece as u32)) {
                return None;
            }
            Some(PROMOTION_BASE + (from_file * 3 + dir as u32) * 4 + (piece as u32 - 1))
        }
    }
}

/// The action of a (from, to) pair (a plain move or a prediction), if a queen or knight
/// could travel it.
#[inline]
pub fn pair_action(from: Square, to: Square) -> Option<Action> {
    (PAIR_TABLES.0[from as usize] >> to as u32 & 1 == 1).then(|| pair_action_of_move(from, to))
}

/// The pair ids of the moves from square `from`, by destination square (entries for squares
/// no piece reaches from there are meaningless).
#[inline]
pub(crate) fn pair_row(from: usize) -> &'static [u16; 64] {
    &PAIR_FIRST[from]
}

/// `PAIR_TABLES.1` as a static, so lookups index one copy.
static PAIR_FIRST: [[u16; 64]; 64] = PAIR_TABLES.1;

/// The action of a (from, to) pair known to be a pseudo-legal move.
#[inline]
pub(crate) fn pair_action_of_move(from: Square, to: Square) -> Action {
    pair_row(from as usize)[to as usize] as Action
}

/// The move of `color` an action stands for at the move node (`None`: pass or no move).
#[inline]
pub fn action_move(color: Color, action: Action) -> Option<Move> {
    if action < NUM_SQUARE_PAIRS {
        let (from, to) = action_pair(action);
        return Some(Move::new(from, to));
    }
    if action >= PASS {
        return None;
    }
    let code = action - PROMOTION_BASE;
    let piece = Piece::index(1 + (code % 4) as usize);
    let from_file = (code / 4 / 3) as i32;
    let to_file = from_file + (code / 4 % 3) as i32 - 1;
    if !(0..8).contains(&to_file) {
        return None;
    }
    Some(Move {
        from: Square::new(
            File::index(from_file as usize),
            Rank::Seventh.relative_to(color),
        ),
        to: Square::new(
            File::index(to_file as usize),
            Rank::Eighth.relative_to(color),
        ),
        promotion: Some(piece),
    })
}

/// The (from, to) pair of an action below `NUM_SQUARE_PAIRS`.
#[inline]
pub fn action_pair(action: Action) -> (Square, Square) {
    let (from, to) = PAIR_TABLES.2[action as usize % NUM_SQUARE_PAIRS as usize];
    (Square::index(from as usize), Square::index(to as usize))
}

/// Typed parameters of a Prediction Chess game.
#[derive(Clone, Debug)]
pub struct Config {
    /// Turn cap (a draw).
    pub max_turns: u32,
    /// Whether 50 quiet turns draw.
    pub fifty_move: bool,
    /// Promotion rule.
    pub promotion: Promotion,
    /// The start position.
    pub start: Board,
    /// The validated parameters.
    params: Params,
}

impl GameDef for Config {
    type Rules = PredictionChessState;
    const INFO: &'static GameInfo = &INFO;
    const PARAMS: &'static [ParamSpec] = PARAMS;
    const MAX_CHANCE_OUTCOMES: usize = 0;
    const ORDER: u16 = 20;
    const POLICY: Option<&'static [u8]> =
        Some(include_bytes!("../../../policies/prediction_chess.safetensors"));

    /// Refuses a bad FEN.
    fn from_params(params: Params) -> Result<Self, GameError> {
        let fen = params.text("fen").to_string();
        let bad = |allowed: String| GameError::invalid_parameter(INFO.name, "fen", &fen, allowed);
        let start = Board::from_fen(&fen).map_err(|e| bad(format!("a valid FEN ({e})")))?;
        for color in Color::ALL {
            if start.colored(color, Piece::King).len() != 1 {
                return Err(bad(format!(
                    "a position with exactly one king a side ({color:?} has {})",
                    start.colored(color, Piece::King).len()
                )));
            }
        }
        Ok(Config {
            max_turns: params.int("max_turns") as u32,
            fifty_move: params.bool("fifty_move"),
            promotion: match params.choice("promotion") {
                "queen" => Promotion::Queen,
                _ => Promotion::Lost,
            },
            start,
            params,
        })
    }

    fn params(&self) -> &Params {
        &self.params
    }
    fn initial(config: &Arc<Self>) -> PredictionChessState {
        PredictionChessState::new(config.clone())
    }

    fn num_players(&self) -> usize {
        2
    }
    fn num_distinct_actions(&self) -> usize {
        NUM_ACTIONS
    }
    fn max_utility(&self) -> f64 {
        1.0
    }
    /// An upper bound on the history's length (chance included).
    fn max_game_length(&self) -> usize {
        // Two joint actions a turn, two history entries each.
        4 * self.max_turns as usize
    }
}

#[cfg(test)]
mod tests;
