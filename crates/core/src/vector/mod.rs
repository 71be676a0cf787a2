//! A batch of seeded envs stepped together across threads (rayon), writing observations,
//! legal masks, rewards and done flags straight into caller-provided flat buffers.
//!
//! Semantics follow Gymnasium's vector envs, in one of two auto-reset modes
//! (`AutoresetMode`). In next-step mode (the default) the step that ends an env's game reports
//! it (`terminated` or `truncated`, with that step's rewards and the final observation); the
//! next step ignores that env's action, starts a new game and reports its first observation
//! with zero rewards and both flags false. In same-step mode the step that ends a game also
//! starts the next one: it reports the flags and the final step's rewards with the new game's
//! first observation, and the ended game's final observation separately
//! (`StepBuffers::final_observations`). In both modes the step that ends a game reports the
//! game's returns (`StepBuffers::final_returns`). Env `i` is seeded with `seed + i`, so (game,
//! parameters, seed, mode, actions) give the same trajectories everywhere.
//!
//! Actions are one id per env for sequential games. Games whose dynamics are simultaneous take
//! a joint action per env, `num_players` ids in seat order; at a sequential node of such a
//! game only the entry of the seat to act is read.
//!
//! A step first checks every env's action against the legal actions it reported last; if one
//! is illegal it fails with the env's index and the engine's message, and no env changes.
//!
//! Legal masks are long (4,207 entries in Poker Chess) and hold few legal actions, so a caller
//! that hands back the same, untouched buffers says so with `StepBuffers::retained`: each env
//! then clears only the entries it set last time and sets the new ones.
//!
//! # Opponents
//!
//! By default the caller plays every seat. With `VectorEnv::with_opponents` the engine plays
//! every seat but one learner seat per env (fixed, or drawn for each game), each from a
//! weighted pool of bots (`Opponents`), and every env always waits at its learner's decision
//! (or, in next-step mode, at the end of a game). A batch with opponents writes the learner's
//! side only: one observation and mask row per env (the learner's, as with
//! `Observer::Seat`), one reward, final return and action per env (at a simultaneous node the
//! engine fills the opponents' entries of the joint action). A step's reward is the learner's
//! reward over everything from its action to its next decision; the rewards of the moves
//! before its first decision of a game are reported with its first step, so a game's rewards
//! sum to its final return. `max_episode_steps` counts the learner's steps. Opponents act
//! through `Bot::try_act`, seeing only what their seat may know.
//!
//! Each env draws its learner's seat and its opponents, and its opponents decide, from two
//! streams of its own seeded from `seed + i` apart from its chance stream, so (game,
//! parameters, seed, pool, learner actions) give the same trajectories everywhere, and the
//! opponents an env meets do not depend on how long its games were. Opponents play on the
//! env's rayon worker thread, a policy opponent evaluating its network once per move and env.
//! That evaluation is cheap without batching: observations are mostly zeros, so the first
//! layer adds a few weight rows rather than multiplying the whole matrix, and only the legal
//! actions' logits are computed (`PolicyNet::best`); policy and random opponents read nothing
//! but their seat's observation and legal actions, so they skip the resample every other bot
//! decides on (`Bot::reads_only_its_view`). Batching one evaluation over every env whose
//! opponent is the same policy would need each env's advance to become resumable (advance
//! every env to a policy move or its learner's decision, evaluate the gathered observations
//! per network at once, apply, repeat), and a batched product sums in another order, so
//! where two legal logits nearly tie it could pick another action than `PolicyBot` does on
//! every other face; per env, a policy opponent plays exactly as it plays everywhere.
//!
//! ```
//! use checkraise_core::make_game_from_string;
//! use checkraise_core::vector::{
//!     LearnerSeat, Observer, Opponent, Opponents, OwnedBuffers, VectorEnv,
//! };
//!
//! let game = make_game_from_string("pokeros").unwrap();
//! let opponents = Opponents::new(LearnerSeat::Drawn).with(Opponent::spec("heuristic"), 1.0);
//! let mut venv = VectorEnv::new(game, 4, 7, Observer::CurrentPlayer, None)
//!     .unwrap()
//!     .with_opponents(opponents)
//!     .unwrap();
//! let mut out = OwnedBuffers::for_venv(&venv, false);
//! venv.reset(None, out.view(false)).unwrap();
//! assert_eq!(out.rewards.len(), 4);
//! let mut actions = vec![0; 4];
//! for _ in 0..50 {
//!     venv.sample_actions(&mut actions).unwrap();
//!     venv.step(&actions, out.view(true)).unwrap();
//!     for i in 0..4 {
//!         let state = venv.state(i).unwrap();
//!         let learner = venv.learner_seat(i).unwrap();
//!         assert!(state.is_terminal() || state.current_player().seat() == Some(learner));
//!     }
//! }
//! ```

mod buffers;
mod opponents;
mod row_chunks;
mod rows;
mod slot;
mod snapshot;

use std::sync::Arc;

use rayon::prelude::*;

use crate::compact::{CompactLayout, ObservationEncoding, packed_mask_bytes};
use crate::env::{Env, GameRng};
use crate::game::{
    Action, Dynamics, ErrorKind, Game, GameError, ObservationEntries, Player, State,
};

pub use buffers::{OwnedBuffers, StepBuffers};
pub use opponents::{LearnerSeat, MAX_SKIPPED_GAMES, Opponent, Opponents};
use opponents::{Pool, Seating};
use slot::{Shape, Slot};

/// Mixed into env seeds for the action sampler's streams, so they differ from chance's.
const SAMPLER_SALT: u64 = 0x5DEE_CE66_D1CE_5EED;

/// Whose observation and legal mask each env writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Observer {
    /// The seat to act; at a terminal state, the seat that made the last move. Sequential
    /// games only (at a simultaneous node every seat acts).
    CurrentPlayer,
    /// One fixed seat.
    Seat(usize),
    /// Every seat: observations and masks gain a seat axis after the env axis.
    AllSeats,
}

impl Observer {
    /// The observer a batch of `game` gets when none is asked for: the seat to act in a
    /// sequential game, every seat in a game with simultaneous nodes (where every seat acts).
    pub fn default_for(game: &dyn Game) -> Self {
        match game.info().dynamics {
            Dynamics::Simultaneous => Observer::AllSeats,
            Dynamics::Sequential => Observer::CurrentPlayer,
        }
    }
}

/// When an env whose game ended starts its next game (Gymnasium's `AutoresetMode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum AutoresetMode {
    /// On the step after the one that ended the game: that step ignores the env's action
    /// and reports the new game's first observation, zero rewards and both flags false.
    #[default]
    NextStep,
    /// Within the step that ended the game: the step reports the flags, the final step's
    /// rewards and the new game's first observation; the ended game's final observation goes
    /// to `StepBuffers::final_observations`.
    SameStep,
}

