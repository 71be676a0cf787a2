//! The engine's one test fixture game, for tests that need a game smaller, or shaped
//! differently, than the registered ones. It is written through `Rules` like every real game,
//! so a test driving it drives the same `Played` wrapper (turn checks, history, errors) that
//! real games use. Not registered, and not part of the library's API (the `testing` feature).
//!
//! # Rules
//!
//! Two seats play `rounds` rounds (parameter, default 3). Each round both seats pick a number
//! `0..picks` (parameter, default 2): at once in `Fixture<true>` (a simultaneous node per
//! round), or seat 0 and then seat 1, who sees seat 0's pick, in `Fixture<false>`. A round is
//! matching pennies: when the picks match, seat 0 wins a point from seat 1; when they differ,
//! seat 1 wins a point from seat 0. With `quit` (parameter, default false), seat 0 may end the
//! game at once: its pick 0 wins it a point and the game is over (seat 1's pick of that round,
//! in a joint round, is void); any other pick of seat 0 first pays seat 1 half a point.
//! Rewards are paid as the points are scored; the returns are the points (zero-sum).
//!
//! Actions are the picks, text `pick0`, `pick1`, .... A seat's observation is one float, its
//! own points so far; the history rows code each pick as itself. Every pick is seen by both
//! seats once it is applied, so a resample is the state itself.
//!
//! ```
//! use checkraise_core::testing::Fixture;
//! use checkraise_core::{Player, State};
//!
//! let game = Fixture::<true>::game(&[("rounds", "1"), ("picks", "3")]);
//! let mut state = game.new_initial_state();
//! assert!(state.is_simultaneous_node());
//! assert_eq!(state.legal_actions_for(Player::Seat(1)), vec![0, 1, 2]);
//! state.apply_actions(&[2, 2]).unwrap();
//! assert_eq!(state.returns(), vec![1.0, -1.0], "the picks matched");
//! ```
//!
//! In turns, with `quit`: playing on pays seat 1 half a point at once, and quitting ends the
//! game before seat 1 picks.
//!
//! ```
//! use checkraise_core::testing::Fixture;
//! use checkraise_core::{Player, State};
//!
//! let game = Fixture::<false>::game(&[("rounds", "1"), ("quit", "true")]);
//! let mut on = game.new_initial_state();
//! on.apply_action(1).unwrap();
//! assert_eq!((on.current_player(), on.rewards()), (Player::Seat(1), vec![-0.5, 0.5]));
//! let mut quit = game.new_initial_state();
//! quit.apply_action(0).unwrap();
//! assert!(quit.is_terminal() && quit.returns() == [1.0, -1.0]);
//! ```

use std::fmt;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Serialize;

use crate::game::{
    Action, ChanceMode, Dynamics, EventLayout, Game, GameError, GameInfo, Information,
    ObservationSink, Player, PlayerAction, RewardModel, Utility,
};
use crate::params::{ParamSpec, Params};
use crate::rng::GameRng;
use crate::rules::{
    Describe, GameDef, Illegal, Layout, Observe, Played, Rules, RulesGame, Structured, Visible,
};
use crate::vocabulary::Viewer;

/// The facts of the joint game (`Fixture<true>`).
static JOINT_INFO: GameInfo = GameInfo {
    name: "fixture_joint",
    long_name: "Test fixture: picks at once",
    description: "Both seats pick a number at once each round; seat 0 scores when the picks \
                  match, seat 1 when they differ.",
    min_players: 2,
    max_players: 2,
    chance: ChanceMode::Deterministic,
    information: Information::Imperfect,
    dynamics: Dynamics::Simultaneous,
    utility: Utility::ZeroSum,
    reward_model: RewardModel::Rewards,
};

/// The facts of the game in turns (`Fixture<false>`).
static TURNS_INFO: GameInfo = GameInfo {
    name: "fixture_turns",
    long_name: "Test fixture: picks in turns",
    description: "Seat 0 picks a number, then seat 1; seat 0 scores when the picks match, \
                  seat 1 when they differ.",
    min_players: 2,
    max_players: 2,
    chance: ChanceMode::Deterministic,
    information: Information::Perfect,
    dynamics: Dynamics::Sequential,
    utility: Utility::ZeroSum,
    reward_model: RewardModel::Rewards,
};

/// The fixture's parameters.
pub static PARAMS: &[ParamSpec] = &[
    ParamSpec::int("rounds", 1, 100, "3").about("rounds of one pick per seat"),
    ParamSpec::int("picks", 1, 100, "2").about("numbers a seat picks from (0 up)"),
    ParamSpec::bool("quit", "false")
        .about("seat 0's pick 0 ends the game, winning it a point; its others pay half a point"),
];

