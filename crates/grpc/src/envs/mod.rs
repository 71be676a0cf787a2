//! The Envs service: batches of envs for remote RL, run on the engine's batched env
//! (`checkraise_core::vector::VectorEnv`, the one Python's `VectorEnv` runs on). Chance is
//! sampled on the server, actions arrive as one packed int32 tensor per step, and
//! observations, action masks, rewards and episode ends go back as packed tensors; finished
//! envs reset automatically, on the next step (Gymnasium's next-step mode, the default) or
//! within the step that ended them (same-step mode). With opponents
//! (`CreateEnvsRequest.opponents`) the engine plays every seat but a learner's, from a
//! weighted pool (`VectorEnv::with_opponents`), and a batch holds the learner's side only.
//! This module only translates: the stepping, auto-reset, truncation, final returns and
//! opponents are the engine's.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use checkraise_core::bots::BotSpec;
use checkraise_core::compact::ObservationEncoding;
use checkraise_core::make_game;
use checkraise_core::vector::{AutoresetMode, LearnerSeat, Opponent, Opponents};
use tonic::{Request, Response, Status};

use crate::auth::random_hex;
use crate::catalog::game_sizes;
use crate::errors::{status_from_argument_error, unknown_envs};
use crate::pb;
use crate::sessions::{Activity, Expiry, Limits, Over, Refusal, Sessions, Weight};

mod batch;

pub use batch::{EnvBatch, compact_layout};

/// How a batch is made: `CreateEnvsRequest`'s options.
#[derive(Clone, Debug, Default)]
pub struct EnvOptions {
    /// Every seat's observation and mask, and one action per seat.
    pub all_seats: bool,
    /// When a finished env starts its next game.
    pub autoreset_mode: AutoresetMode,
    /// Truncates a game after this many steps.
    pub max_episode_steps: Option<usize>,
    /// How observations and masks are sent.
    pub observation_encoding: ObservationEncoding,
    /// The seats the engine plays (`CreateEnvsRequest.opponents`): the batch then holds the
    /// learner's side only, and `all_seats` must be false.
    pub opponents: Option<Opponents>,
}

/// Why `all_seats` and opponents are refused together.
pub(super) const ALL_SEATS_WITH_OPPONENTS: &str = "all_seats and opponents do not go together: with \
     opponents the engine plays every seat but the learner's, and the batch holds the \
     learner's side only (one observation, reward and action per env); set all_seats false";

/// Most entries in an opponent pool (each entry is a bot held by the batch).
pub const MAX_OPPONENTS: usize = 256;

/// The bot time cap of a store made without `EnvStore::with_bot_cap` (`--max-bot-ms`'s
/// default).
pub const DEFAULT_MAX_BOT_MS: u64 = 2000;

/// Most bytes of policies (`EnvOpponent.policy`) held by the live batches of a store made
/// without `EnvStore::with_policy_share`: 1 GiB, a quarter of it per client address.
pub const DEFAULT_MAX_POLICY_BYTES: usize = 1 << 30;

