//! One batch of envs: the engine's `VectorEnv` with its buffers, stepped with packed action
//! tensors and read back as the packed tensors an `EnvBatch` reply carries.

use std::sync::Arc;
use std::time::Instant;

use checkraise_core::compact::{ObservationEncoding, packed_mask_bytes};
use checkraise_core::game::Dynamics;
use checkraise_core::vector::{AutoresetMode, Observer, OwnedBuffers, VectorEnv, VectorError};
use checkraise_core::{Action, Game, Player};
use tonic::Status;

use super::{ALL_SEATS_WITH_OPPONENTS, EnvOptions};
use crate::errors::{server_fault, status_from_argument_error};
use crate::pb;
use crate::tensor::{bool_tensor, f32_tensor, i32_tensor, read_i32, u8_tensor};

/// A batch of envs of one game.
pub struct EnvBatch {
    venv: VectorEnv,
    all_seats: bool,
    buffers: OwnedBuffers,
    /// The engine's actions for the next step (scratch, reused).
    actions: Vec<Action>,
    /// When a call last used it (the batch store expires idle batches).
    pub(super) last_active: Instant,
}

/// The status of a batch call's error: the engine's classification, with the env's index.
fn status_from_vector_error(error: &VectorError) -> Status {
    let status = status_from_argument_error(error.game_error());
    Status::new(status.code(), error.to_string())
}

impl EnvBatch {
    /// `num_envs` envs in next-step mode, env i seeded with `seed + i`, already reset.
    pub fn new(
        game: Arc<dyn Game>,
        num_envs: usize,
        seed: u64,
        all_seats: bool,
    ) -> Result<Self, Status> {
        Self::with_options(game, num_envs, seed, EnvOptions::all_seats(all_seats))
    }

    /// `num_envs` envs made with `options`, env i seeded with `seed + i`, already reset.
    pub fn with_options(
        game: Arc<dyn Game>,
        num_envs: usize,
        seed: u64,
        options: EnvOptions,
    ) -> Result<Self, Status> {
        if num_envs == 0 {
            return Err(Status::invalid_argument(
                "num_envs must be at least 1 (a client built before field 3, count, became num_envs, field 12, sends none)",
            ));
        }
        if options.all_seats && options.opponents.is_some() {
            return Err(Status::invalid_argument(ALL_SEATS_WITH_OPPONENTS));
        }
        let observer = if options.opponents.is_some() {
            // Any observer the game takes: with opponents every env writes its learner's row.
            Observer::default_for(game.as_ref())
        } else if options.all_seats {
            Observer::AllSeats
        } else if game.info().dynamics == Dynamics::Simultaneous {
            return Err(Status::invalid_argument(
                "this game has simultaneous nodes, which need one action per seat; create the \
                 envs with all_seats=true",
            ));
        } else {
            Observer::CurrentPlayer
        };
        let mut venv = VectorEnv::new(game, num_envs, seed, observer, options.max_episode_steps)
            .map_err(|e| status_from_argument_error(&e))?
            .with_autoreset_mode(options.autoreset_mode)
            .with_observation_encoding(options.observation_encoding);
        if let Some(opponents) = options.opponents {
            // Plays every env to its learner's first decision.
            venv = venv
                .with_opponents(opponents)
                .map_err(|e| status_from_argument_error(&e))?;
        }
        let mut buffers =
            OwnedBuffers::for_venv(&venv, options.autoreset_mode == AutoresetMode::SameStep);
        // The first reset keeps the constructed games and writes their rows.
        venv.reset(None, buffers.view(true))
            .map_err(|e| status_from_vector_error(&e))?;
        Ok(EnvBatch {
            actions: vec![0; venv.num_envs() * venv.actions_per_env()],
            venv,
            all_seats: options.all_seats,
            buffers,
            last_active: Instant::now(),
        })
    }

    /// Number of envs.
    pub fn num_envs(&self) -> usize {
        self.venv.num_envs()
    }

