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
use tonic::transport::Channel;
use tonic::{Request, Response, Status};

use super::{LadderHub, LadderService, LadderSettings, RoleLease};
use crate::connections::{StreamCap, StreamPermit};
use crate::forward::{Forwarder, copy, relayed, unreached};
use crate::gate::peer_of;
use crate::matches::{Cluster, MatchStore};
use crate::pb;
use crate::pb::ladder_client::LadderClient;
use crate::store::{RoleHolder, Store};

/// The ladder's role in `cluster_roles`.
const ROLE: &str = "ladder";

/// What forwarded calls reach, in their errors.
const LADDER: &str = "the cluster's ladder";

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
    forwarder: Forwarder,
    holding: Mutex<Holding>,
    /// The holder as last read; each change ends the relayed streams.
    holder: watch::Sender<Option<(String, u64)>>,
    /// Held while the role is read and acted on (the ticker and a call may both read it).
    following: tokio::sync::Mutex<()>,
}

impl ClusterLadder {
    /// The ladder of this cluster member, reaching the others through `forwarder`.
    pub fn new(
        settings: LadderSettings,
        matches: MatchStore,
        store: Store,
        cluster: Arc<Cluster>,
        max_bot_ms: u64,
        streams: StreamCap,
        forwarder: Forwarder,
    ) -> Self {
        ClusterLadder(Arc::new(Inner {
            settings,
            matches,
            store,
            cluster,
            max_bot_ms,
            streams,
            forwarder,
            holding: Mutex::new(Holding::Unknown),
            holder: watch::channel(None).0,
            following: tokio::sync::Mutex::new(()),
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
        let _following = self.0.following.lock().await;
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

    /// How a call is served now, or `UNAVAILABLE` when no server is known to run the ladder
    /// (the role is read at once when this server knows of no holder).
    async fn route(&self) -> Result<Route, Status> {
        if matches!(&*self.holding(), Holding::Unknown) {
            self.follow_role().await;
        }
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
        let channel = self.0.forwarder.channel(&address, LADDER)?;
        Ok(Route::There(LadderClient::new(channel)))
    }
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

/// A unary `Ladder` call served here or forwarded to the ladder's server. A forwarded call
/// that does not reach it (the holder died a moment ago) is made once more after the role is
/// read again: the role may have moved.
macro_rules! route_unary {
    ($self:ident, $request:ident, $method:ident) => {
        match $self.route().await? {
            Route::Here(service) => {
                <LadderService as pb::ladder_server::Ladder>::$method(&service, $request).await
            }
            Route::There(mut client) => {
                let again = copy(&$request);
                match client
                    .$method($self.0.forwarder.request($request, Some(FORWARD_TIMEOUT)))
                    .await
                {
                    Ok(reply) => Ok(Response::new(reply.into_inner())),
                    Err(status) if unreached(&status) => {
                        $self.follow_role().await;
                        match $self.route().await? {
                            Route::Here(service) => {
                                <LadderService as pb::ladder_server::Ladder>::$method(
                                    &service, again,
                                )
                                .await
                            }
                            Route::There(mut client) => client
                                .$method($self.0.forwarder.request(again, Some(FORWARD_TIMEOUT)))
                                .await
                                .map(|reply| Response::new(reply.into_inner()))
                                .map_err(|status| relayed(status, LADDER)),
                        }
                    }
                    Err(status) => Err(relayed(status, LADDER)),
                }
            }
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
        // Made once more, after the role is read again, if the holder is not reached.
        let mut tries = 0;
        let (mut upstream, permit, mut holder) = loop {
            tries += 1;
            let mut client = match self.route().await? {
                Route::Here(service) => {
                    return <LadderService as pb::ladder_server::Ladder>::events(&service, request)
                        .await;
                }
                Route::There(client) => client,
            };
            let permit = self.0.streams.open(peer_of(&request))?;
            let mut holder = self.0.holder.subscribe();
            holder.mark_unchanged();
            match client
                .events(self.0.forwarder.request(copy(&request), None))
                .await
            {
                Ok(upstream) => break (upstream.into_inner(), permit, holder),
                Err(status) if unreached(&status) && tries == 1 => {
                    drop(permit);
                    self.follow_role().await;
                    continue;
                }
                Err(status) => return Err(relayed(status, LADDER)),
            }
        };
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
                            let _ = sender.send(Err(relayed(status, LADDER))).await;
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
