//! Poker Chess (docs/games/poker_chess.md): chess where every move is paid for with a playing card.
//!
//! | fact | value |
//! |---|---|
//! | name | `poker_chess` |
//! | players | 2 (seat 0 White, seat 1 Black) |
//! | chance | explicit: every card dealt or drawn, one outcome per card id |
//! | information | imperfect: hands and the draw pile are hidden |
//! | utility | zero-sum (rank rewards, or the points difference) |
//! | reward model | terminal (rank), or per capture (`reward=points`) |
//!
//! A turn takes one or two actions. First the seat chooses a card: `CARD_BASE + slot` plays
//! the card in hand slot `slot` (hand sorted by card id), or `CARD_BASE + hand_size + pair`
//! discards the pair of slots `pair` (pairs (i, j), i < j, in lexicographic order). After
//! playing a card the same seat chooses its move: `from * 64 + to` (squares a1 = 0 … h8 =
//! 63; castling is the king's move to its landing square), or `4096 + (from_file * 3 + (to_file
//! - from_file + 1)) * 4 + promotion` for a promotion (`q r b n` = 0..3). Chance outcomes are
//! card ids (`0..55`, see `cards.rs`).

pub mod bot;
mod moves;
mod observe;
mod state;
pub mod table;
mod text;
mod view;

use std::sync::Arc;

use crate::cards::{CardSet, Rank};
use crate::chess::Board;
use crate::game::GameEntry;
use crate::game::{
    ChanceMode, Dynamics, Game, GameError, GameInfo, Information, RewardModel, State, Utility,
};
use crate::params::{ParamKind, ParamSpec, Params};
use crate::rules::Played;

pub use state::{Event, PokerChessState, TurnStep};
pub use table::{MoveTraits, PieceKind, PieceValues};
pub use view::{PokerChessPhase, PokerChessSeat, PokerChessView};

/// The game's facts.
pub static INFO: GameInfo = GameInfo {
    name: "poker_chess",
    long_name: "Poker Chess",
    description: "Chess paid for with cards: play a card from a private hand and make a chess \
                  move it allows (black cards move pawns, red cards other pieces, jokers an \
                  attacked piece); check plays no role and taking the king ends the game.",
    min_players: 2,
    max_players: 2,
    chance: ChanceMode::ExplicitStochastic,
    information: Information::Imperfect,
    dynamics: Dynamics::Sequential,
    utility: Utility::ZeroSum,
    reward_model: RewardModel::Terminal,
};

/// The standard starting position.
pub const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// The game's parameters.
pub static PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "jokers",
        kind: ParamKind::Int { min: 0, max: 3 },
        default: "3",
        description: "jokers in the deck (52 ordinary cards plus these)",
    },
    ParamSpec {
        name: "hand_size",
        kind: ParamKind::Int { min: 2, max: 8 },
        default: "5",
        description: "cards in each private hand; players draw back up to it",
    },
    ParamSpec {
        name: "en_passant",
        kind: ParamKind::Bool,
        default: "true",
        description: "whether en passant captures are allowed (the right lasts one ply)",
    },
    ParamSpec {
        name: "piece_values",
        kind: ParamKind::Text,
        default: "k=100 q=9 r=5 b=3 n=3 p=1",
        description: "points for capturing each piece: letter=value entries (k q r b n p) \
                      separated by spaces, commas or semicolons, values 0-10000; pieces left \
                      out keep their standard value",
    },
    ParamSpec {
        name: "reward",
        kind: ParamKind::Choice {
            options: &["rank", "points"],
        },
        default: "rank",
        description: "rank: +1 / -1 / 0 at the end by points; points: the points difference, \
                      paid as pieces are captured",
    },
    ParamSpec {
        name: "fen",
        kind: ParamKind::Text,
        default: START_FEN,
        description: "the starting position as FEN (for tests and studies): one king per \
                      side, at most 16 pieces per side, no pawn on rank 1 or 8",
    },
];

/// The registry entry.
pub const ENTRY: GameEntry = GameEntry {
    info: &INFO,
    params: PARAMS,
    build,
};

fn build(params: Params) -> Result<Arc<dyn Game>, GameError> {
    Ok(Arc::new(PokerChessGame::new(params)?))
}

/// The first card-choice action id (moves take `0..CARD_BASE`).
pub const CARD_BASE: u32 = 4096 + 96;
/// The first promotion move id.
pub const PROMOTION_BASE: u32 = 4096;

