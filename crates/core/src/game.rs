//! The engine API: the `Game` and `State` traits, players, actions and errors.
//!
//! Semantics follow OpenSpiel so that researchers' algorithms carry over: explicit chance
//! nodes, simultaneous nodes with joint actions, per-seat observations, and returns at the end.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::env::GameRng;
use crate::registry::Params;

/// An action id in a game's fixed action space `0..num_distinct_actions()`, or a chance
/// outcome id in `0..max_chance_outcomes()`.
pub type Action = u32;

/// Who acts at a state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Player {
    /// A seat `0..num_players`.
    Seat(usize),
    /// Nature: the state is a chance node.
    Chance,
    /// Every seat chooses at once (a joint action).
    Simultaneous,
    /// The game is over.
    Terminal,
}

impl Player {
    /// The OpenSpiel integer id: a seat, −1 chance, −2 simultaneous, −4 terminal.
    pub fn id(self) -> i64 {
        match self {
            Player::Seat(p) => p as i64,
            Player::Chance => -1,
            Player::Simultaneous => -2,
            Player::Terminal => -4,
        }
    }

    /// The player for an OpenSpiel integer id, if it is one.
    pub fn from_id(id: i64) -> Option<Player> {
        match id {
            -1 => Some(Player::Chance),
            -2 => Some(Player::Simultaneous),
            -4 => Some(Player::Terminal),
            p if p >= 0 => Some(Player::Seat(p as usize)),
            _ => None,
        }
    }

    /// The seat, if this is one.
    pub fn seat(self) -> Option<usize> {
        match self {
            Player::Seat(p) => Some(p),
            _ => None,
        }
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Player::Seat(p) => write!(f, "seat {p}"),
            Player::Chance => f.write_str("chance"),
            Player::Simultaneous => f.write_str("simultaneous"),
            Player::Terminal => f.write_str("terminal"),
        }
    }
}

/// One entry of a state's history: who acted and what they chose.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerAction {
    /// The actor (a seat or chance).
    pub player: Player,
    /// The action or chance outcome id.
    pub action: Action,
}

/// Whether a game has chance events.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum ChanceMode {
    /// No chance nodes.
    Deterministic,
    /// Chance nodes with explicit outcome probabilities.
    ExplicitStochastic,
}

/// What the seats can know.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Information {
    /// Everything is public.
    Perfect,
    /// Some information is hidden from some seats.
    Imperfect,
}

/// Whether seats act one at a time or at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Dynamics {
    /// One seat at a time.
    Sequential,
    /// All seats choose at once at some nodes.
    Simultaneous,
}

/// How the seats' returns relate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Utility {
    /// Returns sum to zero.
    ZeroSum,
    /// Returns sum to a constant.
    ConstantSum,
    /// No constraint.
    GeneralSum,
}

/// When rewards arrive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum RewardModel {
    /// Only at the end of the game.
    Terminal,
    /// After intermediate steps as well.
    Rewards,
}

/// The facts of a game, stated up front in each game module (as OpenSpiel's `GameType`).
#[derive(Clone, Debug, Serialize)]
pub struct GameInfo {
    /// The registry name, e.g. `pokeros`.
    pub name: &'static str,
    /// The human name, e.g. `Pokeros`.
    pub long_name: &'static str,
    /// One sentence describing the game.
    pub description: &'static str,
    /// Fewest seats the game supports.
    pub min_players: usize,
    /// Most seats the game supports.
    pub max_players: usize,
    /// Chance mode.
    pub chance: ChanceMode,
    /// Information structure.
    pub information: Information,
    /// Sequential or simultaneous.
    pub dynamics: Dynamics,
    /// Utility structure (for the default reward parameter).
    pub utility: Utility,
    /// Reward model.
    pub reward_model: RewardModel,
}

/// What kind of mistake an error reports, so each face can map it to its own status code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The request itself is invalid (bad game, parameter, action, string, tensor shape).
    InvalidArgument,
    /// The request is well formed but the state does not allow it now (out of turn, over).
    FailedPrecondition,
    /// Something named does not exist (a game).
    NotFound,
}

