//! DeepMind's dm_env_rpc protocol (`dm_env_rpc.v1.Environment`), so that `dm_env_rpc`'s
//! clients (`DmEnvAdaptor`, its compliance suite) play every checkraise game.
//!
//! * A **world** is a game with its settings: `CreateWorld` takes `game` (a game string such
//!   as `pokeros(players=3)`, required), `seed` (a non-negative integer; random when absent)
//!   and `opponent` (the bot spec of the other seats, `heuristic` by default). Its games are
//!   dealt with the seeds `seed`, `seed + 1`, ... in order, so a world replays exactly.
//! * One **agent** joins a world at a time (`JoinWorld` with `seat`, default 0); the other
//!   seats are played by bots, chance and bots by core's `Driver` (the engine's one driver,
//!   with its information rule for bots). A connection is joined to one world at a time.
//! * A **sequence** is one game. The first step of a sequence ignores its actions and returns
//!   the first observation where the agent's seat must decide. Each later step applies the
//!   seat's action, lets chance and the bots play to the seat's next decision or the end, and
//!   returns `RUNNING` or `TERMINATED`. A step without an action changes nothing (the game
//!   waits for the seat's move). An illegal or malformed action is refused with an error and
//!   not applied.
//! * Observations (uids): 1 `observation` (the seat's observation tensor, float32), 2
//!   `action_mask` (bool, one per action id), 3 `reward` (float64: the seat's return gained
//!   since its last step) and 4 `discount` (float64: 0 at the end of a game, else 1), the
//!   names `DmEnvAdaptor` reads reward and discount from. Action (uid 1): `action`, an int32
//!   scalar in `0..num_distinct_actions`.
//! * Errors come back per request, as the protocol's `google.rpc.Status` in the response;
//!   the stream stays open.

use std::collections::HashMap;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Instant;

use checkraise_core::bots::{Bot, BotSpec};
use checkraise_core::driver::Driver;
use checkraise_core::table::{ActError, Choice, Match};
use checkraise_core::{Action, Game, Player, State, make_game_from_string};
use tokio::sync::mpsc;
use tokio_stream::Stream;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status, Streaming};

use crate::auth::random_hex;
use crate::connections::StreamCap;
use crate::dm_env_pb::dm_env_rpc::v1 as pb;
use crate::dm_env_pb::google::rpc::Status as RpcStatus;

mod wire;

use crate::errors::{capped_message, server_fault, status_from_argument_error};
use crate::gate::CreationQuota;
use crate::sessions::{Activity, Expiry, Limits, Over, Sessions, Weight};
use pb::environment_request::Payload as Req;
use pb::environment_response::Payload as Resp;
use pb::tensor::Payload as Data;
use wire::{
    check_names, describe_legal, opponent_setting, read_action, request_error, seat_setting,
    seed_setting, specs, string_setting, tensor,
};

/// The uid of the one action, `action`.
pub const ACTION_UID: u64 = 1;
/// The uid of the `observation` observation.
pub const OBSERVATION_UID: u64 = 1;
/// The uid of the `action_mask` observation.
pub const ACTION_MASK_UID: u64 = 2;
/// The uid of the `reward` observation.
pub const REWARD_UID: u64 = 3;
/// The uid of the `discount` observation.
pub const DISCOUNT_UID: u64 = 4;

const OBSERVATION_NAMES: [(u64, &str); 4] = [
    (OBSERVATION_UID, "observation"),
    (ACTION_MASK_UID, "action_mask"),
    (REWARD_UID, "reward"),
    (DISCOUNT_UID, "discount"),
];

/// The opponent bot when `CreateWorld` names none.
pub const DEFAULT_OPPONENT: &str = "heuristic";

const WORLD_SETTINGS: &str = "`game` (string, required), `seed` (integer) and `opponent` (string)";
const JOIN_SETTINGS: &str = "`seat` (integer)";
const RESET_WORLD_SETTINGS: &str = "`seed` (integer) and `opponent` (string)";

