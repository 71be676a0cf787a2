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
pub mod rules;
mod state;
mod text;
mod view;

use std::sync::Arc;

use crate::game::GameEntry;
use crate::game::{
    ChanceMode, Dynamics, Game, GameError, GameInfo, Information, RewardModel, State, Utility,
};
use crate::params::{ParamKind, ParamSpec, Params};
use crate::rules::Played;

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
    ParamSpec {
        name: "players",
        kind: ParamKind::Int { min: 2, max: 6 },
        default: "3",
        description: "number of seats: 3 or 4 (2, 5 and 6 are house rules)",
    },
    ParamSpec {
        name: "rounds",
        kind: ParamKind::Int { min: 1, max: 10 },
        default: "2",
        description: "rounds in a game; a round is one hand dealt by each player in turn",
    },
    ParamSpec {
        name: "chips",
        kind: ParamKind::Int { min: 4, max: 20 },
        default: "7",
        description: "chips each player has in every hand (at least one per betting round)",
    },
    ParamSpec {
        name: "max_bet",
        kind: ParamKind::Int { min: 1, max: 10 },
        default: "3",
        description: "most chips in one bet (the least is 1)",
    },
    ParamSpec {
        name: "expert",
        kind: ParamKind::Bool,
        default: "false",
        description: "expert mode: a wrong +1 bet loses 1 point, and a flop, turn or river card \
                      whose rank is already on the board is replaced",
    },
    ParamSpec {
        name: "reward",
        kind: ParamKind::Choice {
            options: &["rank", "points"],
        },
        default: "rank",
        description: "rank: rank rewards at the end (ties broken by unused action cards of the \
                      last hand); points: points minus the mean, paid as each hand is scored",
    },
];

/// The registry entry.
pub const ENTRY: GameEntry = GameEntry {
    info: &INFO,
    params: PARAMS,
    build,
};

fn build(params: Params) -> Result<Arc<dyn Game>, GameError> {
    Ok(Arc::new(DetectivePokerGame::new(params)?))
}

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
    /// Every hand's events, `[dealer * hand_length + step]` (a table of `state::event_at`).
    schedule: Vec<state::Event>,
}

impl Config {
    /// An upper bound on the history's length (chance included).
    pub fn max_game_length(&self) -> usize {
        self.hands() * self.hand_length()
    }

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

/// A Detective Poker game: validated parameters.
#[derive(Debug)]
pub struct DetectivePokerGame {
    params: Arc<Params>,
    config: Arc<Config>,
}

impl DetectivePokerGame {
    /// Builds the game from validated parameters.
    pub fn new(params: Params) -> Result<Self, GameError> {
        let mut config = Config {
            schedule: Vec::new(),
            players: params.int("players") as usize,
            rounds: params.int("rounds") as usize,
            chips: params.int("chips") as usize,
            max_bet: params.int("max_bet") as usize,
            expert: params.bool("expert"),
            rank_reward: params.choice("reward") == "rank",
        };
        // Every betting round must allow a bet of at least 1 after keeping one chip per later
        // round; a `max_bet` above `chips - 3` could never be used in full.
        if config.max_bet > config.chips - (rules::STREETS - 1) {
            return Err(GameError::InvalidParameter {
                game: INFO.name.to_string(),
                name: "max_bet".to_string(),
                value: config.max_bet.to_string(),
                allowed: format!(
                    "an integer from 1 to {} (chips - 3, so that one chip stays for each later \
                     betting round) with chips={}",
                    config.chips - (rules::STREETS - 1),
                    config.chips
                ),
            });
        }
        let (n, len) = (config.players, config.hand_length());
        config.schedule = (0..n * len)
            .map(|i| state::event_at(n, i / len, i % len))
            .collect();
        Ok(DetectivePokerGame {
            params: Arc::new(params),
            config: Arc::new(config),
        })
    }

    /// The typed parameters.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// A new state (chance nodes explicit: the first card is to be dealt).
    pub fn initial_state(&self) -> DetectivePokerState {
        DetectivePokerState::new(self.config.clone(), self.params.clone())
    }
}

impl Game for DetectivePokerGame {
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
        self.config.players
    }
    fn num_distinct_actions(&self) -> usize {
        self.config.num_actions()
    }
    fn max_chance_outcomes(&self) -> usize {
        crate::cards::NUM_ORDINARY as usize
    }
    fn observation_shape(&self) -> Vec<usize> {
        vec![observe::observation_size(&self.config)]
    }
    fn information_state_tensor_shape(&self) -> Vec<usize> {
        vec![observe::observation_size(&self.config) + observe::event_layout(&self.config).size()]
    }
    fn observation_bounds(&self) -> (f32, f32) {
        // Points are written as points / max_hand_points, and a seat wins or loses at most
        // max_hand_points + 1 in each hand.
        let c = &self.config;
        let most = (c.hands() * (c.max_hand_points() + 1)) as f32 / c.max_hand_points() as f32;
        (-most, most.max(1.0))
    }
    fn min_utility(&self) -> f64 {
        -self.max_utility()
    }
    fn max_utility(&self) -> f64 {
        if self.config.rank_reward {
            1.0
        } else {
            // A seat's points minus the mean: at most (its best) - (the others' worst).
            let c = &self.config;
            (c.hands() * (c.max_hand_points() + 1)) as f64
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