/// Every error the engine reports; messages say what was wrong and what is allowed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GameError {
    /// No game of that name is registered.
    #[error("unknown game '{name}'; registered games: {known}")]
    UnknownGame {
        /// The requested name.
        name: String,
        /// Comma-separated registered names.
        known: String,
    },
    /// A parameter name the game does not have.
    #[error("game '{game}' has no parameter '{name}'; its parameters are: {known}")]
    UnknownParameter {
        /// The game.
        game: String,
        /// The unknown parameter.
        name: String,
        /// Comma-separated known parameters.
        known: String,
    },
    /// A parameter value outside what is allowed.
    #[error("parameter '{name}' of game '{game}' cannot be '{value}': {allowed}")]
    InvalidParameter {
        /// The game.
        game: String,
        /// The parameter.
        name: String,
        /// The rejected value, as given.
        value: String,
        /// What is allowed.
        allowed: String,
    },
    /// No bot of that kind exists.
    #[error("unknown bot '{name}'; bots: {known}")]
    UnknownBot {
        /// The requested kind.
        name: String,
        /// Comma-separated bot kinds.
        known: String,
    },
    /// A bot setting the bot kind does not have.
    #[error("bot '{bot}' has no setting '{name}'; its settings are: {known}")]
    UnknownBotParameter {
        /// The bot kind.
        bot: String,
        /// The unknown setting.
        name: String,
        /// Comma-separated known settings.
        known: String,
    },
    /// A bot setting's value outside what is allowed.
    #[error("setting '{name}' of bot '{bot}' cannot be '{value}': {allowed}")]
    InvalidBotParameter {
        /// The bot kind.
        bot: String,
        /// The setting.
        name: String,
        /// The rejected value, as given.
        value: String,
        /// What is allowed.
        allowed: String,
    },
    /// A setting of a tool built on the engine (the arena) outside what is allowed.
    #[error("'{name}' cannot be '{value}': {allowed}")]
    InvalidSetting {
        /// The setting.
        name: String,
        /// The rejected value, as given.
        value: String,
        /// What is allowed.
        allowed: String,
    },
    /// An action that is not legal for this player here.
    #[error("illegal action {action} ({desc}) for {player} at {state}: {reason}")]
    IllegalAction {
        /// The action id.
        action: Action,
        /// A rendering of the action, when one exists.
        desc: String,
        /// Who tried it.
        player: Player,
        /// A short description of the state.
        state: String,
        /// Why it is illegal.
        reason: String,
    },
    /// Acting when it is not this player's turn, or applying a single action at a
    /// simultaneous node (or a joint action at a sequential one).
    #[error("out of turn: {player} tried to act at {state}, where {to_act} is to act")]
    OutOfTurn {
        /// Who tried to act.
        player: Player,
        /// Who is to act.
        to_act: Player,
        /// A short description of the state.
        state: String,
    },
    /// Acting on a finished game.
    #[error("the game is over ({state}); no action can be applied")]
    GameOver {
        /// A short description of the state.
        state: String,
    },
    /// A seat number outside the game.
    #[error("seat {seat} does not exist; this game has seats 0..{num_players}")]
    InvalidSeat {
        /// The seat asked for.
        seat: i64,
        /// How many seats the game has.
        num_players: usize,
    },
    /// A string that names no action.
    #[error("'{text}' is not an action for {player} here: {reason}")]
    BadActionString {
        /// The text given.
        text: String,
        /// For whom it was parsed.
        player: Player,
        /// Why it did not parse.
        reason: String,
    },
    /// A serialized state that cannot be read back.
    #[error("cannot deserialize state: {reason}")]
    BadSerialization {
        /// Why.
        reason: String,
    },
    /// A caller's buffer of the wrong size.
    #[error("{what} buffer has length {got}, expected {expected}")]
    BadBuffer {
        /// Which buffer.
        what: &'static str,
        /// Its length.
        got: usize,
        /// The required length.
        expected: usize,
    },
}

