//! Hold'em Poker Chess (docs/games/holdem_chess.md): no-limit Texas hold'em where hole cards placed
//! face down on a grid around the community cards attack cells like chess pieces, and a hand may
//! use only the cards its own placed cards attack.
//!
//! | fact | value |
//! |---|---|
//! | name | `holdem_chess` |
//! | players | 2–10 (`players`, default 2) |
//! | chance | explicit: every hole and community card, one outcome per card id (0..52) |
//! | information | imperfect: hole cards and the faces of placed cards are private |
//! | utility | zero-sum: chip differences from the starting stacks |
//! | reward model | terminal |
//!
//! Actions (`cells` = cells of the grid window, `B = 2 * cells`):
//! - `slot * cells + cell`: place hole card `slot` (0 or 1, in deal order) face down on `cell`;
//! - `B`: fold; `B + 1`: check or call (and "done" in an all-in player's placement turn);
//! - `bet_sizes=standard`: `B + 2 + i` raises to min-raise, ½ pot, pot, 2× pot, all-in
//!   (`i` = 0..5; only legal, distinct amounts are offered);
//! - `bet_sizes=all`: `B + 1 + r` raises to `r` chips (`r` ≥ 1).
//!
//! A turn on the flop, turn or river is zero, one or two placements followed by one betting
//! action; folding is refused once a card was placed in the turn. See docs/games/holdem_chess.md.

pub mod betting;
pub mod bot;
pub mod grid;
mod observe;
pub mod showdown;
mod state;
mod text;
mod view;

use std::sync::Arc;

use crate::game::{
    ChanceMode, Dynamics, GameEntry, GameError, GameInfo, Information, RewardModel, Utility,
};
use crate::params::{ParamSpec, Params};
use crate::rules::{GameDef, RulesGame};

pub use betting::{BetAction, Betting, MAX_SEATS};
pub use grid::{CellSet, Window};
pub use showdown::{GridCard, SeatHand};
pub use state::{HandRecord, HoldemState, Phase, PlacedCard};
pub use view::{
    HoldemAttack, HoldemCell, HoldemChessView, HoldemPhase, HoldemResult, HoldemSeat,
    HoldemShowdownHand, HoldemWindow,
};

/// The game's facts.
pub static INFO: GameInfo = GameInfo {
    name: "holdem_chess",
    long_name: "Hold'em Poker Chess",
    description: "No-limit Texas hold'em where hole cards placed face down around the \
                  community cards attack cells like chess pieces; a hand uses kept hole cards, \
                  placed cards and the cards they attack.",
    min_players: 2,
    max_players: 10,
    chance: ChanceMode::ExplicitStochastic,
    information: Information::Imperfect,
    dynamics: Dynamics::Sequential,
    utility: Utility::ZeroSum,
    reward_model: RewardModel::Terminal,
};

/// The game's parameters.
pub static PARAMS: &[ParamSpec] = &[
    ParamSpec::int("players", 2, 10, "2").about("number of seats"),
    ParamSpec::int("stack", 1, 100_000, "200").about("chips each seat starts with"),
    ParamSpec::int("small_blind", 0, 100_000, "1").about("the small blind (at most the big blind)"),
    ParamSpec::int("big_blind", 1, 100_000, "2")
        .about("the big blind, also the smallest bet and raise"),
    ParamSpec::choice("bet_sizes", &["standard", "all"], "standard").about(
        "standard: raise to min-raise, 1/2 pot, pot, 2x pot or all-in; all: every \
         legal integer raise-to",
    ),
    ParamSpec::text("grid", "-4..8:-4..4").about(
        "the window of legal cells as x0..x1:y0..y1 (inclusive); it must hold \
         the community cells x 0..4, y 0 and at most 256 cells",
    ),
    ParamSpec::choice("centre_pawn", &["none", "both"], "none").about(
        "what a pawn (2-9) placed in the centre row attacks: none, or both \
         vertical diagonals (the 4 diagonal neighbours)",
    ),
    ParamSpec::bool("allin_place", "false").about(
        "seats that do not bet on a street (all-in, or alone with chips) get a \
         placement turn at its start",
    ),
    ParamSpec::int("hands", 1, 1000, "1").about(
        "hands in a game; stacks carry over, the button rotates, busted seats sit \
         out, and the game ends early when only one seat has chips",
    ),
];

/// The registry entry.
pub const ENTRY: GameEntry = HoldemChessGame::ENTRY;

/// A Hold'em Poker Chess game.
pub type HoldemChessGame = RulesGame<Config>;

/// Number of raise options of `bet_sizes=standard`.
pub const NUM_SIZES: usize = 5;
/// Names of the standard raise options.
pub const SIZE_NAMES: [&str; NUM_SIZES] = ["min", "half-pot", "pot", "2pot", "all-in"];

