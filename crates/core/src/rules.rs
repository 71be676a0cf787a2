//! What a game module writes, and the one wrapper that makes it a `State`.
//!
//! A game implements `Rules` on its own state type: who acts, the legal set, applying an
//! action, returns, rewards and its heuristic; and, each in the file of its concern, what a
//! seat sees (`Observe`: the observation writers, event codes and resampling), its text
//! (`Describe`) and its view (`Visible`). `Rules` requires the other three. `Played<R>`
//! owns everything else once for every game: the history, the turn checks, the
//! illegal-action error, clone/any/serialize, masks from the legal set and the
//! information-state tensor's layout. This follows OpenSpiel's split of `ApplyAction` (the
//! framework's checks and history) from `DoApplyAction` (the game's rules).
//!
//! `Played<R>` is generic, so a `dyn State` call costs one dynamic dispatch to the wrapper
//! and the rules are then called directly (and inlined): no dispatch is added per step.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use crate::cards::CardSet;
use crate::error::GameError;
use crate::game::{
    CompactSink, DenseSink, EventLayout, Game, GameEntry, ObservationEntries, ObservationSink,
    State, write_information_state,
};
use crate::params::{ParamSpec, Params};
use crate::rng::GameRng;
use crate::vocabulary::{Action, GameInfo, Player, PlayerAction, RewardModel, Utility, Viewer};

/// Why an action was refused: the reason, and optionally the action's description when the
/// game describes refused actions differently from `Describe::action_to_string`.
///
/// Boxed, so that `Result<(), Illegal>` is one pointer wide: `Rules::apply` runs for every
/// action of every game, and its `Ok` path should cost nothing for the refusal it never makes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Illegal(Box<Refusal>);

#[derive(Clone, Debug, PartialEq, Eq)]
struct Refusal {
    reason: String,
    desc: Option<String>,
}

impl Illegal {
    /// A refusal with this reason.
    #[cold]
    pub fn new(reason: impl Into<String>) -> Self {
        Illegal(Box::new(Refusal {
            reason: reason.into(),
            desc: None,
        }))
    }

    /// The same refusal, naming the refused action `desc` (instead of `action_to_string`).
    pub fn with_desc(mut self, desc: impl Into<String>) -> Self {
        self.0.desc = Some(desc.into());
        self
    }

    /// Why the action is illegal here.
    pub fn reason(&self) -> &str {
        &self.0.reason
    }

    /// The refused action as the message should name it (`None`: `action_to_string`).
    pub fn desc(&self) -> Option<&str> {
        self.0.desc.as_deref()
    }
}

impl From<String> for Illegal {
    fn from(reason: String) -> Self {
        Illegal::new(reason)
    }
}

impl From<&str> for Illegal {
    fn from(reason: &str) -> Self {
        Illegal::new(reason)
    }
}