impl GameError {
    /// Which kind of mistake this is.
    pub fn kind(&self) -> ErrorKind {
        match self {
            GameError::UnknownGame { .. } => ErrorKind::NotFound,
            GameError::OutOfTurn { .. } | GameError::GameOver { .. } => {
                ErrorKind::FailedPrecondition
            }
            _ => ErrorKind::InvalidArgument,
        }
    }
}

/// A game: its facts, parameters, sizes, and a factory for states.
pub trait Game: Send + Sync + fmt::Debug {
    /// The game's facts (for its default parameters).
    fn info(&self) -> &'static GameInfo;
    /// How this instance pays rewards, which may depend on its parameters (a `reward=points`
    /// variant pays as points are scored; the default pays at the end).
    fn reward_model(&self) -> RewardModel {
        self.info().reward_model
    }
    /// The validated parameters this instance was made with.
    fn params(&self) -> &Params;
    /// Number of seats.
    fn num_players(&self) -> usize;
    /// Size of the (seat) action space.
    fn num_distinct_actions(&self) -> usize;
    /// Size of the chance outcome space.
    fn max_chance_outcomes(&self) -> usize;
    /// Shape of `observation_tensor`.
    fn observation_shape(&self) -> Vec<usize>;
    /// Number of floats in `observation_tensor`.
    fn observation_size(&self) -> usize {
        self.observation_shape().iter().product()
    }
    /// Shape of `State::information_state_tensor`.
    fn information_state_tensor_shape(&self) -> Vec<usize>;
    /// Number of floats in `State::information_state_tensor`.
    fn information_state_tensor_size(&self) -> usize {
        self.information_state_tensor_shape().iter().product()
    }
    /// Smallest possible return of a seat.
    fn min_utility(&self) -> f64;
    /// Largest possible return of a seat.
    fn max_utility(&self) -> f64;
    /// `Some(c)` when returns always sum to `c`.
    fn utility_sum(&self) -> Option<f64>;
    /// An upper bound on the number of actions (chance included) in a game.
    fn max_game_length(&self) -> usize;
    /// The state before anything happened (chance nodes explicit).
    fn new_initial_state(&self) -> Box<dyn State>;
    /// Reads a state written by `State::serialize`.
    fn deserialize_state(&self, text: &str) -> Result<Box<dyn State>, GameError>;
}