/// Typed parameters and the tables derived from them.
#[derive(Clone, Debug)]
pub struct Config {
    /// Number of seats.
    pub players: usize,
    /// Starting stack.
    pub stack: u32,
    /// Small blind.
    pub small_blind: u32,
    /// Big blind.
    pub big_blind: u32,
    /// Every integer raise-to (else the five standard sizes).
    pub all_sizes: bool,
    /// The window of legal cells.
    pub window: Window,
    /// A centre-row pawn attacks its four diagonal neighbours.
    pub centre_pawn_both: bool,
    /// Seats that do not bet on a street may place at its start.
    pub allin_place: bool,
    /// Hands per game.
    pub hands: u32,
    /// Cells of the window.
    pub cells: usize,
    /// Each cell's 8 neighbours inside the window.
    pub neighbours: Vec<CellSet>,
    /// The cells of the flop, turn and river.
    pub community_cells: [usize; 5],
    /// The validated parameters.
    params: Params,
}

impl Config {
    /// Chips at the table.
    pub fn total_chips(&self) -> u32 {
        self.stack * self.players as u32
    }
    /// What the observation divides chip amounts by: the chips in play, or the big blind when
    /// that is larger (a blind over every stack makes a bet to call that nobody can pay in
    /// full). Every chip amount of a state is at most this.
    pub fn chip_scale(&self) -> u32 {
        self.total_chips().max(self.big_blind)
    }
    /// The first betting action id (`fold`).
    pub fn bet_base(&self) -> usize {
        2 * self.cells
    }
    /// The fold action.
    pub fn fold_action(&self) -> u32 {
        self.bet_base() as u32
    }
    /// The check/call (or done) action.
    pub fn call_action(&self) -> u32 {
        self.bet_base() as u32 + 1
    }
    /// The action placing hole card `slot` on `cell`.
    pub fn place_action(&self, slot: usize, cell: usize) -> u32 {
        (slot * self.cells + cell) as u32
    }
    /// Size of the action space.
    pub fn num_actions(&self) -> usize {
        self.bet_base()
            + 2
            + if self.all_sizes {
                self.total_chips() as usize
            } else {
                NUM_SIZES
            }
    }
}

impl GameDef for Config {
    type Rules = HoldemState;
    const INFO: &'static GameInfo = &INFO;
    const PARAMS: &'static [ParamSpec] = PARAMS;
    const MAX_CHANCE_OUTCOMES: usize = 52;
    const ORDER: u16 = 40;
    const POLICY: Option<&'static [u8]> =
        Some(include_bytes!("../../../policies/holdem_chess.safetensors"));

    fn from_params(params: Params) -> Result<Self, GameError> {
        let bad = |name: &str, value: String, allowed: String| {
            GameError::invalid_parameter(INFO.name, name, value, allowed)
        };
        let grid_text = params.text("grid");
        let window =
            Window::parse(grid_text).map_err(|why| bad("grid", grid_text.to_string(), why.into()))?;
        let (small_blind, big_blind) = (
            params.int("small_blind") as u32,
            params.int("big_blind") as u32,
        );
        if small_blind > big_blind {
            return Err(bad(
                "small_blind",
                small_blind.to_string(),
                format!("at most the big blind ({big_blind})"),
            ));
        }
        let cells = window.cells();
        let neighbours = (0..cells)
            .map(|c| {
                let (x, y) = window.coords(c);
                let mut set = CellSet::EMPTY;
                for dx in -1..=1 {
                    for dy in -1..=1 {
                        if (dx, dy) != (0, 0)
                            && let Some(n) = window.cell(x + dx, y + dy)
                        {
                            set.insert(n);
                        }
                    }
                }
                set
            })
            .collect();
        let community_cells = grid::COMMUNITY_CELLS.map(|(x, y)| {
            window
                .cell(x, y)
                .expect("the window holds the community cells")
        });
        Ok(Config {
            players: params.int("players") as usize,
            stack: params.int("stack") as u32,
            small_blind,
            big_blind,
            all_sizes: params.choice("bet_sizes") == "all",
            window,
            centre_pawn_both: params.choice("centre_pawn") == "both",
            allin_place: params.bool("allin_place"),
            hands: params.int("hands") as u32,
            cells,
            neighbours,
            community_cells,
            params,
        })
    }

    fn params(&self) -> &Params {
        &self.params
    }
    /// The rules' initial state (before the first card is dealt).
    fn initial(config: &Arc<Self>) -> HoldemState {
        HoldemState::new(config.clone())
    }

    fn num_players(&self) -> usize {
        self.players
    }
    fn num_distinct_actions(&self) -> usize {
        self.num_actions()
    }
    fn min_utility(&self) -> f64 {
        -(self.stack as f64)
    }
    fn max_utility(&self) -> f64 {
        (self.total_chips() - self.stack) as f64
    }
    /// An upper bound on the history's length (chance included).
    fn max_game_length(&self) -> usize {
        let n = self.players;
        let raises = (self.total_chips() / self.big_blind) as usize + n;
        let per_hand = 2 * n + 5 + 2 * n + 3 * n + 4 * n * (raises + 2);
        per_hand * self.hands as usize
    }
}

#[cfg(test)]
mod tests;
