//! Leduc poker: a small two-round poker, one private card each from a six-card deck and one
//! public card, with fixed-size bets. Small enough to solve exactly (each seat has 468
//! decision points), large enough to need a card that changes hands between the rounds.
//! This folder is the whole game: its rules are stated here.
//!
//! | fact | value |
//! |---|---|
//! | name | `leduc_poker` |
//! | players | 2 (`players`, fixed) |
//! | chance | explicit: a private card to each seat in seat order, then the public card; one outcome per card |
//! | information | imperfect: a seat sees its own card and the public card; both private cards are revealed at a showdown |
//! | utility | zero-sum (chips won minus chips put in) |
//! | reward model | terminal |
//!
//! # Rules
//!
//! The deck has six cards: a jack, a queen and a king in each of two suits (`Js Jh Qs Qh Ks
//! Kh`). Suits never matter; they only tell the two cards of a rank apart. Card `c` (0 to 5)
//! has rank `c / 2` (0 jack, 1 queen, 2 king) and suit `c % 2` (0 `s`, 1 `h`).
//!
//! 1. Both seats ante one chip into the pot.
//! 2. Chance deals one private card to seat 0, then one to seat 1. Each deal is its own chance
//!    node, uniform over the cards not dealt yet.
//! 3. The first betting round. Seat 0 acts first and the seats then alternate. With nothing
//!    to call a seat may check or bet; facing a bet it may fold, call or raise (call and bet
//!    again). Every bet and raise is 2 chips in this round. A round allows two raises, the
//!    first bet included; after the second, a seat facing it may only fold or call. The
//!    round ends when a seat calls a bet, or when both seats check. A fold ends the game: the
//!    other seat wins the pot, and no card is shown.
//! 4. Chance deals one public card, uniform over the four cards left.
//! 5. The second betting round, as the first but with bets and raises of 4 chips; seat 0
//!    acts first again.
//! 6. If nobody folded, both private cards are shown. A seat whose card has the public
//!    card's rank (a pair) wins; otherwise the higher rank wins; equal ranks split the pot.
//! 7. A seat's return is what it wins minus what it put in (its ante, bets, raises and calls).
//!    The most a seat can put in is 13 chips: its ante, 2 + 2 in the first round, 4 + 4 in
//!    the second.
//!
//! So: check check, public card, check check → showdown for 1 chip each; bet fold → seat 0
//! wins 1; bet raise call, public card, bet call → showdown for 9 chips each.
//!
//! # Actions and chance outcomes
//!
//! Seat actions: `0` = `fold`, `1` = `call` (a check when there is nothing to call), `2` =
//! `raise` (a bet when there is nothing to call). Fold is legal only facing a bet; raise only
//! while the round allows one more. Their text is `fold`, `call` and `raise`; parsing also
//! takes `f`, `c` and `r`, and with nothing to call `check`/`k` (a call) and `bet`/`b` (a
//! raise), in any case. Chance outcomes are card ids `0..6`; their text is the card's name
//! (`Js`, `Jh`, `Qs`, `Qh`, `Ks`, `Kh`).
//!
//! # Observations
//!
//! The observation tensor of seat `s`, 16 floats:
//!
//! | entries | meaning |
//! |---|---|
//! | `0..2` | one-hot: `s` itself |
//! | `2..8` | one-hot: `s`'s card (zeros before it is dealt) |
//! | `8..14` | one-hot: the public card (zeros before it is dealt) |
//! | `14..16` | per seat, the chips it has put in (1 to 13) |
//!
//! The chip entries are scalars (bounds 0 to 13); the others are binary. The information
//! state adds one row per history entry (the engine's `EventLayout`): a deal is coded as the
//! card's id when the seat sees it (its own card, the public card, and both private cards
//! after a showdown), else as 6; a fold as 7, a call as 8 and a raise as 9.
//!
//! The information-state string is `s<seat> cards:<deals> bets:<betting>`: the cards dealt so
//! far in dealing order (seat 0's, seat 1's, the public card), each as its name when the seat
//! sees it or `??`, separated by spaces; then a letter per action of the first round (`f`,
//! `c`, `r`), and once the public card is dealt a `/` and the second round's letters
//! (`s1 cards:?? Qh Ks bets:rc/c`). At every node before the end it tells apart exactly the
//! histories that OpenSpiel's `leduc_poker` information-state string tells apart, except
//! that the second seat also tells apart the two nodes before its card is dealt; at the end,
//! it also names the other seat's card after a showdown. The observation string gives the
//! seat's card, the public card, each seat's chips in the pot and, at the end, the cards
//! shown and the result.

pub mod bot;
mod observe;
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

pub use rules::{DECK, MAX_RAISES, Meaning, Move, SEATS};
pub use state::{LeducPokerState, Step};
pub use text::LeducPokerAction;
pub use view::{LeducCardText, LeducPokerMove, LeducPokerResult, LeducPokerSeat, LeducPokerView};

/// The game's facts.
pub static INFO: GameInfo = GameInfo {
    name: "leduc_poker",
    long_name: "Leduc Poker",
    description: "One private card each from a six-card deck (J J Q Q K K), a one-chip \
                  ante and two betting rounds of fixed bets (2, then 4; two raises a round) \
                  around one public card; a pair with it wins, else the higher card.",
    min_players: SEATS,
    max_players: SEATS,
    chance: ChanceMode::ExplicitStochastic,
    information: Information::Imperfect,
    dynamics: Dynamics::Sequential,
    utility: Utility::ZeroSum,
    reward_model: RewardModel::Terminal,
};

/// The game's parameters.
pub static PARAMS: &[ParamSpec] = &[ParamSpec::int("players", 2, 2, "2")
    .about("number of seats: 2 (there for OpenSpiel's leduc_poker(players=2))")];

/// The registry entry.
pub const ENTRY: GameEntry = LeducPokerGame::ENTRY;

/// A Leduc poker game: its validated parameters.
pub type LeducPokerGame = RulesGame<Config>;

/// Typed parameters of a Leduc poker game.
#[derive(Clone, Debug)]
pub struct Config {
    /// The validated parameters.
    params: Params,
}

impl GameDef for Config {
    type Rules = LeducPokerState;
    const INFO: &'static GameInfo = &INFO;
    const PARAMS: &'static [ParamSpec] = PARAMS;
    /// The six cards.
    const MAX_CHANCE_OUTCOMES: usize = DECK;

    fn from_params(params: Params) -> Result<Self, GameError> {
        Ok(Config { params })
    }

    fn params(&self) -> &Params {
        &self.params
    }

    /// The state before the first card is dealt (the antes are in).
    fn initial(config: &Arc<Self>) -> LeducPokerState {
        LeducPokerState::new(config.clone())
    }

    fn num_players(&self) -> usize {
        SEATS
    }

    /// `fold`, `call` and `raise`.
    fn num_distinct_actions(&self) -> usize {
        3
    }

    /// Winning the other seat's 13 chips: its ante, two raises of 2 and two of 4.
    fn max_utility(&self) -> f64 {
        13.0
    }

    /// Losing one's own 13 chips.
    fn min_utility(&self) -> f64 {
        -13.0
    }

    /// Three deals and the two longest betting rounds (check, bet, raise, call).
    fn max_game_length(&self) -> usize {
        SEATS + 1 + 2 * rules::MAX_ROUND_MOVES
    }
}

#[cfg(test)]
mod tests;