/// An error of a batched call: one env's (with its index), or the batch's own.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VectorError {
    /// Env `index` refused its action.
    #[error("env {index}: {error}")]
    Env {
        /// The env's index in the batch.
        index: usize,
        /// The engine's error.
        error: GameError,
    },
    /// The call itself is wrong (buffer sizes, observer, parameters).
    #[error("{0}")]
    Batch(GameError),
}

impl VectorError {
    /// The engine error inside.
    pub fn game_error(&self) -> &GameError {
        match self {
            VectorError::Env { error, .. } | VectorError::Batch(error) => error,
        }
    }

    /// Which kind of mistake this is.
    pub fn kind(&self) -> ErrorKind {
        self.game_error().kind()
    }
}

impl From<GameError> for VectorError {
    fn from(error: GameError) -> Self {
        VectorError::Batch(error)
    }
}

/// Makes the calling thread one of the threads of rayon's global pool (the pool then starts
/// one thread fewer), if the global pool has not been built yet; returns whether it did.
///
/// A batch stepped from a thread outside the pool is handed to the pool's threads while the
/// caller sleeps, and each call then pays for waking threads and for the caller's idle core.
/// Bindings call this once from the thread that will step the envs (Python's main thread),
/// so that thread works on its own batches. Calls from any other thread still work as usual.
pub fn join_global_pool() -> bool {
    rayon::ThreadPoolBuilder::new()
        .use_current_thread()
        .build_global()
        .is_ok()
}

/// Many envs of one game, stepped together.
#[derive(Debug)]
pub struct VectorEnv {
    game: Arc<dyn Game>,
    slots: Vec<Slot>,
    shape: Shape,
    compact: CompactLayout,
    /// Whether anything happened since construction (a reset without a seed then starts new
    /// games; before, the constructed games are the first episode).
    started: bool,
    /// The seed env `i`'s streams were seeded from (with `i`).
    seed: u64,
    /// The opponent pool (`with_opponents`).
    pool: Option<Arc<Pool>>,
}

impl VectorEnv {
    /// `num_envs` envs of `game`, env `i` seeded with `seed + i`, each at its first decision.
    ///
    /// `max_episode_steps` truncates a game after that many steps. `Observer::CurrentPlayer`
    /// is refused for games with simultaneous moves.
    pub fn new(
        game: Arc<dyn Game>,
        num_envs: usize,
        seed: u64,
        observer: Observer,
        max_episode_steps: Option<usize>,
    ) -> Result<Self, GameError> {
        let info = game.info();
        let num_players = game.num_players();
        let invalid = |name: &str, value: String, allowed: &str| {
            GameError::invalid_parameter(info.name, name, value, allowed)
        };
        if num_envs == 0 {
            return Err(invalid("num_envs", "0".into(), "at least 1"));
        }
        if max_episode_steps == Some(0) {
            return Err(invalid(
                "max_episode_steps",
                "0".into(),
                "at least 1, or none",
            ));
        }
        let joint = info.dynamics == Dynamics::Simultaneous;
        match observer {
            Observer::Seat(seat) if seat >= num_players => {
                return Err(GameError::InvalidSeat {
                    seat: seat as i64,
                    num_players,
                });
            }
            Observer::CurrentPlayer if joint => {
                return Err(invalid(
                    "observer",
                    "current player".into(),
                    "a seat or all seats: every seat acts at a simultaneous node",
                ));
            }
            _ => {}
        }
        let compact = CompactLayout::for_game(game.as_ref());
        let entries = game
            .new_initial_state()
            .observation_entries(0, &mut ObservationEntries::new(game.observation_size()));
        let shape = Shape {
            num_players,
            num_actions: game.num_distinct_actions(),
            observation_size: game.observation_size(),
            observer,
            joint,
            max_episode_steps,
            autoreset_mode: AutoresetMode::NextStep,
            sparse_observations: entries && !game.dense_observations(),
            entries,
            encoding: ObservationEncoding::Float32,
            row_bytes: compact.row_bytes(),
            mask_bytes: packed_mask_bytes(game.num_distinct_actions()),
            learner_only: false,
        };
        let slots = (0..num_envs)
            .into_par_iter()
            .map(|i| {
                let env = Env::new(game.clone(), seed.wrapping_add(i as u64));
                let mut slot = Slot {
                    needs_reset: env.current_player() == Player::Terminal,
                    env,
                    steps: 0,
                    last_seat: 0,
                    sampler: GameRng::new(seed.wrapping_add(i as u64) ^ SAMPLER_SALT),
                    current: Player::Terminal,
                    legal: vec![Vec::new(); num_players],
                    rewards: vec![0.0; num_players],
                    mask_written: vec![Vec::new(); shape.rows()],
                    obs_written: if shape.entries {
                        let empty = ObservationEntries::new(shape.observation_size);
                        vec![[empty.clone(), empty]; shape.rows()]
                    } else {
                        Vec::new()
                    },
                    scratch: Vec::new(),
                    final_written: true,
                    seating: None,
                };
                slot.refresh_legal();
                slot
            })
            .collect();
        Ok(VectorEnv {
            game,
            slots,
            shape,
            compact,
            started: false,
            seed,
            pool: None,
        })
    }

    /// This batch with the engine playing every seat but the learner's (see the module docs,
    /// "Opponents"): each env draws its learner's seat (`Opponents::learner`) and each other
    /// seat's opponent (by weight from `Opponents::pool`) at the start of every game, from
    /// its own stream seeded from `seed + i`, and plays the opponents' moves until the learner
    /// must decide. The constructed games become the first games with opponents: each is
    /// played to its learner's first decision here.
    ///
    /// Every env then writes one row (its learner's observation and mask, whatever the
    /// observer given to `new`; `rows_per_env` is 1), one reward and final return
    /// (`rewards_per_env` is 1), and takes one action, the learner's (`actions_per_env` is
    /// 1, in simultaneous games too). `max_episode_steps` counts the learner's steps. A game
    /// that ends before the learner's first decision is played out and skipped (counted by
    /// `skipped_games`); after `MAX_SKIPPED_GAMES` such games in a row the call fails.
    ///
    /// Refused, with an error naming the problem: an empty pool, a weight that is not a
    /// finite number above 0, a spec that does not parse or build for this game (naming the
    /// entry), policy bytes that do not read or were not trained on this game, a fixed
    /// learner seat out of range; and a batch that has already been reset or stepped, or
    /// already has opponents.
    ///
    /// `snapshot` keeps the pool; `restore` rebuilds a pool of spec strings, while a pool with
    /// in-memory entries (`Opponent::PolicyBytes`, `Opponent::Bot`) must be handed again to
    /// `restore_with_opponents`.
    pub fn with_opponents(mut self, opponents: Opponents) -> Result<Self, GameError> {
        if self.started || self.pool.is_some() {
            return Err(GameError::InvalidSetting {
                name: "opponents".to_string(),
                value: if self.pool.is_some() {
                    "a second pool".to_string()
                } else {
                    "a pool for a batch already reset or stepped".to_string()
                },
                allowed: "one pool, set before the batch's first reset or step".to_string(),
            });
        }
        let pool = Arc::new(Pool::build(self.game.as_ref(), &opponents)?);
        self.shape.learner_only = true;
        let (shape, seed, players) = (self.shape, self.seed, self.shape.num_players);
        self.slots.par_iter_mut().enumerate().try_for_each(
            |(i, slot)| -> Result<(), GameError> {
                slot.mask_written.truncate(shape.rows());
                slot.obs_written.truncate(shape.rows());
                let mut seating = Seating::new(seed.wrapping_add(i as u64), players);
                let begun = seating.begin(&mut slot.env, &pool);
                slot.seating = Some(seating);
                begun?;
                slot.start_learner();
                Ok(())
            },
        )?;
        self.pool = Some(pool);
        Ok(self)
    }

