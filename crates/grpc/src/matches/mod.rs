//! The Matches service: create a match, join seats with secret tokens, act, view, watch.
//!
//! Bots think on tokio's blocking pool, never on the async workers: `CreateMatch` and `Act`
//! (the requests that make bots move) run the engine inside `spawn_blocking`, holding the
//! match's lock there. An `Act` in a match whose bots cannot think for long (humans and
//! `random` bots only) skips the hop when the match is free: handing the request to another
//! thread and back cost more than the whole move. Requests that only read or join a match take its lock at once when it is free, and
//! otherwise wait for it on the blocking pool too, so a match whose bots are thinking never
//! stalls a worker (and with it health checks and every other match).
//!
//! Every live match by id, behind its lock, with the store under them (`MatchStore`), is in
//! `match_store` (its errors in `error`); the live match's views and events become messages in
//! `wire`; this file is the service itself.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use checkraise_core::bots::{BOT_KINDS, BotSpec};
use checkraise_core::table::SeatRules;
use checkraise_core::{Game, make_game};
use tokio_stream::Stream;
use tonic::{Request, Response, Status};

use crate::auth::{random_hex, token_for_request};
use crate::catalog::game_sizes;
use crate::connections::StreamCap;
use crate::errors::{page_size, status_from_argument_error};
use crate::live_match::{
    ActOutcome, ActionChoice, LiveMatch, MatchSeed, Seat, SeatKind, SeatView, ViewParts,
};
use crate::pb;
use crate::replay::{ReplayPage, replay, stored_status, summary};
use crate::store::MatchFilter;

mod error;
mod match_store;
mod watch_stream;
pub mod wire;

pub use error::{MatchStoreError, ResumeError, SeatSpecError};
pub use match_store::{Durable, MatchRoom, MatchStore};
use wire::REPLY_SLACK;

use match_store::on_blocking_pool;
use watch_stream::WatchStream;

mod cluster;

pub use cluster::{Cluster, DEFAULT_LEASE};