/// A state of a game. Every per-seat function depends only on what that seat may know.
pub trait State: Send + Sync + fmt::Debug + fmt::Display {
    /// Number of seats.
    fn num_players(&self) -> usize;
    /// Who acts now.
    fn current_player(&self) -> Player;
    /// Whether the game is over.
    fn is_terminal(&self) -> bool {
        self.current_player() == Player::Terminal
    }
    /// Whether nature acts now.
    fn is_chance_node(&self) -> bool {
        self.current_player() == Player::Chance
    }
    /// Whether all seats choose at once now.
    fn is_simultaneous_node(&self) -> bool {
        self.current_player() == Player::Simultaneous
    }
    /// Appends `player`'s legal actions, sorted, to `out` (cleared first). For a seat that
    /// is not to act, or at a terminal state, nothing. For `Chance`, the chance outcomes.
    fn legal_actions_into(&self, player: Player, out: &mut Vec<Action>);
    /// `player`'s legal actions, sorted.
    fn legal_actions_for(&self, player: Player) -> Vec<Action> {
        let mut out = Vec::new();
        self.legal_actions_into(player, &mut out);
        out
    }
    /// The current player's legal actions (chance outcomes at a chance node; empty at
    /// simultaneous and terminal nodes).
    fn legal_actions(&self) -> Vec<Action> {
        match self.current_player() {
            Player::Simultaneous | Player::Terminal => Vec::new(),
            p => self.legal_actions_for(p),
        }
    }
    /// Writes `player`'s legal-action mask into `mask` (length `num_distinct_actions`).
    fn legal_action_mask(&self, player: Player, mask: &mut [bool]) {
        mask.fill(false);
        let mut acts = Vec::new();
        self.legal_actions_into(player, &mut acts);
        for a in acts {
            if let Some(m) = mask.get_mut(a as usize) {
                *m = true;
            }
        }
    }
    /// The chance outcomes and their probabilities (summing to 1) at a chance node.
    fn chance_outcomes(&self) -> Vec<(Action, f64)>;
    /// Samples a chance outcome with `rng` (games may override with a faster path; the
    /// default walks `chance_outcomes`).
    fn sample_chance_outcome(&self, rng: &mut GameRng) -> Action {
        let outcomes = self.chance_outcomes();
        rng.choose_weighted(&outcomes)
    }
    /// Applies the current player's action or a chance outcome.
    fn apply_action(&mut self, action: Action) -> Result<(), GameError>;
    /// Applies a joint action (one per seat) at a simultaneous node.
    fn apply_actions(&mut self, actions: &[Action]) -> Result<(), GameError> {
        let _ = actions;
        Err(GameError::OutOfTurn {
            player: Player::Simultaneous,
            to_act: self.current_player(),
            state: self.describe(),
        })
    }
    /// Each seat's total return so far (final at a terminal state).
    fn returns(&self) -> Vec<f64>;
    /// Each seat's reward from the last action.
    fn rewards(&self) -> Vec<f64>;
    /// Adds each seat's reward from the last action to `out` (`num_players` long), without
    /// allocating where the game overrides it (batched stepping calls this every step).
    fn add_rewards_to(&self, out: &mut [f64]) {
        add_rewards(out, &self.rewards());
    }
    /// Every action applied so far, chance included, in order (a joint action appears as
    /// one entry per seat, seat order).
    fn history(&self) -> &[PlayerAction];
    /// A readable, unique name for `action` taken by `player` here.
    fn action_to_string(&self, player: Player, action: Action) -> String;
    /// The inverse of `action_to_string`.
    fn string_to_action(&self, player: Player, text: &str) -> Result<Action, GameError>;
    /// Writes seat `player`'s observation into `out` (length `observation_size`).
    fn observation_tensor(&self, player: usize, out: &mut [f32]);
    /// The same observation as `observation_tensor`, given as its non-zero entries (`out`
    /// is empty on entry); returns true. A game whose observations are mostly zeros
    /// implements it so that batched envs rewrite only the entries that changed since the
    /// last step instead of the whole row. The default gives nothing and returns false: the
    /// caller then uses `observation_tensor`.
    fn observation_entries(&self, player: usize, out: &mut ObservationEntries) -> bool {
        let _ = (player, out);
        false
    }
    /// Writes seat `player`'s information state into `out` (length
    /// `information_state_tensor_size`): a fixed-size tensor with perfect recall, a
    /// function of everything the seat has observed, in order, and of nothing else. The
    /// layout (`EventLayout`): the current observation tensor, then one row per history
    /// entry saying who acted and what the seat saw of it.
    fn information_state_tensor(&self, player: usize, out: &mut [f32]);
    /// Seat `player`'s current observation as text.
    fn observation_string(&self, player: usize) -> String;
    /// Seat `player`'s information state (everything it has observed, in order) as text.
    fn information_state_string(&self, player: usize) -> String;
    /// A structured view for UIs and gRPC: what `viewer` may know (`None` = a spectator,
    /// public information only).
    fn view(&self, viewer: Option<usize>) -> serde_json::Value;
    /// A state consistent with everything seat `player` knows, with the rest resampled.
    fn resample_from_infostate(&self, player: usize, rng: &mut GameRng) -> Box<dyn State>;
    /// A boxed copy.
    fn clone_box(&self) -> Box<dyn State>;
    /// The whole state as text (`Game::deserialize_state` reads it back).
    fn serialize(&self) -> String;
    /// The concrete state, for game-specific code (bots, renderers) to downcast.
    fn as_any(&self) -> &dyn std::any::Any;
    /// A short description for error messages: move number and who is to act.
    fn describe(&self) -> String {
        format!(
            "move {} ({} to act)",
            self.history().len(),
            self.current_player()
        )
    }
}