    /// Env `index`'s learner seat in its current game (`None` without opponents or for an
    /// index out of range).
    pub fn learner_seat(&self, index: usize) -> Option<usize> {
        self.slots.get(index)?.seating.as_ref().map(|s| s.learner)
    }

    /// The pool entry (its index in `Opponents::pool`) that plays `seat` of env `index` in
    /// its current game (`None` without opponents, for the learner's seat, or out of range).
    pub fn opponent_index(&self, index: usize, seat: usize) -> Option<usize> {
        let seating = self.slots.get(index)?.seating.as_ref()?;
        (seat != seating.learner)
            .then(|| seating.opponents.get(seat).copied())
            .flatten()
    }

    /// Whether the engine plays opponents (`with_opponents`).
    pub fn has_opponents(&self) -> bool {
        self.pool.is_some()
    }

    /// Games skipped over every env because they ended before the learner's first decision
    /// (0 without opponents).
    pub fn skipped_games(&self) -> u64 {
        self.slots
            .iter()
            .filter_map(|s| s.seating.as_ref())
            .map(|s| s.skipped)
            .sum()
    }

    /// Rewards and final returns per env: `num_players`, or 1 (the learner's) with opponents.
    pub fn rewards_per_env(&self) -> usize {
        self.shape.reward_width()
    }

    /// This batch writing observations and masks in `encoding` (a new batch writes float32).
    pub fn with_observation_encoding(mut self, encoding: ObservationEncoding) -> Self {
        self.shape.encoding = encoding;
        self
    }

    /// How this batch writes observations and masks.
    pub fn observation_encoding(&self) -> ObservationEncoding {
        self.shape.encoding
    }

    /// The compact layout of the game's observations (`ObservationEncoding::Compact` rows).
    pub fn compact_layout(&self) -> &CompactLayout {
        &self.compact
    }

    /// This batch in auto-reset `mode` (a new batch is in `AutoresetMode::NextStep`).
    pub fn with_autoreset_mode(mut self, mode: AutoresetMode) -> Self {
        self.shape.autoreset_mode = mode;
        self
    }

    /// When an env whose game ended starts its next game.
    pub fn autoreset_mode(&self) -> AutoresetMode {
        self.shape.autoreset_mode
    }

    /// Writes every env's current observations, masks and players into `out` in full (its
    /// rewards, terminated, truncated, final returns and final observation rows are left as
    /// they are): for fresh buffers, such as a restored batch's.
    pub fn write_rows(&mut self, mut out: StepBuffers<'_>) -> Result<(), VectorError> {
        out.retained = false;
        let rows = self.rows(out)?;
        let shape = self.shape;
        let layout = &self.compact;
        self.slots
            .par_iter_mut()
            .zip(rows)
            .with_min_len(32)
            .for_each(|(slot, mut rows)| {
                for written in &mut slot.mask_written {
                    written.clear();
                }
                // The final rows are left as they are: the next step clears them.
                slot.final_written = true;
                slot.write(&shape, layout, &mut rows);
            });
        Ok(())
    }

    /// The game.
    pub fn game(&self) -> &Arc<dyn Game> {
        &self.game
    }

    /// Number of envs.
    pub fn num_envs(&self) -> usize {
        self.slots.len()
    }

    /// Whose observations and masks are written.
    pub fn observer(&self) -> Observer {
        self.shape.observer
    }

    /// Uniformly random legal actions for the next `step`, drawn by each env from its own
    /// stream (env `i`'s seeded from `seed + i` at construction, apart from its chance
    /// stream), written into `out` (`num_envs × actions_per_env()` ids, env-major): the seat
    /// to act's, or every seat's in a joint action (0 for a seat with no legal action, and
    /// for an env whose game just ended, whose action `step` ignores); with opponents, the
    /// learner's.
    pub fn sample_actions(&mut self, out: &mut [Action]) -> Result<(), VectorError> {
        let per_env = self.actions_per_env();
        let expected = self.slots.len() * per_env;
        if out.len() != expected {
            return Err(GameError::BadBuffer {
                what: "actions",
                got: out.len(),
                expected,
            }
            .into());
        }
        let joint = self.shape.joint;
        self.slots
            .par_iter_mut()
            .zip(out.par_chunks_mut(per_env))
            .with_min_len(64)
            .for_each(|(slot, out)| {
                out.fill(0);
                if slot.needs_reset {
                    return;
                }
                if let Some(seating) = &slot.seating {
                    let legal = &slot.legal[seating.learner];
                    if !legal.is_empty() {
                        out[0] = slot.sampler.choose(legal);
                    }
                    return;
                }
                let seats = match slot.current {
                    Player::Seat(seat) => seat..seat + 1,
                    Player::Simultaneous => 0..slot.legal.len(),
                    _ => 0..0,
                };
                for seat in seats {
                    let legal = &slot.legal[seat];
                    if !legal.is_empty() {
                        out[if joint { seat } else { 0 }] = slot.sampler.choose(legal);
                    }
                }
            });
        Ok(())
    }

    /// Action ids per env in `step`: 1, or `num_players` for simultaneous games (1 with
    /// opponents: the learner's).
    pub fn actions_per_env(&self) -> usize {
        if self.shape.joint && !self.shape.learner_only {
            self.shape.num_players
        } else {
            1
        }
    }

