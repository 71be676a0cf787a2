//! The Envs service: batches of `checkraise_core::Env` for remote RL. Chance is sampled on the
//! server, actions arrive as one packed int32 tensor per step, and observations, legal masks,
//! rewards and done flags go back as packed tensors; finished envs reset automatically.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use checkraise_core::{Action, Env, Game, Player, make_game};
use rayon::prelude::*;
use tonic::{Request, Response, Status};

use crate::catalog::game_sizes;
use crate::errors::{server_fault, status_from_argument_error, unknown_envs};
use crate::live_match::random_hex;
use crate::pb;
use crate::tensor::{bool_tensor, f32_tensor, f32_tensor_from_f64, i32_tensor, read_i32};

/// A batch of envs of one game.
pub struct EnvBatch {
    game: Arc<dyn Game>,
    envs: Vec<Env>,
    all_seats: bool,
    last_active: Instant,
}

/// What one env did in a step.
struct EnvStep {
    rewards: Vec<f64>,
    final_returns: Option<Vec<f64>>,
}

impl EnvBatch {
    /// `count` envs, env i seeded with `seed + i`.
    pub fn new(game: Arc<dyn Game>, count: usize, seed: u64, all_seats: bool) -> Self {
        let envs = (0..count)
            .into_par_iter()
            .map(|i| Env::new(game.clone(), seed.wrapping_add(i as u64)))
            .collect();
        EnvBatch {
            game,
            envs,
            all_seats,
            last_active: Instant::now(),
        }
    }

    /// Seats whose observations and masks each env reports.
    fn seats_reported(&self) -> usize {
        if self.all_seats {
            self.game.num_players()
        } else {
            1
        }
    }

    /// Bytes of one `EnvBatch` reply, near enough to enforce the message limit.
    pub fn reply_bytes(game: &dyn Game, count: usize, all_seats: bool) -> usize {
        let players = game.num_players();
        let seats = if all_seats { players } else { 1 };
        let per_env =
            seats * (game.observation_size() * 4 + game.num_distinct_actions()) + players * 8 + 5;
        count * per_env + 256
    }

    /// Starts every env afresh; reseeds env i with `seed + i` when a seed is given.
    pub fn reset(&mut self, seed: Option<u64>) -> pb::EnvBatch {
        self.envs
            .par_iter_mut()
            .enumerate()
            .for_each(|(i, env)| match seed {
                Some(seed) => env.reset_with_seed(seed.wrapping_add(i as u64)),
                None => env.reset(),
            });
        self.fresh_reply()
    }

    /// The batch as it stands, with no rewards and nothing done (after creation or reset).
    pub fn fresh_reply(&self) -> pb::EnvBatch {
        let steps: Vec<EnvStep> = (0..self.envs.len())
            .map(|_| EnvStep {
                rewards: vec![0.0; self.game.num_players()],
                final_returns: None,
            })
            .collect();
        self.reply(&steps)
    }

    /// Applies one action per env (checked first, so a bad one changes nothing), then
    /// resets the envs that finished.
    pub fn step(&mut self, actions: &pb::Tensor) -> Result<pb::EnvBatch, Status> {
        let count = self.envs.len();
        let players = self.game.num_players();
        let shape = if self.all_seats {
            vec![count as u32, players as u32]
        } else {
            vec![count as u32]
        };
        let actions = read_i32(actions, &[shape]).map_err(Status::invalid_argument)?;
        let stride = if self.all_seats { players } else { 1 };
        let chosen: Vec<Vec<Action>> = self
            .envs
            .par_iter()
            .enumerate()
            .map(|(i, env)| self.check_env_actions(i, env, &actions[i * stride..(i + 1) * stride]))
            .collect::<Result<_, Status>>()?;
        let steps: Vec<EnvStep> = self
            .envs
            .par_iter_mut()
            .zip(chosen.par_iter())
            .map(|(env, chosen)| {
                let rewards = if chosen.len() == 1 {
                    env.step(chosen[0])
                } else {
                    env.step_joint(chosen)
                }
                .map_err(|e| server_fault("a checked action failed to apply", &e))?;
                let final_returns = env.state().is_terminal().then(|| {
                    let returns = env.state().returns();
                    env.reset();
                    returns
                });
                Ok(EnvStep {
                    rewards,
                    final_returns,
                })
            })
            .collect::<Result<_, Status>>()?;
        Ok(self.reply(&steps))
    }

