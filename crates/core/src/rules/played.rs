//! The one wrapper that makes a game's `Rules` a `State` (`Played`), and its `GameDef` a
//! `Game` (`RulesGame`): the history, the turn checks, the illegal-action error,
//! clone/any/serialize, masks from the legal set and the information-state tensor's layout,
//! written once for every game.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use super::{GameDef, Illegal, Refusal, Rules, Structured, Visible, schema_of};
use crate::error::GameError;
use crate::game::{
    CompactSink, Game, GameEntry, ObservationEntries, State, write_information_state,
};
use crate::params::Params;
use crate::rng::GameRng;
use crate::vocabulary::{Action, GameInfo, Player, PlayerAction, RewardModel, Viewer};

/// The `Game` of a game written as a `GameDef` and its `Rules`: its typed configuration.
/// States are `Played<D::Rules>`, so no dynamic dispatch is added per step.
#[derive(Debug)]
pub struct RulesGame<D: GameDef> {
    config: Arc<D>,
    /// The initial state new states copy, where `D::SHARE_INITIAL`.
    shared: Option<D::Rules>,
}

impl<D: GameDef> RulesGame<D> {
    /// The game's registry entry.
    pub const ENTRY: GameEntry = GameEntry {
        info: D::INFO,
        params: D::PARAMS,
        build: Self::build,
        view_schema: Self::view_schema,
        action_schema: schema_of::<<D::Rules as Structured>::ActionStruct>,
        order: D::ORDER,
        policy: D::POLICY,
        feature: None,
    };

    /// The JSON Schema of the game's view, its `game` field pinned to the game's name (so a
    /// client can tell the games' views apart by it, as a tagged union).
    fn view_schema() -> schemars::Schema {
        let mut schema = schema_of::<<D::Rules as Visible>::View>();
        if let Some(game) = schema
            .get_mut("properties")
            .and_then(|properties| properties.get_mut("game"))
            .and_then(|game| game.as_object_mut())
        {
            game.insert("const".into(), D::INFO.name.into());
        }
        schema
    }

    /// Builds the game from validated parameters.
    pub fn new(params: Params) -> Result<Self, GameError> {
        let config = Arc::new(D::from_params(params)?);
        let shared = D::SHARE_INITIAL.then(|| D::initial(&config));
        Ok(RulesGame { config, shared })
    }

    /// `new`, as the registry's constructor.
    pub fn build(params: Params) -> Result<Arc<dyn Game>, GameError> {
        Ok(Arc::new(Self::new(params)?))
    }

    /// The typed configuration.
    pub fn config(&self) -> &D {
        &self.config
    }

    /// The rules' initial state (before anything happened); `new_initial_state` wraps it in
    /// `Played`.
    pub fn initial_state(&self) -> D::Rules {
        match &self.shared {
            Some(state) => state.clone(),
            None => D::initial(&self.config),
        }
    }
}

impl<D: GameDef> Game for RulesGame<D> {
    fn info(&self) -> &'static GameInfo {
        D::INFO
    }
    fn shipped_policy(&self) -> Option<&'static [u8]> {
        D::POLICY
    }
    fn reward_model(&self) -> RewardModel {
        self.config.reward_model()
    }
    fn params(&self) -> &Params {
        self.config.params()
    }
    fn num_players(&self) -> usize {
        self.config.num_players()
    }
    fn num_distinct_actions(&self) -> usize {
        self.config.num_distinct_actions()
    }
    fn max_chance_outcomes(&self) -> usize {
        D::MAX_CHANCE_OUTCOMES
    }
    fn observation_shape(&self) -> Vec<usize> {
        vec![self.config.observation_size()]
    }
    fn observation_bounds(&self) -> (f32, f32) {
        self.config.observation_bounds()
    }
    fn observation_scalars(&self) -> Vec<std::ops::Range<usize>> {
        self.config.observation_scalars()
    }
    fn action_features(&self) -> Option<usize> {
        self.config.action_features()
    }
    fn with_params(&self, given: &[(String, String)]) -> Result<Arc<dyn Game>, GameError> {
        Self::build(crate::params::parse(
            D::INFO.name,
            D::PARAMS,
            given.iter().cloned(),
        )?)
    }
    fn dense_observations(&self) -> bool {
        self.config.dense_observations()
    }
    fn information_state_tensor_shape(&self) -> Vec<usize> {
        vec![self.config.observation_size() + self.config.event_layout().size()]
    }
    fn min_utility(&self) -> f64 {
        self.config.min_utility()
    }
    fn max_utility(&self) -> f64 {
        self.config.max_utility()
    }
    fn utility_sum(&self) -> Option<f64> {
        self.config.utility_sum()
    }
    fn max_game_length(&self) -> usize {
        self.config.max_game_length()
    }
    fn new_initial_state(&self) -> Box<dyn State> {
        Box::new(Played::initial(
            self.initial_state(),
            self.config.max_game_length(),
        ))
    }
}