    /// Observation (and mask) rows per env: 1, or `num_players` with `Observer::AllSeats` (1
    /// with opponents).
    pub fn rows_per_env(&self) -> usize {
        self.shape.rows()
    }

    /// The state of env `index`.
    pub fn state(&self, index: usize) -> Option<&dyn State> {
        self.slots.get(index).map(|s| s.env.state())
    }

    /// Starts a new game in every env and writes its first observations. With `seed`, env `i`
    /// is reseeded with `seed + i` (its chance and action-sampler streams; with opponents, its
    /// seat and opponent streams too), so the batch then plays as a new one of that seed;
    /// without, each continues its stream (the first reset after construction keeps the
    /// constructed games). With opponents, each env draws its seats and plays to its learner's first decision; the rewards of those moves
    /// come with the learner's first step.
    pub fn reset(&mut self, seed: Option<u64>, out: StepBuffers<'_>) -> Result<(), VectorError> {
        if let Some(seed) = seed {
            self.seed = seed;
        }
        self.reset_seeded(seed.is_some(), out, |i| {
            seed.map(|seed| seed.wrapping_add(i as u64))
        })
    }

    /// `reset` with a seed per env (Gymnasium's `reset(seed=[...])`): env `i` is reseeded
    /// with `seeds[i]` (its chance, sampler and, with opponents, seat and opponent streams),
    /// or continues its stream where that is `None`. Exactly `num_envs` seeds, or an error.
    pub fn reset_each(
        &mut self,
        seeds: &[Option<u64>],
        out: StepBuffers<'_>,
    ) -> Result<(), VectorError> {
        if seeds.len() != self.slots.len() {
            return Err(GameError::BadBuffer {
                what: "seeds",
                got: seeds.len(),
                expected: self.slots.len(),
            }
            .into());
        }
        self.reset_seeded(seeds.iter().any(Option::is_some), out, |i| seeds[i])
    }

    /// Resets every env, env `i` reseeded with `seed_of(i)` where that is `Some`.
    fn reset_seeded(
        &mut self,
        any_seed: bool,
        out: StepBuffers<'_>,
        seed_of: impl Fn(usize) -> Option<u64> + Sync,
    ) -> Result<(), VectorError> {
        let rows = self.rows(out)?;
        let shape = self.shape;
        let fresh = !self.started && !any_seed;
        self.started = true;
        let layout = &self.compact;
        let pool = self.pool.as_deref();
        self.slots
            .par_iter_mut()
            .zip(rows)
            .enumerate()
            .with_min_len(32)
            .try_for_each(|(i, (slot, mut rows))| {
                if !fresh {
                    match seed_of(i) {
                        Some(seed) => {
                            slot.env.reset_with_seed(seed);
                            slot.sampler = GameRng::new(seed ^ SAMPLER_SALT);
                            if let Some(seating) = &mut slot.seating {
                                seating.reseed(seed);
                            }
                        }
                        None => slot.env.reset(),
                    }
                    slot.start(pool)
                        .map_err(|error| VectorError::Env { index: i, error })?;
                }
                rows.rewards.fill(0.0);
                *rows.terminated = false;
                *rows.truncated = false;
                slot.clear_final(&mut rows);
                slot.write(&shape, layout, &mut rows);
                Ok(())
            })
    }

    /// Applies one action per env (`actions_per_env()` ids each, env-major) and writes the
    /// results. An illegal action fails naming the env and the action, and changes no env.
    pub fn step(&mut self, actions: &[Action], out: StepBuffers<'_>) -> Result<(), VectorError> {
        let per_env = self.actions_per_env();
        let expected = self.slots.len() * per_env;
        if actions.len() != expected {
            return Err(GameError::BadBuffer {
                what: "actions",
                got: actions.len(),
                expected,
            }
            .into());
        }
        let rows = self.rows(out)?;
        let shape = self.shape;
        // Every env's action is checked before any env steps, so an illegal action changes
        // nothing; in parallel, reporting the lowest env index when several are illegal.
        if let Some((index, error)) = self
            .slots
            .par_iter()
            .zip(actions.par_chunks(per_env))
            .enumerate()
            .with_min_len(64)
            .find_map_first(|(index, (slot, actions))| {
                slot.check(&shape, actions)
                    .err()
                    .map(|error| (index, error))
            })
        {
            return Err(VectorError::Env { index, error });
        }
        self.started = true;
        let layout = &self.compact;
        let pool = self.pool.as_deref();
        self.slots
            .par_iter_mut()
            .zip(rows)
            .zip(actions.par_chunks(per_env))
            .enumerate()
            .with_min_len(32)
            .try_for_each(|(index, ((slot, mut rows), actions))| {
                slot.step(&shape, layout, pool, actions, &mut rows)
                    .map_err(|error| VectorError::Env { index, error })
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::make_game;

    /// Owned buffers for a batch.
    pub(super) struct Buffers {
        pub(super) observations: Vec<f32>,
        pub(super) action_masks: Vec<bool>,
        pub(super) current_players: Vec<i32>,
        pub(super) rewards: Vec<f32>,
        pub(super) terminated: Vec<bool>,
        pub(super) truncated: Vec<bool>,
        pub(super) final_returns: Vec<f32>,
        pub(super) final_observations: Vec<f32>,
        /// Whether the next call may write only what changed (set after the first write).
        pub(super) retained: bool,
    }

    impl Buffers {
        pub(super) fn for_env(venv: &VectorEnv) -> Self {
            let n = venv.num_envs();
            let game = venv.game();
            let rows = venv.rows_per_env();
            Buffers {
                observations: vec![0.0; n * rows * game.observation_size()],
                action_masks: vec![false; n * rows * game.num_distinct_actions()],
                current_players: vec![0; n],
                rewards: vec![0.0; n * game.num_players()],
                terminated: vec![false; n],
                truncated: vec![false; n],
                final_returns: vec![0.0; n * game.num_players()],
                final_observations: vec![0.0; n * rows * game.observation_size()],
                retained: false,
            }
        }

        /// The buffers for the next call: retained after the first one.
        pub(super) fn view(&mut self) -> StepBuffers<'_> {
            let retained = std::mem::replace(&mut self.retained, true);
            StepBuffers {
                retained,
                observations: &mut self.observations,
                action_masks: &mut self.action_masks,
                current_players: &mut self.current_players,
                rewards: &mut self.rewards,
                terminated: &mut self.terminated,
                truncated: &mut self.truncated,
                final_returns: &mut self.final_returns,
                final_observations: Some(&mut self.final_observations),
                ..StepBuffers::default()
            }
        }

        /// The first legal action of each env (from the masks just written).
        pub(super) fn first_legal(&self, num_actions: usize) -> Vec<Action> {
            self.action_masks
                .chunks(num_actions)
                .map(|m| m.iter().position(|&b| b).unwrap_or(0) as Action)
                .collect()
        }
    }

    /// Matching pennies for `ROUNDS` rounds: a simultaneous test game (not registered).
    mod pennies {
        use std::fmt;

        use crate::env::GameRng;
        use crate::game::{
            Action, ChanceMode, Dynamics, Game, GameError, GameInfo, Information, Player,
            PlayerAction, RewardModel, State, Utility,
        };
        use crate::registry::Params;

        pub const ROUNDS: usize = 3;

        static INFO: GameInfo = GameInfo {
            name: "pennies",
            long_name: "Matching pennies",
            description: "Seat 0 scores when the coins match, seat 1 when they differ.",
            min_players: 2,
            max_players: 2,
            chance: ChanceMode::Deterministic,
            information: Information::Imperfect,
            dynamics: Dynamics::Simultaneous,
            utility: Utility::ZeroSum,
            reward_model: RewardModel::Rewards,
        };

        #[derive(Debug, Default)]
        pub struct Pennies(Params);

        #[derive(Clone, Debug, Default)]
        pub struct PenniesState {
            history: Vec<PlayerAction>,
            score: f64,
            last: f64,
        }

        impl Game for Pennies {
            fn info(&self) -> &'static GameInfo {
                &INFO
            }
            fn params(&self) -> &Params {
                &self.0
            }
            fn num_players(&self) -> usize {
                2
            }
            fn num_distinct_actions(&self) -> usize {
                2
            }
            fn max_chance_outcomes(&self) -> usize {
                0
            }
            fn observation_shape(&self) -> Vec<usize> {
                vec![1]
            }
            fn information_state_tensor_shape(&self) -> Vec<usize> {
                vec![1]
            }
            fn min_utility(&self) -> f64 {
                -(ROUNDS as f64)
            }
            fn max_utility(&self) -> f64 {
                ROUNDS as f64
            }
            fn utility_sum(&self) -> Option<f64> {
                Some(0.0)
            }
            fn max_game_length(&self) -> usize {
                2 * ROUNDS
            }
            fn new_initial_state(&self) -> Box<dyn State> {
                Box::new(PenniesState::default())
            }
            fn deserialize_state(&self, _: &str) -> Result<Box<dyn State>, GameError> {
                Ok(self.new_initial_state())
            }
        }

        impl fmt::Display for PenniesState {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "score {}", self.score)
            }
        }