/// The seat kind that a person or client program plays.
pub const HUMAN: &str = "human";

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
) -> Result<Vec<Seat>, SeatSpecError> {
    let rules = SeatRules {
        cap: cap.map(|ms| (ms, BOT_CAP_NAME)),
        ..seat_rules(0)
    };
    let seats = rules
        .seats(game, kinds.iter().map(|k| Some(k.as_str())))
        .map_err(|(seat, error)| SeatSpecError {
            seat,
            error,
            // A spec that does not parse may have meant a person.
            maybe_person: BotSpec::parse::<&str, &str>(&kinds[seat], []).is_err(),
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

    /// Cluster mode: waits (up to the bots' move time and a lease) until the bots the match
    /// waits for have moved on their owner, then `seat`'s view as it is (`view` if they did not
    /// move in that time, or the match is not waiting for a bot).
    async fn after_bots(
        &self,
        shared: match_store::SharedMatch,
        seat: u32,
        parts: ViewParts,
        view: SeatView,
    ) -> SeatView {
        let lease = self
            .store
            .cluster()
            .map_or(std::time::Duration::ZERO, |c| c.lease);
        let deadline =
            std::time::Instant::now() + std::time::Duration::from_millis(self.max_bot_ms) + lease;
        // Counted while it waits, so that this copy follows each change at once (`heard`).
        struct Awaiting(match_store::SharedMatch);
        impl Drop for Awaiting {
            fn drop(&mut self) {
                self.0
                    .awaited
                    .fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
            }
        }
        shared
            .awaited
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let _awaiting = Awaiting(shared.clone());
        loop {
            // Registered before the copy is read, so that a change in between is not missed.
            let followed = shared.followed.notified();
            tokio::pin!(followed);
            followed.as_mut().enable();
            let waiting = match_store::with_match(shared.clone(), |live| live.awaits_bot())
                .await
                .unwrap_or(false);
            if !waiting {
                break;
            }
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return view;
            }
            // Woken by the copy following the owner's bot move, or every few milliseconds in
            // case a change came another way.
            let _ = tokio::time::timeout(left.min(std::time::Duration::from_millis(50)), followed)
                .await;
        }
        let seat_index = seat as usize;
        match_store::with_match(shared, move |live| live.view_parts(Some(seat_index), parts))
            .await
            .unwrap_or(view)
    }

    /// `view` as the message a reply carries, fitted to the server's largest message.
    fn reply_view(&self, view: SeatView) -> pb::SeatView {
        wire::seat_view(view, wire::view_limit(self.store.message_limit))
    }

    /// Runs `f` on the match with its lock held, after checking the seat's token (see
    /// `with_match`: for requests that make no bot move).
    async fn with_seat<R, F>(
        &self,
        match_id: &str,
        seat: u32,
        token: Option<String>,
        f: F,
    ) -> Result<R, MatchStoreError>
    where
        R: Send + 'static,
        F: FnOnce(&mut LiveMatch, usize) -> Result<R, MatchStoreError> + Clone + Send + 'static,
    {
        self.run_once_more_on_conflict(match_id, move || {
            let (token, f) = (token.clone(), f.clone());
            move |live: &mut LiveMatch| {
                live.touch();
                let seat = live.authorize(seat, token.as_deref())?;
                f(live, seat)
            }
        })
        .await
    }

    /// Runs the closure `make` gives on the match (see `MatchStore::run`; for requests that
    /// make no bot move). Cluster mode: if its write is refused because another server wrote
    /// the match at the same moment (so it was not applied), the copy has caught up, and a
    /// second closure runs on it, once.
    async fn run_once_more_on_conflict<R, F>(
        &self,
        match_id: &str,
        make: impl Fn() -> F,
    ) -> Result<R, MatchStoreError>
    where
        R: Send + 'static,
        F: FnOnce(&mut LiveMatch) -> Result<R, MatchStoreError> + Send + 'static,
    {
        let shared = self.store.get(match_id).await?;
        match self.store.run(shared, false, make()).await {
            Err(MatchStoreError::Conflict { .. }) => {
                let shared = self.store.get(match_id).await?;
                self.store.run(shared, false, make()).await
            }
            done => done,
        }
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
        let seats = build_seats(game.as_ref(), kinds, Some(self.max_bot_ms))
            .map_err(MatchStoreError::from)?;
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
                // it (later growth past the limit leaves parts out: `wire::seat_view`).
                let largest = wire::largest_view_bytes(&live);
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
            .await
            .map_err(Status::from)??
        };
        let response = pb::CreateMatchResponse {
            match_id: id.clone(),
            seed: if seed.chosen { seed.seed } else { 0 },
            sizes: Some(game_sizes(game.as_ref())),
            seats: wire::seat_statuses(live.seat_statuses()),
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
        let wanted = request.seat;
        // A join refused because another server wrote the match at the same moment was not
        // applied: it is made again on the caught-up copy, with the same token.
        let (seat, repeated, seat_token) = self
            .run_once_more_on_conflict(&request.match_id, || {
                let token = token.clone();
                move |live: &mut LiveMatch| {
                    live.touch();
                    let (seat, repeated) = live.join_with(wanted, &token, repeatable)?;
                    Ok((seat, repeated, token(seat)))
                }
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
        let view = self
            .with_seat(&request.match_id, request.seat, token, move |live, seat| {
                Ok(live.view_parts(Some(seat), parts))
            })
            .await?;
        Ok(Response::new(self.reply_view(view)))
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
        let seat = request.seat;
        let token = token.clone();
        let store = self.store.clone();
        let instance = self.store.cluster().map(|c| c.instance.clone());
        let act = move || {
            let (token, choice, store, instance) = (
                token.clone(),
                choice.clone(),
                store.clone(),
                instance.clone(),
            );
            move |live: &mut LiveMatch| {
                live.touch();
                let seat = live.authorize(seat, token.as_deref())?;
                // Cluster mode: a server acting for a human when only humans are awaited
                // takes the match over, so the bots answer here, in the same commit.
                if let Some(instance) = &instance {
                    live.claim(instance.clone());
                }
                let outcome = match live.act_expecting(seat, choice, expected) {
                    Ok(outcome) => outcome,
                    Err(error) => {
                        live.unclaim();
                        return Err(MatchStoreError::from(error));
                    }
                };
                // The bots' moves may have taken long: idle time counts from the reply.
                live.touch();
                // Queued now, the change is committed while the view is built (`run` then
                // finds nothing new to queue, and waits for this write).
                store.persist(live);
                Ok((live.view_parts(Some(seat), parts), outcome))
            }
        };
        // Cluster mode: an `Act` whose expected version this server's copy shows is applied to
        // the copy without reading the store first; if another server wrote the match since,
        // the fenced write is refused, the copy caught up, and the `Act` applied again, once.
        let mut retried = false;
        let (shared, view, outcome) = loop {
            let (shared, skipped) = if retried {
                (self.store.get(&request.match_id).await?, false)
            } else {
                self.store.get_current(&request.match_id, expected).await?
            };
            // With thinking bots, on the blocking pool, the match locked until a human must
            // decide; humans and random bots only: nothing that thinks for long, so no thread
            // hop when the match is free.
            let blocking = shared.thinking_bots;
            match self.store.run(shared.clone(), blocking, act()).await {
                // A repeat found applied wrote nothing, so no fence checked the copy: its view
                // is read again after the store.
                Ok((_, ActOutcome::AlreadyApplied))
                    if !retried && self.store.cluster().is_some() =>
                {
                    retried = true
                }
                Ok((view, outcome)) => break (shared, view, outcome),
                // Refused on a copy not read first (a write conflict, or a token, turn or
                // choice the copy does not know yet): made again on the caught-up copy.
                Err(error)
                    if !retried
                        && (skipped || matches!(error, MatchStoreError::Conflict { .. })) =>
                {
                    retried = true
                }
                Err(error) => return Err(error.into()),
            }
        };
        // Cluster mode, on a server that does not own the match: the owner plays the bots.
        // The reply still shows the match once they have moved, as on one server.
        let view = match self.store.cluster() {
            Some(_) if !view.is_terminal && !view.may_act => {
                self.after_bots(shared, request.seat, parts, view).await
            }
            _ => view,
        };
        let mut reply = self.reply_view(view);
        reply.act_status = match outcome {
            ActOutcome::Applied => pb::ActStatus::Applied,
            ActOutcome::AlreadyApplied => pb::ActStatus::AlreadyApplied,
        } as i32;
        Ok(Response::new(reply))
    }

    async fn get_spectator_view(
        &self,
        request: Request<pb::GetSpectatorViewRequest>,
    ) -> Result<Response<pb::SeatView>, Status> {
        let request = request.into_inner();
        let shared = self.store.get(&request.match_id).await?;
        let view = self
            .store
            .run(shared, false, |live| {
                live.touch();
                Ok::<_, MatchStoreError>(live.view(None))
            })
            .await?;
        Ok(Response::new(self.reply_view(view)))
    }

    type WatchSeatStream = EventStream;

    async fn watch_seat(
        &self,
        request: Request<pb::WatchSeatRequest>,
    ) -> Result<Response<EventStream>, Status> {
        let token = presented_token(&request);
        let peer = request.remote_addr().map(|a| a.ip());
        let request = request.into_inner();
        let parts = view_parts(request.view_options.as_ref());
        let budget = self.watch_bytes;
        let permit = self.streams.open(peer)?;
        let (events, lagged) = self
            .with_seat(&request.match_id, request.seat, token, move |live, seat| {
                Ok(live.watch_parts(Some(seat), parts, budget, request.presence))
            })
            .await?;
        Ok(Response::new(Box::pin(WatchStream::for_seat(
            WatchStream::new(
                events,
                lagged,
                permit,
                wire::view_limit(self.store.message_limit),
            ),
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
        // A row that does not read is left out, never listed with a made-up game: its id is
        // named instead (GetReplay on it says what is wrong).
        let mut matches = Vec::with_capacity(listed.len());
        let mut unreadable_match_ids = Vec::new();
        for m in &listed {
            match summary(m) {
                Ok(listed) => matches.push(listed),
                Err(error) => {
                    tracing::error!(match_id = %m.id, %error, "a stored match cannot be listed");
                    unreadable_match_ids.push(m.id.clone());
                }
            }
        }
        Ok(Response::new(pb::ListMatchesResponse {
            matches,
            next_page_token,
            unreadable_match_ids,
        }))
    }

    async fn get_replay(
        &self,
        request: Request<pb::GetReplayRequest>,
    ) -> Result<Response<pb::Replay>, Status> {
        let page = ReplayPage::from_request(
            request.get_ref(),
            wire::view_limit(self.store.message_limit),
        )?;
        let stored = self.store.stored(&request.get_ref().match_id).await?;
        on_blocking_pool(move || replay(&stored, page))
            .await
            .map_err(Status::from)?
            .map(Response::new)
    }

    type WatchSpectatorStream = EventStream;

    async fn watch_spectator(
        &self,
        request: Request<pb::WatchSpectatorRequest>,
    ) -> Result<Response<EventStream>, Status> {
        let peer = request.remote_addr().map(|a| a.ip());
        let request = request.into_inner();
        let shared = self.store.get(&request.match_id).await?;
        let budget = self.watch_bytes;
        let permit = self.streams.open(peer)?;
        let (events, lagged) = self
            .store
            .run(shared, false, move |live| {
                live.touch();
                Ok::<_, MatchStoreError>(live.watch_parts(
                    None,
                    ViewParts::ALL,
                    budget,
                    request.presence,
                ))
            })
            .await?;
        Ok(Response::new(Box::pin(WatchStream::new(
            events,
            lagged,
            permit,
            wire::view_limit(self.store.message_limit),
        ))))
    }
}

/// Most matches in one ListMatches reply, and the number when the request names none.
const MAX_PAGE: u32 = 1000;
const DEFAULT_PAGE: u32 = 100;

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
