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

// The files of this module: this one holds the public API (`VectorEnv`, `Observer`,
// `AutoresetMode`, `VectorError`) and its docs; `buffers.rs` the caller's buffers
// (`StepBuffers`, `OwnedBuffers`); `slot.rs` one env of the batch and stepping it; `rows.rs`
// what an env writes into its rows of the buffers; `row_chunks.rs` the rayon producer that
// splits a buffer into rows; `snapshot.rs` a batch as text and back; `opponents.rs` the seats
// the engine plays; `tests.rs` the tests of the whole API (each file tests its own code).
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
    ///
    /// ```
    /// use checkraise_core::make_game_from_string;
    /// use checkraise_core::vector::{Observer, VectorEnv};
    ///
    /// let game = make_game_from_string("prediction_chess").unwrap();
    /// assert!(VectorEnv::new(game.clone(), 2, 0, Observer::CurrentPlayer, None).is_err());
    /// let venv = VectorEnv::new(game, 2, 0, Observer::AllSeats, None).unwrap();
    /// assert_eq!((venv.num_envs(), venv.actions_per_env()), (2, 2), "a joint action per env");
    /// ```
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
    ///
    /// ```
    /// use checkraise_core::make_game_from_string;
    /// use checkraise_core::vector::{Observer, OwnedBuffers, VectorEnv};
    ///
    /// let game = make_game_from_string("pokeros").unwrap();
    /// let first = |seed| {
    ///     let observer = Observer::CurrentPlayer;
    ///     let mut venv = VectorEnv::new(game.clone(), 2, 0, observer, None).unwrap();
    ///     let mut out = OwnedBuffers::for_venv(&venv, false);
    ///     venv.reset(Some(seed), out.view(false)).unwrap();
    ///     out.observations
    /// };
    /// assert_eq!(first(5), first(5), "a seed gives the same games");
    /// assert_ne!(first(5), first(6));
    /// ```
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
    ///
    /// ```
    /// use checkraise_core::make_game_from_string;
    /// use checkraise_core::vector::{Observer, OwnedBuffers, VectorEnv};
    ///
    /// let game = make_game_from_string("pokeros").unwrap();
    /// let mut venv = VectorEnv::new(game.clone(), 3, 0, Observer::CurrentPlayer, None).unwrap();
    /// let mut out = OwnedBuffers::for_venv(&venv, false);
    /// venv.reset(None, out.view(false)).unwrap();
    /// assert_eq!(out.observations.len(), 3 * game.observation_size());
    /// let mut actions = vec![0; 3];
    /// venv.sample_actions(&mut actions).unwrap();
    /// venv.step(&actions, out.view(true)).unwrap();
    /// for (i, &action) in actions.iter().enumerate() {
    ///     assert!(venv.state(i).unwrap().history().iter().any(|h| h.action == action));
    /// }
    /// assert!(venv.step(&[9999; 3], out.view(true)).is_err(), "no such action");
    /// ```
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
mod tests;
