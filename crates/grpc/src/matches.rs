//! The Matches service: create a match, join seats with secret tokens, act, view, watch.
//!
//! Bots think on tokio's blocking pool, never on the async workers: `CreateMatch` and `Act`
//! (the requests that make bots move) run the engine inside `spawn_blocking`, holding the
//! match's lock there. An `Act` in a match whose bots cannot think for long (humans and
//! `random` bots only) skips the hop when the match is free: handing the request to another
//! thread and back cost more than the whole move. Requests that only read or join a match take its lock at once when it is free, and
//! otherwise wait for it on the blocking pool too, so a match whose bots are thinking never
//! stalls a worker (and with it health checks and every other match).

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};
use std::task::{Context, Poll};
use std::time::Duration;

use checkraise_core::bots::{BOT_KINDS, BotSpec};
use checkraise_core::make_game;
use tokio::sync::mpsc;
use tokio_stream::Stream;
use tonic::{Request, Response, Status};

use crate::catalog::game_sizes;
use crate::errors::{status_from_argument_error, unknown_match};
use crate::live_match::{ActionChoice, LiveMatch, Seat, SeatKind, ViewParts, random_hex};
use crate::pb;

/// The seat kind that a person or client program plays.
pub const HUMAN: &str = "human";

/// A match in the store: the match behind its lock, and whether any seat is a bot that may
/// think for long (fixed at creation, so readable without the lock).
struct MatchEntry {
    live: Mutex<LiveMatch>,
    thinking_bots: bool,
}

type SharedMatch = Arc<MatchEntry>;

/// Every live match, by id, with the server's limits.
#[derive(Clone)]
pub struct MatchStore {
    matches: Arc<Mutex<HashMap<String, SharedMatch>>>,
    max_matches: usize,
}

impl MatchStore {
    /// An empty store that holds at most `max_matches`.
    pub fn new(max_matches: usize) -> Self {
        MatchStore {
            matches: Arc::default(),
            max_matches,
        }
    }

    fn table(&self) -> MutexGuard<'_, HashMap<String, SharedMatch>> {
        self.matches.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The match with this id (touched: its idle time restarts).
    fn get(&self, match_id: &str) -> Result<SharedMatch, Status> {
        self.table()
            .get(match_id)
            .cloned()
            .ok_or_else(|| unknown_match(match_id))
    }

    fn insert(&self, live: LiveMatch) -> Result<(), Status> {
        let mut table = self.table();
        self.check_room(table.len())?;
        let id = live.id().to_string();
        let entry = MatchEntry {
            thinking_bots: live.has_thinking_bots(),
            live: Mutex::new(live),
        };
        table.insert(id, Arc::new(entry));
        Ok(())
    }

    /// RESOURCE_EXHAUSTED when `live` matches fill the store.
    fn check_room(&self, live: usize) -> Result<(), Status> {
        if live >= self.max_matches {
            return Err(Status::resource_exhausted(format!(
                "the server holds its maximum of {} matches; finish or let some expire",
                self.max_matches
            )));
        }
        Ok(())
    }

    /// Number of live matches.
    pub fn len(&self) -> usize {
        self.table().len()
    }

    /// Whether no match is live.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Removes matches no request has touched for `idle` (`finished` once the game is over);
    /// returns how many.
    pub fn expire_idle(&self, idle: Duration, finished: Duration) -> usize {
        let mut table = self.table();
        let before = table.len();
        table.retain(|id, shared| {
            // A match locked right now is in use, so not idle.
            let Ok(mut live) = shared.live.try_lock() else {
                return true;
            };
            let limit = if live.is_finished() { finished } else { idle };
            let keep = live.last_active().elapsed() < limit;
            if !keep {
                tracing::info!(match_id = %id, "match expired after being idle");
                live.close_watchers(&unknown_match(id));
            }
            keep
        });
        before - table.len()
    }