    /// The action(s) env `i` takes from its slice of the tensor: the acting seat's, or the
    /// joint action at a simultaneous node; each must be legal.
    fn check_env_actions(&self, i: usize, env: &Env, given: &[i32]) -> Result<Vec<Action>, Status> {
        let state = env.state();
        let acting: Vec<usize> = match state.current_player() {
            Player::Seat(seat) => vec![seat],
            Player::Simultaneous if self.all_seats => (0..self.game.num_players()).collect(),
            Player::Simultaneous => {
                return Err(Status::invalid_argument(format!(
                    "env {i} is at a simultaneous node, which needs one action per seat; \
                     create the envs with all_seats=true"
                )));
            }
            other => {
                return Err(Status::internal(format!("env {i} is at a {other} node")));
            }
        };
        acting
            .iter()
            .map(|&seat| {
                let raw = given[if self.all_seats { seat } else { 0 }];
                let player = Player::Seat(seat);
                let action = Action::try_from(raw).map_err(|_| {
                    Status::invalid_argument(format!(
                        "env {i}: {player} is to act but its action is {raw}"
                    ))
                })?;
                if state
                    .legal_actions_for(player)
                    .binary_search(&action)
                    .is_ok()
                {
                    return Ok(action);
                }
                let not_legal = || {
                    format!(
                        "action {action} ({}) is not legal for {player} at {}",
                        state.action_to_string(player, action),
                        state.describe()
                    )
                };
                let reason = if acting.len() == 1 {
                    // The engine's own message says why (it never applies here: illegal).
                    match state.clone_box().apply_action(action) {
                        Err(e) => e.to_string(),
                        Ok(()) => not_legal(),
                    }
                } else {
                    not_legal()
                };
                Err(Status::invalid_argument(format!("env {i}: {reason}")))
            })
            .collect()
    }

    /// Packs the batch's tensors.
    fn reply(&self, steps: &[EnvStep]) -> pb::EnvBatch {
        let count = self.envs.len();
        let players = self.game.num_players();
        let seats = self.seats_reported();
        let obs_size = self.game.observation_size();
        let num_actions = self.game.num_distinct_actions();
        let mut observations = vec![0.0f32; count * seats * obs_size];
        let mut masks = vec![false; count * seats * num_actions];
        self.envs
            .par_iter()
            .zip(observations.par_chunks_mut(seats * obs_size))
            .zip(masks.par_chunks_mut(seats * num_actions))
            .for_each(|((env, obs), mask)| {
                let state = env.state();
                let reported: Vec<usize> = if self.all_seats {
                    (0..players).collect()
                } else {
                    state.current_player().seat().into_iter().collect()
                };
                for (slot, &seat) in reported.iter().enumerate() {
                    state
                        .observation_tensor(seat, &mut obs[slot * obs_size..(slot + 1) * obs_size]);
                    state.action_mask(
                        Player::Seat(seat),
                        &mut mask[slot * num_actions..(slot + 1) * num_actions],
                    );
                }
            });
        let mut rewards = Vec::with_capacity(count * players);
        let mut final_returns = vec![0.0f64; count * players];
        let mut dones = Vec::with_capacity(count);
        for (i, step) in steps.iter().enumerate() {
            rewards.extend_from_slice(&step.rewards);
            dones.push(step.final_returns.is_some());
            if let Some(returns) = &step.final_returns {
                final_returns[i * players..(i + 1) * players].copy_from_slice(returns);
            }
        }
        let current: Vec<i32> = self
            .envs
            .iter()
            .map(|env| env.current_player().id() as i32)
            .collect();
        let obs_shape = self.game.observation_shape().into_iter().map(|d| d as u32);
        let lead = if self.all_seats {
            vec![count as u32, players as u32]
        } else {
            vec![count as u32]
        };
        let action_masks = bool_tensor(
            lead.iter().copied().chain([num_actions as u32]).collect(),
            &masks,
        );
        let terminated = bool_tensor(vec![count as u32], &dones);
        // The deprecated fields stay filled (the same tensors) for older clients.
        #[allow(deprecated)]
        pb::EnvBatch {
            observations: Some(f32_tensor(
                lead.iter().copied().chain(obs_shape).collect(),
                &observations,
            )),
            legal_masks: Some(action_masks.clone()),
            action_masks: Some(action_masks),
            rewards: Some(f32_tensor_from_f64(
                vec![count as u32, players as u32],
                &rewards,
            )),
            dones: Some(terminated.clone()),
            terminated: Some(terminated),
            current_players: Some(i32_tensor(vec![count as u32], &current)),
            final_returns: Some(f32_tensor_from_f64(
                vec![count as u32, players as u32],
                &final_returns,
            )),
        }
    }
}