/// The opponents a `CreateEnvsRequest` asks for (`None` without), taken out of it, with the
/// bytes of its policies: each bot spec parsed, capped at `max_bot_ms` a move and refused if
/// it names a file (`policy(path=...)`), as match seats are. The engine checks the rest
/// (specs that do not build, weights, seats, policy bytes) when the batch is made, naming the
/// entry.
pub fn opponents_from_request(
    request: &mut pb::CreateEnvsRequest,
    max_bot_ms: u64,
) -> Result<(Option<Opponents>, usize), Status> {
    if request.opponents.is_empty() {
        if request.learner_seat.is_some() || request.random_learner_seat {
            return Err(Status::invalid_argument(
                "learner_seat and random_learner_seat choose the learner's seat in a batch \
                 with opponents: give opponents too (without opponents the client plays every \
                 seat)",
            ));
        }
        return Ok((None, 0));
    }
    if request.all_seats {
        return Err(Status::invalid_argument(ALL_SEATS_WITH_OPPONENTS));
    }
    if request.opponents.len() > MAX_OPPONENTS {
        return Err(Status::invalid_argument(format!(
            "opponents holds {} entries, more than the {MAX_OPPONENTS} a pool may hold",
            request.opponents.len()
        )));
    }
    let learner = match (request.learner_seat, request.random_learner_seat) {
        (Some(seat), true) => {
            return Err(Status::invalid_argument(format!(
                "learner_seat ({seat}) and random_learner_seat are both set: give one, a seat \
                 number or a seat drawn for every game"
            )));
        }
        (_, true) => LearnerSeat::Drawn,
        (seat, false) => LearnerSeat::Fixed(seat.unwrap_or(0) as usize),
    };
    let mut opponents = Opponents::new(learner);
    let mut policy_bytes = 0;
    for (k, entry) in std::mem::take(&mut request.opponents)
        .into_iter()
        .enumerate()
    {
        let bad = |e: String| Status::invalid_argument(format!("opponent {k}: {e}"));
        let opponent = match entry.kind {
            None => {
                return Err(bad(
                    "neither bot nor policy is set: give a bot spec or a policy file's bytes"
                        .to_string(),
                ));
            }
            Some(pb::env_opponent::Kind::Bot(text)) => {
                match BotSpec::parse::<&str, &str>(&text, []) {
                    Ok(_) => {
                        let spec = crate::matches::seat_rules(max_bot_ms)
                            .bot_spec(&text)
                            .map_err(|e| bad(e.to_string()))?;
                        Opponent::spec(spec.to_string())
                    }
                    // The engine refuses it when the pool is built, naming the entry.
                    Err(_) => Opponent::spec(text),
                }
            }
            Some(pb::env_opponent::Kind::Policy(bytes)) => {
                policy_bytes += bytes.len();
                Opponent::policy_bytes(format!("#{k}"), bytes)
            }
        };
        opponents = opponents.with(opponent, entry.weight.unwrap_or(1.0));
    }
    Ok((Some(opponents), policy_bytes))
}

impl EnvOptions {
    /// The options with `all_seats` and the defaults otherwise.
    pub fn all_seats(all_seats: bool) -> Self {
        EnvOptions {
            all_seats,
            ..EnvOptions::default()
        }
    }
}

type SharedBatch = Arc<Mutex<EnvBatch>>;

/// Every live env batch, with the server's limits (the engine's session store: a batch holds
/// its envs as units and its opponent policies' bytes).
#[derive(Clone)]
pub struct EnvStore {
    batches: Sessions<SharedBatch>,
    max_message_size: usize,
    /// Most milliseconds an opponent bot may think per move (`--max-bot-ms`).
    max_bot_ms: u64,
}

impl EnvStore {
    /// An empty store holding at most `max_envs` envs whose replies fit `max_message_size`.
    pub fn new(max_envs: usize, max_message_size: usize) -> Self {
        EnvStore {
            batches: Sessions::new(Limits {
                most: Weight {
                    units: max_envs,
                    bytes: DEFAULT_MAX_POLICY_BYTES,
                },
                per_peer: Weight {
                    units: usize::MAX,
                    bytes: DEFAULT_MAX_POLICY_BYTES / 4,
                },
            }),
            max_message_size,
            max_bot_ms: DEFAULT_MAX_BOT_MS,
        }
    }

    /// This store capping opponent bots at `ms` milliseconds a move (`--max-bot-ms`): a
    /// searching bot without a budget gets `ms`, one asking for more is refused.
    pub fn with_bot_cap(mut self, ms: u64) -> Self {
        self.max_bot_ms = ms;
        self
    }

    /// This store holding at most `total` bytes of policies (`EnvOpponent.policy`) in its
    /// live batches, and at most `per_peer` in those created from one client address.
    pub fn with_policy_share(self, total: usize, per_peer: usize) -> Self {
        let mut limits = self.batches.limits();
        limits.most.bytes = total;
        limits.per_peer.bytes = per_peer;
        self.batches.set_limits(limits);
        self
    }

