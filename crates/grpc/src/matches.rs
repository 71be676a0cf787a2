//! The Matches service: create a match, join seats with secret tokens, act, view, watch.
//!
//! Bots think on tokio's blocking pool, never on the async workers: `CreateMatch` and `Act`
//! (the requests that make bots move) run the engine inside `spawn_blocking`, holding the
//! match's lock there. An `Act` in a match whose bots cannot think for long (humans and
//! `random` bots only) skips the hop when the match is free: handing the request to another
//! thread and back cost more than the whole move. Requests that only read or join a match take its lock at once when it is free, and
//! otherwise wait for it on the blocking pool too, so a match whose bots are thinking never
//! stalls a worker (and with it health checks and every other match).

use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use checkraise_core::bots::{BOT_KINDS, BotSpec};
use checkraise_core::table::SeatRules;
use checkraise_core::{Game, make_game};
use tokio::sync::watch;
use tokio_stream::Stream;
use tonic::{Request, Response, Status};

use crate::auth::{random_hex, token_for_request};
use crate::catalog::game_sizes;
use crate::connections::{StreamCap, StreamPermit};
use crate::errors::{page_size, status_from_argument_error, unknown_match};
use crate::live_match::{
    ActOutcome, ActionChoice, Backlog, EventQueue, LiveMatch, MatchError, MatchSeed, REPLY_SLACK,
    Seat, SeatKind, StoredGameError, ViewParts, stored_game,
};
use crate::pb;
use crate::replay::{ReplayPage, replay, stored_status, summary};
use crate::sessions::{Activity, Expiry, Limits, Over, Refusal, Reservation, Sessions, Weight};
use crate::store::{
    Durability, MatchFilter, Status as Stored, Store, StoreError, StoredMatch, now_ms,
};

/// The seat kind that a person or client program plays.
pub const HUMAN: &str = "human";

/// A match in the store: the match behind its lock, and whether any seat is a bot that may
/// think for long (fixed at creation, so readable without the lock).
struct MatchEntry {
    live: Mutex<LiveMatch>,
    thinking_bots: bool,
}

type SharedMatch = Arc<MatchEntry>;

/// What a reply must wait for before it is sent: the match's writes up to `seq` committed
/// (nothing with no store).
pub struct Durable(Option<(watch::Receiver<Durability>, u64)>);

/// Every live match, by id, with the server's limits (the engine's session store: each match
/// counts one unit, against `--max-matches` and `--max-matches-per-peer`), and the durable store
/// behind them (none with `--database memory`).
#[derive(Clone)]
pub struct MatchStore {
    matches: Sessions<SharedMatch>,
    store: Option<Store>,
    finished_expiry: Duration,
    /// `--max-message-size`: views larger than it (less `REPLY_SLACK`) leave parts out, and
    /// CreateMatch refuses a match whose whole views already are.
    message_limit: usize,
    /// Finished ladder games whose duplicate set is still being played (`StoredMatch::sealed`).
    sealed: Arc<Mutex<std::collections::HashSet<String>>>,
}

impl MatchStore {
    /// An empty store that holds at most `max_matches`, in memory only.
    pub fn new(max_matches: usize) -> Self {
        Self::with_store(max_matches, None, Duration::ZERO)
    }

    /// An empty store that holds at most `max_matches` and stores them in `store`; a finished
    /// match is read back from it while no request has touched it for `finished_expiry` (so a
    /// retry of the call that ended the game finds it after a restart).
    pub fn with_store(max_matches: usize, store: Option<Store>, finished_expiry: Duration) -> Self {
        MatchStore {
            matches: Sessions::new(Limits::units(max_matches)),
            store,
            finished_expiry,
            message_limit: usize::MAX,
            sealed: Arc::default(),
        }
    }

    /// This store holding at most `matches` created from one client address
    /// (`--max-matches-per-peer`), so that one client cannot fill `--max-matches` alone.
    pub fn with_peer_share(self, matches: usize) -> Self {
        let mut limits = self.matches.limits();
        limits.per_peer.units = matches;
        self.matches.set_limits(limits);
        self
    }

    /// This store with every match's views capped by `bytes` (`--max-message-size`).
    pub fn with_message_limit(mut self, bytes: usize) -> Self {
        self.message_limit = bytes;
        self
    }