/// A game state: a game's `Rules` and its history. Implements `State` for every game.
#[derive(Clone, Debug)]
pub struct Played<R> {
    rules: R,
    history: Vec<PlayerAction>,
}

impl<R: Rules> Played<R> {
    /// A state with no history: `rules` must be the game's initial state.
    pub fn new(rules: R) -> Self {
        Played {
            rules,
            history: Vec::new(),
        }
    }

    /// The initial state a game hands out: room for the history of a typical game (the game's
    /// bound, capped at 256 entries), so a game played to its end grows its history once or
    /// not at all.
    pub fn initial(rules: R, max_game_length: usize) -> Self {
        Played::with_capacity(rules, max_game_length.min(256))
    }

    /// `new`, with room for `capacity` history entries (a resample that replays a history of
    /// known length allocates once).
    pub fn with_capacity(rules: R, capacity: usize) -> Self {
        Played {
            rules,
            history: Vec::with_capacity(capacity),
        }
    }

    /// A state from its parts, for a game's `resample` that patches a copy of itself instead
    /// of replaying: `history` must be exactly the history that leads to `rules` (the game's
    /// own tests and the conformance gate's resampling checks hold it to that).
    pub fn from_parts(rules: R, history: Vec<PlayerAction>) -> Self {
        Played { rules, history }
    }

    /// Replays `history` from the initial state `initial`, each entry's action replaced by
    /// what `action` gives for it (from the state so far): how a game's `resample` plays a
    /// history again with the cards a seat never saw dealt afresh. Every replaced action must
    /// be legal where it is applied.
    #[inline]
    pub fn replay_with(
        initial: R,
        history: &[PlayerAction],
        mut action: impl FnMut(&R, &PlayerAction) -> Action,
    ) -> Self {
        // Room for the rest of the game too, as `initial` gives: a search plays the resampled
        // state on to its end.
        let room = initial.config().max_game_length().min(256);
        let mut out = Played::with_capacity(initial, history.len().max(room));
        for entry in history {
            let a = action(&out.rules, entry);
            out.apply_action(a).expect("a resampled history replays");
        }
        out
    }

    /// The game's own state, for game-specific code (bots, tests, renderers).
    pub fn rules(&self) -> &R {
        &self.rules
    }

    /// Whether `player` may act now.
    #[inline]
    fn may_act(&self, player: Player) -> bool {
        match (self.rules.current_player(), player) {
            (Player::Terminal, _) => false,
            (Player::Simultaneous, Player::Seat(s)) => s < self.rules.num_players(),
            (now, p) => now == p,
        }
    }

    #[cold]
    #[inline(never)]
    fn illegal(&self, player: Player, action: Action, why: Illegal) -> GameError {
        let Refusal { reason, desc } = *why.0;
        GameError::IllegalAction {
            action,
            desc: desc.unwrap_or_else(|| self.rules.action_to_string(player, action)),
            player,
            state: self.describe(),
            reason,
        }
    }

    /// The error for an action at a state where no single seat may act: the game is over, or
    /// this is a simultaneous node (joint actions go through `apply_actions`).
    #[cold]
    #[inline(never)]
    fn not_single(&self, player: Player, action: Action) -> GameError {
        if player == Player::Terminal {
            return GameError::GameOver {
                state: self.describe(),
            };
        }
        GameError::IllegalAction {
            action,
            desc: format!("action {action}"),
            player,
            state: self.describe(),
            reason: format!(
                "this is a simultaneous node: apply a joint action (one per seat, {} \
                 entries) with apply_actions",
                self.rules.num_players()
            ),
        }
    }
}

/// The game's own state behind a `dyn State`, when it is of type `R`.
///
/// ```
/// use checkraise_core::games::pokeros::PokerosState;
/// use checkraise_core::rules::rules_of;
///
/// let game = checkraise_core::make_game_from_string("pokeros").unwrap();
/// let state = game.new_initial_state();
/// let pokeros: &PokerosState = rules_of(state.as_ref()).unwrap();
/// assert!(pokeros.board().cards().next().is_none(), "no card is down yet");
/// ```
pub fn rules_of<R: Rules>(state: &dyn State) -> Option<&R> {
    state
        .as_any()
        .downcast_ref::<Played<R>>()
        .map(Played::rules)
}

impl<R: Rules> fmt::Display for Played<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.rules, f)
    }
}

impl<R: Rules> State for Played<R> {
    #[inline]
    fn num_players(&self) -> usize {
        self.rules.num_players()
    }

    #[inline]
    fn current_player(&self) -> Player {
        self.rules.current_player()
    }

    fn legal_actions_into(&self, player: Player, out: &mut Vec<Action>) {
        out.clear();
        if self.may_act(player) {
            self.rules.legal_actions_into(player, out);
        }
    }

    fn action_mask(&self, player: Player, mask: &mut [bool]) {
        mask.fill(false);
        if self.may_act(player) {
            self.rules.action_mask(player, mask);
        }
    }

