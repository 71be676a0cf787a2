//! Detective Poker (docs/games/detective_poker.md): bet on whose board holds the best hand, seeing
//! only one card of each player.
//!
//! | fact | value |
//! |---|---|
//! | name | `detective_poker` |
//! | players | 3–4 (`players`, default 3; 2, 5 and 6 as house rules) |
//! | chance | explicit: every card dealt, burns included, one outcome per card id |
//! | information | imperfect: own shown card, others' private cards, burns and action cards hidden |
//! | utility | zero-sum (rank rewards, or points minus the mean) |
//! | reward model | terminal (rank), or per scored hand (`reward=points`) |
//!
//! Actions: `((board * max_bet) + amount - 1) * 5 + card`, where `card` is 0 for no action card,
//! then 1 = +1, 2 = Clockwise, 3 = Bluff, 4 = Empty (see `rules::Bet`). Chance outcomes are
//! card ids `0..52` (`cards.rs`).

pub mod bot;
mod observe;
pub mod odds;
pub mod rules;
mod state;
mod text;
mod view;

use std::sync::Arc;

use crate::game::{
    ChanceMode, Dynamics, GameEntry, GameError, GameInfo, Information, RewardModel, Utility,
};
use crate::params::{ParamSpec, Params};
use crate::rules::{GameDef, RulesGame};

pub use state::{DetectivePokerState, Event};
pub use view::{
    ActionCardName, DetectivePokerBet, DetectivePokerScoredBet, DetectivePokerScoredHand,
    DetectivePokerSeat, DetectivePokerView,
};

/// The game's facts.
pub static INFO: GameInfo = GameInfo {
    name: "detective_poker",
    long_name: "Detective Poker",
    description: "Each player sees one card of every other player; in four betting rounds \
                  put chips (and maybe an action card) on the board you think holds the best \
                  hand at that moment.",
    min_players: 2,
    max_players: 6,
    chance: ChanceMode::ExplicitStochastic,
    information: Information::Imperfect,
    dynamics: Dynamics::Sequential,
    utility: Utility::ZeroSum,
    reward_model: RewardModel::Terminal,
};

/// The game's parameters.
pub static PARAMS: &[ParamSpec] = &[
    ParamSpec::int("players", 2, 6, "3")
        .about("number of seats: 3 or 4 (2, 5 and 6 are house rules)"),
    ParamSpec::int("rounds", 1, 10, "2")
        .about("rounds in a game; a round is one hand dealt by each player in turn"),
    ParamSpec::int("chips", 4, 20, "7")
        .about("chips each player has in every hand (at least one per betting round)"),
    ParamSpec::int("max_bet", 1, 10, "3").about("most chips in one bet (the least is 1)"),
    ParamSpec::bool("expert", "false").about(
        "expert mode: a wrong +1 bet loses 1 point, and a flop, turn or river card \
         whose rank is already on the board is replaced",
    ),
    ParamSpec::choice("reward", &["rank", "points"], "rank").about(
        "rank: rank rewards at the end (ties broken by unused action cards of the \
         last hand); points: points minus the mean, paid as each hand is scored",
    ),
    ParamSpec::choice("observation", &["cards", "odds"], "cards").about(
        "cards: the cards, bets, chips and points you see; odds: also each board's chance \
         of holding the best and the weakest hand of the betting round, from the cards you \
         see (not a rule: the observation only)",
    ),
];

/// The registry entry.
pub const ENTRY: GameEntry = DetectivePokerGame::ENTRY;

/// A Detective Poker game: validated parameters and the tables derived from them.
pub type DetectivePokerGame = RulesGame<Config>;

/// Typed parameters of a Detective Poker game.
#[derive(Clone, Debug)]
pub struct Config {
    /// Number of seats.
    pub players: usize,
    /// Rounds (each one hand per dealer).
    pub rounds: usize,
    /// Chips per player per hand.
    pub chips: usize,
    /// Most chips in one bet.
    pub max_bet: usize,
    /// Expert mode.
    pub expert: bool,
    /// Rank rewards (false: points minus the mean).
    pub rank_reward: bool,
    /// The observation ends with the odds block (`observation=odds`): each board's chance of
    /// the best and of the weakest hand of the betting round (`odds::odds`).
    pub odds: bool,
    /// Every hand's events, `[dealer * hand_length + step]` (a table of `state::event_at`).
    schedule: Vec<state::Event>,
    /// The validated parameters.
    params: Params,
}

impl Config {
    /// Hands in a game: one per dealer per round.
    pub fn hands(&self) -> usize {
        self.rounds * self.players
    }
    /// History entries in one hand: 2 cards per player, 3 burns, 5 community cards and one
    /// bet per player in each of the 4 betting rounds.
    pub fn hand_length(&self) -> usize {
        6 * self.players + 8
    }
    /// Size of the action space.
    pub fn num_actions(&self) -> usize {
        self.players * self.max_bet * rules::CARD_CHOICES
    }
    /// The event at entry `step` of a hand dealt by `dealer`.
    #[inline]
    pub fn event(&self, dealer: usize, step: usize) -> state::Event {
        self.schedule[dealer * self.hand_length() + step]
    }
    /// The most points one seat can score in a hand: every chip on correct bets, plus the +1.
    pub fn max_hand_points(&self) -> usize {
        self.chips + 1
    }
}

impl GameDef for Config {
    type Rules = DetectivePokerState;
    const INFO: &'static GameInfo = &INFO;
    const PARAMS: &'static [ParamSpec] = PARAMS;
    const MAX_CHANCE_OUTCOMES: usize = crate::cards::NUM_ORDINARY as usize;
    const ORDER: u16 = 50;
    const POLICY: Option<&'static [u8]> =
        Some(include_bytes!("../../../policies/detective_poker.safetensors"));

    fn from_params(params: Params) -> Result<Self, GameError> {
        let mut config = Config {
            schedule: Vec::new(),
            players: params.int("players") as usize,
            rounds: params.int("rounds") as usize,
            chips: params.int("chips") as usize,
            max_bet: params.int("max_bet") as usize,
            expert: params.bool("expert"),
            rank_reward: params.choice("reward") == "rank",
            odds: params.choice("observation") == "odds",
            params,
        };
        // Every betting round must allow a bet of at least 1 after keeping one chip per later
        // round; a `max_bet` above `chips - 3` could never be used in full.
        if config.max_bet > config.chips - (rules::STREETS - 1) {
            return Err(GameError::invalid_parameter(
                INFO.name,
                "max_bet",
                config.max_bet,
                format!(
                    "an integer from 1 to {} (chips - 3, so that one chip stays for each later \
                     betting round) with chips={}",
                    config.chips - (rules::STREETS - 1),
                    config.chips
                ),
            ));
        }
        let (n, len) = (config.players, config.hand_length());
        config.schedule = (0..n * len)
            .map(|i| state::event_at(n, i / len, i % len))
            .collect();
        Ok(config)
    }

    fn params(&self) -> &Params {
        &self.params
    }
    /// A new state (chance nodes explicit: the first card is to be dealt).
    fn initial(config: &Arc<Self>) -> DetectivePokerState {
        DetectivePokerState::new(config.clone())
    }

    fn num_players(&self) -> usize {
        self.players
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
            // A seat's points minus the mean: at most (its best) - (the others' worst).
            (self.hands() * (self.max_hand_points() + 1)) as f64
        }
    }
    /// An upper bound on the history's length (chance included).
    fn max_game_length(&self) -> usize {
        self.hands() * self.hand_length()
    }
}

#[cfg(test)]
mod tests;