    /// The match with this id: in memory, or else (with a store) a live match, or a finished
    /// one not yet expired, read back from the store and resumed.
    async fn get(&self, match_id: &str) -> Result<SharedMatch, Status> {
        if let Some(shared) = self.matches.get(match_id) {
            return Ok(shared);
        }
        let Some(store) = &self.store else {
            return Err(unknown_match(match_id));
        };
        let stored = store
            .load(match_id)
            .await
            .map_err(Status::from)?
            .filter(|m| match m.status {
                Stored::Live => true,
                Stored::Finished => {
                    now_ms().saturating_sub(m.touched_ms) < self.finished_expiry.as_millis() as i64
                }
                Stored::Expired => false,
            })
            .ok_or_else(|| unknown_match(match_id))?;
        self.resume(stored).await.map_err(|e| {
            tracing::error!(%match_id, error = %e, "a stored match cannot be resumed");
            Status::unavailable(format!(
                "match '{match_id}' is stored but cannot be resumed: {e}"
            ))
        })?;
        self.matches
            .get(match_id)
            .ok_or_else(|| unknown_match(match_id))
    }

    /// Resumes every live match of the store (at start); returns how many.
    pub async fn resume_all(&self) -> Result<usize, StoreError> {
        let Some(store) = &self.store else {
            return Ok(0);
        };
        let stored = store.matches_with_status(Stored::Live).await?;
        let mut resumed = 0;
        for m in stored {
            let id = m.id.clone();
            match self.resume(m).await {
                Ok(()) => resumed += 1,
                Err(error) => {
                    tracing::error!(match_id = %id, %error, "a stored match cannot be resumed")
                }
            }
        }
        Ok(resumed)
    }

    /// Makes a stored match live again: its history replayed, then its bots let act if it is
    /// their turn (on the blocking pool), what they did stored.
    async fn resume(&self, stored: StoredMatch) -> Result<(), ResumeError> {
        let game = stored_game(&stored.row)?;
        let kinds: Vec<String> =
            serde_json::from_str(&stored.row.seats).map_err(ResumeError::Seats)?;
        let seats = build_seats(game.as_ref(), kinds, None).map_err(ResumeError::Refused)?;
        let this = self.clone();
        let (durable, id) = on_blocking_pool(move || {
            let mut live = LiveMatch::restore(game, &stored, seats).map_err(MatchError::from)?;
            live.limit_views(this.message_limit);
            live.resume_bots()?;
            let durable = this.persist(&mut live);
            let id = live.id().to_string();
            this.matches.restore(&id, Weight::units(1), || {
                Arc::new(MatchEntry {
                    thinking_bots: live.has_thinking_bots(),
                    live: Mutex::new(live),
                })
            });
            Ok((durable, id))
        })
        .await
        .map_err(ResumeError::Refused)?;
        self.durable(&id, durable)
            .await
            .map_err(ResumeError::Refused)
    }

    /// Queues the match's change since its last write (with a store), and says what a reply
    /// showing the match now must wait for. Call it with the match locked.
    fn persist(&self, live: &mut LiveMatch) -> Durable {
        let Some(store) = &self.store else {
            return Durable(None);
        };
        if let Some(write) = live.take_write() {
            store.send(write);
        }
        Durable(Some(live.durable_point()))
    }

    /// Waits until the writes a reply depends on are committed. If one failed, the match is
    /// dropped from memory (the next request reads it back from the store, as it was last
    /// stored) and the caller gets UNAVAILABLE.
    async fn durable(&self, match_id: &str, durable: Durable) -> Result<(), Status> {
        let Durable(Some((mut watch, seq))) = durable else {
            return Ok(());
        };
        let failed = match watch
            .wait_for(|d| d.committed >= seq || d.failed.is_some())
            .await
        {
            Ok(d) if d.committed >= seq => return Ok(()),
            Ok(d) => d.failed.clone().unwrap_or_default(),
            Err(_) => "the store's writer has stopped".to_string(),
        };
        if let Some(shared) = self.matches.remove(match_id)
            && let Ok(mut live) = shared.live.try_lock()
        {
            live.close_watchers(&MatchError::NotStored);
        }
        Err(Status::unavailable(format!(
            "the change to match '{match_id}' could not be stored ({failed}); it is undone: \
             read the match again and retry"
        )))
    }