/// The fixture game: picks at once (`JOINT`) or in turns.
pub type Fixture<const JOINT: bool> = RulesGame<Config<JOINT>>;

impl<const JOINT: bool> Fixture<JOINT> {
    /// The fixture with the parameters `given` (the others at their defaults), as a `dyn Game`.
    /// Panics on a parameter the fixture refuses.
    pub fn game(given: &[(&str, &str)]) -> Arc<dyn Game> {
        let params = crate::params::parse(
            <Config<JOINT> as GameDef>::INFO.name,
            PARAMS,
            given.iter().copied(),
        )
        .unwrap_or_else(|e| panic!("fixture parameters: {e}"));
        Fixture::<JOINT>::build(params).expect("the fixture builds from any valid parameters")
    }
}

/// The fixture's typed parameters.
#[derive(Clone, Debug)]
pub struct Config<const JOINT: bool> {
    /// Rounds in a game.
    pub rounds: usize,
    /// Numbers a seat picks from.
    pub picks: u32,
    /// Whether seat 0 may quit (pick 0) and pays half a point for playing on.
    pub quit: bool,
    params: Params,
}

impl<const JOINT: bool> Config<JOINT> {
    /// The most points a seat can win in a round: the round's point, and half a point for
    /// seat 1 when seat 0 plays on with `quit`.
    fn round_max(&self) -> f64 {
        if self.quit { 1.5 } else { 1.0 }
    }
}

impl<const JOINT: bool> GameDef for Config<JOINT> {
    type Rules = FixtureState<JOINT>;
    const INFO: &'static GameInfo = if JOINT { &JOINT_INFO } else { &TURNS_INFO };
    const PARAMS: &'static [ParamSpec] = PARAMS;
    const MAX_CHANCE_OUTCOMES: usize = 0;

    fn from_params(params: Params) -> Result<Self, GameError> {
        Ok(Config {
            rounds: params.int("rounds") as usize,
            picks: params.int("picks") as u32,
            quit: params.bool("quit"),
            params,
        })
    }
    fn params(&self) -> &Params {
        &self.params
    }
    fn initial(config: &Arc<Self>) -> FixtureState<JOINT> {
        FixtureState {
            config: config.clone(),
            round: 0,
            pending: None,
            over: false,
            points: [0.0; 2],
            rewards: [0.0; 2],
        }
    }
    fn num_players(&self) -> usize {
        2
    }
    fn num_distinct_actions(&self) -> usize {
        self.picks as usize
    }
    fn max_utility(&self) -> f64 {
        self.rounds as f64 * self.round_max()
    }
    fn max_game_length(&self) -> usize {
        2 * self.rounds
    }
}

impl<const JOINT: bool> Layout for Config<JOINT> {
    /// The seat's own points.
    fn observation_size(&self) -> usize {
        1
    }
    /// Each pick coded as itself.
    fn event_layout(&self) -> EventLayout {
        EventLayout::new(2, self.picks as usize, self.max_game_length())
    }
    fn observation_bounds(&self) -> (f32, f32) {
        let max = self.max_utility() as f32;
        (-max, max)
    }
    /// The points are a scalar.
    fn observation_scalars(&self) -> Vec<std::ops::Range<usize>> {
        std::iter::once(0..1).collect()
    }
    fn dense_observations(&self) -> bool {
        true
    }
}

/// A fixture state.
#[derive(Clone, Debug)]
pub struct FixtureState<const JOINT: bool> {
    config: Arc<Config<JOINT>>,
    /// Rounds played out.
    round: usize,
    /// Seat 0's pick of this round, in turns, until seat 1 picks.
    pending: Option<Action>,
    /// Seat 0 quit.
    over: bool,
    points: [f64; 2],
    rewards: [f64; 2],
}

impl<const JOINT: bool> FixtureState<JOINT> {
    /// Each seat's points so far.
    pub fn points(&self) -> [f64; 2] {
        self.points
    }

    fn check(&self, action: Action) -> Result<(), Illegal> {
        if action < self.config.picks {
            Ok(())
        } else {
            Err(Illegal::new(format!(
                "a pick is 0 to {}",
                self.config.picks - 1
            )))
        }
    }

    fn score(&mut self, to_seat_0: f64) {
        self.rewards[0] += to_seat_0;
        self.rewards[1] -= to_seat_0;
        self.points[0] += to_seat_0;
        self.points[1] -= to_seat_0;
    }

    /// Seat 0's pick: with `quit`, 0 ends the game (a point to seat 0) and any other pays seat
    /// 1 half a point. Returns whether the game goes on.
    fn seat_0_picks(&mut self, pick: Action) -> bool {
        if self.config.quit {
            if pick == 0 {
                self.score(1.0);
                self.over = true;
                return false;
            }
            self.score(-0.5);
        }
        true
    }

