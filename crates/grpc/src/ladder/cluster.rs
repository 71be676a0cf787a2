//! Cluster mode's ladder: one server of the cluster runs it, every server serves its calls.
//!
//! - **One scheduler.** The ladder is a role (`cluster_roles`) that one server holds at a
//!   time. Every quarter lease each server asks the store who holds it, taking it when nobody
//!   does or when its holder's heartbeat is older than the lease (the role's epoch raised).
//!   The holder runs the ladder's hub (`LadderHub`) as a single server does: it places the
//!   sets, plays the house bots' seats through its matches, decides forfeits and records the
//!   games. Its ladder writes are fenced by the role's epoch (`Store::fenced_for_ladder`), and
//!   it places, forfeits and records nothing once its hold is older than the lease by its own
//!   clock (`RoleLease`), so a holder that was paused and resumes cannot act beside the new
//!   one.
//! - **Any server serves the ladder's calls.** A server that does not hold the role forwards
//!   each `Ladder` call to the holder (its `--cluster-advertise` address, from the store), with
//!   the client's address vouched for by the cluster's shared secret (`gate`), so that the
//!   per-address shares count the client, not the forwarding server. A bot's `Events` stream
//!   is relayed; it ends `UNAVAILABLE` when the holder goes or the role moves, and the bot
//!   connects again (to whichever server), as after any lost connection.
//! - **A holder that dies.** Its role is taken within about a lease; the new holder reads the
//!   bots and games back from the store and ends the games its predecessor left unfinished
//!   (expired, unrated), as a restarted single server does, then places new sets.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, watch};
use tokio_stream::Stream;
use tonic::transport::{Channel, ClientTlsConfig, Endpoint};
use tonic::{Request, Response, Status};

use super::{LadderHub, LadderService, LadderSettings, RoleLease};
use crate::connections::{StreamCap, StreamPermit};
use crate::gate::{CLUSTER_SECRET_HEADER, FORWARDED_PEER_HEADER, peer_of};
use crate::matches::{Cluster, MatchStore};
use crate::pb;
use crate::pb::ladder_client::LadderClient;
use crate::store::{RoleHolder, Store};

/// The ladder's role in `cluster_roles`.
const ROLE: &str = "ladder";

/// Events a relayed stream may hold before the bot is cut off (as on the holder).
const RELAY_BUFFER: usize = super::EVENT_BUFFER;

/// Longest wait for the holder's answer to a forwarded unary call.
const FORWARD_TIMEOUT: Duration = Duration::from_secs(10);

/// What this server knows of the ladder's holder.
enum Holding {
    /// Nobody known yet (or the store cannot be read).
    Unknown,
    /// This server, at this epoch: its hub and the service over it.
    Here {
        epoch: u64,
        hub: LadderHub,
        service: Arc<LadderService>,
        matchmaking: tokio::task::JoinHandle<()>,
        lease: Arc<RoleLease>,
    },
    /// Another server.
    There(RoleHolder),
}

/// How a call is served now.
enum Route {
    Here(Arc<LadderService>),
    There(LadderClient<Channel>),
}

/// The ladder of a cluster's server (see the module's documentation).
#[derive(Clone)]
pub struct ClusterLadder(Arc<Inner>);

struct Inner {
    settings: LadderSettings,
    matches: MatchStore,
    store: Store,
    cluster: Arc<Cluster>,
    max_bot_ms: u64,
    streams: StreamCap,
    secret: String,
    tls: Option<ClientTlsConfig>,
    holding: Mutex<Holding>,
    /// The holder as last read; each change ends the relayed streams.
    holder: watch::Sender<Option<(String, u64)>>,
    /// Channels to other servers, by address.
    channels: Mutex<Vec<(String, Channel)>>,
}