/// A world: a game with its settings, the seeds of its next games, and whether an agent is
/// joined.
struct World {
    game: Arc<dyn Game>,
    opponent: BotSpec,
    seed: u64,
    next_game: u64,
    /// Bumped by every `ResetWorld`: an agent that started its game before sees INTERRUPTED.
    generation: u64,
    joined: bool,
    last_active: Instant,
}

impl World {
    /// The seed of the world's next game (`seed`, `seed + 1`, ...).
    fn take_seed(&mut self) -> u64 {
        let seed = self.seed.wrapping_add(self.next_game);
        self.next_game += 1;
        seed
    }
}

/// Every world, by name, with the server's limits (the engine's session store: each world
/// counts one unit).
#[derive(Clone)]
pub struct WorldStore {
    worlds: Sessions<World>,
    /// The server's creation quota (`--max-creates-per-minute`): each world takes one.
    quota: Option<Arc<CreationQuota>>,
    max_bot_ms: u64,
    /// Set at shutdown: open `Process` streams end, so graceful shutdown is not held open.
    closing: Arc<tokio::sync::watch::Sender<bool>>,
}

impl WorldStore {
    /// An empty store that holds at most `max_worlds`; bots think at most `max_bot_ms` a move.
    pub fn new(max_worlds: usize, max_bot_ms: u64) -> Self {
        WorldStore {
            worlds: Sessions::new(Limits::units(max_worlds)),
            quota: None,
            max_bot_ms,
            closing: Arc::new(tokio::sync::watch::Sender::new(false)),
        }
    }

    /// This store holding at most `worlds` created from one client address, each creation
    /// taking from `quota` (the limits on creating matches, applied to worlds too).
    pub fn with_peer_share(mut self, worlds: usize, quota: Arc<CreationQuota>) -> Self {
        let mut limits = self.worlds.limits();
        limits.per_peer.units = worlds;
        self.worlds.set_limits(limits);
        self.quota = Some(quota);
        self
    }

    /// Ends every open `Process` stream with UNAVAILABLE (at shutdown).
    pub fn close_all_connections(&self) {
        self.closing.send_replace(true);
    }

    /// Runs `f` on the named world (touched: its idle time restarts).
    fn with_world<R>(
        &self,
        name: &str,
        f: impl FnOnce(&mut World) -> Result<R, Status>,
    ) -> Result<R, Status> {
        self.worlds
            .with(name, |world| {
                world.last_active = Instant::now();
                f(world)
            })
            .unwrap_or_else(|| Err(unknown_world(name)))
    }

    /// Number of worlds.
    pub fn len(&self) -> usize {
        self.worlds.len()
    }

    /// Whether there is no world.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Removes the worlds the expiry policy does not keep: no agent joined and no request for
    /// `expiry.idle`; returns how many.
    pub fn expire_idle(&self, expiry: Expiry) -> usize {
        self.worlds
            .expire(expiry, |_, world| {
                if world.joined {
                    Activity::Held
                } else {
                    Activity::Idle {
                        since: world.last_active,
                        finished: false,
                    }
                }
            })
            .len()
    }
}

fn unknown_world(name: &str) -> Status {
    Status::not_found(format!(
        "no world '{name}' on this server (never created here, destroyed, or expired after \
         being idle); a world lives in the server process that made it, so behind a load \
         balancer every call of a world must reach that server (see docs/cluster.md)"
    ))
}

/// One game in play for the agent: core's match (whose reward for the seat counts from when
/// the agent last saw the game) and the opponents' bots.
struct Episode {
    play: Match,
    bots: Vec<Option<Box<dyn Bot>>>,
}

impl Episode {
    fn state(&self) -> &dyn State {
        self.play.state()
    }