    /// The round's point: seat 0's when the picks match, else seat 1's.
    fn end_round(&mut self, pick0: Action, pick1: Action) {
        self.score(if pick0 == pick1 { 1.0 } else { -1.0 });
        self.round += 1;
    }
}

impl<const JOINT: bool> Rules for FixtureState<JOINT> {
    type Config = Config<JOINT>;

    fn config(&self) -> &Config<JOINT> {
        &self.config
    }
    fn current_player(&self) -> Player {
        if self.over || self.round == self.config.rounds {
            Player::Terminal
        } else if JOINT {
            Player::Simultaneous
        } else if self.pending.is_some() {
            Player::Seat(1)
        } else {
            Player::Seat(0)
        }
    }
    fn legal_actions_into(&self, _player: Player, out: &mut Vec<Action>) {
        out.extend(0..self.config.picks);
    }
    fn apply(&mut self, player: Player, action: Action) -> Result<(), Illegal> {
        self.check(action)?;
        self.rewards = [0.0; 2];
        match self.pending.take() {
            None => {
                if self.seat_0_picks(action) {
                    self.pending = Some(action);
                }
            }
            Some(pick0) => {
                debug_assert_eq!(player, Player::Seat(1));
                self.end_round(pick0, action);
            }
        }
        Ok(())
    }
    fn apply_joint(&mut self, actions: &[Action]) -> Result<(), (usize, Illegal)> {
        for (seat, &action) in actions.iter().enumerate() {
            self.check(action).map_err(|why| (seat, why))?;
        }
        self.rewards = [0.0; 2];
        if self.seat_0_picks(actions[0]) {
            self.end_round(actions[0], actions[1]);
        }
        Ok(())
    }
    fn returns(&self) -> Vec<f64> {
        self.points.to_vec()
    }
    fn reward_slice(&self) -> &[f64] {
        &self.rewards
    }
    /// Pick 0 (seat 0 quits, where it may).
    fn heuristic(&self, _seat: usize, _rng: &mut GameRng) -> Action {
        0
    }
}

impl<const JOINT: bool> Observe for FixtureState<JOINT> {
    fn write_observation<S: ObservationSink>(&self, player: usize, out: &mut S) {
        out.set(0, self.points[player] as f32);
    }
    fn event_codes(&self, history: &[PlayerAction], _viewer: usize) -> Vec<u32> {
        history.iter().map(|entry| entry.action).collect()
    }
    /// Both seats have seen every applied pick: nothing to resample.
    fn resample(
        &self,
        history: &[PlayerAction],
        _player: usize,
        _rng: &mut GameRng,
    ) -> Played<Self> {
        Played::from_parts(self.clone(), history.to_vec())
    }
}

impl<const JOINT: bool> Describe for FixtureState<JOINT> {
    fn action_to_string(&self, _player: Player, action: Action) -> String {
        format!("pick{action}")
    }
    fn string_to_action(&self, player: Player, text: &str) -> Result<Action, GameError> {
        text.strip_prefix("pick")
            .and_then(|n| n.parse().ok())
            .filter(|&n| n < self.config.picks)
            .ok_or_else(|| {
                GameError::bad_action_string(
                    text,
                    player,
                    format!("expected pick0 to pick{}", self.config.picks - 1),
                )
            })
    }
    fn observation_string(&self, player: usize) -> String {
        format!("s{player} points {}", self.points[player])
    }
    fn information_state_string(&self, history: &[PlayerAction], player: usize) -> String {
        let picks: Vec<Action> = history.iter().map(|entry| entry.action).collect();
        format!("s{player} picks {picks:?}")
    }
}

/// A pick, as an action struct.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct FixturePick {
    /// The number picked.
    pub pick: Action,
}

impl<const JOINT: bool> Structured for FixtureState<JOINT> {
    type ActionStruct = FixturePick;
    fn action_struct(&self, _seat: usize, action: Action) -> Option<FixturePick> {
        (action < self.config.picks).then_some(FixturePick { pick: action })
    }
}

/// What anyone sees: every applied pick, and the points. (No other field: a test reads the
/// JSON for a pick that is not applied yet.)
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct FixtureView {
    /// Every applied pick, in order.
    pub revealed: Vec<Action>,
    /// Each seat's points.
    pub points: [f64; 2],
}

impl<const JOINT: bool> Visible for FixtureState<JOINT> {
    type View = FixtureView;
    fn view_of(&self, history: &[PlayerAction], _viewer: Viewer) -> FixtureView {
        FixtureView {
            revealed: history.iter().map(|entry| entry.action).collect(),
            points: self.points,
        }
    }
}

impl<const JOINT: bool> fmt::Display for FixtureState<JOINT> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "round {} points {:?}", self.round, self.points)
    }
}