    /// Runs `f` on the match with its lock held (on the blocking pool when `blocking`, else
    /// as `with_match` does), stores what it changed, and answers once that is committed.
    async fn run<R, F>(&self, shared: SharedMatch, blocking: bool, f: F) -> Result<R, Status>
    where
        R: Send + 'static,
        F: FnOnce(&mut LiveMatch) -> Result<R, Status> + Send + 'static,
    {
        let this = self.clone();
        let work = move |live: &mut LiveMatch| {
            let result = f(live);
            let id = live.id().to_string();
            Ok((result, this.persist(live), id))
        };
        let (result, durable, id) = if blocking {
            on_blocking_pool(move || work(&mut lock(&shared))).await?
        } else {
            with_match(shared, work).await?
        };
        self.durable(&id, durable).await?;
        result
    }

    /// Adds a new match in the room reserved for it (`reserve_new`), stored before anyone can
    /// know its id, and answers once it is committed.
    pub async fn store_new(&self, mut live: LiveMatch, room: MatchRoom) -> Result<(), Status> {
        let MatchRoom(room) = room;
        live.limit_views(self.message_limit);
        let id = live.id().to_string();
        let durable = self.persist(&mut live);
        let entry = MatchEntry {
            thinking_bots: live.has_thinking_bots(),
            live: Mutex::new(live),
        };
        room.keep(id.clone(), Arc::new(entry));
        self.durable(&id, durable).await
    }

    /// Room for a new match made by the client at `peer`, held until the match is stored or
    /// the reservation dropped; RESOURCE_EXHAUSTED when the store is full, or the client has
    /// its share.
    pub fn reserve_new(&self, peer: Option<IpAddr>) -> Result<MatchRoom, Status> {
        self.matches
            .reserve(peer, Weight::units(1))
            .map(MatchRoom)
            .map_err(full)
    }

    /// Keeps a match's seed and cards hidden after its end, as a live match's are, until
    /// `unseal` (a ladder game whose deal a game still to be played shares).
    pub fn seal(&self, match_id: &str) {
        self.sealed_ids().insert(match_id.to_string());
    }

    /// Undoes `seal`: the finished match is revealed as any other.
    pub fn unseal(&self, match_id: &str) {
        self.sealed_ids().remove(match_id);
    }

    fn sealed_ids(&self) -> MutexGuard<'_, std::collections::HashSet<String>> {
        self.sealed.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `m` marked sealed if it is.
    fn marked(&self, mut m: StoredMatch) -> StoredMatch {
        m.sealed = self.sealed_ids().contains(&m.id);
        m
    }

    /// Runs `f` on the match `match_id` with its lock held (on the blocking pool when
    /// `blocking`: the bots may think), stores what it changed, and answers once that is
    /// committed: how the server itself plays a match (the ladder).
    pub async fn with_live<R, F>(&self, match_id: &str, blocking: bool, f: F) -> Result<R, Status>
    where
        R: Send + 'static,
        F: FnOnce(&mut LiveMatch) -> Result<R, Status> + Send + 'static,
    {
        let shared = self.get(match_id).await?;
        self.run(shared, blocking, f).await
    }

    /// Ends a match that will not be played on (a ladder game left unfinished by a restart):
    /// stored as expired and removed from memory. A match not in memory is left as it is.
    pub async fn expire_now(&self, match_id: &str) -> Result<(), Status> {
        let Some(shared) = self.matches.remove(match_id) else {
            return Ok(());
        };
        let this = self.clone();
        let id = match_id.to_string();
        let durable = on_blocking_pool(move || {
            let mut live = lock(&shared);
            live.close_watchers(&MatchError::NotFound { match_id: id });
            if !live.is_finished() {
                live.expire();
            }
            Ok(this.persist(&mut live))
        })
        .await?;
        self.durable(match_id, durable).await
    }

    /// Number of live matches.
    pub fn len(&self) -> usize {
        self.matches.len()
    }