    /// Ends every watch stream (at shutdown, so that graceful shutdown is not held open by
    /// streams of unfinished matches). It waits for each match's lock, which bots may hold
    /// while they think: call it on the blocking pool.
    pub fn close_all_watchers(&self, why: &Status) {
        let matches: Vec<SharedMatch> = self.table().values().cloned().collect();
        for shared in matches {
            lock(&shared).close_watchers(why);
        }
    }
}

fn lock(shared: &SharedMatch) -> MutexGuard<'_, LiveMatch> {
    shared.live.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `f` on tokio's blocking pool: bots thinking, or waiting for a match's lock while they
/// think, never occupy an async worker.
async fn on_blocking_pool<R, F>(f: F) -> Result<R, Status>
where
    R: Send + 'static,
    F: FnOnce() -> Result<R, Status> + Send + 'static,
{
    tokio::task::spawn_blocking(f).await.map_err(|error| {
        tracing::error!(%error, "a blocking task of the Matches service failed");
        Status::internal(format!("the server failed on this request: {error}"))
    })?
}

/// Runs `f` on the match with its lock held, never blocking an async worker on the lock: at
/// once when the match is free (the common case, with no thread hop), else on the blocking
/// pool, where the request waits for the bots holding the lock to finish.
async fn with_match<R, F>(shared: SharedMatch, f: F) -> Result<R, Status>
where
    R: Send + 'static,
    F: FnOnce(&mut LiveMatch) -> Result<R, Status> + Send + 'static,
{
    let f = match try_with_match(&shared, f) {
        Ok(done) => return done,
        Err(f) => f,
    };
    on_blocking_pool(move || f(&mut lock(&shared))).await
}

/// `f` on the match if its lock is free now; `f` back if bots hold it.
fn try_with_match<R, F>(shared: &SharedMatch, f: F) -> Result<Result<R, Status>, F>
where
    F: FnOnce(&mut LiveMatch) -> Result<R, Status>,
{
    match shared.live.try_lock() {
        Ok(mut live) => Ok(f(&mut live)),
        Err(TryLockError::Poisoned(poisoned)) => Ok(f(&mut poisoned.into_inner())),
        Err(TryLockError::WouldBlock) => Err(f),
    }
}