    /// This store holding at most `envs` envs created from one client address
    /// (`--max-envs-per-peer`), so that one client cannot fill `--max-envs` alone.
    pub fn with_peer_share(self, envs: usize) -> Self {
        let mut limits = self.batches.limits();
        limits.per_peer.units = envs;
        self.batches.set_limits(limits);
        self
    }

    fn get(&self, envs_id: &str) -> Result<SharedBatch, Status> {
        self.batches
            .get(envs_id)
            .ok_or_else(|| unknown_envs(envs_id))
    }

    /// Number of live envs over all batches.
    pub fn live_envs(&self) -> usize {
        self.batches.held().units
    }

    /// Bytes of policies held by all live batches.
    pub fn policy_bytes(&self) -> usize {
        self.batches.held().bytes
    }

    /// Removes the batches the expiry policy does not keep (no request for `expiry.idle`);
    /// returns how many.
    pub fn expire_idle(&self, expiry: Expiry) -> usize {
        let gone = self
            .batches
            .expire(expiry, |_, batch| match batch.try_lock() {
                // A batch locked right now is stepping, so not idle.
                Err(_) => Activity::InUse,
                Ok(batch) => Activity::Idle {
                    since: batch.last_active,
                    finished: false,
                },
            });
        for id in &gone {
            tracing::info!(envs_id = %id, "env batch expired after being idle");
        }
        gone.len()
    }
}

/// What a refused batch is told: which limit, with the numbers.
fn refused(refusal: Refusal) -> Status {
    let Refusal {
        over,
        held,
        adding,
        most,
    } = refusal;
    Status::resource_exhausted(match over {
        Over::Units => format!(
            "{adding} more envs would exceed the server's limit of {most} (live: {held}); close \
             batches or use fewer envs"
        ),
        Over::Bytes => format!(
            "{adding} more bytes of opponent policies would exceed the server's limit of {most} \
             held by live batches (held: {held}); close batches or send fewer policies"
        ),
        Over::PeerUnits(peer) => format!(
            "{adding} more envs would give this client address ({peer}) {} envs, over its share \
             of {most} (--max-envs-per-peer); close batches or use fewer envs",
            held + adding
        ),
        Over::PeerBytes(peer) => format!(
            "{adding} more bytes of opponent policies would give this client address ({peer}) {} \
             bytes in its live batches, over its share of {most}; close batches or send fewer \
             policies",
            held + adding
        ),
    })
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
    cluster: Option<EnvsRouting>,
}

impl EnvsService {
    /// A service over a store.
    pub fn new(store: EnvStore) -> Self {
        EnvsService {
            store,
            cluster: None,
        }
    }

    /// Cluster mode: batch ids name this server (`instance`), and a call for a batch another
    /// server made is forwarded there (its address read from `store`).
    pub fn with_cluster(
        mut self,
        instance: Arc<str>,
        lease: std::time::Duration,
        store: crate::store::Store,
        forwarder: crate::forward::Forwarder,
    ) -> Self {
        self.cluster = Some(EnvsRouting {
            instance,
            lease,
            store,
            forwarder,
            addresses: Mutex::new(HashMap::new()),
        });
        self
    }

    /// A client to the server holding batch `envs_id` when another server of the cluster
    /// holds it; `None` when it is this server's (or no cluster): the call is served here.
    async fn elsewhere(
        &self,
        envs_id: &str,
    ) -> Result<Option<pb::envs_client::EnvsClient<tonic::transport::Channel>>, Status> {
        let Some(routing) = &self.cluster else {
            return Ok(None);
        };
        if self.store.batches.get(envs_id).is_some() {
            return Ok(None);
        }
        let Some((instance, _)) = envs_id.split_once('-') else {
            return Ok(None);
        };
        let is_instance = instance.len() == 16 && instance.bytes().all(|b| b.is_ascii_hexdigit());
        if !is_instance || instance == &*routing.instance {
            return Ok(None);
        }
        let address = routing.address(instance).await?.ok_or_else(|| {
            Status::not_found(format!(
                "env batch '{envs_id}' was made by a server of the cluster that is gone                  (stopped, or silent past its lease): its envs are lost; create a new batch"
            ))
        })?;
        let channel = routing.forwarder.channel(&address, ENVS)?;
        Ok(Some(pb::envs_client::EnvsClient::new(channel)))
    }
}