/// A game's rules on its own state type. `Played<Self>` calls these only where they apply:
/// the legal-set and apply functions only for a player who may act now (the seat to act, any
/// seat at a simultaneous node, chance at a chance node), never at a terminal state.
///
/// The rest of a game is written where it belongs: what a seat sees (`Observe`, in the
/// game's `observe.rs`), its text (`Describe`, `text.rs`) and its view (`Visible`,
/// `view.rs`); `Played` calls those directly too.
pub trait Rules:
    Observe
    + Describe
    + Visible
    + Structured
    + Clone
    + fmt::Debug
    + fmt::Display
    + Send
    + Sync
    + 'static
{
    /// The game's typed configuration, which defines the game (`GameDef`).
    type Config: GameDef<Rules = Self>;
    /// The configuration the game was made with.
    fn config(&self) -> &Self::Config;
    /// The game's facts.
    fn info(&self) -> &'static GameInfo {
        Self::Config::INFO
    }
    /// The validated parameters the game was made with (written by `serialize`).
    fn params(&self) -> &Params {
        self.config().params()
    }
    /// Number of seats.
    #[inline]
    fn num_players(&self) -> usize {
        self.config().num_players()
    }
    /// Who acts now.
    fn current_player(&self) -> Player;
    /// Appends `player`'s legal actions, sorted, to `out` (empty on entry). `player` may act.
    fn legal_actions_into(&self, player: Player, out: &mut Vec<Action>);
    /// Sets `player`'s legal actions in `mask` (all false on entry). `player` may act. The
    /// default goes through `legal_actions_into`; games override it with a direct writer.
    fn action_mask(&self, player: Player, mask: &mut [bool]) {
        let mut actions = Vec::new();
        self.legal_actions_into(player, &mut actions);
        for a in actions {
            if let Some(m) = mask.get_mut(a as usize) {
                *m = true;
            }
        }
    }
    /// The cards chance may deal now, each equally likely, for a game whose chance events are
    /// card deals (the default: none). The defaults of `chance_outcomes` and
    /// `sample_chance_outcome` read it.
    fn chance_cards(&self) -> CardSet {
        CardSet::EMPTY
    }
    /// The chance outcomes and their probabilities at a chance node (the default: the
    /// `chance_cards`, uniformly).
    fn chance_outcomes(&self) -> Vec<(Action, f64)> {
        self.chance_cards().uniform_outcomes()
    }
    /// Samples a chance outcome (the default: one of the `chance_cards`, uniformly).
    #[inline]
    fn sample_chance_outcome(&self, rng: &mut GameRng) -> Action {
        rng.choose_bit(self.chance_cards().0)
    }
    /// Applies `action` by `player`, the seat to act or chance. On `Err` the state is
    /// unchanged.
    fn apply(&mut self, player: Player, action: Action) -> Result<(), Illegal>;
    /// Applies a joint action (one per seat, seat order, length checked) at a simultaneous
    /// node. On `Err((seat, why))` the state is unchanged. Sequential games keep the default,
    /// which is never called for them.
    fn apply_joint(&mut self, actions: &[Action]) -> Result<(), (usize, Illegal)> {
        let _ = actions;
        Err((0, Illegal::new("this game has no simultaneous nodes")))
    }
    /// Each seat's total return so far.
    fn returns(&self) -> Vec<f64>;
    /// Each seat's reward from the last action, for a game that keeps them in a field: the
    /// defaults of `rewards` and `add_rewards_to` read it. A game that computes its rewards
    /// overrides those two instead and leaves this empty.
    fn reward_slice(&self) -> &[f64] {
        &[]
    }
    /// Each seat's reward from the last action.
    fn rewards(&self) -> Vec<f64> {
        self.reward_slice().to_vec()
    }
    /// Adds each seat's reward from the last action to `out`.
    #[inline]
    fn add_rewards_to(&self, out: &mut [f64]) {
        crate::game::add_rewards(out, self.reward_slice());
    }
    /// Floats in an observation.
    #[inline]
    fn observation_size(&self) -> usize {
        self.config().observation_size()
    }
    /// The history rows' layout of the information-state tensor.
    fn event_layout(&self) -> EventLayout {
        self.config().event_layout()
    }
    /// The game's heuristic policy: the action seat `seat` takes here (`seat` may act).
    fn heuristic(&self, seat: usize, rng: &mut GameRng) -> Action;
}

/// What a seat sees of a game's state: its observation, what it saw of each history entry
/// and the states it cannot tell from this one. A game implements it in its `observe.rs`.
pub trait Observe: Sized {
    /// Writes seat `player`'s observation into any sink: the one writer behind the dense
    /// tensor, the non-zero entries and the compact row (only the non-zero entries need to be
    /// set; each sink starts from zeros).
    fn write_observation<S: ObservationSink>(&self, player: usize, out: &mut S);
    /// Writes seat `player`'s observation into `out` (`Rules::observation_size` floats).
    fn observation_tensor(&self, player: usize, out: &mut [f32]) {
        out.fill(0.0);
        self.write_observation(player, &mut DenseSink(out));
    }
    /// The observation as non-zero entries (see `State::observation_entries`).
    fn observation_entries(&self, player: usize, out: &mut ObservationEntries) -> bool {
        self.write_observation(player, out);
        true
    }
    /// The observation as a compact row (see `State::observation_compact`).
    fn observation_compact(&self, player: usize, out: &mut CompactSink<'_>) -> bool {
        self.write_observation(player, out);
        true
    }
    /// What seat `viewer` saw of each entry of `history` (this state's history), as codes of
    /// `Rules::event_layout`.
    fn event_codes(&self, history: &[PlayerAction], viewer: usize) -> Vec<u32>;
    /// A state consistent with everything seat `player` knows (this state's `history`
    /// included), the rest resampled: a function of the seat's information state and `rng`.
    fn resample(&self, history: &[PlayerAction], player: usize, rng: &mut GameRng) -> Played<Self>;
    /// See `State::settled_prefix`. The default, 0, is always true.
    fn settled_prefix(&self, history: &[PlayerAction]) -> usize {
        let _ = history;
        0
    }
}

/// A game's state as text: action names and their parser, what a seat observed and knows,
/// and the description error messages give. A game implements it in its `text.rs`.
pub trait Describe {
    /// A readable, unique name for `action` taken by `player` here.
    fn action_to_string(&self, player: Player, action: Action) -> String;
    /// The inverse of `action_to_string`.
    fn string_to_action(&self, player: Player, text: &str) -> Result<Action, GameError>;
    /// Seat `player`'s current observation as text.
    fn observation_string(&self, player: usize) -> String;
    /// Seat `player`'s information state as text, given this state's `history`.
    fn information_state_string(&self, history: &[PlayerAction], player: usize) -> String;
    /// A short description for error messages; the default gives the move number and who
    /// is to act.
    fn describe(&self, history: &[PlayerAction]) -> String
    where
        Self: Rules,
    {
        format!("move {} ({} to act)", history.len(), self.current_player())
    }
}