        impl State for PenniesState {
            fn num_players(&self) -> usize {
                2
            }
            fn current_player(&self) -> Player {
                if self.history.len() < 2 * ROUNDS {
                    Player::Simultaneous
                } else {
                    Player::Terminal
                }
            }
            fn legal_actions_into(&self, player: Player, out: &mut Vec<Action>) {
                out.clear();
                if matches!(player, Player::Seat(0 | 1)) && !self.is_terminal() {
                    out.extend([0, 1]);
                }
            }
            fn chance_outcomes(&self) -> Vec<(Action, f64)> {
                Vec::new()
            }
            fn apply_action(&mut self, _: Action) -> Result<(), GameError> {
                crate::game::check_turn(self, Player::Seat(0))
            }
            fn apply_actions(&mut self, actions: &[Action]) -> Result<(), GameError> {
                crate::game::check_turn(self, Player::Simultaneous)?;
                if let Some((seat, &action)) = actions.iter().enumerate().find(|(_, a)| **a > 1) {
                    return Err(GameError::IllegalAction {
                        action,
                        desc: format!("coin {action}"),
                        player: Player::Seat(seat),
                        state: self.describe(),
                        reason: "a coin shows 0 or 1".to_string(),
                    });
                }
                self.last = if actions[0] == actions[1] { 1.0 } else { -1.0 };
                self.score += self.last;
                for (seat, &action) in actions.iter().enumerate() {
                    self.history.push(PlayerAction {
                        player: Player::Seat(seat),
                        action,
                    });
                }
                Ok(())
            }
            fn returns(&self) -> Vec<f64> {
                vec![self.score, -self.score]
            }
            fn rewards(&self) -> Vec<f64> {
                vec![self.last, -self.last]
            }
            fn history(&self) -> &[PlayerAction] {
                &self.history
            }
            fn action_to_string(&self, _: Player, action: Action) -> String {
                format!("coin {action}")
            }
            fn string_to_action(&self, player: Player, text: &str) -> Result<Action, GameError> {
                Err(GameError::BadActionString {
                    text: text.to_string(),
                    player,
                    reason: "unused".to_string(),
                })
            }
            fn observation_tensor(&self, player: usize, out: &mut [f32]) {
                out[0] = if player == 0 { self.score } else { -self.score } as f32;
            }
            fn information_state_tensor(&self, player: usize, out: &mut [f32]) {
                self.observation_tensor(player, out);
            }
            fn observation_string(&self, _: usize) -> String {
                self.to_string()
            }
            fn information_state_string(&self, _: usize) -> String {
                self.to_string()
            }
            fn view(&self, _: Option<usize>) -> serde_json::Value {
                serde_json::Value::Null
            }
            fn resample_from_infostate(&self, _: usize, _: &mut GameRng) -> Box<dyn State> {
                self.clone_box()
            }
            fn clone_box(&self) -> Box<dyn State> {
                Box::new(self.clone())
            }
            fn serialize(&self) -> String {
                format!("{:?}", self.history)
            }
            fn as_any(&self) -> &dyn std::any::Any {
                self
            }
        }
    }

    #[test]
    fn simultaneous_games_take_joint_actions() {
        let game: Arc<dyn Game> = Arc::new(pennies::Pennies::default());
        assert!(matches!(
            VectorEnv::new(game.clone(), 3, 0, Observer::CurrentPlayer, None),
            Err(GameError::InvalidParameter { .. })
        ));
        let mut venv = VectorEnv::new(game, 3, 0, Observer::AllSeats, None).unwrap();
        assert_eq!(venv.actions_per_env(), 2);
        let mut buf = Buffers::for_env(&venv);
        venv.reset(None, buf.view()).unwrap();
        assert_eq!(buf.current_players, vec![-2; 3]);
        assert!(buf.action_masks.iter().all(|&b| b));
        let err = venv.step(&[0, 0, 1], buf.view()).unwrap_err();
        assert_eq!(err.to_string(), "actions buffer has length 3, expected 6");
        // Env 1's seat 1 shows an impossible coin: nothing moves.
        let err = venv.step(&[0, 0, 1, 2, 1, 0], buf.view()).unwrap_err();
        assert!(matches!(err, VectorError::Env { index: 1, .. }), "{err}");
        assert!(
            err.to_string()
                .starts_with("env 1: illegal action 2 (coin 2) for seat 1")
        );
        assert!((0..3).all(|i| venv.state(i).unwrap().history().is_empty()));
        for round in 1..=pennies::ROUNDS {
            // Env 0 always matches, env 1 never does, env 2 matches on odd rounds.
            let odd = (round % 2) as Action;
            venv.step(&[1, 1, 0, 1, odd, 1], buf.view()).unwrap();
            let odd_reward = if odd == 1 { 1.0 } else { -1.0 };
            assert_eq!(
                buf.rewards,
                vec![1.0, -1.0, -1.0, 1.0, odd_reward, -odd_reward]
            );
            let last = round == pennies::ROUNDS;
            assert_eq!(buf.terminated, vec![last; 3]);
            assert_eq!(buf.current_players, vec![if last { -4 } else { -2 }; 3]);
            assert_eq!(buf.observations[0], round as f32);
            assert_eq!(buf.observations[1], -(round as f32));
        }
        assert!(buf.action_masks.iter().all(|&b| !b));
        // The next step ignores the (impossible) actions and starts new games.
        venv.step(&[9; 6], buf.view()).unwrap();
        assert_eq!(buf.current_players, vec![-2; 3]);
        assert_eq!(buf.rewards, vec![0.0; 6]);
        assert_eq!(buf.terminated, vec![false; 3]);
        assert_eq!(buf.final_returns, vec![0.0; 6]);
    }

    #[test]
    fn same_step_mode_starts_the_next_game_in_the_ending_step() {
        let game: Arc<dyn Game> = Arc::new(pennies::Pennies::default());
        let mut venv = VectorEnv::new(game, 2, 0, Observer::AllSeats, None)
            .unwrap()
            .with_autoreset_mode(AutoresetMode::SameStep);
        let mut buf = Buffers::for_env(&venv);
        venv.reset(None, buf.view()).unwrap();
        for round in 1..=pennies::ROUNDS {
            // Env 0 always matches, env 1 never does.
            venv.step(&[1, 1, 0, 1], buf.view()).unwrap();
            let last = round == pennies::ROUNDS;
            assert_eq!(buf.rewards, vec![1.0, -1.0, -1.0, 1.0]);
            assert_eq!(buf.terminated, vec![last; 2]);
            // Never terminal: the ending step already started the next game.
            assert_eq!(buf.current_players, vec![-2; 2]);
            let n = pennies::ROUNDS as f32;
            if last {
                assert_eq!(buf.final_returns, vec![n, -n, -n, n]);
                // The final observations (the scores), and the new games' first ones.
                assert_eq!(buf.final_observations, vec![n, -n, -n, n]);
                assert_eq!(buf.observations, vec![0.0; 4]);
            } else {
                assert_eq!(buf.final_returns, vec![0.0; 4]);
                assert_eq!(buf.final_observations, vec![0.0; 4]);
                let r = round as f32;
                assert_eq!(buf.observations, vec![r, -r, -r, r]);
            }
        }
        // The next step plays the new games: its actions are not ignored.
        let err = venv.step(&[9, 0, 0, 0], buf.view()).unwrap_err();
        assert!(matches!(err, VectorError::Env { index: 0, .. }), "{err}");
        venv.step(&[1, 1, 0, 1], buf.view()).unwrap();
        assert_eq!(buf.observations, vec![1.0, -1.0, -1.0, 1.0]);
        assert_eq!(buf.final_returns, vec![0.0; 4]);
    }

    /// One env's history as a list of events: each step's transition, and each game's start.
    #[derive(Debug, PartialEq)]
    enum Event {
        /// A new game's first observation.
        Start(Vec<f32>),
        /// A step of a game: rewards, terminated, truncated, final returns, and the
        /// observation after it (the final one when the step ended the game).
        Step(Vec<f32>, bool, bool, Vec<f32>, Vec<f32>),
    }

    /// Plays `steps` steps of every env of `game` in `mode` with per-env seeded random legal
    /// actions (drawn only for envs that play), and returns each env's events.
    fn events(game: &Arc<dyn Game>, mode: AutoresetMode, steps: usize) -> Vec<Vec<Event>> {
        let n = 3;
        let observer = Observer::default_for(game.as_ref());
        let mut venv = VectorEnv::new(game.clone(), n, 5, observer, Some(12))
            .unwrap()
            .with_autoreset_mode(mode);
        let (np, per_env) = (game.num_players(), venv.actions_per_env());
        let obs_len = venv.rows_per_env() * game.observation_size();
        let mut buf = Buffers::for_env(&venv);
        venv.reset(None, buf.view()).unwrap();
        let mut rngs: Vec<GameRng> = (0..n).map(|i| GameRng::new(100 + i as u64)).collect();
        let row = |b: &[f32], i: usize| b[i * obs_len..(i + 1) * obs_len].to_vec();
        let mut out: Vec<Vec<Event>> = (0..n)
            .map(|i| vec![Event::Start(row(&buf.observations, i))])
            .collect();
        for _ in 0..steps {
            let pending: Vec<bool> = (0..n)
                .map(|i| buf.terminated[i] || buf.truncated[i])
                .collect();
            let pending: Vec<bool> = pending
                .iter()
                .map(|&ended| ended && mode == AutoresetMode::NextStep)
                .collect();
            let mut actions = vec![0; n * per_env];
            for i in 0..n {
                if pending[i] {
                    continue;
                }
                let state = venv.state(i).unwrap();
                for k in 0..per_env {
                    let seat = match (per_env, state.current_player()) {
                        (1, Player::Seat(seat)) => seat,
                        (_, Player::Simultaneous) => k,
                        (_, Player::Seat(seat)) if seat == k => seat,
                        _ => continue,
                    };
                    actions[i * per_env + k] =
                        rngs[i].choose(&state.legal_actions_for(Player::Seat(seat)));
                }
            }
            venv.step(&actions, buf.view()).unwrap();
            for i in 0..n {
                let rewards = buf.rewards[i * np..(i + 1) * np].to_vec();
                let finals = buf.final_returns[i * np..(i + 1) * np].to_vec();
                let (term, trunc) = (buf.terminated[i], buf.truncated[i]);
                let ended = term || trunc;
                if !ended {
                    assert!(finals.iter().all(|&r| r == 0.0));
                    assert!(row(&buf.final_observations, i).iter().all(|&x| x == 0.0));
                }
                if pending[i] {
                    assert!(!ended && rewards.iter().all(|&r| r == 0.0));
                    out[i].push(Event::Start(row(&buf.observations, i)));
                    continue;
                }
                let after = if ended {
                    row(&buf.final_observations, i)
                } else {
                    row(&buf.observations, i)
                };
                if ended && mode == AutoresetMode::NextStep {
                    assert_eq!(after, row(&buf.observations, i));
                }
                out[i].push(Event::Step(rewards, term, trunc, finals, after));
                if ended && mode == AutoresetMode::SameStep {
                    out[i].push(Event::Start(row(&buf.observations, i)));
                }
            }
        }
        out
    }

    /// Both modes play the same games (chance, rewards, final returns and observations), only
    /// at different steps, in every registered game, with terminations and truncations.
    #[test]
    fn both_modes_play_the_same_games() {
        for entry in crate::registry::entries() {
            let name = entry.info.name;
            let game = make_game::<&str, &str>(name, []).unwrap();
            let next = events(&game, AutoresetMode::NextStep, 150);
            let same = events(&game, AutoresetMode::SameStep, 150);
            let mut ended = [0; 2];
            for (next, same) in next.iter().zip(&same) {
                // Next-step mode spends a step on each reset, so it is behind.
                assert!(next.len() <= same.len(), "{name}");
                assert_eq!(next[..], same[..next.len()], "{name}");
                for event in next {
                    if let Event::Step(_, term, trunc, _, _) = event {
                        assert!(!(*term && *trunc), "{name}");
                        ended[0] += usize::from(*term);
                        ended[1] += usize::from(*trunc);
                    }
                }
            }
            // A game shorter than the 12-step cap ends by itself instead.
            if game.max_game_length() > 12 {
                assert!(
                    ended[1] > 0,
                    "{name}: no truncation in 150 steps of 12-step episodes"
                );
            } else {
                assert!(ended[0] > 0, "{name}: no episode ended in 150 steps");
            }
        }
        // A game short enough to terminate within the cap.
        let game = pokeros(&[("board_size", "3"), ("hand_size", "1")]);
        let next = events(&game, AutoresetMode::NextStep, 60);
        let same = events(&game, AutoresetMode::SameStep, 60);
        let mut terminated = 0;
        for (next, same) in next.iter().zip(&same) {
            assert_eq!(next[..], same[..next.len()]);
            for event in next {
                if let Event::Step(_, true, _, finals, _) = event {
                    terminated += 1;
                    assert_eq!(finals.iter().sum::<f32>(), 0.0);
                }
            }
        }
        assert!(terminated > 3);
    }

    fn pokeros(params: &[(&str, &str)]) -> Arc<dyn Game> {
        make_game("pokeros", params.iter().copied()).unwrap()
    }

    fn run(seed: u64, steps: usize) -> (Vec<Vec<f32>>, Vec<Vec<bool>>, Vec<String>) {
        let game = pokeros(&[("board_size", "7")]);
        let na = game.num_distinct_actions();
        let mut venv = VectorEnv::new(game, 5, seed, Observer::CurrentPlayer, None).unwrap();
        let mut buf = Buffers::for_env(&venv);
        venv.reset(None, buf.view()).unwrap();
        let (mut rewards, mut dones) = (Vec::new(), Vec::new());
        for _ in 0..steps {
            let actions = buf.first_legal(na);
            venv.step(&actions, buf.view()).unwrap();
            rewards.push(buf.rewards.clone());
            dones.push(buf.terminated.clone());
        }
        let states = (0..5).map(|i| venv.state(i).unwrap().serialize()).collect();
        (rewards, dones, states)
    }

    #[test]
    fn same_seed_same_trajectories() {
        assert_eq!(run(3, 60), run(3, 60));
        assert_ne!(run(3, 60).2, run(4, 60).2);
    }

    #[test]
    fn env_i_is_the_env_seeded_with_seed_plus_i() {
        let game = pokeros(&[]);
        let venv = VectorEnv::new(game.clone(), 3, 10, Observer::AllSeats, None).unwrap();
        for i in 0..3 {
            let env = Env::new(game.clone(), 10 + i as u64);
            assert_eq!(venv.state(i).unwrap().serialize(), env.state().serialize());
        }
    }

    #[test]
    fn auto_reset_on_the_step_after_the_end() {
        // A 3x3 board with 1-card hands ends quickly.
        let game = pokeros(&[("board_size", "3"), ("hand_size", "1")]);
        let na = game.num_distinct_actions();
        let mut venv = VectorEnv::new(game, 2, 0, Observer::CurrentPlayer, None).unwrap();
        let mut buf = Buffers::for_env(&venv);
        venv.reset(None, buf.view()).unwrap();
        let mut ended = false;
        for _ in 0..40 {
            let actions = buf.first_legal(na);
            venv.step(&actions, buf.view()).unwrap();
            if buf.terminated[0] {
                ended = true;
                assert_eq!(buf.current_players[0], -4);
                assert!(!buf.action_masks[..na].iter().any(|&b| b));
                let sum: f32 = buf.rewards[..2].iter().sum();
                assert_eq!(sum, 0.0);
                // The game's returns and its final observation (the step's own) are reported.
                let returns: Vec<f32> = venv
                    .state(0)
                    .unwrap()
                    .returns()
                    .iter()
                    .map(|&r| r as f32)
                    .collect();
                assert_eq!(&buf.final_returns[..2], &returns[..]);
                let obs = venv.game().observation_size();
                assert_eq!(&buf.final_observations[..obs], &buf.observations[..obs]);
                assert!(
                    buf.final_returns[2..]
                        .iter()
                        .zip(&buf.terminated[1..])
                        .all(|(&r, &t)| t || r == 0.0)
                );
                let final_history = venv.state(0).unwrap().history().len();
                // The next step ignores the action (any id) and starts a new game.
                let mut actions = buf.first_legal(na);
                actions[0] = Action::MAX;
                venv.step(&actions, buf.view()).unwrap();
                assert!(!buf.terminated[0] && !buf.truncated[0]);
                assert_eq!(&buf.rewards[..2], &[0.0, 0.0]);
                assert_eq!(&buf.final_returns[..2], &[0.0, 0.0]);
                assert!(buf.final_observations[..obs].iter().all(|&x| x == 0.0));
                assert!(buf.current_players[0] >= 0);
                assert!(venv.state(0).unwrap().history().len() < final_history);
                break;
            }
        }
        assert!(ended);
    }

    #[test]
    fn illegal_action_names_the_env_and_changes_nothing() {
        let game = pokeros(&[]);
        let na = game.num_distinct_actions();
        let mut venv = VectorEnv::new(game, 4, 1, Observer::CurrentPlayer, None).unwrap();
        let mut buf = Buffers::for_env(&venv);
        venv.reset(None, buf.view()).unwrap();
        let before: Vec<String> = (0..4).map(|i| venv.state(i).unwrap().serialize()).collect();
        let mut actions = buf.first_legal(na);
        actions[2] = 0; // a corner, next to no card
        let err = venv.step(&actions, buf.view()).unwrap_err();
        assert!(matches!(err, VectorError::Env { index: 2, .. }), "{err}");
        let text = err.to_string();
        assert!(text.starts_with("env 2: illegal action 0 "), "{text}");
        let after: Vec<String> = (0..4).map(|i| venv.state(i).unwrap().serialize()).collect();
        assert_eq!(before, after);
        actions[2] = na as Action + 5;
        let err = venv.step(&actions, buf.view()).unwrap_err();
        assert!(
            err.to_string()
                .starts_with(&format!("env 2: illegal action {}", na + 5))
        );
    }

    /// Actions are checked in parallel; with several illegal ones the lowest env is named,
    /// and no env steps.
    #[test]
    fn the_lowest_illegal_env_is_named() {
        let game = pokeros(&[]);
        let na = game.num_distinct_actions();
        let mut venv = VectorEnv::new(game, 300, 1, Observer::CurrentPlayer, None).unwrap();
        let mut buf = Buffers::for_env(&venv);
        venv.reset(None, buf.view()).unwrap();
        let before: Vec<String> = (0..300)
            .map(|i| venv.state(i).unwrap().serialize())
            .collect();
        let mut actions = buf.first_legal(na);
        for bad in [290, 151, 200] {
            actions[bad] = na as Action + 1;
        }
        for _ in 0..20 {
            let err = venv.step(&actions, buf.view()).unwrap_err();
            assert!(matches!(err, VectorError::Env { index: 151, .. }), "{err}");
        }
        let after: Vec<String> = (0..300)
            .map(|i| venv.state(i).unwrap().serialize())
            .collect();
        assert_eq!(before, after);
    }

    #[test]
    fn bad_buffers_and_observers_are_refused() {
        let game = pokeros(&[]);
        let mut venv = VectorEnv::new(game.clone(), 2, 0, Observer::Seat(1), None).unwrap();
        let mut buf = Buffers::for_env(&venv);
        buf.rewards.pop();
        let err = venv.reset(None, buf.view()).unwrap_err();
        assert_eq!(err.to_string(), "rewards buffer has length 3, expected 4");
        let mut buf = Buffers::for_env(&venv);
        let err = venv.step(&[0], buf.view()).unwrap_err();
        assert_eq!(err.to_string(), "actions buffer has length 1, expected 2");
        assert!(matches!(
            VectorEnv::new(game.clone(), 2, 0, Observer::Seat(2), None),
            Err(GameError::InvalidSeat { seat: 2, .. })
        ));
        assert!(VectorEnv::new(game.clone(), 0, 0, Observer::AllSeats, None).is_err());
        assert!(VectorEnv::new(game, 1, 0, Observer::AllSeats, Some(0)).is_err());
    }

    #[test]
    fn all_seats_writes_every_seat_and_truncation_resets() {
        let game = pokeros(&[("players", "3")]);
        let (na, obs) = (game.num_distinct_actions(), game.observation_size());
        let mut venv = VectorEnv::new(game.clone(), 3, 7, Observer::AllSeats, Some(4)).unwrap();
        let mut buf = Buffers::for_env(&venv);
        venv.reset(None, buf.view()).unwrap();
        let first_decision = venv.state(0).unwrap().history().len();
        for step in 1..=5 {
            let actions: Vec<Action> = (0..3)
                .map(|i| {
                    let seat = buf.current_players[i] as usize;
                    let rows = &buf.action_masks[(i * 3 + seat) * na..(i * 3 + seat + 1) * na];
                    rows.iter().position(|&b| b).unwrap() as Action
                })
                .collect();
            venv.step(&actions, buf.view()).unwrap();
            for i in 0..3 {
                let state = venv.state(i).unwrap();
                for seat in 0..3 {
                    let mut expected = vec![0.0; obs];
                    state.observation_tensor(seat, &mut expected);
                    let at = (i * 3 + seat) * obs;
                    assert_eq!(&buf.observations[at..at + obs], &expected[..]);
                    let mut mask = vec![false; na];
                    state.action_mask(Player::Seat(seat), &mut mask);
                    assert_eq!(&buf.action_masks[(i * 3 + seat) * na..][..na], &mask[..]);
                }
                assert_eq!(buf.truncated[i], step == 4, "step {step}");
                assert!(!buf.terminated[i]);
            }
        }
        // Step 5 started new games.
        assert_eq!(venv.state(0).unwrap().history().len(), first_decision);
    }

    #[test]
    fn reset_with_seed_matches_a_new_batch() {
        let game = pokeros(&[]);
        let na = game.num_distinct_actions();
        let mut a = VectorEnv::new(game.clone(), 3, 0, Observer::CurrentPlayer, None).unwrap();
        let mut buf = Buffers::for_env(&a);
        a.reset(None, buf.view()).unwrap();
        let actions = buf.first_legal(na);
        a.step(&actions, buf.view()).unwrap();
        a.reset(Some(50), buf.view()).unwrap();
        let b = VectorEnv::new(game, 3, 50, Observer::CurrentPlayer, None).unwrap();
        for i in 0..3 {
            assert_eq!(
                a.state(i).unwrap().serialize(),
                b.state(i).unwrap().serialize()
            );
        }
    }

    /// `sample_actions` draws legal actions for every env (joint ones too), reproducibly.
    #[test]
    fn sampled_actions_are_legal_and_reproducible() {
        for entry in crate::registry::entries() {
            let game = make_game::<&str, &str>(entry.info.name, []).unwrap();
            let observer = if entry.info.dynamics == Dynamics::Simultaneous {
                Observer::AllSeats
            } else {
                Observer::CurrentPlayer
            };
            let make = || VectorEnv::new(game.clone(), 6, 21, observer, None).unwrap();
            let (mut a, mut b) = (make(), make());
            let mut buf_a = Buffers::for_env(&a);
            let mut buf_b = Buffers::for_env(&b);
            a.reset(None, buf_a.view()).unwrap();
            b.reset(None, buf_b.view()).unwrap();
            let mut actions = vec![0; 6 * a.actions_per_env()];
            let mut again = actions.clone();
            for _ in 0..300 {
                a.sample_actions(&mut actions).unwrap();
                b.sample_actions(&mut again).unwrap();
                assert_eq!(actions, again);
                a.step(&actions, buf_a.view()).unwrap();
                b.step(&again, buf_b.view()).unwrap();
            }
            assert_eq!(buf_a.observations, buf_b.observations);
            assert!(matches!(
                a.sample_actions(&mut [0; 1]),
                Err(VectorError::Batch(GameError::BadBuffer { .. }))
            ));
        }
    }
}
