//! Pokeros (docs/games/pokeros.md): poker hands laid as tiles on a grid, scored as they form.
//!
//! | fact | value |
//! |---|---|
//! | name | `pokeros` |
//! | players | 2–4 (`players`, default 2) |
//! | chance | explicit: the centre card, every card dealt, one outcome per card id |
//! | information | imperfect: hands are private (public with `hand_size=0`) |
//! | utility | zero-sum (rank rewards, or points minus the mean) |
//! | reward model | terminal (rank), or per placement (`reward=points`) |
//!
//! Actions: `cell * slots + slot`, where `cell = row * board_size + col` and `slot` is the
//! index of the card in the mover's hand sorted by card id (`slots = max(hand_size, 1)`).
//! Chance outcomes are card ids (`0..55`, see `cards.rs`).

pub mod bot;
pub mod lookahead;
mod observe;
pub mod rules;
mod state;
mod text;
mod view;

use std::sync::Arc;

use crate::cards::{CardSet, Rank};
use crate::game::{
    ChanceMode, Dynamics, GameEntry, GameError, GameInfo, Information, RewardModel, Utility,
};
use crate::params::{ParamSpec, Params};
use crate::poker::window::{NUM_WINDOW_HANDS, StraightRanks};
use crate::rules::{GameDef, RulesGame};

pub use state::PokerosState;
pub use view::{PokerosMove, PokerosScoredHand, PokerosSeat, PokerosView};

/// The game's facts.
pub static INFO: GameInfo = GameInfo {
    name: "pokeros",
    long_name: "Pokeros",
    description: "Poker hands laid as tiles: place cards next to cards on a grid; every \
                  contiguous window of 2-5 cards through the new card that forms a poker hand \
                  scores.",
    min_players: 2,
    max_players: 4,
    chance: ChanceMode::ExplicitStochastic,
    information: Information::Imperfect,
    dynamics: Dynamics::Sequential,
    utility: Utility::ZeroSum,
    reward_model: RewardModel::Terminal,
};

/// The game's parameters.
pub static PARAMS: &[ParamSpec] = &[
    ParamSpec::int("players", 2, 4, "2").about("number of seats"),
    ParamSpec::int("hand_size", 0, 5, "3")
        .about("cards in each private hand; 0 = flip the top card and place it"),
    ParamSpec::int("board_size", 3, 31, "15")
        .about("the board is a board_size x board_size window, first card in the middle"),
    ParamSpec::choice("run_cap_check", &["line", "prototype"], "line").about(
        "line: no row or column run through the new card longer than 5; \
         prototype: each neighbour's run checked on its own (lines up to 9)",
    ),
    ParamSpec::choice("multiplier", &["hands", "cross", "none"], "hands").about(
        "hands: m scoring hands pay x m each; cross: x2 when both axes score; \
         none: no multiplier",
    ),
    ParamSpec::choice("scores", &["final", "original"], "final")
        .about("score table: the author's final table or the first one"),
    ParamSpec::choice("deck", &["full", "stripped"], "full")
        .about("full: 52 cards; stripped: 7 to A, 32 cards (A-7-8-9-T is a straight)"),
    ParamSpec::int("wildcards", 0, 2, "0")
        .about("jokers in the deck; wild on the board, chosen per window"),
    ParamSpec::choice("reward", &["rank", "points"], "rank").about(
        "rank: rank rewards at the end; points: points minus the mean, paid as \
         they are scored",
    ),
    ParamSpec::choice("observation", &["board", "placements", "lookahead"], "board").about(
        "board: the board, the hands and the scores; placements: also, per action, the \
         points that placement of one of your cards would score now; lookahead: instead, \
         per action, those points less the next seat's expected best reply after it, plus \
         half your best placement next turn with the cards you keep (not a rule: the \
         observation only)",
    ),
];

/// The registry entry.
pub const ENTRY: GameEntry = PokerosGame::ENTRY;

/// A Pokeros game: validated parameters and the tables derived from them.
pub type PokerosGame = RulesGame<Config>;

/// The block of one entry per action that ends the observation (`observation`): not a rule,
/// only what the observation shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ActionBlock {
    /// No block (`observation=board`).
    None,
    /// The points each placement of the observer's own card would score now, / 100
    /// (`observation=placements`).
    Placements,
    /// Each placement's two-ply estimate (`observation=lookahead`, see `lookahead.rs`).
    Lookahead,
}

/// How a placement's run length is capped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunCapCheck {
    /// The whole row and column run through the new card is at most 5.
    Line,
    /// Each neighbour's run on its own is at most 4 (the prototype; lines up to 9).
    Prototype,
}

/// How the number of scoring hands multiplies their scores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Multiplier {
    /// m scoring hands pay their score × m each.
    Hands,
    /// ×2 only when both axes score.
    Cross,
    /// No multiplier.
    None,
}

/// The author's final score table, indexed by `WindowHand`.
pub const SCORES_FINAL: [u32; NUM_WINDOW_HANDS] =
    [1, 2, 2, 3, 4, 4, 5, 5, 8, 10, 10, 10, 20, 40, 60];
