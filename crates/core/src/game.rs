//! The engine API: the `Game` and `State` traits, players, actions and errors.
//!
//! Semantics follow OpenSpiel so that researchers' algorithms carry over: explicit chance
//! nodes, simultaneous nodes with joint actions, per-seat observations, and returns at the end.

use std::fmt;
use std::sync::Arc;

pub use crate::error::{ErrorKind, GameError, NotationError};
pub use crate::observation::{
    CompactSink, DenseSink, EventLayout, ObservationEntries, ObservationSink,
};
use crate::params::{ParamSpec, Params};
use crate::rng::GameRng;
pub use crate::vocabulary::{
    Action, ChanceMode, Dynamics, GameInfo, Information, Player, PlayerAction, RewardModel, Utility,
};

/// A game: its facts, parameters, sizes, and a factory for states.
///
/// ```
/// use checkraise_core::make_game_from_string;
///
/// let game = make_game_from_string("poker_chess").unwrap();
/// assert_eq!(game.num_players(), 2);
/// assert_eq!(game.observation_size(), game.observation_shape().iter().product::<usize>());
/// assert_eq!(game.utility_sum(), Some(0.0), "zero-sum");
/// assert!(game.min_utility() < 0.0 && 0.0 < game.max_utility());
/// ```
pub trait Game: Send + Sync + fmt::Debug {
    /// The game's facts (for its default parameters).
    fn info(&self) -> &'static GameInfo;
    /// The policy file the engine ships for this game (`GameEntry::policy`), if any: the
    /// `policy` bot plays it.
    fn shipped_policy(&self) -> Option<&'static [u8]> {
        None
    }
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
    /// Bounds `(low, high)` that every entry of every observation tensor lies within (the
    /// conformance gate checks them on random play), for observation spaces with real bounds.
    /// The default is `(0, 1)`: one-hot planes and counts scaled by their maximum.
    fn observation_bounds(&self) -> (f32, f32) {
        (0.0, 1.0)
    }
    /// The entries of the observation tensor that are not binary (scalars such as points /
    /// 100 or chips / total), as index ranges; every other entry is 0 or 1 in every
    /// observation (a test checks it on random play). The compact encoding
    /// (`crate::compact::CompactLayout`) packs the binary entries as bits and keeps these as
    /// float32. The default: none.
    fn observation_scalars(&self) -> Vec<std::ops::Range<usize>> {
        Vec::new()
    }
    /// The same game with the parameters `given` (string values as in a game string; every
    /// other parameter takes its default), validated and built as the registry builds games.
    /// The default: refused (a game not written on `rules::GameDef`).
    ///
    /// ```
    /// let game = checkraise_core::make_game_from_string("pokeros").unwrap();
    /// let four = game.with_params(&[("players".into(), "4".into())]).unwrap();
    /// assert_eq!((four.num_players(), four.params().int("board_size")), (4, 15));
    /// ```
    fn with_params(&self, given: &[(String, String)]) -> Result<Arc<dyn Game>, GameError> {
        let _ = given;
        Err(GameError::invalid_parameter(
            self.info().name,
            "(parameter list)",
            "",
            "a game built from its parameters",
        ))
    }
    /// Where the observation has a block of `num_distinct_actions` entries, entry `a` of which
    /// describes action `a` (Pokeros with `observation=placements`: the points each placement
    /// would score): the block's first index. A policy network may read it straight into
    /// each action's logit (`crate::bots::policy`). The default: none.
    fn action_features(&self) -> Option<usize> {
        None
    }
    /// Whether batched float32 writes should rewrite whole observation rows
    /// (`State::observation_tensor`) even though the game gives its observations as entries:
    /// true for small observations, which are faster to write whole than to diff. The
    /// default: false.
    fn dense_observations(&self) -> bool {
        false
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
    ///
    /// ```
    /// let game = checkraise_core::make_game_from_string("pokeros").unwrap();
    /// let state = game.new_initial_state();
    /// assert!(state.is_chance_node(), "the centre card is dealt first");
    /// assert!(state.history().is_empty() && state.returns() == [0.0, 0.0]);
    /// ```
    fn new_initial_state(&self) -> Box<dyn State>;
    /// Reads a state written by `State::serialize`, replaying its history from the initial
    /// state (so the rules validate it).
    ///
    /// ```
    /// use checkraise_core::{GameRng, make_game_from_string};
    ///
    /// let game = make_game_from_string("pokeros").unwrap();
    /// let mut state = game.new_initial_state();
    /// checkraise_core::env::resolve_chance(state.as_mut(), &mut GameRng::new(3));
    /// let back = game.deserialize_state(&state.serialize()).unwrap();
    /// assert_eq!(back.history(), state.history());
    /// assert!(game.deserialize_state("not a state").is_err());
    /// ```
    fn deserialize_state(&self, text: &str) -> Result<Box<dyn State>, GameError> {
        let history = crate::serial::decode(text, self.info().name, self.params(), |given| {
            let given: Vec<(String, String)> = given
                .values()
                .iter()
                .map(|(k, v)| (k.clone(), v.to_string()))
                .collect();
            self.with_params(&given).ok().map(|g| g.params().clone())
        })?;
        let mut state = self.new_initial_state();
        replay(state.as_mut(), &history).map_err(|e| match e {
            GameError::BadSerialization { .. } => e,
            e => GameError::BadSerialization {
                reason: format!("history does not replay: {e}"),
            },
        })?;
        Ok(state)
    }
}