    fn chance_outcomes(&self) -> Vec<(Action, f64)> {
        if self.is_chance_node() {
            self.rules.chance_outcomes()
        } else {
            Vec::new()
        }
    }

    #[inline]
    fn sample_chance_outcome(&self, rng: &mut GameRng) -> Action {
        self.rules.sample_chance_outcome(rng)
    }

    #[inline]
    fn apply_action(&mut self, action: Action) -> Result<(), GameError> {
        let player = self.rules.current_player();
        if matches!(player, Player::Terminal | Player::Simultaneous) {
            return Err(self.not_single(player, action));
        }
        match self.rules.apply(player, action) {
            Ok(()) => {
                self.history.push(PlayerAction { player, action });
                Ok(())
            }
            Err(why) => Err(self.illegal(player, action, why)),
        }
    }

    fn apply_actions(&mut self, actions: &[Action]) -> Result<(), GameError> {
        let n = self.rules.num_players();
        match self.rules.current_player() {
            Player::Terminal => Err(GameError::GameOver {
                state: self.describe(),
            }),
            Player::Simultaneous if actions.len() != n => Err(GameError::IllegalAction {
                action: actions.first().copied().unwrap_or(0),
                desc: format!("joint action {actions:?}"),
                player: Player::Simultaneous,
                state: self.describe(),
                reason: format!(
                    "a joint action has exactly {n} entries (one per seat, seat order), got {}",
                    actions.len()
                ),
            }),
            Player::Simultaneous => match self.rules.apply_joint(actions) {
                Ok(()) => {
                    for (seat, &action) in actions.iter().enumerate() {
                        self.history.push(PlayerAction {
                            player: Player::Seat(seat),
                            action,
                        });
                    }
                    Ok(())
                }
                Err((seat, why)) => Err(self.illegal(Player::Seat(seat), actions[seat], why)),
            },
            to_act => Err(GameError::OutOfTurn {
                player: Player::Simultaneous,
                to_act,
                state: self.describe(),
            }),
        }
    }

    fn returns(&self) -> Vec<f64> {
        self.rules.returns()
    }

    fn rewards(&self) -> Vec<f64> {
        self.rules.rewards()
    }

    #[inline]
    fn add_rewards_to(&self, out: &mut [f64]) {
        self.rules.add_rewards_to(out)
    }

    #[inline]
    fn history(&self) -> &[PlayerAction] {
        &self.history
    }

    fn action_to_string(&self, player: Player, action: Action) -> String {
        self.rules.action_to_string(player, action)
    }

    fn string_to_action(&self, player: Player, text: &str) -> Result<Action, GameError> {
        self.rules.string_to_action(player, text)
    }

    #[inline]
    fn observation_tensor(&self, player: usize, out: &mut [f32]) {
        debug_assert_eq!(out.len(), self.rules.observation_size());
        self.rules.observation_tensor(player, out)
    }

    #[inline]
    fn observation_entries(&self, player: usize, out: &mut ObservationEntries) -> bool {
        self.rules.observation_entries(player, out)
    }

    #[inline]
    fn observation_compact(&self, player: usize, out: &mut CompactSink<'_>) -> bool {
        self.rules.observation_compact(player, out)
    }

    fn information_state_tensor(&self, player: usize, out: &mut [f32]) {
        let codes = self.rules.event_codes(&self.history, player);
        write_information_state(
            self,
            player,
            self.rules.observation_size(),
            &self.rules.event_layout(),
            &codes,
            out,
        );
    }

    fn observation_string(&self, player: usize) -> String {
        self.rules.observation_string(player)
    }

    fn information_state_string(&self, player: usize) -> String {
        self.rules.information_state_string(&self.history, player)
    }

    fn view(&self, viewer: Option<usize>) -> serde_json::Value {
        serde_json::to_value(self.rules.view_of(&self.history, Viewer::of(viewer)))
            .expect("a view serializes")
    }

    fn everyone_view(&self) -> serde_json::Value {
        serde_json::to_value(self.rules.view_of(&self.history, Viewer::Everyone))
            .expect("a view serializes")
    }

    fn action_struct(&self, player: usize, action: Action) -> Option<serde_json::Value> {
        self.rules
            .action_struct(player, action)
            .map(|s| serde_json::to_value(s).expect("an action struct serializes"))
    }

    fn resample_from_infostate(&self, player: usize, rng: &mut GameRng) -> Box<dyn State> {
        Box::new(self.rules.resample(&self.history, player, rng))
    }

    fn settled_prefix(&self) -> usize {
        self.rules.settled_prefix(&self.history)
    }

    fn heuristic_action(&self, seat: usize, rng: &mut GameRng) -> Action {
        self.rules.heuristic(seat, rng)
    }

    fn clone_box(&self) -> Box<dyn State> {
        Box::new(self.clone())
    }

    fn serialize(&self) -> String {
        crate::serial::serialize(self.rules.info().name, self.rules.params(), &self.history)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn describe(&self) -> String {
        self.rules.describe(&self.history)
    }
}