/// What forwarded calls reach, in their errors.
const ENVS: &str = "this env batch";

/// Longest wait for the holding server's answer to a forwarded call.
const FORWARD_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);

/// Cluster mode: where the batches other servers made are.
struct EnvsRouting {
    instance: Arc<str>,
    lease: std::time::Duration,
    store: crate::store::Store,
    forwarder: crate::forward::Forwarder,
    /// Addresses read, by instance, with when they were read (kept half a lease).
    addresses: Mutex<HashMap<String, (String, Instant)>>,
}

impl EnvsRouting {
    /// Where server `instance` is reached, if it is alive.
    async fn address(&self, instance: &str) -> Result<Option<String>, Status> {
        {
            let addresses = self.addresses.lock().unwrap_or_else(|e| e.into_inner());
            if let Some((address, at)) = addresses.get(instance)
                && at.elapsed() < self.lease / 2
            {
                return Ok(Some(address.clone()));
            }
        }
        let address = self
            .store
            .instance_address(instance, self.lease.as_millis() as i64)
            .await
            .map_err(|error| {
                tracing::warn!(%error, "cannot read where a server of the cluster is reached");
                Status::unavailable(
                    "the database cannot be read right now to find this env batch's server; \
                     retry in a moment",
                )
            })?;
        let mut addresses = self.addresses.lock().unwrap_or_else(|e| e.into_inner());
        if addresses.len() > 1024 {
            addresses.clear();
        }
        if let Some(address) = &address {
            addresses.insert(instance.to_string(), (address.clone(), Instant::now()));
        }
        Ok(address)
    }
}

/// A call forwarded to the server holding its batch, its answer relayed.
macro_rules! forward_envs {
    ($self:ident, $client:ident, $request:ident, $method:ident) => {
        $client
            .$method(
                $self
                    .cluster
                    .as_ref()
                    .expect("forwarded in cluster mode")
                    .forwarder
                    .request($request, Some(FORWARD_TIMEOUT)),
            )
            .await
            .map(|reply| Response::new(reply.into_inner()))
            .map_err(|status| crate::forward::relayed(status, ENVS))
    };
}

