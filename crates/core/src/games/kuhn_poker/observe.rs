//! What a Kuhn poker seat observes, as numbers: the observation tensor (layout in the module
//! doc), the information state's event codes, and resampling the cards a seat cannot see.

use super::Config;
use super::rules::Move;
use super::state::KuhnPokerState;
use crate::game::{Action, EventLayout, ObservationSink, Player, PlayerAction};
use crate::rng::GameRng;
use crate::rules::{GameDef, Layout, Observe, Played};

impl Config {
    /// The event code of a deal the seat does not see (card codes are `0..=players`).
    fn hidden_code(&self) -> u32 {
        self.players as u32 + 1
    }

    /// The event code of a move (pass, then bet, after the hidden card's code).
    fn move_code(&self, m: Move) -> u32 {
        self.hidden_code() + 1 + m.action()
    }
}

impl Layout for Config {
    /// Own seat one-hot, own card one-hot, each seat's chips in the pot.
    fn observation_size(&self) -> usize {
        3 * self.players + 1
    }

    /// The history rows of an information-state tensor: codes are a card index seen, a hidden
    /// deal, a pass and a bet.
    fn event_layout(&self) -> EventLayout {
        EventLayout::new(self.players, self.players + 4, self.max_game_length())
    }

    /// The chips entries are 1 or 2.
    fn observation_bounds(&self) -> (f32, f32) {
        (0.0, 2.0)
    }

    /// Each seat's chips in the pot (the last `players` entries).
    fn observation_scalars(&self) -> Vec<std::ops::Range<usize>> {
        let n = self.players;
        std::iter::once(2 * n + 1..3 * n + 1).collect()
    }

    /// Small rows: rewritten whole.
    fn dense_observations(&self) -> bool {
        true
    }
}

impl Observe for KuhnPokerState {
    fn write_observation<S: ObservationSink>(&self, player: usize, out: &mut S) {
        let n = self.config.players;
        out.set(player, 1.0);
        if let Some(card) = self.card(player) {
            out.set(n + card as usize, 1.0);
        }
        for seat in 0..n {
            out.set(2 * n + 1 + seat, self.chips_in(seat) as f32);
        }
    }

    /// A deal: the card when `viewer` sees it, else the hidden code; a move: its code.
    fn event_codes(&self, history: &[PlayerAction], viewer: usize) -> Vec<u32> {
        history
            .iter()
            .enumerate()
            .map(|(i, entry)| match entry.player {
                Player::Chance if self.sees_card(Some(viewer), i) => entry.action,
                Player::Chance => self.config.hidden_code(),
                _ => {
                    let m = Move::from_action(entry.action).expect("a legal move");
                    self.config.move_code(m)
                }
            })
            .collect()
    }

    /// The cards `player` does not see (the other seats' cards not shown at a showdown, and
    /// the undealt card) shuffled, and dealt again in the same order; the betting is kept.
    fn resample(&self, history: &[PlayerAction], player: usize, rng: &mut GameRng) -> Played<Self> {
        let known = |seat: usize| self.sees_card(Some(player), seat);
        let mut unknown: Vec<u8> = (0..self.config.deck_size() as u8)
            .filter(|&c| !(0..self.dealt()).any(|s| known(s) && self.card(s) == Some(c)))
            .collect();
        rng.shuffle(&mut unknown);
        let mut unknown = unknown.into_iter();
        Played::replay_with(
            KuhnPokerState::new(self.config.clone()),
            history,
            |replay, entry| match entry.player {
                // The replay has dealt to the seats before this deal's.
                Player::Chance if !known(replay.dealt()) => {
                    unknown.next().expect("an unknown card per hidden deal") as Action
                }
                _ => entry.action,
            },
        )
    }
}

impl KuhnPokerState {
    /// Whether `viewer` (`None`: a spectator) sees the card dealt to `seat`: its own, or
    /// one shown at the showdown.
    pub(super) fn sees_card(&self, viewer: Option<usize>, seat: usize) -> bool {
        viewer == Some(seat) || self.shown(seat)
    }
}