type SharedBatch = Arc<Mutex<EnvBatch>>;

#[derive(Default)]
struct Batches {
    by_id: HashMap<String, SharedBatch>,
    live_envs: usize,
}

/// Every live env batch, with the server's limits.
#[derive(Clone)]
pub struct EnvStore {
    batches: Arc<Mutex<Batches>>,
    max_envs: usize,
    max_message_size: usize,
}

impl EnvStore {
    /// An empty store holding at most `max_envs` envs whose replies fit `max_message_size`.
    pub fn new(max_envs: usize, max_message_size: usize) -> Self {
        EnvStore {
            batches: Arc::default(),
            max_envs,
            max_message_size,
        }
    }

    fn table(&self) -> MutexGuard<'_, Batches> {
        self.batches.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn get(&self, envs_id: &str) -> Result<SharedBatch, Status> {
        self.table()
            .by_id
            .get(envs_id)
            .cloned()
            .ok_or_else(|| unknown_envs(envs_id))
    }

    /// Number of live envs over all batches.
    pub fn live_envs(&self) -> usize {
        self.table().live_envs
    }

    /// Removes batches no request has touched for `idle`; returns how many.
    pub fn expire_idle(&self, idle: Duration) -> usize {
        let mut table = self.table();
        let mut freed = 0;
        let before = table.by_id.len();
        table.by_id.retain(|id, shared| {
            // A batch locked right now is stepping, so not idle.
            let Ok(batch) = shared.try_lock() else {
                return true;
            };
            let keep = batch.last_active.elapsed() < idle;
            if !keep {
                tracing::info!(envs_id = %id, "env batch expired after being idle");
                freed += batch.envs.len();
            }
            keep
        });
        table.live_envs -= freed;
        before - table.by_id.len()
    }
}

fn lock(shared: &SharedBatch) -> MutexGuard<'_, EnvBatch> {
    shared.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `f` on a batch off the async runtime (stepping many envs is CPU work).
async fn with_batch<R: Send + 'static>(
    store: &EnvStore,
    envs_id: &str,
    f: impl FnOnce(&mut EnvBatch) -> Result<R, Status> + Send + 'static,
) -> Result<R, Status> {
    let shared = store.get(envs_id)?;
    tokio::task::spawn_blocking(move || {
        let mut batch = lock(&shared);
        batch.last_active = Instant::now();
        f(&mut batch)
    })
    .await
    .map_err(|e| Status::internal(format!("env worker failed: {e}")))?
}

/// The Envs service.
pub struct EnvsService {
    store: EnvStore,
}