/// A registered game: its facts, its parameter schema and its constructor.
#[derive(Clone, Copy)]
pub struct GameEntry {
    /// The game's facts.
    pub info: &'static GameInfo,
    /// Its parameters.
    pub params: &'static [ParamSpec],
    /// Builds a game from validated parameters (may still refuse combinations).
    pub build: fn(Params) -> Result<Arc<dyn Game>, GameError>,
    /// The JSON Schema of its view (`State::view`), published in `docs/views/`.
    pub view_schema: fn() -> schemars::Schema,
    /// The JSON Schema of its action struct (`State::action_struct`), published in
    /// `docs/actions/`.
    pub action_schema: fn() -> schemars::Schema,
    /// Where the game comes in lists (the registry, the catalog, the web page); ties in name
    /// order.
    pub order: u16,
    /// The policy file the engine ships for the game's default parameters (the `policy` bot),
    /// if any.
    pub policy: Option<&'static [u8]>,
    /// The Cargo feature the game is compiled behind (`None`: in every build). Set by the
    /// registry from the game's folder; a game behind a feature is not in the published docs.
    pub feature: Option<&'static str>,
}

impl std::fmt::Debug for GameEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GameEntry")
            .field("name", &self.info.name)
            .field("order", &self.order)
            .field("policy", &self.policy.map(<[u8]>::len))
            .field("feature", &self.feature)
            .finish_non_exhaustive()
    }
}

