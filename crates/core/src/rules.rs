//! What a game module writes, and (in `played`) the one wrapper that makes it a `State`.
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

use std::fmt;
use std::sync::Arc;

use crate::cards::CardSet;
use crate::error::GameError;
use crate::game::{CompactSink, DenseSink, EventLayout, ObservationEntries, ObservationSink};
use crate::params::{ParamSpec, Params};
use crate::rng::GameRng;
use crate::vocabulary::{Action, GameInfo, Player, PlayerAction, RewardModel, Utility, Viewer};

mod played;

pub use played::{Played, RulesGame, rules_of};

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