impl EnvsService {
    /// A service over a store.
    pub fn new(store: EnvStore) -> Self {
        EnvsService { store }
    }
}

#[tonic::async_trait]
impl pb::envs_server::Envs for EnvsService {
    async fn create_envs(
        &self,
        request: Request<pb::CreateEnvsRequest>,
    ) -> Result<Response<pb::CreateEnvsResponse>, Status> {
        let request = request.into_inner();
        let game = make_game(&request.game, &request.parameters)
            .map_err(|e| status_from_argument_error(&e))?;
        let count = request.count as usize;
        if count == 0 {
            return Err(Status::invalid_argument("count must be at least 1"));
        }
        let reply_bytes = EnvBatch::reply_bytes(game.as_ref(), count, request.all_seats);
        if reply_bytes > self.store.max_message_size {
            return Err(Status::resource_exhausted(format!(
                "{count} envs of this game make replies of about {reply_bytes} bytes, above the \
                 server's message limit of {} bytes; use smaller batches",
                self.store.max_message_size
            )));
        }
        {
            let mut table = self.store.table();
            if table.live_envs + count > self.store.max_envs {
                return Err(Status::resource_exhausted(format!(
                    "{count} more envs would exceed the server's limit of {} (live: {}); close \
                     batches or use fewer envs",
                    self.store.max_envs, table.live_envs
                )));
            }
            table.live_envs += count;
        }
        let (seed, all_seats, sizes) = (request.seed, request.all_seats, game_sizes(game.as_ref()));
        let built = tokio::task::spawn_blocking(move || {
            let batch = EnvBatch::new(game, count, seed, all_seats);
            let first = batch.fresh_reply();
            (batch, first)
        })
        .await;
        let (batch, first) = match built {
            Ok(built) => built,
            Err(e) => {
                self.store.table().live_envs -= count;
                return Err(Status::internal(format!("env worker failed: {e}")));
            }
        };
        let envs_id = random_hex(16);
        self.store
            .table()
            .by_id
            .insert(envs_id.clone(), Arc::new(Mutex::new(batch)));
        tracing::info!(%envs_id, game = %request.game, count, seed, "envs created");
        Ok(Response::new(pb::CreateEnvsResponse {
            envs_id,
            sizes: Some(sizes),
            batch: Some(first),
        }))
    }

    async fn reset(
        &self,
        request: Request<pb::ResetRequest>,
    ) -> Result<Response<pb::EnvBatch>, Status> {
        let request = request.into_inner();
        let seed = request.seed;
        with_batch(&self.store, &request.envs_id, move |batch| {
            Ok(batch.reset(seed))
        })
        .await
        .map(Response::new)
    }

    async fn step(
        &self,
        request: Request<pb::StepRequest>,
    ) -> Result<Response<pb::EnvBatch>, Status> {
        let request = request.into_inner();
        let actions = request
            .actions
            .ok_or_else(|| Status::invalid_argument("actions are needed: an int32 tensor"))?;
        with_batch(&self.store, &request.envs_id, move |batch| {
            batch.step(&actions)
        })
        .await
        .map(Response::new)
    }

    async fn close_envs(
        &self,
        request: Request<pb::CloseEnvsRequest>,
    ) -> Result<Response<pb::CloseEnvsResponse>, Status> {
        let request = request.into_inner();
        let removed = self
            .store
            .table()
            .by_id
            .remove(&request.envs_id)
            .ok_or_else(|| unknown_envs(&request.envs_id))?;
        // Waits off the runtime for a step in flight on this batch, then frees its envs.
        let store = self.store.clone();
        tokio::task::spawn_blocking(move || {
            let count = lock(&removed).envs.len();
            store.table().live_envs -= count;
        })
        .await
        .map_err(|e| Status::internal(format!("env worker failed: {e}")))?;
        Ok(Response::new(pb::CloseEnvsResponse {}))
    }
}