    /// The agent's action, then chance and the bots up to its next decision or the end.
    fn act(&mut self, seat: usize, action: Action) -> Result<(), Status> {
        let bots: Vec<Option<&dyn Bot>> = self.bots.iter().map(|b| b.as_deref()).collect();
        match self.play.act(
            seat,
            &Choice::Id(action),
            None,
            &bots,
            None,
            &mut |_, _, _| {},
        ) {
            Ok(_) => Ok(()),
            Err(e) => Err(episode_fault(e)),
        }
    }
}

/// The status of a refused step: the game's refusal, or a bot's failure (a fault). Nothing
/// else can refuse it (no expected version, no stop).
fn episode_fault(e: ActError) -> Status {
    match e {
        ActError::Game(e) => crate::errors::status_from_game_error(&e),
        ActError::Bot(e) => server_fault("a bot failed in a dm_env_rpc world", &e),
        e => Status::internal(e.to_string()),
    }
}

/// A connection's agent: the world it joined, its seat and its game.
struct Agent {
    world: String,
    game: Arc<dyn Game>,
    seat: usize,
    /// The world's generation when the agent's current sequence began.
    generation: u64,
    /// The game in play; `None` between sequences (the next step starts one).
    episode: Option<Episode>,
}

/// One `Process` stream: the requests of one client, in order.
struct Connection {
    store: WorldStore,
    agent: Option<Agent>,
    /// The client's address, when known.
    peer: Option<IpAddr>,
}

impl Drop for Connection {
    /// A connection that goes away leaves its world.
    fn drop(&mut self) {
        self.leave();
    }
}

impl Connection {
    fn handle(&mut self, request: pb::EnvironmentRequest) -> pb::EnvironmentResponse {
        let result = match request.payload {
            Some(Req::CreateWorld(r)) => self.create_world(r).map(Resp::CreateWorld),
            Some(Req::JoinWorld(r)) => self.join_world(r).map(Resp::JoinWorld),
            Some(Req::Step(r)) => self.step(r).map(Resp::Step),
            Some(Req::Reset(r)) => self.reset(r).map(Resp::Reset),
            Some(Req::ResetWorld(r)) => self.reset_world(r).map(Resp::ResetWorld),
            Some(Req::LeaveWorld(_)) => {
                self.leave();
                Ok(Resp::LeaveWorld(pb::LeaveWorldResponse {}))
            }
            Some(Req::DestroyWorld(r)) => self.destroy_world(r).map(Resp::DestroyWorld),
            Some(Req::Extension(any)) => Err(Status::unimplemented(format!(
                "checkraise-server supports no dm_env_rpc extension request ('{}')",
                any.type_url
            ))),
            None => Err(Status::invalid_argument(
                "the EnvironmentRequest has no request in its payload",
            )),
        };
        let payload = result.unwrap_or_else(|status| {
            Resp::Error(RpcStatus {
                code: status.code() as i32,
                message: capped_message(status.message()),
                details: Vec::new(),
            })
        });
        pb::EnvironmentResponse {
            payload: Some(payload),
        }
    }

    fn create_world(
        &mut self,
        request: pb::CreateWorldRequest,
    ) -> Result<pb::CreateWorldResponse, Status> {
        let settings = request.settings;
        check_names(&settings, &["game", "seed", "opponent"], WORLD_SETTINGS)?;
        let text = match settings.get("game") {
            Some(t) => string_setting("game", t)?,
            None => {
                return Err(Status::invalid_argument(format!(
                    "CreateWorld needs the setting `game`, a game string such as \
                     'pokeros(players=3)'; settings: {WORLD_SETTINGS}"
                )));
            }
        };
        let game = make_game_from_string(&text).map_err(|e| status_from_argument_error(&e))?;
        let seed = match settings.get("seed") {
            Some(t) => seed_setting(t)?,
            None => u64::from_str_radix(&random_hex(8), 16).expect("16 hex digits"),
        };
        let opponent = opponent_setting(
            game.as_ref(),
            settings.get("opponent"),
            self.store.max_bot_ms,
        )?;
        let name = format!("{}-{}", game.info().name, random_hex(8));
        let room = self
            .store
            .worlds
            .reserve(self.peer, Weight::units(1))
            .map_err(|refusal| match refusal.over {
                Over::PeerUnits(peer) => Status::resource_exhausted(format!(
                    "this client address ({peer}) holds {} dm_env_rpc worlds, its most \
                     (--max-matches-per-peer); destroy some or let them expire",
                    refusal.held
                )),
                _ => Status::resource_exhausted(format!(
                    "the server holds its maximum of {} dm_env_rpc worlds; destroy some or let \
                     them expire",
                    refusal.most
                )),
            })?;
        if let (Some(peer), Some(quota)) = (self.peer, &self.store.quota) {
            quota.take(peer)?;
        }
        room.keep(
            name.clone(),
            World {
                game,
                opponent,
                seed,
                next_game: 0,
                generation: 0,
                joined: false,
                last_active: Instant::now(),
            },
        );
        tracing::info!(world = %name, game = %text, seed, "dm_env_rpc world created");
        Ok(pb::CreateWorldResponse { world_name: name })
    }