impl ClusterLadder {
    /// The ladder of this cluster member. `secret` is the cluster's shared secret (sent with
    /// forwarded calls); `tls`, when the servers speak TLS, how to reach the others.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        settings: LadderSettings,
        matches: MatchStore,
        store: Store,
        cluster: Arc<Cluster>,
        max_bot_ms: u64,
        streams: StreamCap,
        secret: String,
        tls: Option<ClientTlsConfig>,
    ) -> Self {
        ClusterLadder(Arc::new(Inner {
            settings,
            matches,
            store,
            cluster,
            max_bot_ms,
            streams,
            secret,
            tls,
            holding: Mutex::new(Holding::Unknown),
            holder: watch::channel(None).0,
            channels: Mutex::new(Vec::new()),
        }))
    }

    fn holding(&self) -> std::sync::MutexGuard<'_, Holding> {
        self.0.holding.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Starts following (and taking) the ladder's role, every quarter lease, until aborted.
    pub fn start(&self) -> tokio::task::JoinHandle<()> {
        let this = self.clone();
        tokio::spawn(async move {
            let mut ticker = tokio::time::interval(this.0.cluster.lease / 4);
            ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                ticker.tick().await;
                this.follow_role().await;
            }
        })
    }

    /// Reads (or takes) the role once and acts on it: opens the hub when this server took
    /// it, closes it when another did.
    async fn follow_role(&self) {
        let cluster = &self.0.cluster;
        let asked = Instant::now();
        let lease_ms = cluster.lease.as_millis() as i64;
        let holder = match self
            .0
            .store
            .take_role(ROLE, &cluster.instance, lease_ms)
            .await
        {
            Ok(holder) => holder,
            Err(error) => {
                tracing::warn!(%error, "cannot read who runs the cluster's ladder");
                // Unconfirmed for a whole lease: another server may take the role.
                let stale =
                    matches!(&*self.holding(), Holding::Here { lease, .. } if !lease.fresh());
                if stale {
                    self.step_down("its hold on the role could not be confirmed");
                }
                return;
            }
        };
        match holder {
            Some(holder) if *holder.instance == *cluster.instance => {
                let current = match &*self.holding() {
                    Holding::Here { epoch, lease, .. } if *epoch == holder.epoch => {
                        lease.confirm(asked);
                        true
                    }
                    _ => false,
                };
                if !current {
                    self.step_down("it took the role again at a new epoch");
                    self.take_up(holder.epoch, asked).await;
                }
            }
            Some(holder) => {
                let changed = match &*self.holding() {
                    Holding::There(known) => *known != holder,
                    _ => true,
                };
                if changed {
                    self.step_down("another server runs the ladder now");
                    tracing::info!(holder = %holder.instance, epoch = holder.epoch, address = ?holder.address, "the cluster's ladder runs on another server");
                    self.0
                        .holder
                        .send_replace(Some((holder.instance.clone(), holder.epoch)));
                    *self.holding() = Holding::There(holder);
                }
            }
            None => {
                self.step_down("nobody holds the role");
                *self.holding() = Holding::Unknown;
            }
        }
    }

    /// Runs the ladder here, at `epoch` (the role was confirmed at `asked`).
    async fn take_up(&self, epoch: u64, asked: Instant) {
        let inner = &self.0;
        let lease = Arc::new(RoleLease::new(inner.cluster.lease));
        lease.confirm(asked);
        let store = inner
            .store
            .fenced_for_ladder(&inner.cluster.instance, epoch);
        let opened = LadderHub::open_leased(
            inner.settings.clone(),
            inner.matches.clone(),
            Some(store),
            inner.max_bot_ms,
            Some(lease.clone()),
        )
        .await;
        let hub = match opened {
            Ok(hub) => hub,
            Err(error) => {
                tracing::error!(%error, epoch, "this server holds the cluster's ladder but cannot open it; it tries again");
                return;
            }
        };
        tracing::info!(epoch, "this server runs the cluster's ladder");
        let matchmaking = hub.start();
        let service = Arc::new(LadderService::new(hub.clone(), inner.streams.clone()));
        inner
            .holder
            .send_replace(Some((inner.cluster.instance.to_string(), epoch)));
        *self.holding() = Holding::Here {
            epoch,
            hub,
            service,
            matchmaking,
            lease,
        };
    }

    /// Stops running the ladder here, if it runs here (`why` for the log).
    fn step_down(&self, why: &str) {
        let mut holding = self.holding();
        if let Holding::Here {
            hub,
            matchmaking,
            epoch,
            ..
        } = &*holding
        {
            tracing::info!(
                epoch,
                why,
                "this server no longer runs the cluster's ladder"
            );
            matchmaking.abort();
            hub.close();
            *holding = Holding::Unknown;
        }
    }

    /// Ends every bot stream served here (at shutdown).
    pub fn close_all_connections(&self) {
        if let Holding::Here { hub, .. } = &*self.holding() {
            hub.close_all_connections();
        }
        self.0.holder.send_replace(None);
    }

    /// How a call is served now, or `UNAVAILABLE` when no server is known to run the ladder.
    fn route(&self) -> Result<Route, Status> {
        let address = match &*self.holding() {
            Holding::Here { service, .. } => return Ok(Route::Here(service.clone())),
            Holding::There(RoleHolder {
                address: Some(address),
                ..
            }) => address.clone(),
            _ => {
                return Err(Status::unavailable(
                    "the cluster's ladder is moving to another server; retry in a few seconds",
                ));
            }
        };
        Ok(Route::There(LadderClient::new(self.channel(&address)?)))
    }

    /// A channel to the server at `address` (made once, connected when first used).
    fn channel(&self, address: &str) -> Result<Channel, Status> {
        let mut channels = self.0.channels.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, channel)) = channels.iter().find(|(a, _)| a == address) {
            return Ok(channel.clone());
        }
        let lease = self.0.cluster.lease;
        let scheme = if self.0.tls.is_some() {
            "https"
        } else {
            "http"
        };
        let unreachable = |what: &str| {
            tracing::error!(%address, what, "the ladder's server cannot be reached at its advertised address");
            Status::unavailable(format!(
                "the cluster's ladder runs on another server, whose address ({address}) cannot \
                 be used; its operator must fix its --cluster-advertise"
            ))
        };
        let mut endpoint = Endpoint::from_shared(format!("{scheme}://{address}"))
            .map_err(|e| unreachable(&e.to_string()))?
            .connect_timeout(lease)
            .tcp_nodelay(true)
            .http2_keep_alive_interval(lease / 2)
            .keep_alive_timeout(lease)
            .keep_alive_while_idle(true);
        if let Some(tls) = &self.0.tls {
            endpoint = endpoint
                .tls_config(tls.clone())
                .map_err(|e| unreachable(&e.to_string()))?;
        }
        let channel = endpoint.connect_lazy();
        if channels.len() >= 64 {
            channels.remove(0);
        }
        channels.push((address.to_string(), channel.clone()));
        Ok(channel)
    }

    /// `request`'s message as a call to forward: its metadata (the bot's token, an API key)
    /// kept, the client's address and the cluster's secret added.
    fn forwarded<T>(&self, request: Request<T>, timeout: Option<Duration>) -> Request<T> {
        let peer = peer_of(&request);
        let (metadata, _, message) = request.into_parts();
        let mut out = Request::new(message);
        *out.metadata_mut() = metadata;
        if let Ok(secret) = self.0.secret.parse() {
            out.metadata_mut().insert(CLUSTER_SECRET_HEADER, secret);
        }
        if let Some(peer) = peer.and_then(|p| p.to_string().parse().ok()) {
            out.metadata_mut().insert(FORWARDED_PEER_HEADER, peer);
        }
        if let Some(timeout) = timeout {
            out.set_timeout(timeout);
        }
        out
    }
}