    /// Whether no match is live.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Removes the matches the expiry policy does not keep (no request for `expiry.idle`, or
    /// `expiry.finished` once the game is over); returns how many. With a store, an unfinished
    /// match removed is stored as expired. (The time of a match's last request is not stored,
    /// since a request such as a hidden choice must leave no trace anyone can read: after a
    /// restart, idle expiry counts from the match's last public change.)
    pub fn expire_idle(&self, expiry: Expiry) -> usize {
        let now = Instant::now();
        self.matches.retain(|id, shared| {
            // A match locked right now is in use, so not idle.
            let Ok(mut live) = shared.live.try_lock() else {
                return true;
            };
            let activity = Activity::Idle {
                since: live.last_active(),
                finished: live.is_finished(),
            };
            let keep = expiry.keeps(activity, now);
            if !keep {
                tracing::info!(match_id = %id, "match expired after being idle");
                live.close_watchers(&MatchError::NotFound {
                    match_id: id.to_string(),
                });
                if !live.is_finished() {
                    live.expire();
                }
                let _ = self.persist(&mut live);
            }
            keep
        })
    }

    /// Ends every watch stream (at shutdown, so that graceful shutdown is not held open by
    /// streams of unfinished matches). It waits for each match's lock, which bots may hold
    /// while they think: call it on the blocking pool.
    pub fn close_all_watchers(&self, why: &MatchError) {
        for (_, shared) in self.matches.entries() {
            lock(&shared).close_watchers(why);
        }
    }

    /// Stores whatever each match has not stored yet and waits until every write is committed
    /// (at shutdown, before the store closes).
    pub async fn store_all(&self) {
        let matches = self.matches.entries();
        let this = self.clone();
        let pending = on_blocking_pool(move || {
            Ok(matches
                .into_iter()
                .map(|(id, shared)| (id, this.persist(&mut lock(&shared))))
                .collect::<Vec<_>>())
        })
        .await
        .unwrap_or_default();
        for (id, durable) in pending {
            let _ = self.durable(&id, durable).await;
        }
    }
}