/// Sets its flag when dropped: a request handler dropped before its blocking work ended (the
/// client cancelled or its deadline passed) tells that work to stop.
struct SetOnDrop(Arc<AtomicBool>);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// The seat token presented in a request's metadata, if any.
fn presented_token<T>(request: &Request<T>) -> Option<String> {
    request
        .metadata()
        .get(crate::SEAT_TOKEN_METADATA)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

/// What a bot spec over the server's cap is told.
const BOT_CAP_NAME: &str = "the server's --max-bot-ms";

/// The Matches service.
pub struct MatchesService {
    store: MatchStore,
    max_bot_ms: u64,
}

impl MatchesService {
    /// A service over a store; bots think at most `max_bot_ms` per move (`--max-bot-ms`).
    pub fn new(store: MatchStore, max_bot_ms: u64) -> Self {
        MatchesService { store, max_bot_ms }
    }

    /// The seats of a new match of `game`: `human`, or a bot spec, capped by `--max-bot-ms`
    /// and reported back canonically.
    fn seats(&self, kinds: Vec<String>) -> Result<Vec<Seat>, Status> {
        kinds
            .into_iter()
            .enumerate()
            .map(|(i, kind_name)| {
                if kind_name == HUMAN {
                    return Ok(Seat {
                        kind_name,
                        kind: SeatKind::Human { token: None },
                    });
                }
                let spec = BotSpec::parse::<&str, &str>(&kind_name, []).map_err(|e| {
                    Status::invalid_argument(format!("seat {i}: {e} (or '{HUMAN}' for a person)"))
                })?;
                let spec = spec
                    .capped(self.max_bot_ms, BOT_CAP_NAME)
                    .map_err(|e| Status::invalid_argument(format!("seat {i}: {e}")))?;
                let bot = spec.build();
                Ok(Seat {
                    kind_name: spec.to_string(),
                    kind: SeatKind::Bot(bot),
                })
            })
            .collect()
    }

    /// Runs `f` on the match with its lock held, after checking the seat's token (see
    /// `with_match`: for requests that make no bot move).
    async fn with_seat<R, F>(
        &self,
        match_id: &str,
        seat: u32,
        token: Option<String>,
        f: F,
    ) -> Result<R, Status>
    where
        R: Send + 'static,
        F: FnOnce(&mut LiveMatch, usize) -> Result<R, Status> + Send + 'static,
    {
        let shared = self.store.get(match_id)?;
        with_match(shared, move |live| {
            live.touch();
            let seat = live.authorize(seat, token.as_deref())?;
            f(live, seat)
        })
        .await
    }
}

type EventStream = Pin<Box<dyn Stream<Item = Result<pb::MatchEvent, Status>> + Send>>;

#[tonic::async_trait]
impl pb::matches_server::Matches for MatchesService {
    async fn create_match(
        &self,
        request: Request<pb::CreateMatchRequest>,
    ) -> Result<Response<pb::CreateMatchResponse>, Status> {
        let request = request.into_inner();
        let game = make_game(&request.game, &request.parameters)
            .map_err(|e| status_from_argument_error(&e))?;
        let players = game.num_players();
        let kinds: Vec<String> = if request.seats.is_empty() {
            vec![HUMAN.to_string(); players]
        } else {
            request.seats.clone()
        };
        if kinds.len() != players {
            return Err(Status::invalid_argument(format!(
                "seats lists {} kinds but this game has {players} seats; give one per seat \
                 ('{HUMAN}' or a bot spec: {}, with settings as in \
                 'ismcts(iterations=500)'), or none for all human",
                kinds.len(),
                BOT_KINDS.join(", ")
            )));
        }
        let seats = self.seats(kinds)?;
        // Refuse before the bots play, not after (an all-bot match plays to the end here).
        self.store.check_room(self.store.len())?;
        let seed = match request.seed {
            Some(seed) => seed,
            None => u64::from_str_radix(&random_hex(8), 16).expect("16 hex digits"),
        };
        let id = random_hex(16);
        // Bots play up to the first human decision on the blocking pool; if this request is
        // dropped meanwhile (cancelled, past its deadline), they stop before their next move.
        let abandoned = Arc::new(AtomicBool::new(false));
        let _abandon_on_drop = SetOnDrop(abandoned.clone());
        let live = {
            let (id, game) = (id.clone(), game.clone());
            on_blocking_pool(move || LiveMatch::new_unless(id, game, seed, seats, &abandoned))
                .await?
        };
        let response = pb::CreateMatchResponse {
            match_id: id.clone(),
            seed,
            sizes: Some(game_sizes(game.as_ref())),
            seats: live.seat_statuses(),
        };
        self.store.insert(live)?;
        tracing::info!(match_id = %id, game = %request.game, seed, "match created");
        Ok(Response::new(response))
    }

    async fn join_seat(
        &self,
        request: Request<pb::JoinSeatRequest>,
    ) -> Result<Response<pb::JoinSeatResponse>, Status> {
        let request = request.into_inner();
        let shared = self.store.get(&request.match_id)?;
        let seat_token = random_hex(32);
        let token = seat_token.clone();
        let seat = with_match(shared, move |live| {
            live.touch();
            live.join(request.seat, token)
        })
        .await?;
        tracing::info!(match_id = %request.match_id, seat, "seat joined");
        Ok(Response::new(pb::JoinSeatResponse {
            seat: seat as u32,
            seat_token,
        }))
    }

    async fn get_view(
        &self,
        request: Request<pb::GetViewRequest>,
    ) -> Result<Response<pb::SeatView>, Status> {
        let token = presented_token(&request);
        let request = request.into_inner();
        let parts = ViewParts::from_options(request.view_options.as_ref());
        self.with_seat(&request.match_id, request.seat, token, move |live, seat| {
            Ok(live.view_parts(Some(seat), parts))
        })
        .await
        .map(Response::new)
    }

    async fn act(
        &self,
        request: Request<pb::ActRequest>,
    ) -> Result<Response<pb::SeatView>, Status> {
        let token = presented_token(&request);
        let request = request.into_inner();
        let choice = match request.action {
            Some(pb::act_request::Action::ActionId(id)) => ActionChoice::Id(id),
            Some(pb::act_request::Action::ActionText(text)) => ActionChoice::Text(text),
            None => {
                return Err(Status::invalid_argument(
                    "an action is needed: set action_id or action_text",
                ));
            }
        };
        let parts = ViewParts::from_options(request.view_options.as_ref());
        let shared = self.store.get(&request.match_id)?;
        let act = move |live: &mut LiveMatch| {
            live.touch();
            let seat = live.authorize(request.seat, token.as_deref())?;
            live.act(seat, choice)?;
            // The bots' moves may have taken long: idle time counts from the reply.
            live.touch();
            Ok(live.view_parts(Some(seat), parts))
        };
        let view = if shared.thinking_bots {
            // Bots reply on the blocking pool, the match locked until a human must decide.
            on_blocking_pool(move || act(&mut lock(&shared))).await?
        } else {
            // Humans and random bots only: nothing that thinks for long, so no thread hop
            // when the match is free.
            with_match(shared, act).await?
        };
        Ok(Response::new(view))
    }

    async fn get_spectator_view(
        &self,
        request: Request<pb::GetSpectatorViewRequest>,
    ) -> Result<Response<pb::SeatView>, Status> {
        let request = request.into_inner();
        let shared = self.store.get(&request.match_id)?;
        with_match(shared, |live| {
            live.touch();
            Ok(live.view(None))
        })
        .await
        .map(Response::new)
    }

    type WatchSeatStream = EventStream;

    async fn watch_seat(
        &self,
        request: Request<pb::WatchSeatRequest>,
    ) -> Result<Response<EventStream>, Status> {
        let token = presented_token(&request);
        let request = request.into_inner();
        let parts = ViewParts::from_options(request.view_options.as_ref());
        let (events, lagged) = self
            .with_seat(&request.match_id, request.seat, token, move |live, seat| {
                Ok(live.watch_parts(Some(seat), parts))
            })
            .await?;
        Ok(Response::new(Box::pin(WatchStream::new(events, lagged))))
    }

    type WatchSpectatorStream = EventStream;

    async fn watch_spectator(
        &self,
        request: Request<pb::WatchSpectatorRequest>,
    ) -> Result<Response<EventStream>, Status> {
        let request = request.into_inner();
        let shared = self.store.get(&request.match_id)?;
        let (events, lagged) = with_match(shared, |live| {
            live.touch();
            Ok(live.watch(None))
        })
        .await?;
        Ok(Response::new(Box::pin(WatchStream::new(events, lagged))))
    }
}

/// A watcher's events; a watcher that fell too far behind gets RESOURCE_EXHAUSTED at the end.
struct WatchStream {
    events: mpsc::Receiver<Result<pb::MatchEvent, Status>>,
    lagged: Arc<AtomicBool>,
    finished: bool,
}

impl WatchStream {
    fn new(
        events: mpsc::Receiver<Result<pb::MatchEvent, Status>>,
        lagged: Arc<AtomicBool>,
    ) -> Self {
        WatchStream {
            events,
            lagged,
            finished: false,
        }
    }
}

impl Stream for WatchStream {
    type Item = Result<pb::MatchEvent, Status>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.finished {
            return Poll::Ready(None);
        }
        match self.events.poll_recv(cx) {
            Poll::Ready(None) => {
                self.finished = true;
                if self.lagged.load(Ordering::Relaxed) {
                    Poll::Ready(Some(Err(Status::resource_exhausted(format!(
                        "this watcher fell more than {} events behind and was cut off; \
                         watch again to resume from the current view",
                        crate::live_match::WATCH_BUFFER
                    )))))
                } else {
                    Poll::Ready(None)
                }
            }
            other => other,
        }
    }
}