/// The holder's answer as this server's: its errors kept, but a failure to reach it said in
/// the service's own words (the transport's text goes to the log).
fn relayed(status: Status) -> Status {
    let reached = !matches!(
        status.code(),
        tonic::Code::Unavailable | tonic::Code::Unknown | tonic::Code::Cancelled
    ) || std::error::Error::source(&status).is_none();
    if reached && status.code() != tonic::Code::DeadlineExceeded {
        return status;
    }
    tracing::warn!(error = %status, "a forwarded ladder call did not reach the ladder's server");
    Status::unavailable(
        "the cluster's ladder runs on another server, which cannot be reached right now; retry \
         in a few seconds",
    )
}

/// A bot's `Events` stream relayed from the ladder's server.
struct Relayed {
    events: mpsc::Receiver<Result<pb::LadderEvent, Status>>,
    _permit: StreamPermit,
}

impl Stream for Relayed {
    type Item = Result<pb::LadderEvent, Status>;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        self.events.poll_recv(cx)
    }
}

type LadderEvents = std::pin::Pin<Box<dyn Stream<Item = Result<pb::LadderEvent, Status>> + Send>>;

/// A unary `Ladder` call served here or forwarded to the ladder's server.
macro_rules! route_unary {
    ($self:ident, $request:ident, $method:ident) => {
        match $self.route()? {
            Route::Here(service) => {
                <LadderService as pb::ladder_server::Ladder>::$method(&service, $request).await
            }
            Route::There(mut client) => client
                .$method($self.forwarded($request, Some(FORWARD_TIMEOUT)))
                .await
                .map(|reply| Response::new(reply.into_inner()))
                .map_err(relayed),
        }
    };
}