/// A state of a game. Every per-seat function depends only on what that seat may know.
///
/// ```
/// use checkraise_core::{GameRng, Player, make_game_from_string};
///
/// let game = make_game_from_string("pokeros").unwrap();
/// let mut state = game.new_initial_state();
/// let mut rng = GameRng::new(42);
/// while !state.is_terminal() {
///     let action = match state.current_player() {
///         Player::Chance => state.sample_chance_outcome(&mut rng),
///         _ => rng.choose(&state.legal_actions()),
///     };
///     state.apply_action(action).unwrap();
/// }
/// assert_eq!(state.returns().iter().sum::<f64>(), 0.0, "zero-sum");
/// ```
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
    ///
    /// ```
    /// use checkraise_core::{GameRng, Player, make_game_from_string};
    ///
    /// let mut state = make_game_from_string("pokeros").unwrap().new_initial_state();
    /// checkraise_core::env::resolve_chance(state.as_mut(), &mut GameRng::new(1));
    /// assert_eq!(state.current_player(), Player::Seat(0));
    /// assert_eq!(state.legal_actions_for(Player::Seat(0)), state.legal_actions());
    /// assert!(state.legal_actions_for(Player::Seat(1)).is_empty(), "not seat 1's turn");
    /// ```
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
    /// Writes `player`'s action mask (its legal actions, as `true` entries) into `mask`
    /// (length `num_distinct_actions`). `action_mask` is the mask's one name in every face:
    /// Rust, Python (`State.action_mask`, `VectorEnv.action_masks`, `info["action_mask"]`)
    /// and the gRPC `EnvBatch.action_masks`.
    ///
    /// ```
    /// use checkraise_core::{Action, GameRng, Player, make_game_from_string};
    ///
    /// let game = make_game_from_string("poker_chess").unwrap();
    /// let mut state = game.new_initial_state();
    /// checkraise_core::env::resolve_chance(state.as_mut(), &mut GameRng::new(1));
    /// let mut mask = vec![false; game.num_distinct_actions()];
    /// state.action_mask(state.current_player(), &mut mask);
    /// let legal: Vec<Action> = (0..mask.len() as Action).filter(|&a| mask[a as usize]).collect();
    /// assert_eq!(legal, state.legal_actions());
    /// ```
    fn action_mask(&self, player: Player, mask: &mut [bool]) {
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
    ///
    /// ```
    /// use checkraise_core::{Player, PlayerAction, make_game_from_string};
    ///
    /// let mut state = make_game_from_string("pokeros").unwrap().new_initial_state();
    /// let outcomes = state.chance_outcomes();
    /// let total: f64 = outcomes.iter().map(|(_, p)| p).sum();
    /// assert!((total - 1.0).abs() < 1e-9);
    /// let (card, _) = outcomes[0];
    /// state.apply_action(card).unwrap();
    /// assert_eq!(state.history(), [PlayerAction { player: Player::Chance, action: card }]);
    /// ```
    fn chance_outcomes(&self) -> Vec<(Action, f64)>;
    /// Samples a chance outcome with `rng` (games may override with a faster path; the
    /// default walks `chance_outcomes`).
    fn sample_chance_outcome(&self, rng: &mut GameRng) -> Action {
        let outcomes = self.chance_outcomes();
        rng.choose_weighted(&outcomes)
    }
    /// Applies the current player's action or a chance outcome.
    ///
    /// ```
    /// use checkraise_core::{Action, ErrorKind, GameRng, make_game_from_string};
    ///
    /// let game = make_game_from_string("poker_chess").unwrap();
    /// let mut state = game.new_initial_state();
    /// checkraise_core::env::resolve_chance(state.as_mut(), &mut GameRng::new(5));
    /// let (legal, before) = (state.legal_actions(), state.history().len());
    /// let n = game.num_distinct_actions() as Action;
    /// let illegal = (0..n).find(|a| !legal.contains(a)).unwrap();
    /// assert_eq!(state.apply_action(illegal).unwrap_err().kind(), ErrorKind::InvalidArgument);
    /// assert_eq!(state.history().len(), before, "a refused action changes nothing");
    /// state.apply_action(legal[0]).unwrap();
    /// assert_eq!(state.history().len(), before + 1);
    /// ```
    fn apply_action(&mut self, action: Action) -> Result<(), GameError>;
    /// Applies a joint action (one per seat) at a simultaneous node.
    ///
    /// ```
    /// use checkraise_core::{Action, Player, make_game_from_string};
    ///
    /// let mut state = make_game_from_string("prediction_chess").unwrap().new_initial_state();
    /// assert!(state.is_simultaneous_node(), "both seats choose their moves at once");
    /// let first = |s| state.legal_actions_for(Player::Seat(s))[0];
    /// let joint: Vec<Action> = (0..2).map(first).collect();
    /// assert!(state.apply_action(joint[0]).is_err(), "one seat's action alone is refused");
    /// state.apply_actions(&joint).unwrap();
    /// assert_eq!(state.history().len(), 2, "one entry per seat");
    /// ```
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
    ///
    /// ```
    /// use checkraise_core::{GameRng, Player, make_game_from_string};
    ///
    /// let mut state = make_game_from_string("pokeros").unwrap().new_initial_state();
    /// checkraise_core::env::resolve_chance(state.as_mut(), &mut GameRng::new(2));
    /// let action = state.legal_actions()[0];
    /// let text = state.action_to_string(Player::Seat(0), action);
    /// assert_eq!(state.string_to_action(Player::Seat(0), &text).unwrap(), action);
    /// ```
    fn string_to_action(&self, player: Player, text: &str) -> Result<Action, GameError>;
    /// Writes seat `player`'s observation into `out` (length `observation_size`).
    ///
    /// ```
    /// use checkraise_core::{GameRng, make_game_from_string};
    ///
    /// let game = make_game_from_string("pokeros").unwrap();
    /// let mut state = game.new_initial_state();
    /// checkraise_core::env::resolve_chance(state.as_mut(), &mut GameRng::new(4));
    /// let mut obs = vec![0.0; game.observation_size()];
    /// state.observation_tensor(0, &mut obs);
    /// let (low, high) = game.observation_bounds();
    /// assert!(obs.iter().all(|&x| low <= x && x <= high) && obs.iter().any(|&x| x != 0.0));
    /// ```
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
    /// The same observation as `observation_tensor`, written as a compact row through `out`
    /// (`crate::compact`: binary entries as bits, scalars as float32); returns true. The
    /// default writes nothing and returns false: the caller then packs `observation_tensor`.
    fn observation_compact(&self, player: usize, out: &mut CompactSink<'_>) -> bool {
        let _ = (player, out);
        false
    }
    /// Writes seat `player`'s information state into `out` (length
    /// `information_state_tensor_size`): a fixed-size tensor with perfect recall, a
    /// function of everything the seat has observed, in order, and of nothing else. The
    /// layout (`EventLayout`): the current observation tensor, then one row per history
    /// entry saying who acted and what the seat saw of it.
    ///
    /// ```
    /// use checkraise_core::{GameRng, make_game_from_string};
    ///
    /// let game = make_game_from_string("pokeros").unwrap();
    /// let mut state = game.new_initial_state();
    /// checkraise_core::env::resolve_chance(state.as_mut(), &mut GameRng::new(4));
    /// let mut info = vec![0.0; game.information_state_tensor_size()];
    /// state.information_state_tensor(1, &mut info);
    /// let mut obs = vec![0.0; game.observation_size()];
    /// state.observation_tensor(1, &mut obs);
    /// assert_eq!(info[..obs.len()], obs[..], "the observation comes first");
    /// ```
    fn information_state_tensor(&self, player: usize, out: &mut [f32]);
    /// Seat `player`'s current observation as text.
    fn observation_string(&self, player: usize) -> String;
    /// Seat `player`'s information state (everything it has observed, in order) as text.
    fn information_state_string(&self, player: usize) -> String;
    /// A structured view for UIs and gRPC: what `viewer` may know (`None` = a spectator,
    /// public information only).
    ///
    /// ```
    /// let state = checkraise_core::make_game_from_string("pokeros").unwrap().new_initial_state();
    /// let view = state.view(Some(1));
    /// assert_eq!((view["game"].as_str(), view["viewer"].as_u64()), (Some("pokeros"), Some(1)));
    /// assert!(state.view(None)["viewer"].is_null(), "a spectator");
    /// ```
    fn view(&self, viewer: Option<usize>) -> serde_json::Value;
    /// The structured view of every seat's information together (`view::Viewer::Everyone`):
    /// every card any seat may see face up, its header's `everyone` true. Only for after the
    /// end (a finished match's replay): during a game it gives each seat the others' cards.
    /// The default (states written without views of their own) is the spectator's view.
    fn everyone_view(&self) -> serde_json::Value {
        self.view(None)
    }
    /// Seat `player`'s `action` here as the game's action struct, in JSON (its schema is the
    /// registry entry's `action_schema`): what a client reads instead of parsing the action's
    /// text. `None` for an id outside the seat's action space. The default (a `State` written
    /// by hand rather than through `rules::Rules`, such as a wrapper) has none.
    fn action_struct(&self, player: usize, action: Action) -> Option<serde_json::Value> {
        let _ = (player, action);
        None
    }
    /// A state consistent with everything seat `player` knows, with the rest resampled.
    ///
    /// ```
    /// use checkraise_core::{GameRng, make_game_from_string};
    ///
    /// let game = make_game_from_string("pokeros").unwrap();
    /// let mut state = game.new_initial_state();
    /// let mut rng = GameRng::new(6);
    /// checkraise_core::env::resolve_chance(state.as_mut(), &mut rng);
    /// let seen = state.resample_from_infostate(0, &mut rng);
    /// assert_eq!(seen.observation_string(0), state.observation_string(0));
    /// assert_eq!(seen.legal_actions(), state.legal_actions());
    /// ```
    fn resample_from_infostate(&self, player: usize, rng: &mut GameRng) -> Box<dyn State>;
    /// The length of a prefix of `history()` in which every seat decided on what is the
    /// same in every state `resample_from_infostate` may give, for any seat: what each seat
    /// saw at those decisions has all been revealed since, or was public. A belief-weighted
    /// search (`bots::ismcts`) weights only the decisions after it, since those before weigh
    /// the same in every determinization. The default, 0, is always true.
    fn settled_prefix(&self) -> usize {
        0
    }
    /// The game's heuristic policy: the action seat `seat` takes here (a state where that
    /// seat may act: its turn, or a simultaneous node). The default, for a `State` written by
    /// hand rather than through `rules::Rules`, plays a uniformly random legal action.
    fn heuristic_action(&self, seat: usize, rng: &mut GameRng) -> Action {
        rng.choose(&self.legal_actions_for(Player::Seat(seat)))
    }
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

/// The legal action of seat `player` whose action struct (`State::action_struct`) has every
/// field of `given`, a JSON object, with the same value: `{"card": "Kd", "x": 1, "y": 0}`
/// names a Pokeros placement without its hand slot. `Err` when `given` is not an object, names
/// a field no legal action has, or matches no legal action or several.
///
/// ```
/// use checkraise_core::game::action_from_struct;
/// use checkraise_core::{GameRng, make_game_from_string};
///
/// let mut state = make_game_from_string("pokeros").unwrap().new_initial_state();
/// checkraise_core::env::resolve_chance(state.as_mut(), &mut GameRng::new(8));
/// let action = state.legal_actions()[0];
/// let fields = state.action_struct(0, action).unwrap();
/// assert_eq!(action_from_struct(state.as_ref(), 0, &fields).unwrap(), action);
/// ```
pub fn action_from_struct(
    state: &dyn State,
    player: usize,
    given: &serde_json::Value,
) -> Result<Action, GameError> {
    let refuse = |reason: String| GameError::BadActionString {
        text: given.to_string(),
        player: Player::Seat(player),
        reason,
    };
    let Some(fields) = given.as_object() else {
        return Err(refuse("an action struct is a JSON object".to_string()));
    };
    let legal = state.legal_actions_for(Player::Seat(player));
    let structs: Vec<(Action, serde_json::Value)> = legal
        .iter()
        .filter_map(|&a| state.action_struct(player, a).map(|s| (a, s)))
        .collect();
    if structs.is_empty() {
        return Err(refuse(format!("seat {player} has no legal action here")));
    }
    for key in fields.keys() {
        if !structs
            .iter()
            .any(|(_, s)| s.as_object().is_some_and(|o| o.contains_key(key)))
        {
            return Err(refuse(format!("no legal action here has a field '{key}'")));
        }
    }
    let matching: Vec<&(Action, serde_json::Value)> = structs
        .iter()
        .filter(|(_, s)| {
            fields
                .iter()
                .all(|(k, v)| s.as_object().and_then(|o| o.get(k)) == Some(v))
        })
        .collect();
    match matching.as_slice() {
        [(action, _)] => Ok(*action),
        [] => Err(refuse(format!(
            "no legal action of seat {player} matches it"
        ))),
        several => Err(refuse(format!(
            "{} legal actions match it (e.g. {} and {}); give more fields",
            several.len(),
            several[0].1,
            several[1].1
        ))),
    }
}

/// Applies `history` (as `State::history` gives it: a joint action as one entry per seat) to
/// `state`, checking that each entry's actor is the one to act.
///
/// ```
/// use checkraise_core::game::replay;
/// use checkraise_core::{GameRng, make_game_from_string};
///
/// let game = make_game_from_string("pokeros").unwrap();
/// let mut state = game.new_initial_state();
/// checkraise_core::env::resolve_chance(state.as_mut(), &mut GameRng::new(9));
/// let mut copy = game.new_initial_state();
/// replay(copy.as_mut(), state.history()).unwrap();
/// assert_eq!(copy.serialize(), state.serialize());
/// ```
pub fn replay(state: &mut dyn State, history: &[PlayerAction]) -> Result<(), GameError> {
    replay_with(state, history, |_, _| Ok(()))
}

/// `replay`, calling `visit(state, entry)` before each entry is applied, with the state it is
/// applied to (for each seat's entry of a joint action, the state before the joint action). An
/// error from `visit` stops the replay and is returned.
pub fn replay_with(
    state: &mut dyn State,
    history: &[PlayerAction],
    mut visit: impl FnMut(&dyn State, &PlayerAction) -> Result<(), GameError>,
) -> Result<(), GameError> {
    let n = state.num_players();
    let mut i = 0;
    while i < history.len() {
        if state.is_simultaneous_node() {
            let end = i + n;
            if end > history.len() {
                return Err(GameError::BadSerialization {
                    reason: "the history ends inside a joint action".to_string(),
                });
            }
            for entry in &history[i..end] {
                visit(&*state, entry)?;
            }
            let joint: Vec<Action> = history[i..end].iter().map(|h| h.action).collect();
            state.apply_actions(&joint)?;
            i = end;
        } else {
            let entry = history[i];
            if entry.player != state.current_player() {
                return Err(GameError::BadSerialization {
                    reason: format!(
                        "history entry {i} is by {}, but {} is to act",
                        entry.player,
                        state.current_player()
                    ),
                });
            }
            visit(&*state, &entry)?;
            state.apply_action(entry.action)?;
            i += 1;
        }
    }
    Ok(())
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
