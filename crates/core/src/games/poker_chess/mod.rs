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
use crate::game::{
    ChanceMode, Dynamics, GameEntry, GameError, GameInfo, Information, RewardModel, Utility,
};
use crate::params::{ParamSpec, Params};
use crate::rules::{GameDef, RulesGame};

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
    ParamSpec::int("jokers", 0, 3, "3").about("jokers in the deck (52 ordinary cards plus these)"),
    ParamSpec::int("hand_size", 2, 8, "5")
        .about("cards in each private hand; players draw back up to it"),
    ParamSpec::bool("en_passant", "true")
        .about("whether en passant captures are allowed (the right lasts one ply)"),
    ParamSpec::text("piece_values", "k=100 q=9 r=5 b=3 n=3 p=1").about(
        "points for capturing each piece: letter=value entries (k q r b n p) \
         separated by spaces, commas or semicolons, values 0-10000; pieces left \
         out keep their standard value",
    ),
    ParamSpec::choice("reward", &["rank", "points"], "rank").about(
        "rank: +1 / -1 / 0 at the end by points; points: the points difference, \
         paid as pieces are captured",
    ),
    ParamSpec::text("fen", START_FEN).about(
        "the starting position as FEN (for tests and studies): one king per \
         side, at most 16 pieces per side, no pawn on rank 1 or 8",
    ),
    ParamSpec::choice("observation", &["board", "scores"], "board").about(
        "board: the board, your hand, the cards played and discarded, points and counts; \
         scores: also, per action, the heuristic bot's score of that action when you are \
         to move (not a rule: the observation only)",
    ),
];

/// The registry entry.
pub const ENTRY: GameEntry = PokerChessGame::ENTRY;

/// A Poker Chess game: validated parameters and the tables derived from them.
pub type PokerChessGame = RulesGame<Config>;

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
    /// The observation ends with the scores block (`observation=scores`): per action, the
    /// heuristic's score of it for the seat to move (`bot::for_each_action_score`).
    pub scores: bool,
    /// The validated parameters.
    params: Params,
}

impl Config {
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

impl GameDef for Config {
    type Rules = PokerChessState;
    const INFO: &'static GameInfo = &INFO;
    const PARAMS: &'static [ParamSpec] = PARAMS;
    const MAX_CHANCE_OUTCOMES: usize = crate::cards::NUM_CARD_IDS;
    const ORDER: u16 = 30;
    const POLICY: Option<&'static [u8]> =
        Some(include_bytes!("../../../policies/poker_chess.safetensors"));

    fn from_params(params: Params) -> Result<Self, GameError> {
        let bad = |name: &str, value: &str, allowed: String| {
            GameError::invalid_parameter(INFO.name, name, value, allowed)
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
        let start = state::parse_start(fen).map_err(|e| bad("fen", fen, e.into()))?;
        Ok(Config {
            deck: CardSet::deck(Rank::TWO, params.int("jokers") as u8),
            hand_size: params.int("hand_size") as usize,
            en_passant: params.bool("en_passant"),
            values,
            rank_reward: params.choice("reward") == "rank",
            start,
            scores: params.choice("observation") == "scores",
            params,
        })
    }

    fn params(&self) -> &Params {
        &self.params
    }
    /// The game's own initial state (before the deal).
    fn initial(config: &Arc<Self>) -> PokerChessState {
        PokerChessState::new(config.clone())
    }

    fn num_players(&self) -> usize {
        2
    }
    fn num_distinct_actions(&self) -> usize {
        self.num_actions()
    }
    fn reward_model(&self) -> RewardModel {
        crate::game::rank_or_points_model(self.rank_reward)
    }
    fn max_utility(&self) -> f64 {
        if self.rank_reward {
            1.0
        } else {
            self.max_points() as f64
        }
    }
    /// An upper bound on the history's length (chance included).
    fn max_game_length(&self) -> usize {
        // Every card is drawn at most once, and every turn (one or two actions) sends at
        // least one card to the discard pile.
        3 * self.deck.len() as usize
    }
}

#[cfg(test)]
mod tests;