/// Why a stored match cannot be made live again (what follows "cannot be resumed: ").
#[derive(Debug, thiserror::Error)]
enum ResumeError {
    /// Its game cannot be made again.
    #[error(transparent)]
    Game(#[from] StoredGameError),
    /// Its seats are not the JSON array of seat kinds the store writes.
    #[error("its seats do not read: {0}")]
    Seats(#[source] serde_json::Error),
    /// Refused on the way: its seats, its replay, its bots or storing it (the status's
    /// message).
    #[error("{}", .0.message())]
    Refused(Status),
}

/// Room reserved in the store for a match being made (`MatchStore::reserve_new`); dropped
/// unused, it is freed.
#[must_use = "dropping the room frees it"]
pub struct MatchRoom(Reservation<SharedMatch>);

/// What a match refused for room is told (RESOURCE_EXHAUSTED).
fn full(refusal: Refusal) -> Status {
    Status::resource_exhausted(match refusal.over {
        Over::PeerUnits(peer) => format!(
            "this client address ({peer}) holds {} matches, its most (--max-matches-per-peer); \
             finish or let some expire",
            refusal.held
        ),
        _ => format!(
            "the server holds its maximum of {} matches; finish or let some expire",
            refusal.most
        ),
    })
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

/// The parts of a seat's view a request's options ask for (all of them without options).
fn view_parts(options: Option<&pb::ViewOptions>) -> ViewParts {
    match options {
        None => ViewParts::ALL,
        Some(o) => ViewParts {
            view_json: !o.omit_view_json,
            observation: !o.omit_observation,
            observation_text: !o.omit_observation_text,
            action_texts: !o.omit_action_texts,
            sample_state: o.with_sample_state,
        },
    }
}

/// The seat token presented in a request's metadata, if any.
fn presented_token<T>(request: &Request<T>) -> Option<String> {
    metadata_text(request, crate::SEAT_TOKEN_METADATA)
}

/// A request's metadata value under `key` as text (a token), if there is one.
pub(crate) fn metadata_text<T>(request: &Request<T>, key: &str) -> Option<String> {
    request
        .metadata()
        .get(key)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

/// The shortest and longest `JoinSeatRequest.request_id` (a random UUID has 36 characters).
const MIN_REQUEST_ID: usize = 16;
const MAX_REQUEST_ID: usize = 256;

/// What a bot spec over the server's cap is told.
const BOT_CAP_NAME: &str = "the server's --max-bot-ms";

/// How the server takes seat specs: `human` seats a person, search is capped at `cap_ms` per
/// move, and no spec names a file (a client must not make the server read a file of its
/// choosing; the shipped policies, bot spec `policy`, are served).
pub fn seat_rules(cap_ms: u64) -> SeatRules {
    SeatRules::served(cap_ms, BOT_CAP_NAME)
}

/// The seats of a match of `game`: `human`, or a bot spec, capped by `--max-bot-ms` when `cap`
/// is given (a new match; a stored one keeps the specs it was created with) and reported back
/// canonically, by the server's `seat_rules`. A policy bot plays the policy the server ships for
/// the game; a client cannot name a file on the server (`policy(path=...)` is refused).
pub fn build_seats(
    game: &dyn Game,
    kinds: Vec<String>,
    cap: Option<u64>,
) -> Result<Vec<Seat>, Status> {
    let rules = SeatRules {
        cap: cap.map(|ms| (ms, BOT_CAP_NAME)),
        ..seat_rules(0)
    };
    let seats = rules
        .seats(game, kinds.iter().map(|k| Some(k.as_str())))
        .map_err(|(i, e)| {
            // A spec that does not parse may have meant a person.
            let person = if BotSpec::parse::<&str, &str>(&kinds[i], []).is_err() {
                format!(" (or '{HUMAN}' for a person)")
            } else {
                String::new()
            };
            Status::invalid_argument(format!("seat {i}: {e}{person}"))
        })?;
    Ok(seats
        .into_iter()
        .map(|seat| Seat {
            connected: false,
            kind_name: rules.text(&seat.spec).unwrap_or_else(|| HUMAN.to_string()),
            kind: match seat.bot {
                Some(bot) => SeatKind::Bot(bot),
                None => SeatKind::Human { token_hash: None },
            },
        })
        .collect())
}

/// The Matches service.
pub struct MatchesService {
    store: MatchStore,
    max_bot_ms: u64,
    watch_bytes: usize,
    streams: StreamCap,
}

impl MatchesService {
    /// A service over a store; bots think at most `max_bot_ms` per move (`--max-bot-ms`).
    pub fn new(store: MatchStore, max_bot_ms: u64) -> Self {
        MatchesService {
            store,
            max_bot_ms,
            watch_bytes: crate::live_match::WATCH_BYTES,
            streams: StreamCap::default(),
        }
    }

    /// This service with its watch streams counted under `streams` (`--max-streams`).
    pub fn with_stream_cap(mut self, streams: StreamCap) -> Self {
        self.streams = streams;
        self
    }

    /// This service with watchers cut off once `bytes` of events wait for them
    /// (`--watch-buffer-kib`).
    pub fn with_watch_bytes(mut self, bytes: usize) -> Self {
        self.watch_bytes = bytes;
        self
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
        let shared = self.store.get(match_id).await?;
        self.store
            .run(shared, false, move |live| {
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
        let peer = request.remote_addr().map(|address| address.ip());
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
        let seats = build_seats(game.as_ref(), kinds, Some(self.max_bot_ms))?;
        // Room is reserved before the bots play (an all-bot match plays to the end here), so
        // that a full server refuses at once and a match whose bots played is never refused.
        let room = self.store.reserve_new(peer)?;
        // A seed gives away every hidden card: a drawn one stays secret until the match is
        // over, and a chosen one is announced in every view (`chosen_seed`).
        let seed = MatchSeed::chosen_or_secret(request.seed);
        let id = random_hex(16);
        // Bots play up to the first human decision on the blocking pool; if this request is
        // dropped meanwhile (cancelled, past its deadline), they stop before their next move.
        let abandoned = Arc::new(AtomicBool::new(false));
        let _abandon_on_drop = SetOnDrop(abandoned.clone());
        let limit = self.store.message_limit;
        let live = {
            let (id, game) = (id.clone(), game.clone());
            on_blocking_pool(move || {
                let live = LiveMatch::new_unless(id, game, seed, seats, &abandoned)?;
                // A match whose whole views cannot be sent now is refused before anyone sees
                // it (later growth past the limit leaves parts out: `limit_views`).
                let largest = live.largest_view_bytes();
                if largest.saturating_add(REPLY_SLACK) > limit {
                    return Err(Status::invalid_argument(format!(
                        "with these parameters a view of this match is {largest} bytes, and \
                         this server sends at most {limit} bytes a message \
                         (--max-message-size, less {REPLY_SLACK} for the rest of a reply): \
                         choose smaller parameters"
                    )));
                }
                Ok(live)
            })
            .await?
        };
        let response = pb::CreateMatchResponse {
            match_id: id.clone(),
            seed: if seed.chosen { seed.seed } else { 0 },
            sizes: Some(game_sizes(game.as_ref())),
            seats: live.seat_statuses(),
        };
        self.store.store_new(live, room).await?;
        tracing::info!(match_id = %id, game = %request.game, chosen_seed = seed.chosen, "match created");
        Ok(Response::new(response))
    }

    async fn join_seat(
        &self,
        request: Request<pb::JoinSeatRequest>,
    ) -> Result<Response<pb::JoinSeatResponse>, Status> {
        let request = request.into_inner();
        let request_id = request.request_id.trim().to_string();
        if !request_id.is_empty() && !(MIN_REQUEST_ID..=MAX_REQUEST_ID).contains(&request_id.len())
        {
            return Err(Status::invalid_argument(format!(
                "request_id must be {MIN_REQUEST_ID} to {MAX_REQUEST_ID} characters (a random \
                 UUID, say: repeating it returns the seat's token), not {}",
                request_id.len()
            )));
        }
        let shared = self.store.get(&request.match_id).await?;
        let random = random_hex(32);
        let match_id = request.match_id.clone();
        let token = move |seat: usize| {
            if request_id.is_empty() {
                random.clone()
            } else {
                token_for_request(&match_id, seat, &request_id)
            }
        };
        let repeatable = !request.request_id.trim().is_empty();
        let (seat, repeated, seat_token) = self
            .store
            .run(shared, false, move |live| {
                live.touch();
                let (seat, repeated) = live.join_with(request.seat, &token, repeatable)?;
                Ok((seat, repeated, token(seat)))
            })
            .await?;
        tracing::info!(match_id = %request.match_id, seat, repeated, "seat joined");
        Ok(Response::new(pb::JoinSeatResponse {
            seat: seat as u32,
            seat_token,
            repeated,
        }))
    }

    async fn get_view(
        &self,
        request: Request<pb::GetViewRequest>,
    ) -> Result<Response<pb::SeatView>, Status> {
        let token = presented_token(&request);
        let request = request.into_inner();
        let parts = view_parts(request.view_options.as_ref());
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
        let parts = view_parts(request.view_options.as_ref());
        let expected = request.expected_version;
        let shared = self.store.get(&request.match_id).await?;
        let store = self.store.clone();
        let act = move |live: &mut LiveMatch| {
            live.touch();
            let seat = live.authorize(request.seat, token.as_deref())?;
            let outcome = live.act_expecting(seat, choice, expected)?;
            // The bots' moves may have taken long: idle time counts from the reply.
            live.touch();
            // Queued now, the change is committed while the view is built (`run` then finds
            // nothing new to queue, and waits for this write).
            store.persist(live);
            let mut view = live.view_parts(Some(seat), parts);
            view.act_status = match outcome {
                ActOutcome::Applied => pb::ActStatus::Applied,
                ActOutcome::AlreadyApplied => pb::ActStatus::AlreadyApplied,
            } as i32;
            Ok(view)
        };
        // With thinking bots, on the blocking pool, the match locked until a human must
        // decide; humans and random bots only: nothing that thinks for long, so no thread hop
        // when the match is free.
        let blocking = shared.thinking_bots;
        let view = self.store.run(shared, blocking, act).await?;
        Ok(Response::new(view))
    }

    async fn get_spectator_view(
        &self,
        request: Request<pb::GetSpectatorViewRequest>,
    ) -> Result<Response<pb::SeatView>, Status> {
        let request = request.into_inner();
        let shared = self.store.get(&request.match_id).await?;
        self.store
            .run(shared, false, |live| {
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
        let parts = view_parts(request.view_options.as_ref());
        let budget = self.watch_bytes;
        let permit = self.streams.open()?;
        let (events, lagged) = self
            .with_seat(&request.match_id, request.seat, token, move |live, seat| {
                Ok(live.watch_parts(Some(seat), parts, budget, request.presence))
            })
            .await?;
        Ok(Response::new(Box::pin(WatchStream::for_seat(
            events,
            lagged,
            permit,
            self.store.clone(),
            request.match_id,
        ))))
    }

    async fn list_matches(
        &self,
        request: Request<pb::ListMatchesRequest>,
    ) -> Result<Response<pb::ListMatchesResponse>, Status> {
        let filter = list_filter(request.get_ref())?;
        let limit = filter.limit;
        let listed = self.store.list(filter).await?;
        let next_page_token = match listed.last() {
            Some(last) if listed.len() == limit => format!("{}:{}", last.row.created_ms, last.id),
            _ => String::new(),
        };
        Ok(Response::new(pb::ListMatchesResponse {
            matches: listed.iter().map(summary).collect(),
            next_page_token,
        }))
    }

    async fn get_replay(
        &self,
        request: Request<pb::GetReplayRequest>,
    ) -> Result<Response<pb::Replay>, Status> {
        let page = ReplayPage::from_request(
            request.get_ref(),
            self.store.message_limit.saturating_sub(REPLY_SLACK),
        )?;
        let stored = self.store.stored(&request.get_ref().match_id).await?;
        on_blocking_pool(move || replay(&stored, page))
            .await
            .map(Response::new)
    }

    type WatchSpectatorStream = EventStream;

    async fn watch_spectator(
        &self,
        request: Request<pb::WatchSpectatorRequest>,
    ) -> Result<Response<EventStream>, Status> {
        let request = request.into_inner();
        let shared = self.store.get(&request.match_id).await?;
        let budget = self.watch_bytes;
        let permit = self.streams.open()?;
        let (events, lagged) = self
            .store
            .run(shared, false, move |live| {
                live.touch();
                Ok(live.watch_parts(None, ViewParts::ALL, budget, request.presence))
            })
            .await?;
        Ok(Response::new(Box::pin(WatchStream::new(
            events, lagged, permit,
        ))))
    }
}

/// Most matches in one ListMatches reply, and the number when the request names none.
const MAX_PAGE: u32 = 1000;
const DEFAULT_PAGE: u32 = 100;

impl MatchStore {
    /// The matches `filter` admits, in the listing's order: from the store, or without one
    /// from memory.
    async fn list(&self, filter: MatchFilter) -> Result<Vec<StoredMatch>, Status> {
        if let Some(store) = &self.store {
            return store
                .list(&filter)
                .await
                .map(|listed| listed.into_iter().map(|m| self.marked(m)).collect())
                .map_err(Status::from);
        }
        let shared: Vec<SharedMatch> = self.matches.entries().into_iter().map(|(_, m)| m).collect();
        on_blocking_pool(move || {
            let mut listed: Vec<StoredMatch> = shared
                .iter()
                .map(|m| lock(m).snapshot())
                .filter(|m| filter.admits(m))
                .collect();
            listed.sort_by(|a, b| (a.row.created_ms, &a.id).cmp(&(b.row.created_ms, &b.id)));
            listed.truncate(filter.limit);
            Ok(listed)
        })
        .await
        .map(|listed| listed.into_iter().map(|m| self.marked(m)).collect())
    }

    /// A match as stored (from memory when it is there, which is newer), for a replay.
    async fn stored(&self, match_id: &str) -> Result<StoredMatch, Status> {
        let in_memory = self.matches.get(match_id);
        if let Some(shared) = in_memory {
            return with_match(shared, |live| {
                // Reading a replay is a request like any other: the match stays while it is read.
                live.touch();
                Ok(live.snapshot())
            })
            .await
            .map(|m| self.marked(m));
        }
        match &self.store {
            Some(store) => store
                .load(match_id)
                .await
                .map_err(Status::from)?
                .map(|m| self.marked(m))
                .ok_or_else(|| unknown_match(match_id)),
            None => Err(unknown_match(match_id)),
        }
    }
}

/// The filter of a ListMatches request, with its page token read.
fn list_filter(request: &pb::ListMatchesRequest) -> Result<MatchFilter, Status> {
    let limit = page_size(request.page_size, DEFAULT_PAGE, MAX_PAGE)?;
    let after = if request.page_token.is_empty() {
        None
    } else {
        let bad = || {
            Status::invalid_argument(
                "page_token is not one this server gave (pass next_page_token as it came)",
            )
        };
        let (ms, id) = request.page_token.split_once(':').ok_or_else(bad)?;
        Some((ms.parse().map_err(|_| bad())?, id.to_string()))
    };
    let status = pb::MatchStatus::try_from(request.status).map_err(|_| {
        Status::invalid_argument(format!("status {} is not a MatchStatus", request.status))
    })?;
    Ok(MatchFilter {
        game: (!request.game.is_empty()).then(|| request.game.clone()),
        status: stored_status(status),
        created_after_ms: request.created_after_ms,
        created_before_ms: request.created_before_ms,
        after,
        limit: limit as usize,
    })
}

/// A watcher's events; a watcher that fell too far behind gets RESOURCE_EXHAUSTED at the end.
struct WatchStream {
    /// The watcher's queue; dropped (freeing what it holds) as soon as the watcher is found
    /// cut off.
    events: Option<EventQueue>,
    backlog: Arc<Backlog>,
    _permit: StreamPermit,
    /// Run once the stream is gone (its client left, or it ended), after its queue is dropped.
    on_drop: Option<Box<dyn FnOnce() + Send>>,
}

impl WatchStream {
    fn new(events: EventQueue, backlog: Arc<Backlog>, permit: StreamPermit) -> Self {
        WatchStream {
            events: Some(events),
            backlog,
            _permit: permit,
            on_drop: None,
        }
    }

    /// A seat's stream: when it goes, the match reads its seats' presence again
    /// (`SeatStatus.connected`) and tells its other watchers if that changed.
    fn for_seat(
        events: EventQueue,
        backlog: Arc<Backlog>,
        permit: StreamPermit,
        store: MatchStore,
        match_id: String,
    ) -> Self {
        let mut stream = WatchStream::new(events, backlog, permit);
        stream.on_drop = Some(Box::new(move || {
            let Ok(runtime) = tokio::runtime::Handle::try_current() else {
                return;
            };
            runtime.spawn(async move {
                // Only a match in memory has watchers to tell.
                if let Some(shared) = store.matches.get(&match_id) {
                    let _ = store
                        .run(shared, false, |live| {
                            live.refresh_presence();
                            Ok(())
                        })
                        .await;
                }
            });
        }));
        stream
    }

    /// Ends the stream: a watcher cut off for falling behind gets RESOURCE_EXHAUSTED at once
    /// (not after the events still queued for it, which are dropped), others just end.
    fn end(&mut self) -> Poll<Option<Result<pb::MatchEvent, Status>>> {
        self.events = None;
        if self.backlog.lagged() {
            Poll::Ready(Some(Err(Status::resource_exhausted(format!(
                "this watcher fell more than {} events or {} KiB of events behind and \
                 was cut off; watch again to resume from the current view",
                crate::live_match::WATCH_BUFFER,
                self.backlog.budget() / 1024
            )))))
        } else {
            Poll::Ready(None)
        }
    }
}

impl Drop for WatchStream {
    fn drop(&mut self) {
        // The queue first, so that the match sees this watcher gone.
        self.events = None;
        if let Some(on_drop) = self.on_drop.take() {
            on_drop();
        }
    }
}

impl Stream for WatchStream {
    type Item = Result<pb::MatchEvent, Status>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.events.is_none() {
            return Poll::Ready(None);
        }
        if self.backlog.lagged() {
            return self.end();
        }
        let Some(events) = self.events.as_mut() else {
            return Poll::Ready(None);
        };
        match events.poll_recv(cx) {
            Poll::Ready(None) => self.end(),
            Poll::Ready(Some(Ok(queued))) => {
                self.backlog.sent(queued.bytes);
                Poll::Ready(Some(Ok(Arc::unwrap_or_clone(queued.event))))
            }
            Poll::Ready(Some(Err(error))) => Poll::Ready(Some(Err(error.into()))),
            Poll::Pending => Poll::Pending,
        }
    }
}