    /// Bytes of one `EnvBatch` reply, near enough to enforce the message limit (with
    /// opponents, the learner's side only).
    pub fn reply_bytes(game: &dyn Game, num_envs: usize, options: &EnvOptions) -> usize {
        let players = game.num_players();
        let learner_only = options.opponents.is_some();
        let seats = if options.all_seats && !learner_only {
            players
        } else {
            1
        };
        // Rewards and final returns (float32 each), and the learner's seat (int32).
        let values = if learner_only { 4 + 4 + 4 } else { players * 8 };
        let observations = if options.autoreset_mode == AutoresetMode::SameStep {
            2
        } else {
            1
        };
        let row = match options.observation_encoding {
            ObservationEncoding::Float32 => {
                observations * game.observation_size() * 4 + game.num_distinct_actions()
            }
            ObservationEncoding::Compact => {
                let layout = checkraise_core::compact::CompactLayout::for_game(game);
                observations * layout.row_bytes() + packed_mask_bytes(game.num_distinct_actions())
            }
        };
        // terminated and truncated (a bool each), the current player (int32).
        let per_env = seats * row + values + 6;
        num_envs * per_env + 512
    }

    /// Starts every env afresh; reseeds env i with `seed + i` when a seed is given.
    pub fn reset(&mut self, seed: Option<u64>) -> Result<pb::EnvBatch, Status> {
        self.venv
            .reset(seed, self.buffers.view(true))
            .map_err(|e| status_from_vector_error(&e))?;
        Ok(self.reply())
    }

    /// The reply of the last reset or step (after creation: the fresh batch, with no rewards
    /// and nothing ended).
    pub fn fresh_reply(&self) -> pb::EnvBatch {
        self.reply()
    }

    /// Applies one action per env (all checked first, so a bad one changes nothing); envs
    /// whose game ended are reset as the batch's mode says.
    pub fn step(&mut self, actions: &pb::Tensor) -> Result<pb::EnvBatch, Status> {
        let num_envs = self.venv.num_envs();
        let players = self.venv.game().num_players();
        let shape = if self.all_seats {
            vec![num_envs as u32, players as u32]
        } else {
            vec![num_envs as u32]
        };
        let given =
            read_i32(actions, &[shape]).map_err(|e| Status::invalid_argument(e.to_string()))?;
        self.read_actions(&given)?;
        self.venv
            .step(&self.actions, self.buffers.view(true))
            .map_err(|e| match e {
                VectorError::Env { .. } => status_from_vector_error(&e),
                VectorError::Batch(error) => server_fault("the batch refused its buffers", &error),
            })?;
        Ok(self.reply())
    }

    /// Translates the request's actions (one per env, or one per seat with all_seats) into
    /// the engine's (one per env, or a joint action per env in a simultaneous game): the
    /// entries of the seats that act now, which must be action ids; the others are ignored,
    /// as are the actions of envs whose game ended on the last step in next-step mode. With
    /// opponents, the learner's action per env.
    fn read_actions(&mut self, given: &[i32]) -> Result<(), Status> {
        if self.venv.has_opponents() {
            return self.read_learner_actions(given);
        }
        let players = self.venv.game().num_players();
        let stride = if self.all_seats { players } else { 1 };
        let per_env = self.venv.actions_per_env();
        self.actions.fill(0);
        for (i, (given, current)) in given
            .chunks_exact(stride)
            .zip(&self.buffers.current_players)
            .enumerate()
        {
            let seats = match Player::from_id(i64::from(*current)) {
                Some(Player::Seat(seat)) => seat..seat + 1,
                Some(Player::Simultaneous) => 0..players,
                _ => 0..0,
            };
            for seat in seats {
                let raw = given[if self.all_seats { seat } else { 0 }];
                let action = Action::try_from(raw).map_err(|_| {
                    Status::invalid_argument(format!(
                        "env {i}: {} is to act but its action is {raw}",
                        Player::Seat(seat)
                    ))
                })?;
                self.actions[i * per_env + if per_env > 1 { seat } else { 0 }] = action;
            }
        }
        Ok(())
    }

    /// `read_actions` with opponents: each env's learner acts (its seat, or at a simultaneous
    /// node its entry of the joint action) unless its game ended on the last step.
    fn read_learner_actions(&mut self, given: &[i32]) -> Result<(), Status> {
        for (i, (&raw, current)) in given.iter().zip(&self.buffers.current_players).enumerate() {
            let acts = matches!(
                Player::from_id(i64::from(*current)),
                Some(Player::Seat(_) | Player::Simultaneous)
            );
            self.actions[i] = if acts {
                Action::try_from(raw).map_err(|_| {
                    let seat = self.venv.learner_seat(i).unwrap_or_default();
                    Status::invalid_argument(format!(
                        "env {i}: the learner ({}) is to act but its action is {raw}",
                        Player::Seat(seat)
                    ))
                })?
            } else {
                0
            };
        }
        Ok(())
    }

