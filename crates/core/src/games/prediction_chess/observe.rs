//! What a seat observes of a Prediction Chess state: the observation tensor (dense or as
//! entries), the information-state tensor's history rows (layout and event codes), and
//! resampling the hidden pending move consistently with a seat's information state.

use super::state::{Phase, PredictionChessState};
use super::{Config, FIFTY_MOVE_TURNS, NUM_ACTIONS};
use crate::chess::{Color, Piece};
use crate::game::{EventLayout, ObservationSink, Player, PlayerAction};
use crate::rng::GameRng;
use crate::rules::{GameDef, Layout, Observe, Played};

/// Number of floats in an observation (see docs/games/prediction_chess.md).
pub const OBSERVATION_SIZE: usize = 12 * 64 + 2 * 64 + 4 + 4 * 64 + 2 + 2 + 2 + 2;

impl Layout for Config {
    fn observation_size(&self) -> usize {
        OBSERVATION_SIZE
    }

    /// The history rows of an information-state tensor. Codes: an action seen is its id; the
    /// other seat's move of the turn in progress (pending until the predictions) is
    /// `NUM_ACTIONS`.
    fn event_layout(&self) -> EventLayout {
        EventLayout::new(2, NUM_ACTIONS + 1, self.max_game_length())
    }

    /// The turn / max_turns and quiet turns / 50 (the last two entries).
    fn observation_scalars(&self) -> Vec<std::ops::Range<usize>> {
        std::iter::once(OBSERVATION_SIZE - 2..OBSERVATION_SIZE).collect()
    }
}

impl Observe for PredictionChessState {
    /// Seat `player`'s observation, entry by entry (the layout is in
    /// `docs/games/prediction_chess.md`).
    fn write_observation<S: ObservationSink>(&self, player: usize, out: &mut S) {
        for color in Color::ALL {
            for piece in Piece::ALL {
                let plane = color as usize * 6 + piece as usize;
                out.set_word(plane, self.board.colored(color, piece).0);
            }
        }
        let mut at = 12 * 64;
        if let Some(mv) = self.pending_move(player) {
            out.set(at + mv.from as usize, 1.0);
            out.set(at + 64 + mv.to as usize, 1.0);
            if let Some(p) = mv.promotion {
                out.set(at + 128 + p as usize - 1, 1.0);
            }
        }
        at += 2 * 64 + 4;
        if let Some(last) = self.turns.last() {
            for (s, mv) in last.moves.iter().enumerate() {
                if let Some(mv) = mv {
                    out.set(at + s * 128 + mv.from as usize, 1.0);
                    out.set(at + s * 128 + 64 + mv.to as usize, 1.0);
                }
            }
            at += 4 * 64;
            out.set(at, last.resolution.predicted[0] as u8 as f32);
            out.set(at + 1, last.resolution.predicted[1] as u8 as f32);
            at += 2;
        } else {
            at += 4 * 64 + 2;
        }
        out.set(at + player.min(1), 1.0);
        at += 2;
        match self.phase {
            Phase::Move => out.set(at, 1.0),
            Phase::Predict => out.set(at + 1, 1.0),
            Phase::Over => {}
        }
        at += 2;
        out.set(at, self.turn as f32 / self.config.max_turns as f32);
        out.set(at + 1, self.quiet_turns as f32 / FIFTY_MOVE_TURNS as f32);
    }

    /// What seat `viewer` saw of each entry of `history` (codes of `event_layout`).
    fn event_codes(&self, history: &[PlayerAction], viewer: usize) -> Vec<u32> {
        // At the prediction node the last two entries are this turn's moves, still hidden.
        let pending_from = match self.phase {
            Phase::Predict => history.len() - 2,
            _ => history.len(),
        };
        history
            .iter()
            .enumerate()
            .map(|(i, entry)| {
                if i >= pending_from && entry.player != Player::Seat(viewer.min(1)) {
                    NUM_ACTIONS as u32
                } else {
                    entry.action
                }
            })
            .collect()
    }

    /// A state consistent with what seat `player` knows, given this state's `history`: at the
    /// prediction node the other seat's pending move is hidden, so it becomes any of that
    /// seat's legal moves; everything else is known. The history is replayed from the start
    /// with that move in place.
    fn resample(&self, history: &[PlayerAction], player: usize, rng: &mut GameRng) -> Played<Self> {
        // A copy with the other seat's hidden pending move replaced by any of its legal moves
        // (in the copy and in its history); nothing else is hidden.
        let mut out = self.clone();
        let mut history = history.to_vec();
        if self.phase == Phase::Predict && player < 2 {
            let other = 1 - player;
            let pick = rng.choose(&self.move_node_actions(other));
            out.pending[other] = pick;
            let at = history.len() - 2 + other;
            history[at].action = pick;
        }
        Played::from_parts(out, history)
    }
}