impl Clone for Box<dyn State> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// Checks that `player` may act with a single action at `state`; the common preamble of
/// `apply_action` implementations.
pub fn check_turn(state: &dyn State, player: Player) -> Result<(), GameError> {
    let to_act = state.current_player();
    if to_act == Player::Terminal {
        return Err(GameError::GameOver {
            state: state.describe(),
        });
    }
    if to_act != player {
        return Err(GameError::OutOfTurn {
            player,
            to_act,
            state: state.describe(),
        });
    }
    Ok(())
}

/// Where a game's observation writer puts its entries: a row it cleared first
/// (`DenseSink`) or an `ObservationEntries`, so one writer serves both
/// `State::observation_tensor` and `State::observation_entries`.
pub trait ObservationSink {
    /// Sets entry `index` to `value` (a writer sets each entry at most once).
    fn set(&mut self, index: usize, value: f32);
    /// Sets to 1 the entries `64 × word + b` for every bit `b` of `bits` (a 64-entry plane,
    /// such as a chess bitboard, at an offset that is a multiple of 64).
    #[inline]
    fn set_word(&mut self, word: usize, bits: u64) {
        for b in crate::env::set_bits(&[bits]) {
            self.set(word * 64 + b, 1.0);
        }
    }
}

/// Writes into a row that the caller cleared.
pub struct DenseSink<'a>(pub &'a mut [f32]);

impl ObservationSink for DenseSink<'_> {
    #[inline(always)]
    fn set(&mut self, index: usize, value: f32) {
        self.0[index] = value;
    }
}

/// An observation as its non-zero entries: the entries equal to 1 as a bit set, the others
/// as (index, value) pairs.
#[derive(Clone, Debug, Default)]
pub struct ObservationEntries {
    ones: Vec<u64>,
    others: Vec<(u32, f32)>,
}

impl ObservationEntries {
    /// No entries, for observations of `size` floats.
    pub fn new(size: usize) -> Self {
        ObservationEntries {
            ones: vec![0; size.div_ceil(64)],
            others: Vec::new(),
        }
    }

    /// Removes every entry.
    pub fn clear(&mut self) {
        self.ones.fill(0);
        self.others.clear();
    }

    /// Writes these entries into `out` (all zeros on entry).
    pub fn write_into(&self, out: &mut [f32]) {
        for i in crate::env::set_bits(&self.ones) {
            out[i] = 1.0;
        }
        for &(i, v) in &self.others {
            out[i as usize] = v;
        }
    }

    /// Turns `out`, which holds `previous` (written by `write_into` or by this function),
    /// into a row holding `self`, touching only the entries that differ.
    pub fn update(&self, previous: &ObservationEntries, out: &mut [f32]) {
        for &(i, _) in &previous.others {
            out[i as usize] = 0.0;
        }
        for (w, (&new, &old)) in self.ones.iter().zip(&previous.ones).enumerate() {
            for b in crate::env::set_bits(&[new ^ old]) {
                out[w * 64 + b] = (new >> b & 1) as f32;
            }
        }
        for &(i, v) in &self.others {
            out[i as usize] = v;
        }
    }
}

impl ObservationSink for ObservationEntries {
    #[inline(always)]
    fn set(&mut self, index: usize, value: f32) {
        if value == 1.0 {
            self.ones[index / 64] |= 1 << (index % 64);
        } else if value != 0.0 {
            self.others.push((index as u32, value));
        }
    }

    #[inline(always)]
    fn set_word(&mut self, word: usize, bits: u64) {
        self.ones[word] |= bits;
    }
}

