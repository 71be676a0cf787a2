//! The engine's vocabulary: actions, players, a joint action's parts and a game's facts.
//! The lowest layer of the crate: it imports nothing from it.

use std::fmt;

use serde::{Deserialize, Serialize};

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

/// A game fact (`ChanceMode`, `Information`, `Dynamics`, `Utility`, `RewardModel`) as the
/// faces spell it, in snake case: `ExplicitStochastic` → `explicit_stochastic`.
///
/// ```
/// use checkraise_core::vocabulary::{ChanceMode, Utility, fact_word};
/// assert_eq!(fact_word(&ChanceMode::ExplicitStochastic), "explicit_stochastic");
/// assert_eq!(fact_word(&Utility::ZeroSum), "zero_sum");
/// ```
pub fn fact_word(fact: &impl fmt::Debug) -> String {
    let name = format!("{fact:?}");
    let mut word = String::with_capacity(name.len() + 4);
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                word.push('_');
            }
            word.push(c.to_ascii_lowercase());
        } else {
            word.push(c);
        }
    }
    word
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

/// Whose information a view shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Viewer {
    /// Public information only.
    Spectator,
    /// What one seat may know.
    Seat(usize),
    /// What any seat may know: every seat's information together. A live match never shows
    /// it (it would give each seat the others' cards); a finished match's replay does, so
    /// that every card a seat held is face up, while what no seat ever saw (the rest of a
    /// deck, a card dealt face down to nobody) stays face down.
    Everyone,
}

impl Viewer {
    /// A seat's viewer, or a spectator's for `None` (as `State::view` takes it).
    pub fn of(viewer: Option<usize>) -> Viewer {
        viewer.map_or(Viewer::Spectator, Viewer::Seat)
    }

    /// The one seat whose view this is (`None` for a spectator and for everyone): whose
    /// legal actions and own pending choices a view shows.
    pub fn seat(self) -> Option<usize> {
        match self {
            Viewer::Seat(seat) => Some(seat),
            Viewer::Spectator | Viewer::Everyone => None,
        }
    }

    /// Whether this viewer sees what `sees` says a seat (`Some`) or a spectator (`None`)
    /// sees: for everyone, what the spectator or any of the `players` seats sees.
    pub fn sees(self, players: usize, sees: impl Fn(Option<usize>) -> bool) -> bool {
        match self {
            Viewer::Spectator => sees(None),
            Viewer::Seat(seat) => sees(Some(seat)),
            Viewer::Everyone => sees(None) || (0..players).any(|seat| sees(Some(seat))),
        }
    }
}
