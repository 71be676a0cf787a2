//! The Matches service: create a match, join seats with secret tokens, act, view, watch.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::Duration;

use checkraise_core::bots::{BOT_KINDS, make_bot};
use checkraise_core::make_game;
use tokio::sync::mpsc;
use tokio_stream::Stream;
use tonic::{Request, Response, Status};

use crate::catalog::game_sizes;
use crate::errors::{status_from_argument_error, unknown_match};
use crate::live_match::{ActionChoice, LiveMatch, Seat, SeatKind, random_hex};
use crate::pb;

/// The seat kind that a person or client program plays.
pub const HUMAN: &str = "human";

type SharedMatch = Arc<Mutex<LiveMatch>>;

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
        if table.len() >= self.max_matches {
            return Err(Status::resource_exhausted(format!(
                "the server holds its maximum of {} matches; finish or let some expire",
                self.max_matches
            )));
        }
        table.insert(live.id().to_string(), Arc::new(Mutex::new(live)));
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
            let Ok(mut live) = shared.try_lock() else {
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
    /// streams of unfinished matches).
    pub fn close_all_watchers(&self, why: &Status) {
        let matches: Vec<SharedMatch> = self.table().values().cloned().collect();
        for shared in matches {
            lock(&shared).close_watchers(why);
        }
    }
}

fn lock(shared: &SharedMatch) -> MutexGuard<'_, LiveMatch> {
    shared.lock().unwrap_or_else(|e| e.into_inner())
}

/// The seat token presented in a request's metadata, if any.
fn presented_token<T>(request: &Request<T>) -> Option<String> {
    request
        .metadata()
        .get(crate::SEAT_TOKEN_METADATA)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

/// The Matches service.
pub struct MatchesService {
    store: MatchStore,
}

impl MatchesService {
    /// A service over a store.
    pub fn new(store: MatchStore) -> Self {
        MatchesService { store }
    }

    /// Runs `f` on the match with its lock held, after checking the seat's token.
    fn with_seat<R>(
        &self,
        match_id: &str,
        seat: u32,
        token: Option<&str>,
        f: impl FnOnce(&mut LiveMatch, usize) -> Result<R, Status>,
    ) -> Result<R, Status> {
        let shared = self.store.get(match_id)?;
        let mut live = lock(&shared);
        live.touch();
        let seat = live.authorize(seat, token)?;
        f(&mut live, seat)
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
                 ('{HUMAN}' or a bot: {}), or none for all human",
                kinds.len(),
                BOT_KINDS.join(", ")
            )));
        }
        let mut seats = Vec::with_capacity(players);
        for kind_name in kinds {
            let kind = if kind_name == HUMAN {
                SeatKind::Human { token: None }
            } else {
                SeatKind::Bot(make_bot(&request.game, &kind_name).map_err(|e| {
                    Status::invalid_argument(format!("{e} (or 'human' for a person)"))
                })?)
            };
            seats.push(Seat { kind_name, kind });
        }
        let seed = match request.seed {
            Some(seed) => seed,
            None => u64::from_str_radix(&random_hex(8), 16).expect("16 hex digits"),
        };
        let id = random_hex(16);
        let live = LiveMatch::new(id.clone(), game.clone(), seed, seats)?;
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
        let mut live = lock(&shared);
        live.touch();
        let seat_token = random_hex(32);
        let seat = live.join(request.seat, seat_token.clone())?;
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
        self.with_seat(
            &request.match_id,
            request.seat,
            token.as_deref(),
            |live, seat| Ok(live.view(Some(seat))),
        )
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
        self.with_seat(
            &request.match_id,
            request.seat,
            token.as_deref(),
            |live, seat| {
                live.act(seat, choice)?;
                Ok(live.view(Some(seat)))
            },
        )
        .map(Response::new)
    }

    async fn get_spectator_view(
        &self,
        request: Request<pb::GetSpectatorViewRequest>,
    ) -> Result<Response<pb::SeatView>, Status> {
        let request = request.into_inner();
        let shared = self.store.get(&request.match_id)?;
        let mut live = lock(&shared);
        live.touch();
        Ok(Response::new(live.view(None)))
    }

    type WatchSeatStream = EventStream;

    async fn watch_seat(
        &self,
        request: Request<pb::WatchSeatRequest>,
    ) -> Result<Response<EventStream>, Status> {
        let token = presented_token(&request);
        let request = request.into_inner();
        let (events, lagged) = self.with_seat(
            &request.match_id,
            request.seat,
            token.as_deref(),
            |live, seat| Ok(live.watch(Some(seat))),
        )?;
        Ok(Response::new(Box::pin(WatchStream::new(events, lagged))))
    }

    type WatchSpectatorStream = EventStream;

    async fn watch_spectator(
        &self,
        request: Request<pb::WatchSpectatorRequest>,
    ) -> Result<Response<EventStream>, Status> {
        let request = request.into_inner();
        let shared = self.store.get(&request.match_id)?;
        let (events, lagged) = {
            let mut live = lock(&shared);
            live.touch();
            live.watch(None)
        };
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