    fn join_world(
        &mut self,
        request: pb::JoinWorldRequest,
    ) -> Result<pb::JoinWorldResponse, Status> {
        if let Some(agent) = &self.agent {
            return Err(Status::failed_precondition(format!(
                "this connection is already joined to world '{}'; leave it first (one world \
                 per connection; use another connection for another agent)",
                agent.world
            )));
        }
        let name = request.world_name;
        let settings = request.settings;
        let agent = self.store.with_world(&name, |world| {
            check_names(&settings, &["seat"], JOIN_SETTINGS)?;
            let seat = seat_setting(settings.get("seat"), world.game.num_players())?;
            if world.joined {
                return Err(Status::failed_precondition(format!(
                    "world '{name}' already has its agent joined (one agent per world; the \
                     other seats are bots); create another world"
                )));
            }
            world.joined = true;
            Ok(Agent {
                world: name.clone(),
                game: world.game.clone(),
                seat,
                generation: world.generation,
                episode: None,
            })
        })?;
        let specs = specs(agent.game.as_ref());
        self.agent = Some(agent);
        Ok(pb::JoinWorldResponse { specs: Some(specs) })
    }

    fn leave(&mut self) {
        if let Some(agent) = self.agent.take() {
            let _ = self.store.with_world(&agent.world, |world| {
                world.joined = false;
                Ok(())
            });
        }
    }

    fn reset(&mut self, request: pb::ResetRequest) -> Result<pb::ResetResponse, Status> {
        let agent = self.agent.as_mut().ok_or_else(not_joined)?;
        check_names(&request.settings, &["seat"], JOIN_SETTINGS)?;
        if request.settings.contains_key("seat") {
            agent.seat = seat_setting(request.settings.get("seat"), agent.game.num_players())?;
        }
        agent.episode = None;
        Ok(pb::ResetResponse {
            specs: Some(specs(agent.game.as_ref())),
        })
    }

    fn reset_world(
        &mut self,
        request: pb::ResetWorldRequest,
    ) -> Result<pb::ResetWorldResponse, Status> {
        let settings = request.settings;
        let max_bot_ms = self.store.max_bot_ms;
        let generation = self.store.with_world(&request.world_name, |world| {
            check_names(&settings, &["seed", "opponent"], RESET_WORLD_SETTINGS)?;
            let seed = settings.get("seed").map(seed_setting).transpose()?;
            if settings.contains_key("opponent") {
                world.opponent =
                    opponent_setting(world.game.as_ref(), settings.get("opponent"), max_bot_ms)?;
            }
            if let Some(seed) = seed {
                world.seed = seed;
            }
            world.next_game = 0;
            world.generation += 1;
            Ok(world.generation)
        })?;
        // The caller's own agent begins its next sequence at once, without INTERRUPTED.
        if let Some(agent) = self
            .agent
            .as_mut()
            .filter(|a| a.world == request.world_name)
        {
            agent.generation = generation;
            agent.episode = None;
        }
        Ok(pb::ResetWorldResponse {})
    }

