//! What a Leduc poker seat observes, as numbers: the observation tensor (layout in the module
//! doc), the information state's event codes, and resampling the cards a seat cannot see.

use super::Config;
use super::rules::{DECK, Move, SEATS};
use super::state::{LeducPokerState, PUBLIC};
use crate::game::{Action, EventLayout, ObservationSink, Player, PlayerAction};
use crate::rng::GameRng;
use crate::rules::{GameDef, Layout, Observe, Played};

/// The event code of a deal the seat does not see (card codes are `0..6`).
const HIDDEN_CODE: u32 = DECK as u32;

impl Config {
    /// The event code of a move (fold, call, raise, after the hidden card's code).
    fn move_code(&self, m: Move) -> u32 {
        HIDDEN_CODE + 1 + m.action()
    }
}

impl Layout for Config {
    /// Own seat one-hot, own card one-hot, public card one-hot, each seat's chips in the pot.
    fn observation_size(&self) -> usize {
        SEATS + 2 * DECK + SEATS
    }

    /// The history rows of an information-state tensor: codes are a card seen, a hidden
    /// deal, a fold, a call and a raise.
    fn event_layout(&self) -> EventLayout {
        EventLayout::new(SEATS, HIDDEN_CODE as usize + 4, self.max_game_length())
    }

    /// The chips entries reach 13 (the ante, two raises of 2 and two of 4).
    fn observation_bounds(&self) -> (f32, f32) {
        (0.0, self.max_utility() as f32)
    }

    /// Each seat's chips in the pot (the last two entries).
    fn observation_scalars(&self) -> Vec<std::ops::Range<usize>> {
        let start = SEATS + 2 * DECK;
        std::iter::once(start..start + SEATS).collect()
    }

    /// Small rows: rewritten whole.
    fn dense_observations(&self) -> bool {
        true
    }
}

impl Observe for LeducPokerState {
    fn write_observation<S: ObservationSink>(&self, player: usize, out: &mut S) {
        out.set(player, 1.0);
        if let Some(card) = self.card(player) {
            out.set(SEATS + card as usize, 1.0);
        }
        if let Some(card) = self.public_card() {
            out.set(SEATS + DECK + card as usize, 1.0);
        }
        for seat in 0..SEATS {
            out.set(SEATS + 2 * DECK + seat, self.chips_in(seat) as f32);
        }
    }

    /// A deal: the card when `viewer` sees it, else the hidden code; a move: its code.
    fn event_codes(&self, history: &[PlayerAction], viewer: usize) -> Vec<u32> {
        let mut deal = 0;
        history
            .iter()
            .map(|entry| match entry.player {
                Player::Chance => {
                    deal += 1;
                    if self.sees_deal(Some(viewer), deal - 1) {
                        entry.action
                    } else {
                        HIDDEN_CODE
                    }
                }
                _ => {
                    let m = Move::from_action(entry.action).expect("a legal move");
                    self.config.move_code(m)
                }
            })
            .collect()
    }

    /// The cards `player` does not see (the other seat's card unless shown at the showdown,
    /// and the cards not dealt) shuffled, and dealt again in the same order; the betting and
    /// the public card are kept.
    fn resample(&self, history: &[PlayerAction], player: usize, rng: &mut GameRng) -> Played<Self> {
        let known = |index: usize| self.sees_deal(Some(player), index);
        let mut unknown: Vec<u8> = (0..DECK as u8)
            .filter(|&c| !(0..self.dealt()).any(|i| known(i) && self.deal(i) == Some(c)))
            .collect();
        rng.shuffle(&mut unknown);
        let mut unknown = unknown.into_iter();
        Played::replay_with(
            LeducPokerState::new(self.config.clone()),
            history,
            |replay, entry| match entry.player {
                // The replay has made the deals before this one.
                Player::Chance if !known(replay.dealt()) => {
                    unknown.next().expect("an unknown card per hidden deal") as Action
                }
                _ => entry.action,
            },
        )
    }
}

impl LeducPokerState {
    /// Whether `viewer` (`None`: a spectator) sees deal `index` (0 and 1 the seats' cards, 2
    /// the public card): the public card, its own card, or a card shown at the showdown.
    pub(super) fn sees_deal(&self, viewer: Option<usize>, index: usize) -> bool {
        index == PUBLIC || viewer == Some(index) || self.shown(index)
    }
}