#[tonic::async_trait]
impl pb::ladder_server::Ladder for ClusterLadder {
    async fn register_bot(
        &self,
        request: Request<pb::RegisterBotRequest>,
    ) -> Result<Response<pb::RegisterBotResponse>, Status> {
        route_unary!(self, request, register_bot)
    }

    async fn retire_bot(
        &self,
        request: Request<pb::RetireBotRequest>,
    ) -> Result<Response<pb::RetireBotResponse>, Status> {
        route_unary!(self, request, retire_bot)
    }

    type EventsStream = LadderEvents;

    async fn events(
        &self,
        request: Request<pb::EventsRequest>,
    ) -> Result<Response<LadderEvents>, Status> {
        let mut client = match self.route()? {
            Route::Here(service) => {
                return <LadderService as pb::ladder_server::Ladder>::events(&service, request)
                    .await;
            }
            Route::There(client) => client,
        };
        let permit = self.0.streams.open(peer_of(&request))?;
        let mut holder = self.0.holder.subscribe();
        holder.mark_unchanged();
        let mut upstream = client
            .events(self.forwarded(request, None))
            .await
            .map_err(relayed)?
            .into_inner();
        let (sender, receiver) = mpsc::channel(RELAY_BUFFER);
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    _ = sender.closed() => return,
                    changed = holder.changed() => {
                        let _ = changed;
                        let _ = sender.try_send(Err(Status::unavailable(
                            "the ladder moved to another server of the cluster: connect again",
                        )));
                        return;
                    }
                    event = upstream.message() => match event {
                        Ok(Some(event)) => {
                            if sender.try_send(Ok(event)).is_err() {
                                let _ = sender.try_send(Err(Status::resource_exhausted(
                                    "this bot reads its events too slowly",
                                )));
                                return;
                            }
                        }
                        Ok(None) => return,
                        Err(status) => {
                            let _ = sender.send(Err(relayed(status))).await;
                            return;
                        }
                    },
                }
            }
        });
        Ok(Response::new(Box::pin(Relayed {
            events: receiver,
            _permit: permit,
        })))
    }

    async fn list_ladders(
        &self,
        request: Request<pb::ListLaddersRequest>,
    ) -> Result<Response<pb::ListLaddersResponse>, Status> {
        route_unary!(self, request, list_ladders)
    }

    async fn get_leaderboard(
        &self,
        request: Request<pb::GetLeaderboardRequest>,
    ) -> Result<Response<pb::Leaderboard>, Status> {
        route_unary!(self, request, get_leaderboard)
    }

    async fn get_rating_history(
        &self,
        request: Request<pb::GetRatingHistoryRequest>,
    ) -> Result<Response<pb::RatingHistory>, Status> {
        route_unary!(self, request, get_rating_history)
    }

    async fn list_ladder_games(
        &self,
        request: Request<pb::ListLadderGamesRequest>,
    ) -> Result<Response<pb::ListLadderGamesResponse>, Status> {
        route_unary!(self, request, list_ladder_games)
    }
}