#[tonic::async_trait]
impl pb::envs_server::Envs for EnvsService {
    async fn create_envs(
        &self,
        request: Request<pb::CreateEnvsRequest>,
    ) -> Result<Response<pb::CreateEnvsResponse>, Status> {
        let peer = request.remote_addr().map(|address| address.ip());
        let mut request = request.into_inner();
        let game = make_game(&request.game, &request.parameters)
            .map_err(|e| status_from_argument_error(&e))?;
        let num_envs = request.num_envs as usize;
        if num_envs == 0 {
            return Err(Status::invalid_argument(
                "num_envs must be at least 1 (a client built before field 3, count, became num_envs, field 12, sends none)",
            ));
        }
        let autoreset_mode = match pb::AutoresetMode::try_from(request.autoreset_mode) {
            Ok(pb::AutoresetMode::Unspecified | pb::AutoresetMode::NextStep) => {
                AutoresetMode::NextStep
            }
            Ok(pb::AutoresetMode::SameStep) => AutoresetMode::SameStep,
            Err(_) => {
                return Err(Status::invalid_argument(format!(
                    "unknown autoreset_mode {}; use AUTORESET_MODE_NEXT_STEP or \
                     AUTORESET_MODE_SAME_STEP",
                    request.autoreset_mode
                )));
            }
        };
        let observation_encoding =
            match pb::ObservationEncoding::try_from(request.observation_encoding) {
                Ok(pb::ObservationEncoding::Unspecified | pb::ObservationEncoding::Float32) => {
                    ObservationEncoding::Float32
                }
                Ok(pb::ObservationEncoding::Compact) => ObservationEncoding::Compact,
                Err(_) => {
                    return Err(Status::invalid_argument(format!(
                        "unknown observation_encoding {}; use OBSERVATION_ENCODING_FLOAT32 or \
                     OBSERVATION_ENCODING_COMPACT",
                        request.observation_encoding
                    )));
                }
            };
        let pool_size = request.opponents.len();
        let (opponents, policy_bytes) =
            opponents_from_request(&mut request, self.store.max_bot_ms)?;
        let options = EnvOptions {
            all_seats: request.all_seats,
            autoreset_mode,
            max_episode_steps: request.max_episode_steps.map(|steps| steps as usize),
            observation_encoding,
            opponents,
        };
        let reply_bytes = EnvBatch::reply_bytes(game.as_ref(), num_envs, &options);
        if reply_bytes > self.store.max_message_size {
            return Err(Status::resource_exhausted(format!(
                "{num_envs} envs of this game make replies of about {reply_bytes} bytes, above the \
                 server's message limit of {} bytes; use smaller batches",
                self.store.max_message_size
            )));
        }
        let room = self
            .store
            .batches
            .reserve(
                peer,
                Weight {
                    units: num_envs,
                    bytes: policy_bytes,
                },
            )
            .map_err(refused)?;
        let (seed, sizes) = (request.seed, game_sizes(game.as_ref()));
        let compact_layout = compact_layout(game.as_ref());
        let built = tokio::task::spawn_blocking(move || {
            let batch = EnvBatch::with_options(game, num_envs, seed, options)?;
            let first = batch.fresh_reply();
            Ok((batch, first))
        })
        .await
        .unwrap_or_else(|e| Err(Status::internal(format!("env worker failed: {e}"))));
        // A batch that could not be built frees its room (`room` dropped).
        let (batch, first) = built?;
        // In a cluster the id names this server, so that the others can forward its calls.
        let envs_id = match &self.cluster {
            Some(routing) => format!("{}-{}", routing.instance, random_hex(16)),
            None => random_hex(16),
        };
        room.keep(envs_id.clone(), Arc::new(Mutex::new(batch)));
        tracing::info!(
            %envs_id,
            game = %request.game,
            num_envs,
            seed,
            opponents = pool_size,
            "envs created"
        );
        Ok(Response::new(pb::CreateEnvsResponse {
            envs_id,
            sizes: Some(sizes),
            batch: Some(first),
            compact_layout: Some(compact_layout),
        }))
    }

    async fn reset(
        &self,
        request: Request<pb::ResetRequest>,
    ) -> Result<Response<pb::EnvBatch>, Status> {
        if let Some(mut client) = self.elsewhere(&request.get_ref().envs_id).await? {
            return forward_envs!(self, client, request, reset);
        }
        let request = request.into_inner();
        let seed = request.seed;
        with_batch(&self.store, &request.envs_id, move |batch| {
            batch.reset(seed)
        })
        .await
        .map(Response::new)
    }

    async fn step(
        &self,
        request: Request<pb::StepRequest>,
    ) -> Result<Response<pb::EnvBatch>, Status> {
        if let Some(mut client) = self.elsewhere(&request.get_ref().envs_id).await? {
            return forward_envs!(self, client, request, step);
        }
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
        if let Some(mut client) = self.elsewhere(&request.get_ref().envs_id).await? {
            return forward_envs!(self, client, request, close_envs);
        }
        let request = request.into_inner();
        let removed = self
            .store
            .batches
            .take(&request.envs_id)
            .ok_or_else(|| unknown_envs(&request.envs_id))?;
        // Waits off the runtime for a step in flight on this batch, then frees its envs.
        tokio::task::spawn_blocking(move || {
            drop(lock(&removed.session));
            drop(removed);
        })
        .await
        .map_err(|e| Status::internal(format!("env worker failed: {e}")))?;
        Ok(Response::new(pb::CloseEnvsResponse {}))
    }
}