/// A game's actions as typed structs, so a client reads an action's parts (the card, the
/// cell, the squares, the amount) instead of parsing its text. A game implements it in its
/// `text.rs`, beside `Describe`; `State::action_struct` is its JSON and
/// `game::action_from_struct` its inverse.
pub trait Structured {
    /// The game's action struct (its JSON Schema is published in `docs/actions/`).
    type ActionStruct: serde::Serialize + schemars::JsonSchema;
    /// Seat `seat`'s `action` here as a struct; `None` for an id outside the seat's action
    /// space.
    fn action_struct(&self, seat: usize, action: Action) -> Option<Self::ActionStruct>;
}

/// The JSON Schema (draft 2020-12, for what the engine writes) of `T`.
pub fn schema_of<T: schemars::JsonSchema>() -> schemars::Schema {
    schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>()
}

/// What a viewer may know of a game's state, as the game's typed view (for UIs and gRPC;
/// `State::view` is its JSON). A game implements it in its `view.rs`.
pub trait Visible {
    /// The game's view: a struct made of the shapes of `crate::view`.
    type View: serde::Serialize + schemars::JsonSchema;
    /// What `viewer` may know, given this state's `history`.
    fn view_of(&self, history: &[PlayerAction], viewer: Viewer) -> Self::View;
}

/// A game's definition, written on its typed configuration: its facts and parameters, how
/// the configuration is made from validated parameters, the sizes and bounds a `Game` gives,
/// and the rules' initial state. `RulesGame<Self>` is then the game: one `Game`
/// implementation serves every game written this way.
pub trait GameDef: Layout + fmt::Debug + Send + Sync + Sized + 'static {
    /// The game's rules: its state type.
    type Rules: Rules<Config = Self>;
    /// The game's facts.
    const INFO: &'static GameInfo;
    /// The game's parameters.
    const PARAMS: &'static [ParamSpec];
    /// Size of the chance outcome space.
    const MAX_CHANCE_OUTCOMES: usize;
    /// Whether new states are copies of one initial state made with the game (where making
    /// one costs more than copying it) rather than made by `initial` each time.
    const SHARE_INITIAL: bool = false;
    /// Where the game comes in lists (`GameEntry::order`); ties in name order.
    const ORDER: u16 = 1000;
    /// The policy file shipped for the game's default parameters (`GameEntry::policy`): a
    /// safetensors file the `policy` bot plays, or `None`.
    const POLICY: Option<&'static [u8]> = None;
    /// The configuration from validated parameters, which it keeps (refusing combinations
    /// the schema cannot, with `GameError::InvalidParameter`).
    fn from_params(params: Params) -> Result<Self, GameError>;
    /// The validated parameters the configuration was made from.
    fn params(&self) -> &Params;
    /// The rules' initial state (before anything happened).
    fn initial(config: &Arc<Self>) -> Self::Rules;
    /// Number of seats.
    fn num_players(&self) -> usize;
    /// Size of the (seat) action space.
    fn num_distinct_actions(&self) -> usize;
    /// How rewards are paid (the default: as `INFO` says).
    fn reward_model(&self) -> RewardModel {
        Self::INFO.reward_model
    }
    /// Largest possible return of a seat.
    fn max_utility(&self) -> f64;
    /// Smallest possible return of a seat (the default: `-max_utility`).
    fn min_utility(&self) -> f64 {
        -self.max_utility()
    }
    /// `Some(c)` when returns always sum to `c` (the default: `Some(0)` for a zero-sum game,
    /// else `None`).
    fn utility_sum(&self) -> Option<f64> {
        (Self::INFO.utility == Utility::ZeroSum).then_some(0.0)
    }
    /// An upper bound on the number of actions (chance included) in a game.
    fn max_game_length(&self) -> usize;
}

/// The shape of what a seat sees, written on a game's typed configuration in the game's
/// `observe.rs` beside the writers it describes.
pub trait Layout {
    /// Floats in an observation.
    fn observation_size(&self) -> usize;
    /// The history rows' layout of the information-state tensor.
    fn event_layout(&self) -> EventLayout;
    /// Bounds of every observation entry (see `Game::observation_bounds`; the default: 0 to 1).
    fn observation_bounds(&self) -> (f32, f32) {
        (0.0, 1.0)
    }
    /// The observation's non-binary entries (see `Game::observation_scalars`; the default:
    /// none).
    fn observation_scalars(&self) -> Vec<std::ops::Range<usize>> {
        Vec::new()
    }
    /// The block of per-action entries (see `Game::action_features`; the default: none).
    fn action_features(&self) -> Option<usize> {
        None
    }
    /// Whether batched float32 writes rewrite whole rows (see `Game::dense_observations`;
    /// the default: false).
    fn dense_observations(&self) -> bool {
        false
    }
}

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