/// Typed parameters of a Poker Chess game.
#[derive(Clone, Debug)]
pub struct Config {
    /// The deck: 52 ordinary cards plus the jokers.
    pub deck: CardSet,
    /// Cards per hand.
    pub hand_size: usize,
    /// Whether en passant is allowed.
    pub en_passant: bool,
    /// Points per captured piece.
    pub values: PieceValues,
    /// Rank rewards (false: points difference).
    pub rank_reward: bool,
    /// The starting position.
    pub start: Board,
}

impl Config {
    /// An upper bound on the history's length (chance included).
    pub fn max_game_length(&self) -> usize {
        // Every card is drawn at most once, and every turn (one or two actions) sends at
        // least one card to the discard pile.
        3 * self.deck.len() as usize
    }

    /// Number of discard pairs.
    pub fn pairs(&self) -> usize {
        self.hand_size * (self.hand_size - 1) / 2
    }
    /// Size of the action space.
    pub fn num_actions(&self) -> usize {
        CARD_BASE as usize + self.hand_size + self.pairs()
    }
    /// The most points one seat can score: the king and fifteen of the most valuable other
    /// piece (a side has at most 16 pieces; promoted pawns score as what they are).
    pub fn max_points(&self) -> u32 {
        let v = self.values.0;
        let best = v[..5].iter().copied().max().unwrap_or(0);
        v[5] + 15 * best
    }
}

/// A Poker Chess game: validated parameters and the tables derived from them.
#[derive(Debug)]
pub struct PokerChessGame {
    params: Params,
    config: Arc<Config>,
}

impl PokerChessGame {
    /// Builds the game from validated parameters.
    pub fn new(params: Params) -> Result<Self, GameError> {
        let bad = |name: &str, value: &str, allowed: String| GameError::InvalidParameter {
            game: INFO.name.to_string(),
            name: name.to_string(),
            value: value.to_string(),
            allowed,
        };
        let values_text = params.text("piece_values");
        let values = PieceValues::parse(values_text).map_err(|e| {
            bad(
                "piece_values",
                values_text,
                format!("{e}; expected e.g. 'k=100 q=9 r=5 b=3 n=3 p=1'"),
            )
        })?;
        let fen = params.text("fen");
        let start = state::parse_start(fen).map_err(|e| bad("fen", fen, e))?;
        let config = Config {
            deck: CardSet::deck(Rank::TWO, params.int("jokers") as u8),
            hand_size: params.int("hand_size") as usize,
            en_passant: params.bool("en_passant"),
            values,
            rank_reward: params.choice("reward") == "rank",
            start,
        };
        Ok(PokerChessGame {
            params,
            config: Arc::new(config),
        })
    }

    /// The typed parameters.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The game's own initial state (before the deal), with the game's configuration;
    /// `new_initial_state` wraps it in `Played`.
    pub fn initial_state(&self) -> PokerChessState {
        PokerChessState::new(self.config.clone(), self.params.clone())
    }
}

impl Game for PokerChessGame {
    fn info(&self) -> &'static GameInfo {
        &INFO
    }
    fn reward_model(&self) -> RewardModel {
        crate::game::rank_or_points_model(self.config.rank_reward)
    }
    fn params(&self) -> &Params {
        &self.params
    }
    fn num_players(&self) -> usize {
        2
    }
    fn num_distinct_actions(&self) -> usize {
        self.config.num_actions()
    }
    fn max_chance_outcomes(&self) -> usize {
        crate::cards::NUM_CARD_IDS
    }
    fn observation_shape(&self) -> Vec<usize> {
        vec![observe::OBSERVATION_SIZE]
    }
    fn information_state_tensor_shape(&self) -> Vec<usize> {
        vec![observe::OBSERVATION_SIZE + observe::event_layout(&self.config).size()]
    }
    fn observation_bounds(&self) -> (f32, f32) {
        // Points are written as points / 100, and a seat scores at most `max_points`.
        (0.0, (self.config.max_points() as f32 / 100.0).max(1.0))
    }
    fn min_utility(&self) -> f64 {
        -self.max_utility()
    }
    fn max_utility(&self) -> f64 {
        if self.config.rank_reward {
            1.0
        } else {
            self.config.max_points() as f64
        }
    }
    fn utility_sum(&self) -> Option<f64> {
        Some(0.0)
    }
    fn max_game_length(&self) -> usize {
        self.config.max_game_length()
    }
    fn new_initial_state(&self) -> Box<dyn State> {
        Box::new(Played::initial(
            self.initial_state(),
            self.max_game_length(),
        ))
    }
}

#[cfg(test)]
mod tests;