    fn destroy_world(
        &mut self,
        request: pb::DestroyWorldRequest,
    ) -> Result<pb::DestroyWorldResponse, Status> {
        let name = request.world_name;
        if self.agent.as_ref().is_some_and(|a| a.world == name) {
            return Err(Status::failed_precondition(format!(
                "this connection is joined to world '{name}'; leave it before destroying it"
            )));
        }
        let removed = self.store.worlds.remove_if(&name, |world| {
            if world.joined {
                return Err(Status::failed_precondition(format!(
                    "world '{name}' has an agent joined; it must leave before the world is \
                     destroyed"
                )));
            }
            Ok(())
        })?;
        if removed.is_none() {
            return Err(unknown_world(&name));
        }
        tracing::info!(world = %name, "dm_env_rpc world destroyed");
        Ok(pb::DestroyWorldResponse {})
    }

    fn step(&mut self, request: pb::StepRequest) -> Result<pb::StepResponse, Status> {
        let agent = self.agent.as_mut().ok_or_else(not_joined)?;
        for uid in &request.requested_observations {
            if !OBSERVATION_NAMES.iter().any(|(u, _)| u == uid) {
                return Err(Status::invalid_argument(format!(
                    "no observation has uid {uid}; the observations are {}",
                    OBSERVATION_NAMES
                        .iter()
                        .map(|(u, n)| format!("{u} `{n}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
        }
        let wanted = &request.requested_observations;
        let (generation, opponent) = self.store.with_world(&agent.world, |world| {
            Ok((world.generation, world.opponent.clone()))
        })?;
        let (game, seat) = (agent.game.clone(), agent.seat);
        // A ResetWorld from another connection interrupts the game in play.
        if agent.generation != generation {
            agent.generation = generation;
            if let Some(episode) = agent.episode.take() {
                let state = pb::EnvironmentStateType::Interrupted;
                return Ok(observe(game.as_ref(), seat, &episode, state, 0.0, wanted));
            }
        }
        let Some(episode) = agent.episode.as_mut() else {
            // A new sequence: its first step's actions are ignored.
            let seed = self
                .store
                .with_world(&agent.world, |world| Ok(world.take_seed()))?;
            let episode = start(game.as_ref(), seat, &opponent, seed)?;
            let state = pb::EnvironmentStateType::Running;
            let response = observe(game.as_ref(), seat, &episode, state, 0.0, wanted);
            agent.episode = Some(episode);
            return Ok(response);
        };
        let action = read_action(&request.actions, game.num_distinct_actions())?;
        // When the game ended before the seat ever acted, there is nothing to decide and the
        // action is ignored.
        if !episode.state().is_terminal() {
            let Some(action) = action else {
                // No action: the game waits for the seat's move.
                let state = pb::EnvironmentStateType::Running;
                return Ok(observe(game.as_ref(), seat, episode, state, 0.0, wanted));
            };
            let player = Player::Seat(seat);
            let state = episode.state();
            if !state.legal_actions_for(player).contains(&action) {
                return Err(Status::invalid_argument(format!(
                    "action {action} ({}) is not legal for seat {seat} now; legal: {}",
                    state.action_to_string(player, action),
                    describe_legal(state, player)
                )));
            }
            episode.act(seat, action)?;
        }
        let reward = episode.play.take_reward(seat);
        let done = episode.state().is_terminal();
        let state = if done {
            pb::EnvironmentStateType::Terminated
        } else {
            pb::EnvironmentStateType::Running
        };
        let response = observe(game.as_ref(), seat, episode, state, reward, wanted);
        if done {
            agent.episode = None;
        }
        Ok(response)
    }
}

fn not_joined() -> Status {
    Status::failed_precondition("this connection has not joined a world; send JoinWorld first")
}

/// The agent's next game, dealt with `seed`, played by chance and the bots up to the seat's
/// first decision (or the end).
fn start(game: &dyn Game, seat: usize, opponent: &BotSpec, seed: u64) -> Result<Episode, Status> {
    let players = game.num_players();
    let bots = (0..players)
        .map(|s| {
            (s != seat)
                .then(|| opponent.build(game))
                .transpose()
                .map_err(|e| Status::invalid_argument(format!("setting `opponent`: {e}")))
        })
        .collect::<Result<_, Status>>()?;
    let mut episode = Episode {
        play: Match::new(game.new_initial_state(), Driver::from_seed(seed, players)),
        bots,
    };
    let bots: Vec<Option<&dyn Bot>> = episode.bots.iter().map(|b| b.as_deref()).collect();
    episode
        .play
        .start(&bots, None, &mut |_, _, _| {})
        .map_err(episode_fault)?;
    Ok(episode)
}

/// The step response with the requested observations of the agent's seat.
fn observe(
    game: &dyn Game,
    seat: usize,
    episode: &Episode,
    state_type: pb::EnvironmentStateType,
    reward: f64,
    wanted: &[u64],
) -> pb::StepResponse {
    let state = episode.state();
    let mut observations = HashMap::new();
    for &uid in wanted {
        if observations.contains_key(&uid) {
            continue;
        }
        let tensor = match uid {
            OBSERVATION_UID => {
                let mut values = vec![0.0f32; game.observation_size()];
                state.observation_tensor(seat, &mut values);
                tensor(
                    Data::Floats(pb::tensor::FloatArray { array: values }),
                    &game.observation_shape(),
                )
            }
            ACTION_MASK_UID => {
                let mut mask = vec![false; game.num_distinct_actions()];
                if !state.is_terminal() {
                    state.action_mask(Player::Seat(seat), &mut mask);
                }
                tensor(
                    Data::Bools(pb::tensor::BoolArray { array: mask }),
                    &[game.num_distinct_actions()],
                )
            }
            REWARD_UID => tensor(
                Data::Doubles(pb::tensor::DoubleArray {
                    array: vec![reward],
                }),
                &[],
            ),
            DISCOUNT_UID => {
                let discount = if state_type == pb::EnvironmentStateType::Terminated {
                    0.0
                } else {
                    1.0
                };
                tensor(
                    Data::Doubles(pb::tensor::DoubleArray {
                        array: vec![discount],
                    }),
                    &[],
                )
            }
            _ => continue,
        };
        observations.insert(uid, tensor);
    }
    pb::StepResponse {
        state: state_type as i32,
        observations,
    }
}

/// The dm_env_rpc `Environment` service.
pub struct DmEnvService {
    store: WorldStore,
    streams: StreamCap,
}

impl DmEnvService {
    /// A service over a store of worlds.
    pub fn new(store: WorldStore) -> Self {
        DmEnvService {
            store,
            streams: StreamCap::default(),
        }
    }

    /// This service with its sessions counted under `streams` (`--max-streams`).
    pub fn with_stream_cap(mut self, streams: StreamCap) -> Self {
        self.streams = streams;
        self
    }
}

type ResponseStream = Pin<Box<dyn Stream<Item = Result<pb::EnvironmentResponse, Status>> + Send>>;

/// Responses a connection may have waiting before its requests wait.
const RESPONSE_BUFFER: usize = 16;

#[tonic::async_trait]
impl pb::environment_server::Environment for DmEnvService {
    type ProcessStream = ResponseStream;

    async fn process(
        &self,
        request: Request<Streaming<pb::EnvironmentRequest>>,
    ) -> Result<Response<Self::ProcessStream>, Status> {
        let peer = request.remote_addr().map(|address| address.ip());
        let permit = self.streams.open(peer)?;
        let mut requests = request.into_inner();
        let (tx, rx) = mpsc::channel(RESPONSE_BUFFER);
        let mut connection = Connection {
            store: self.store.clone(),
            agent: None,
            peer,
        };
        let mut closing = self.store.closing.subscribe();
        tokio::spawn(async move {
            // The session holds its place under --max-streams until it ends.
            let _permit = permit;
            loop {
                let next = tokio::select! {
                    next = requests.message() => next,
                    () = async { drop(closing.wait_for(|&closed| closed).await) } => {
                        let _ = tx
                            .send(Err(Status::unavailable("the server is shutting down")))
                            .await;
                        break;
                    }
                };
                let request = match next {
                    Ok(Some(request)) => request,
                    // The client closed its side.
                    Ok(None) => break,
                    // A request that does not decode ends the session with the reason (a
                    // client that went away does not read it).
                    Err(status) => {
                        let _ = tx.send(Err(request_error(&status))).await;
                        break;
                    }
                };
                // Requests run in order, on the blocking pool: bots think there.
                let handled = tokio::task::spawn_blocking(move || {
                    let response = connection.handle(request);
                    (connection, response)
                })
                .await;
                let response = match handled {
                    Ok((back, response)) => {
                        connection = back;
                        Ok(response)
                    }
                    Err(error) => {
                        tracing::error!(%error, "a dm_env_rpc request failed");
                        let _ = tx
                            .send(Err(Status::internal(format!(
                                "the server failed on this request: {error}"
                            ))))
                            .await;
                        return;
                    }
                };
                if tx.send(response).await.is_err() {
                    break;
                }
            }
        });
        Ok(Response::new(Box::pin(ReceiverStream::new(rx))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int32(v: i32, shape: Vec<i32>) -> pb::Tensor {
        pb::Tensor {
            payload: Some(Data::Int32s(pb::tensor::Int32Array { array: vec![v] })),
            shape,
        }
    }

    #[test]
    fn actions_are_checked_for_uid_type_shape_and_bounds() {
        let one = |t: pb::Tensor| HashMap::from([(ACTION_UID, t)]);
        assert_eq!(read_action(&one(int32(3, vec![])), 5).unwrap(), Some(3));
        assert_eq!(read_action(&HashMap::new(), 5).unwrap(), None);
        let e = read_action(&HashMap::from([(7, int32(3, vec![]))]), 5).unwrap_err();
        assert!(e.message().contains("uid 7"), "{e}");
        let e = read_action(&one(int32(3, vec![1])), 5).unwrap_err();
        assert!(e.message().contains("shape"), "{e}");
        let e = read_action(&one(int32(5, vec![])), 5).unwrap_err();
        assert!(e.message().contains("out of bounds"), "{e}");
        let e = read_action(&one(int32(-1, vec![])), 5).unwrap_err();
        assert!(e.message().contains("out of bounds"), "{e}");
        let doubles = pb::Tensor {
            payload: Some(Data::Doubles(pb::tensor::DoubleArray { array: vec![1.0] })),
            shape: vec![],
        };
        let e = read_action(&one(doubles), 5).unwrap_err();
        assert!(e.message().contains("int32"), "{e}");
    }

    #[test]
    fn settings_are_typed_and_named() {
        let s = HashMap::from([("nope".to_string(), int32(1, vec![]))]);
        let e = check_names(&s, &["seat"], JOIN_SETTINGS).unwrap_err();
        assert!(e.message().contains("`nope`"), "{e}");
        assert_eq!(seat_setting(Some(&int32(1, vec![])), 2).unwrap(), 1);
        assert!(seat_setting(Some(&int32(2, vec![])), 2).is_err());
        assert_eq!(seat_setting(None, 2).unwrap(), 0);
        assert!(seed_setting(&int32(-1, vec![])).is_err());
        let game = checkraise_core::make_game_from_string("pokeros").unwrap();
        assert!(opponent_setting(game.as_ref(), None, 100).is_ok());
        let bad = pb::Tensor {
            payload: Some(Data::Strings(pb::tensor::StringArray {
                array: vec!["nonsense".to_string()],
            })),
            shape: vec![],
        };
        assert!(opponent_setting(game.as_ref(), Some(&bad), 100).is_err());
    }
}