/// The author's first score table, indexed by `WindowHand`.
pub const SCORES_ORIGINAL: [u32; NUM_WINDOW_HANDS] =
    [1, 4, 3, 2, 12, 5, 10, 30, 25, 20, 16, 7, 14, 40, 100];

/// Typed parameters of a Pokeros game.
#[derive(Clone, Debug)]
pub struct Config {
    /// Number of seats.
    pub players: usize,
    /// Cards per hand (0 = flip and place the top card).
    pub hand_size: usize,
    /// Board side.
    pub board_size: usize,
    /// Run cap rule.
    pub run_cap: RunCapCheck,
    /// Multiplier rule.
    pub multiplier: Multiplier,
    /// Score per window classification.
    pub scores: [u32; NUM_WINDOW_HANDS],
    /// The straight ranks of the deck.
    pub straights: StraightRanks,
    /// The deck (ordinary cards and jokers).
    pub deck: CardSet,
    /// Rank rewards (false: points minus the mean).
    pub rank_reward: bool,
    /// The observation's per-action block, if any (the `observation` parameter).
    pub action_block: ActionBlock,
    /// The validated parameters.
    params: Params,
}

impl Config {
    /// Action slots per cell.
    pub fn slots(&self) -> usize {
        self.hand_size.max(1)
    }
    /// Number of cells.
    pub fn cells(&self) -> usize {
        self.board_size * self.board_size
    }
    /// The centre cell.
    pub fn centre(&self) -> usize {
        let c = self.board_size / 2;
        c * self.board_size + c
    }
    /// The most points a placement can score.
    fn max_placement_points(&self) -> u32 {
        let top = *self.scores.iter().max().unwrap();
        top * 4 * 4
    }
}

impl GameDef for Config {
    type Rules = PokerosState;
    const INFO: &'static GameInfo = &INFO;
    const PARAMS: &'static [ParamSpec] = PARAMS;
    const MAX_CHANCE_OUTCOMES: usize = crate::cards::NUM_CARD_IDS;
    const ORDER: u16 = 10;
    const POLICY: Option<&'static [u8]> =
        Some(include_bytes!("../../../policies/pokeros.safetensors"));
    /// New states copy one made with the game: its board's tables are not rebuilt.
    const SHARE_INITIAL: bool = true;

    fn from_params(params: Params) -> Result<Self, GameError> {
        let deck_kind = params.choice("deck");
        let straights = if deck_kind == "stripped" {
            StraightRanks::STRIPPED
        } else {
            StraightRanks::FULL
        };
        let config = Config {
            players: params.int("players") as usize,
            hand_size: params.int("hand_size") as usize,
            board_size: params.int("board_size") as usize,
            run_cap: match params.choice("run_cap_check") {
                "prototype" => RunCapCheck::Prototype,
                _ => RunCapCheck::Line,
            },
            multiplier: match params.choice("multiplier") {
                "cross" => Multiplier::Cross,
                "none" => Multiplier::None,
                _ => Multiplier::Hands,
            },
            scores: if params.choice("scores") == "original" {
                SCORES_ORIGINAL
            } else {
                SCORES_FINAL
            },
            straights,
            deck: CardSet::deck(
                if deck_kind == "stripped" {
                    Rank::SEVEN
                } else {
                    Rank::TWO
                },
                params.int("wildcards") as u8,
            ),
            rank_reward: params.choice("reward") == "rank",
            action_block: match params.choice("observation") {
                "placements" => ActionBlock::Placements,
                "lookahead" => ActionBlock::Lookahead,
                _ => ActionBlock::None,
            },
            params,
        };
        let cards_needed = 1 + config.players * config.hand_size;
        if cards_needed > config.deck.len() as usize {
            return Err(GameError::invalid_parameter(
                INFO.name,
                "hand_size",
                config.hand_size,
                format!(
                    "at most {} with {} players and a {}-card deck",
                    (config.deck.len() as usize - 1) / config.players,
                    config.players,
                    config.deck.len()
                ),
            ));
        }
        Ok(config)
    }

    fn params(&self) -> &Params {
        &self.params
    }
    /// A new state with the game's configuration.
    fn initial(config: &Arc<Self>) -> PokerosState {
        PokerosState::new(config.clone())
    }

    fn num_players(&self) -> usize {
        self.players
    }
    fn num_distinct_actions(&self) -> usize {
        self.cells() * self.slots()
    }
    fn reward_model(&self) -> RewardModel {
        crate::game::rank_or_points_model(self.rank_reward)
    }
    fn max_utility(&self) -> f64 {
        if self.rank_reward {
            1.0
        } else {
            (self.deck.len() * self.max_placement_points()) as f64
        }
    }
    /// An upper bound on the history's length (chance included).
    fn max_game_length(&self) -> usize {
        2 * self.deck.len() as usize
    }
}

#[cfg(test)]
mod tests;
