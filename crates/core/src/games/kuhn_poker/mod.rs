//! Kuhn poker: the smallest poker, one private card each and a single betting round of one
//! chip. This folder is the whole game: its rules are stated here.
//!
//! | fact | value |
//! |---|---|
//! | name | `kuhn_poker` |
//! | players | 2–5 (`players`, default 2) |
//! | chance | explicit: one card dealt to each seat in seat order, one outcome per card index |
//! | information | imperfect: a seat sees its own card; cards shown at a showdown are revealed |
//! | utility | zero-sum (chips won minus chips put in) |
//! | reward model | terminal |
//!
//! # Rules
//!
//! The deck has one card more than there are players, all of different ranks. From the top
//! down they are `K Q J T 9 8`: two players use `J Q K`, three `T J Q K`, four `9 T J Q K`
//! and five `8 9 T J Q K`. A card is numbered by its rank in the deck, 0 for the lowest.
//!
//! 1. Every seat antes one chip into the pot.
//! 2. Chance deals one card to each seat, seat 0 first. Each deal is its own chance node,
//!    uniform over the cards not dealt yet; one card stays undealt.
//! 3. One betting round. The seats act in turn, seat 0 first, going around the table. Each
//!    action is `pass` or `bet`:
//!    - while nobody has bet, `pass` checks and `bet` puts one more chip in the pot (the
//!      first bet);
//!    - after the first bet, every other seat answers it exactly once, in turn order going
//!      around from the bettor (the seats after it, then the seats before it that had
//!      checked): `bet` calls (one more chip) and `pass` folds.
//! 4. The round ends when every seat has checked (there was no bet), or when every seat has
//!    answered the first bet. With no bet, every seat shows its card; after a bet, the bettor
//!    and those who called show theirs. The highest card shown wins the whole pot. When
//!    everybody folds to the bet, the bettor wins the pot without showing its card.
//! 5. A seat's return is what it wins minus what it put in (its ante, and its bet or call).
//!    A folded seat's card is never shown.
//!
//! So with two players: pass pass → showdown for 1 chip each; bet pass → the bettor wins 1;
//! bet bet → showdown for 2; pass bet pass → the second seat wins 1; pass bet bet → showdown
//! for 2.
//!
//! # Actions and chance outcomes
//!
//! Seat actions: `0` = `pass` (check or fold), `1` = `bet` (bet or call); their text is
//! `pass` and `bet`, and parsing also takes `p` and `b`, in any case. Chance outcomes are
//! card indices `0..=players`; their text is the card's name (`J`, `Q`, `K`, ...).
//!
//! # Observations
//!
//! The observation tensor of seat `s`, `3 × players + 1` floats:
//!
//! | entries | meaning |
//! |---|---|
//! | `0..players` | one-hot: `s` itself |
//! | `players..2 × players + 1` | one-hot: the index of `s`'s card (zeros before it is dealt) |
//! | `2 × players + 1..3 × players + 1` | per seat, the chips it has put in: 1 (the ante) or 2 (after a bet or call) |
//!
//! The chip entries are scalars (bounds 0 to 2); the others are binary. The information
//! state adds one row per history entry (the engine's `EventLayout`): a deal is coded as the
//! card's index when the seat sees it (its own, or one shown at the showdown once the game is
//! over), else as `players + 1`; a pass as `players + 2` and a bet as `players + 3`.
//!
//! The information-state string is `s<seat> cards:<deals> bets:<betting>`: one character per
//! card dealt so far, in seat order (its name when the seat sees it: its own, and at the end
//! the cards shown; else `?`), then `p` or `b` per action (`s1 cards:?K bets:pb`). The observation string gives the seat's card, each seat's chips in
//! the pot and, at the end, the cards shown and the winner.

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

pub use rules::{MAX_CARDS, MAX_SEATS, Meaning, Move};
pub use state::{KuhnPokerState, SeatStatus};
pub use text::KuhnPokerAction;
pub use view::{KuhnCardText, KuhnPokerMove, KuhnPokerResult, KuhnPokerSeat, KuhnPokerView};

/// The game's facts.
pub static INFO: GameInfo = GameInfo {
    name: "kuhn_poker",
    long_name: "Kuhn Poker",
    description: "One card each from a deck of one card more than the players, a one-chip \
                  ante and one betting round of one chip: pass or bet, then call or fold; \
                  the highest card shown wins the pot.",
    min_players: 2,
    max_players: MAX_SEATS,
    chance: ChanceMode::ExplicitStochastic,
    information: Information::Imperfect,
    dynamics: Dynamics::Sequential,
    utility: Utility::ZeroSum,
    reward_model: RewardModel::Terminal,
};

/// The game's parameters.
pub static PARAMS: &[ParamSpec] = &[ParamSpec::int("players", 2, MAX_SEATS as i64, "2")
    .about("number of seats; the deck has one card more (J Q K with 2 players)")];

/// The registry entry.
pub const ENTRY: GameEntry = KuhnPokerGame::ENTRY;

/// A Kuhn poker game: its validated parameters.
pub type KuhnPokerGame = RulesGame<Config>;

/// Typed parameters of a Kuhn poker game.
#[derive(Clone, Debug)]
pub struct Config {
    /// Number of seats.
    pub players: usize,
    /// The validated parameters.
    params: Params,
}

impl Config {
    /// Cards in the deck: one more than the seats.
    pub fn deck_size(&self) -> usize {
        self.players + 1
    }

    /// The name of card `index` (0 = the lowest) in this game's deck.
    pub fn card_name(&self, index: u8) -> char {
        rules::card_name(self.players, index)
    }

    /// The most actions a betting round can have: every seat once, and every seat but the
    /// last once more when the last seat makes the first bet.
    pub fn max_moves(&self) -> usize {
        2 * self.players - 1
    }
}

impl GameDef for Config {
    type Rules = KuhnPokerState;
    const INFO: &'static GameInfo = &INFO;
    const PARAMS: &'static [ParamSpec] = PARAMS;
    /// The largest deck's size (five players): the outcome space cannot depend on the
    /// parameters here, so smaller decks use its first `players + 1` ids.
    const MAX_CHANCE_OUTCOMES: usize = MAX_CARDS;

    fn from_params(params: Params) -> Result<Self, GameError> {
        Ok(Config {
            players: params.int("players") as usize,
            params,
        })
    }

    fn params(&self) -> &Params {
        &self.params
    }

    /// The state before the first card is dealt (the antes are in).
    fn initial(config: &Arc<Self>) -> KuhnPokerState {
        KuhnPokerState::new(config.clone())
    }

    fn num_players(&self) -> usize {
        self.players
    }

    /// `pass` and `bet`.
    fn num_distinct_actions(&self) -> usize {
        2
    }

    /// A winner against every seat having bet or called: the pot of `2 × players` less its own
    /// two chips.
    fn max_utility(&self) -> f64 {
        2.0 * (self.players as f64 - 1.0)
    }

    /// A seat that bet or called and lost.
    fn min_utility(&self) -> f64 {
        -2.0
    }

    /// Every deal, and the longest betting round.
    fn max_game_length(&self) -> usize {
        self.players + self.max_moves()
    }
}

#[cfg(test)]
mod tests;