    /// Each env's learner seat, with opponents.
    fn learner_seats(&self) -> Option<pb::Tensor> {
        if !self.venv.has_opponents() {
            return None;
        }
        let num_envs = self.venv.num_envs();
        let seats: Vec<i32> = (0..num_envs)
            .map(|i| self.venv.learner_seat(i).map_or(-1, |seat| seat as i32))
            .collect();
        Some(i32_tensor(vec![num_envs as u32], &seats))
    }

    /// Packs the buffers as the reply's tensors.
    fn reply(&self) -> pb::EnvBatch {
        let game = self.venv.game();
        let b = &self.buffers;
        let num_envs = self.venv.num_envs() as u32;
        let players = game.num_players() as u32;
        // Rewards and returns per env: every seat's, or the learner's with opponents.
        let width = self.venv.rewards_per_env() as u32;
        let lead = if self.all_seats {
            vec![num_envs, players]
        } else {
            vec![num_envs]
        };
        let terminated = bool_tensor(vec![num_envs], &b.terminated);
        if self.venv.observation_encoding() == ObservationEncoding::Compact {
            let with =
                |last: usize| -> Vec<u32> { lead.iter().copied().chain([last as u32]).collect() };
            let row_bytes = with(self.venv.compact_layout().row_bytes());
            let mask_bytes = with(packed_mask_bytes(game.num_distinct_actions()));
            return pb::EnvBatch {
                packed_observations: Some(u8_tensor(row_bytes.clone(), &b.packed_observations)),
                packed_action_masks: Some(u8_tensor(mask_bytes, &b.packed_action_masks)),
                packed_final_observations: b
                    .packed_final_observations
                    .as_ref()
                    .map(|finals| u8_tensor(row_bytes, finals)),
                rewards: Some(f32_tensor(vec![num_envs, width], &b.rewards)),
                terminated: Some(terminated),
                truncated: Some(bool_tensor(vec![num_envs], &b.truncated)),
                current_players: Some(i32_tensor(vec![num_envs], &b.current_players)),
                final_returns: Some(f32_tensor(vec![num_envs, width], &b.final_returns)),
                learner_seats: self.learner_seats(),
                ..pb::EnvBatch::default()
            };
        }
        let obs_shape: Vec<u32> = lead
            .iter()
            .copied()
            .chain(game.observation_shape().into_iter().map(|d| d as u32))
            .collect();
        let action_masks = bool_tensor(
            lead.iter()
                .copied()
                .chain([game.num_distinct_actions() as u32])
                .collect(),
            &b.action_masks,
        );
        pb::EnvBatch {
            observations: Some(f32_tensor(obs_shape.clone(), &b.observations)),
            action_masks: Some(action_masks),
            rewards: Some(f32_tensor(vec![num_envs, width], &b.rewards)),
            terminated: Some(terminated),
            truncated: Some(bool_tensor(vec![num_envs], &b.truncated)),
            current_players: Some(i32_tensor(vec![num_envs], &b.current_players)),
            final_returns: Some(f32_tensor(vec![num_envs, width], &b.final_returns)),
            learner_seats: self.learner_seats(),
            final_observations: b
                .final_observations
                .as_ref()
                .map(|finals| f32_tensor(obs_shape, finals)),
            ..pb::EnvBatch::default()
        }
    }
}

/// The game's compact layout, as `CreateEnvsResponse` gives it.
pub fn compact_layout(game: &dyn Game) -> pb::CompactLayout {
    let layout = checkraise_core::compact::CompactLayout::for_game(game);
    pb::CompactLayout {
        observation_size: layout.observation_size() as u32,
        bit_bytes: layout.bit_bytes() as u32,
        scalar_indices: layout.scalar_indices().to_vec(),
        row_bytes: layout.row_bytes() as u32,
        mask_bytes: packed_mask_bytes(game.num_distinct_actions()) as u32,
    }
}