/// The history part of an information-state tensor: one row per history entry, up to
/// `max_len` rows (the game's `max_game_length`), each
/// `[present, actor one-hot over the seats then chance, code bits, least significant first]`,
/// and rows past the end of the history all zeros. A code is a game's number for what one
/// seat saw of an entry: an action or card seen whole, one seen in part (a card placed face
/// down: where, not which), or only that it happened. Who acted is public in every game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventLayout {
    /// Seats of the game.
    pub seats: usize,
    /// Bits per code.
    pub bits: usize,
    /// Rows: the most history entries a game can have.
    pub max_len: usize,
}

impl EventLayout {
    /// A layout for `seats` seats, codes below `codes`, and `max_len` entries.
    pub fn new(seats: usize, codes: usize, max_len: usize) -> Self {
        let bits = (usize::BITS - codes.saturating_sub(1).leading_zeros()).max(1) as usize;
        EventLayout {
            seats,
            bits,
            max_len,
        }
    }

    /// Floats per row.
    pub fn width(&self) -> usize {
        1 + self.seats + 1 + self.bits
    }

    /// Floats in all rows.
    pub fn size(&self) -> usize {
        self.max_len * self.width()
    }

    /// Writes the rows for `history` with one code per entry into `out` (length `size`).
    pub fn write(&self, out: &mut [f32], history: &[PlayerAction], codes: &[u32]) {
        debug_assert_eq!(history.len(), codes.len());
        debug_assert!(
            history.len() <= self.max_len,
            "history past max_game_length"
        );
        debug_assert_eq!(out.len(), self.size());
        out.fill(0.0);
        let width = self.width();
        for ((row, entry), &code) in out.chunks_exact_mut(width).zip(history).zip(codes) {
            debug_assert!(
                self.bits >= 32 || code >> self.bits == 0,
                "code past the layout"
            );
            row[0] = 1.0;
            let actor = match entry.player {
                Player::Seat(seat) => seat,
                _ => self.seats,
            };
            row[1 + actor] = 1.0;
            for (bit, x) in row[2 + self.seats..].iter_mut().enumerate() {
                *x = (code >> bit & 1) as f32;
            }
        }
    }
}

/// Writes an information-state tensor as `EventLayout` describes it: seat `player`'s
/// observation (`observation_size` floats), then the history rows with `codes`.
pub fn write_information_state(
    state: &dyn State,
    player: usize,
    observation_size: usize,
    layout: &EventLayout,
    codes: &[u32],
    out: &mut [f32],
) {
    let (obs, events) = out.split_at_mut(observation_size);
    state.observation_tensor(player, obs);
    layout.write(events, state.history(), codes);
}

/// Adds `rewards` seat by seat to `out` (what `State::add_rewards_to` does with a game's own
/// rewards).
pub fn add_rewards(out: &mut [f64], rewards: &[f64]) {
    for (o, r) in out.iter_mut().zip(rewards) {
        *o += r;
    }
}

/// The reward model of a game with a `reward` parameter: rank rewards are paid at the end,
/// points as they are scored.
pub fn rank_or_points_model(rank_reward: bool) -> RewardModel {
    if rank_reward {
        RewardModel::Terminal
    } else {
        RewardModel::Rewards
    }
}

/// Rank rewards: seat i gets (seats i beat − seats that beat i) / (n − 1).
pub fn rank_rewards(points: &[f64]) -> Vec<f64> {
    let n = points.len();
    if n < 2 {
        return vec![0.0; n];
    }
    points
        .iter()
        .map(|&mine| {
            let beat = points.iter().filter(|&&o| mine > o).count() as f64;
            let lost = points.iter().filter(|&&o| o > mine).count() as f64;
            (beat - lost) / (n as f64 - 1.0)
        })
        .collect()
}

/// Points rewards: each seat's points minus the mean of all seats' points.
pub fn points_rewards(points: &[f64]) -> Vec<f64> {
    let mean = points.iter().sum::<f64>() / points.len().max(1) as f64;
    points.iter().map(|p| p - mean).collect()
}
