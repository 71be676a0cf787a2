//! The Ladder service: bots written anywhere register, connect one event stream, and are
//! placed in rated games against each other and the house bots, continuously.
//!
//! The rules of a ladder (who plays whom, duplicate sets, ratings) are the core's
//! `checkraise_core::ladder::Ladder`, one per game string; this module keeps them in a
//! `LadderHub` and plays their games as ordinary matches of the `MatchStore`:
//!
//! - A set's games are played one after another. Each is a match with the house bots' seats
//!   played by the server and the registered bots' seats claimed for them, their seat tokens
//!   announced on the bots' `Events` streams; a bot plays through `Matches` as any client.
//! - Games of a duplicate set share their deal, so a finished game of a set stays sealed (its
//!   seed and every card hidden, as a live match's are: `MatchStore::seal`) until the set's
//!   last game ends.
//! - Time control: a bot to move gets `move_ms` from the moment its turn came (while its
//!   stream is closed, at least `grace_ms` from the moment it closed); past that it forfeits
//!   the game: the server plays the rest of its seats with `random`, and the game is recorded
//!   with the forfeit.
//! - With a store, bots (their tokens' hashes) and every ladder game are stored
//!   (`ladder_bots`, `ladder_games`), so ratings survive restarts; a game left unfinished by a
//!   stop is ended as expired at the next start.
//!
//! The hub is this file, its games `play`; the `Ladder` RPCs over it are `service`; in cluster mode, `cluster`
//! runs the hub on the one server holding the ladder's role and forwards the calls there.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use checkraise_core::bots::BotSpec;
use checkraise_core::ladder::{Ladder, LadderGame};
use checkraise_core::registry::make_game_from_string;
use checkraise_core::{Game, GameError};
use tokio::sync::{Notify, mpsc};
use tonic::Status;

use crate::auth::{random_hex, token_matches};
use crate::errors::status_from_argument_error;
use crate::matches::MatchStore;
use crate::pb;
use crate::store::{LadderBotRow, LadderGameRow, Store, StoreError};

mod bounds;
mod cluster;
mod play;
mod service;

pub use cluster::ClusterLadder;
pub use service::LadderService;

/// The metadata key that carries a bot's secret token.
pub const BOT_TOKEN_METADATA: &str = "x-bot-token";

/// The house bots of a ladder unless the server says otherwise (`--ladder-house`).
pub const DEFAULT_HOUSE: &str =
    "random,heuristic,ismcts(iterations=200),ismcts(iterations=1000),policy";

/// Most games one bot may register for.
const MAX_GAMES_PER_BOT: usize = 16;

/// Forfeits in a row after which a bot is paused (placed in no new game for a while).
const FORFEITS_BEFORE_PAUSE: u32 = 2;

/// The longest pause of a bot that keeps forfeiting, in move times (`--ladder-move-ms`, a
/// power of two: the pause doubles up to it), and at most.
const MAX_PAUSE_MOVES: u64 = 4;
const MAX_PAUSE: Duration = Duration::from_secs(600);

/// Events a bot's stream may hold unread before the bot is disconnected.
const EVENT_BUFFER: usize = 256;

/// Points of a rating history: the default and the most.
const DEFAULT_POINTS: u32 = 20;
const MAX_POINTS: u32 = 100;

/// Most ladder games in one ListLadderGames reply, and the number when the request names none.
const MAX_PAGE: u32 = 1000;
const DEFAULT_PAGE: u32 = 100;

/// How the server runs its ladders.
#[derive(Clone, Debug)]
pub struct LadderSettings {
    /// The house bots' specs (each ladder keeps those that can play its game).
    pub house: Vec<String>,
    /// Most sets in play at once per bot.
    pub sets_per_bot: usize,
    /// Most milliseconds a bot may take over a move.
    pub move_ms: u64,
    /// Most milliseconds a bot to move may stay disconnected.
    pub grace_ms: u64,
    /// Games with chance are played as duplicate sets (one deal, every seating).
    pub duplicate: bool,
    /// Most ladder games in play at once over every ladder.
    pub max_games: usize,
    /// Most duplicate sets two house bots play against each other on a ladder.
    pub house_sets: usize,
    /// Most bots registered from one client address (since the server started).
    pub max_bots_per_peer: usize,
    /// Most ladders (game strings) the server runs.
    pub max_ladders: usize,
}

impl Default for LadderSettings {
    fn default() -> Self {
        LadderSettings {
            house: split_specs(DEFAULT_HOUSE),
            sets_per_bot: 2,
            move_ms: 10_000,
            grace_ms: 30_000,
            duplicate: true,
            max_games: 8,
            house_sets: 50,
            max_bots_per_peer: DEFAULT_BOTS_PER_PEER,
            max_ladders: DEFAULT_MAX_LADDERS,
        }
    }
}

/// `--ladder-max-bots-per-peer` unless set.
pub const DEFAULT_BOTS_PER_PEER: usize = 100;

/// `--ladder-max-ladders` unless set.
pub const DEFAULT_MAX_LADDERS: usize = 1000;

/// Splits a comma-separated list of bot specs at the commas outside parentheses
/// (`random,ismcts(iterations=200,rollout=random)` is two specs).
pub fn split_specs(text: &str) -> Vec<String> {
    let mut specs = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                specs.push(text[start..i].trim().to_string());
                start = i + 1;
            }
            _ => {}
        }
    }
    specs.push(text[start..].trim().to_string());
    specs.retain(|s| !s.is_empty());
    specs
}

/// The game string of `game` with every parameter spelled out: what a ladder is named by.
fn game_string(game: &dyn Game) -> String {
    format!("{}({})", game.info().name, game.params().to_text())
}

/// A game string read and completed with its defaults, or INVALID_ARGUMENT.
fn canonical(text: &str) -> Result<(Arc<dyn Game>, String), Status> {
    let game = make_game_from_string(text).map_err(|e| status_from_argument_error(&e))?;
    let name = game_string(game.as_ref());
    Ok((game, name))
}

/// A registered bot.
struct Registered {
    token_hash: String,
    games: Vec<String>,
    retired: bool,
    connection: Option<Connection>,
    /// When its last stream closed (never connected: when the server learnt of it).
    away_since: Instant,
    /// The client address it was registered from (`None`: read back from the store).
    peer: Option<IpAddr>,
    /// Its games ended one after another with a forfeit of its own.
    forfeits_in_a_row: u32,
    /// Placed in no new game before this (it kept forfeiting).
    paused_until: Option<Instant>,
}

impl Registered {
    /// A bot the server has just learnt of (registered from `peer`, or read back).
    fn new(token_hash: String, games: Vec<String>, retired: bool, peer: Option<IpAddr>) -> Self {
        Registered {
            token_hash,
            games,
            retired,
            connection: None,
            away_since: Instant::now(),
            peer,
            forfeits_in_a_row: 0,
            paused_until: None,
        }
    }

    /// Paused now: it kept forfeiting.
    fn paused(&self, now: Instant) -> bool {
        self.paused_until.is_some_and(|until| until > now)
    }

    /// Counts one of its games ended, with or without a forfeit of its own; after
    /// `FORFEITS_BEFORE_PAUSE` in a row it is paused, `move_ms` at first and twice as long
    /// after each further one, up to `MAX_PAUSE_MOVES` move times (and `MAX_PAUSE`): a bot
    /// that only plays slowly still plays now and then. Returns the event saying so when it
    /// is paused.
    fn count_game(&mut self, forfeited: bool, move_ms: u64) -> Option<pb::LadderEvent> {
        if !forfeited {
            self.forfeits_in_a_row = 0;
            return None;
        }
        self.forfeits_in_a_row += 1;
        let beyond = self.forfeits_in_a_row.checked_sub(FORFEITS_BEFORE_PAUSE)?;
        let pause =
            Duration::from_millis(move_ms.saturating_mul(1 << beyond.min(MAX_PAUSE_MOVES.ilog2())))
                .min(MAX_PAUSE);
        self.paused_until = Some(Instant::now() + pause);
        Some(self.pause_event(pause))
    }

    /// The event telling a bot it is paused for `pause`.
    fn pause_event(&self, pause: Duration) -> pb::LadderEvent {
        pb::LadderEvent {
            kind: pb::LadderEventKind::Paused as i32,
            paused_ms: pause.as_millis() as u64,
            forfeits_in_a_row: self.forfeits_in_a_row,
            ..Default::default()
        }
    }
}

/// Whose share of `--ladder-max-games` a set in play counts against: each client address of
/// its registered bots (that of their `Events` stream), or the house's for a set of two house
/// bots.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Owner {
    House,
    Peer(Option<IpAddr>),
}

/// A bot's open event stream.
struct Connection {
    id: u64,
    /// The client address of the stream.
    peer: Option<IpAddr>,
    events: mpsc::Sender<Result<pb::LadderEvent, Status>>,
    /// The games the bot asked for on this stream (`EventsRequest.max_games`).
    max_games: Option<u64>,
    /// The games of the sets it was placed in on this stream, and how many of them ended.
    placed: u64,
    ended: u64,
}

impl Connection {
    /// The bot asked for no more games than it was placed in.
    fn placed_enough(&self) -> bool {
        self.max_games.is_some_and(|max| self.placed >= max)
    }
}

/// A ladder game being played.
struct LiveGame {
    summary: pb::LadderGameSummary,
    /// Each registered bot's seats and their tokens.
    seats: BTreeMap<String, Vec<pb::LadderSeat>>,
}

/// Everything the hub holds behind its lock.
#[derive(Default)]
struct HubState {
    bots: BTreeMap<String, Registered>,
    ladders: BTreeMap<String, Ladder>,
    /// Every finished ladder game, in the order they ended.
    finished: Vec<pb::LadderGameSummary>,
    /// The games being played, by match id.
    live: BTreeMap<String, LiveGame>,
    /// The sets in play (by ladder and set) and whose shares they count against.
    sets: BTreeMap<(String, u64), Vec<Owner>>,
    next_connection: u64,
}

struct Hub {
    settings: LadderSettings,
    matches: MatchStore,
    store: Option<Store>,
    max_bot_ms: u64,
    state: Mutex<HubState>,
    wake: Notify,
    /// Cluster mode: the ladder role's lease, as last confirmed; the hub places, forfeits and
    /// records nothing while it is not fresh.
    lease: Option<Arc<RoleLease>>,
    /// Closed: another server runs the ladder now (cluster mode); the hub does nothing more.
    closed: AtomicBool,
}

/// How fresh this server's hold on a cluster role is: confirmed in the store at some moment,
/// valid for a lease after it (this server's own clock, which a pause cannot fool: a paused
/// server finds its lease old when it resumes).
#[derive(Debug)]
pub struct RoleLease {
    lease: Duration,
    confirmed: Mutex<Option<Instant>>,
}

impl RoleLease {
    /// A lease of `lease`, not confirmed yet.
    pub fn new(lease: Duration) -> Self {
        RoleLease {
            lease,
            confirmed: Mutex::new(None),
        }
    }

    /// The role was confirmed as this server's at `at` (taken before the store answered).
    pub fn confirm(&self, at: Instant) {
        *self.confirmed.lock().unwrap_or_else(|e| e.into_inner()) = Some(at);
    }

    /// Confirmed less than a lease ago (with a margin of a quarter lease, the other servers'
    /// heartbeat period).
    pub fn fresh(&self) -> bool {
        let confirmed = *self.confirmed.lock().unwrap_or_else(|e| e.into_inner());
        confirmed.is_some_and(|at| at.elapsed() < self.lease - self.lease / 4)
    }
}

/// Every ladder of the server, their bots and their games (see the module's documentation).
#[derive(Clone)]
pub struct LadderHub(Arc<Hub>);

impl LadderHub {
    /// A hub playing its games in `matches`, storing bots and games in `store`; bots think
    /// at most `max_bot_ms` per move. With a store, the bots and games stored are read back
    /// (after `MatchStore::resume_all`): games left unfinished are ended as expired. The
    /// matchmaking task is started by `start`.
    pub async fn open(
        settings: LadderSettings,
        matches: MatchStore,
        store: Option<Store>,
        max_bot_ms: u64,
    ) -> Result<Self, LadderError> {
        Self::open_leased(settings, matches, store, max_bot_ms, None).await
    }

    /// `open` for the server holding a cluster's ladder role under `lease` (its store fenced
    /// by the role's epoch): nothing is placed, forfeited or recorded while the lease is not
    /// fresh.
    pub async fn open_leased(
        settings: LadderSettings,
        matches: MatchStore,
        store: Option<Store>,
        max_bot_ms: u64,
        lease: Option<Arc<RoleLease>>,
    ) -> Result<Self, LadderError> {
        if settings.house.is_empty() {
            return Err(LadderError::NoHouseBot);
        }
        for spec in &settings.house {
            BotSpec::parse::<&str, &str>(spec, []).map_err(|source| LadderError::HouseSpec {
                spec: spec.clone(),
                source: Box::new(source),
            })?;
        }
        let hub = LadderHub(Arc::new(Hub {
            settings,
            matches,
            store,
            max_bot_ms,
            state: Mutex::new(HubState::default()),
            wake: Notify::new(),
            lease,
            closed: AtomicBool::new(false),
        }));
        hub.restore().await?;
        Ok(hub)
    }

    fn state(&self) -> MutexGuard<'_, HubState> {
        self.0.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The hub may place, forfeit and record now: not closed, and its cluster lease (if any)
    /// fresh.
    fn may_act(&self) -> bool {
        !self.is_closed() && self.0.lease.as_ref().is_none_or(|l| l.fresh())
    }

    /// Closed by `close`.
    pub fn is_closed(&self) -> bool {
        self.0.closed.load(Ordering::SeqCst)
    }

    /// Stops the hub for good (another server of the cluster runs the ladder now): no set is
    /// placed and no game recorded any more, and every bot's stream ends `UNAVAILABLE`
    /// telling it to connect again (it then reaches the ladder's new server).
    pub fn close(&self) {
        self.0.closed.store(true, Ordering::SeqCst);
        self.0.wake.notify_one();
        let mut state = self.state();
        for bot in state.bots.values_mut() {
            if let Some(connection) = bot.connection.take() {
                let _ = connection.events.try_send(Err(Status::unavailable(
                    "the ladder moved to another server of the cluster: connect again",
                )));
            }
        }
    }

    /// Reads the stored bots and games back, and ends the games a stop left unfinished.
    async fn restore(&self) -> Result<(), LadderError> {
        let Some(store) = &self.0.store else {
            return Ok(());
        };
        let bots = store.ladder_bots().await?;
        let games = store.ladder_games().await?;
        let mut unfinished = 0;
        for game in games.iter().filter(|g| g.finished_ms.is_none()) {
            unfinished += 1;
            if let Err(e) = self.0.matches.expire_now(&game.match_id).await {
                tracing::warn!(match_id = %game.match_id, error = %e, "an unfinished ladder game could not be ended");
            }
        }
        if unfinished > 0 {
            store.drop_unfinished_ladder_games().await?;
        }
        let mut state = self.state();
        for bot in &bots {
            state.bots.insert(
                bot.name.clone(),
                Registered::new(bot.token_hash.clone(), bot.games.clone(), bot.retired, None),
            );
        }
        let mut by_game: BTreeMap<String, Vec<&LadderGameRow>> = BTreeMap::new();
        for game in games.iter().filter(|g| g.finished_ms.is_some()) {
            by_game.entry(game.game.clone()).or_default().push(game);
        }
        let mut names: Vec<String> = bots.iter().flat_map(|b| b.games.clone()).collect();
        names.extend(by_game.keys().cloned());
        names.sort();
        names.dedup();
        for name in names {
            let rows = by_game.remove(&name).unwrap_or_default();
            let (ladder, kept) = match self.restored_ladder(&name, &bots, &rows) {
                Ok(restored) => restored,
                Err(e) => {
                    tracing::error!(game = %name, error = %e, "a stored ladder cannot be restored; it starts afresh");
                    (self.new_ladder(&name, &[])?, Vec::new())
                }
            };
            state.ladders.insert(name, ladder);
            state.finished.extend(kept.iter().map(finished_summary));
        }
        state
            .finished
            .sort_by_key(|g| (g.finished_ms, g.match_id.clone()));
        tracing::info!(
            bots = bots.len(),
            games = state.finished.len(),
            unfinished_ended = unfinished,
            "ladders restored"
        );
        Ok(())
    }

    /// A ladder of `game` rebuilt from its stored games: the house bots configured now, and
    /// any other house bot that played in them.
    fn restored_ladder(
        &self,
        game: &str,
        bots: &[LadderBotRow],
        rows: &[&LadderGameRow],
    ) -> Result<(Ladder, Vec<LadderGameRow>), LadderError> {
        let registered: Vec<(&str, bool)> = bots
            .iter()
            .filter(|b| b.games.iter().any(|g| g == game))
            .map(|b| (b.name.as_str(), b.retired))
            .collect();
        let mut earlier_house: Vec<String> = Vec::new();
        for row in rows {
            for bot in &row.bots {
                if !registered.iter().any(|(n, _)| n == bot) && !earlier_house.contains(bot) {
                    earlier_house.push(bot.clone());
                }
            }
        }
        let ladder = self.new_ladder(game, &earlier_house)?;
        let kept: Vec<LadderGameRow> = rows.iter().map(|r| (*r).clone()).collect();
        let games = kept
            .iter()
            .map(ladder_game)
            .collect::<Result<Vec<_>, _>>()?;
        let ladder = ladder.restore(&registered, games)?;
        Ok((ladder, kept))
    }

    /// A new ladder of `game` with the configured house bots that can play it, and `more`
    /// (house bots of earlier runs).
    fn new_ladder(&self, game: &str, more: &[String]) -> Result<Ladder, GameError> {
        let made = make_game_from_string(game)?;
        let mut house: Vec<&str> = Vec::new();
        for spec in self.0.settings.house.iter().chain(more) {
            let builds = BotSpec::parse::<&str, &str>(spec, [])
                .and_then(|s| s.build(made.as_ref()))
                .is_ok();
            if builds && !house.contains(&spec.as_str()) {
                house.push(spec);
            }
        }
        let seed = u64::from_str_radix(&random_hex(8), 16).expect("16 hex digits");
        Ladder::new(game, &house, self.0.settings.sets_per_bot, seed)
            .map(|ladder| ladder.with_house_sets(self.0.settings.house_sets))
    }

    /// Starts the matchmaking task: it starts sets whenever bots are free, until the server
    /// stops (the task is aborted with the returned handle).
    pub fn start(&self) -> tokio::task::JoinHandle<()> {
        let hub = self.clone();
        tokio::spawn(async move {
            while !hub.is_closed() {
                hub.schedule();
                tokio::select! {
                    _ = hub.0.wake.notified() => {}
                    _ = tokio::time::sleep(Duration::from_secs(1)) => {}
                }
            }
        })
    }

    /// The bot named `name` if `token` is its token (PERMISSION_DENIED otherwise, the same
    /// for an unknown name, so that names cannot be probed with tokens).
    fn authenticate(state: &HubState, name: &str, token: Option<&str>) -> Result<(), Status> {
        let Some(token) = token else {
            return Err(Status::unauthenticated(format!(
                "this call needs the bot's token as metadata '{BOT_TOKEN_METADATA}'"
            )));
        };
        match state.bots.get(name) {
            Some(bot) if token_matches(&bot.token_hash, token) => Ok(()),
            _ => Err(Status::permission_denied(format!(
                "'{name}' is not a bot of this server with that token"
            ))),
        }
    }

    /// Ends every bot's event stream (at shutdown, so that graceful shutdown is not held open
    /// by them).
    pub fn close_all_connections(&self) {
        let mut state = self.state();
        for bot in state.bots.values_mut() {
            if let Some(connection) = bot.connection.take() {
                let _ = connection
                    .events
                    .try_send(Err(Status::unavailable("the server is shutting down")));
            }
        }
    }

    /// Marks the bot's stream `id` closed (if it is still the bot's stream).
    fn disconnect(&self, name: &str, id: u64) {
        let mut state = self.state();
        let HubState { bots, ladders, .. } = &mut *state;
        let Some(bot) = bots.get_mut(name) else {
            return;
        };
        if bot.connection.as_ref().is_none_or(|c| c.id != id) {
            return;
        }
        bot.connection = None;
        bot.away_since = Instant::now();
        for game in &bot.games {
            if let Some(ladder) = ladders.get_mut(game) {
                let _ = ladder.set_connected(name, false);
            }
        }
        tracing::info!(bot = %name, "ladder bot disconnected");
    }
}

/// A stored finished ladder game as listed.
fn finished_summary(row: &LadderGameRow) -> pb::LadderGameSummary {
    pb::LadderGameSummary {
        match_id: row.match_id.clone(),
        game: row.game.clone(),
        set: row.set,
        bots: row.bots.clone(),
        live: false,
        returns: row.returns.clone().unwrap_or_default(),
        forfeits: row.forfeits.clone().unwrap_or_default(),
        started_ms: row.started_ms,
        finished_ms: row.finished_ms,
    }
}

/// A stored finished ladder game as the core's ladder records it.
fn ladder_game(row: &LadderGameRow) -> Result<LadderGame, LadderError> {
    let unfinished = |what| LadderError::Unfinished {
        match_id: row.match_id.clone(),
        what,
    };
    Ok(LadderGame {
        set: row.set,
        seats: row.bots.clone(),
        returns: row.returns.clone().ok_or_else(|| unfinished("returns"))?,
        forfeits: row.forfeits.clone().ok_or_else(|| unfinished("forfeits"))?,
    })
}

/// Why the ladders cannot start, or a stored ladder cannot be restored.
#[derive(Debug, thiserror::Error)]
pub enum LadderError {
    /// `--ladder-house` names no bot.
    #[error("--ladder-house names no bot: a ladder needs at least one")]
    NoHouseBot,
    /// A `--ladder-house` spec that does not parse.
    #[error("--ladder-house: '{spec}' is not a bot spec: {source}")]
    HouseSpec {
        /// The spec.
        spec: String,
        /// Why.
        #[source]
        source: Box<GameError>,
    },
    /// The store cannot read or write the ladders.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The engine refuses a ladder (its game, its bots, its stored games).
    #[error(transparent)]
    Engine(#[from] GameError),
    /// A stored game counted as finished lacks its end.
    #[error("ladder game {match_id} has no {what}")]
    Unfinished {
        /// The game's match.
        match_id: String,
        /// `returns` or `forfeits`.
        what: &'static str,
    },
}

/// Whose shares a set of bots `a` and `b` counts against (see `Owner`).
fn owners(bots: &BTreeMap<String, Registered>, a: &str, b: &str) -> Vec<Owner> {
    let mut owners: Vec<Owner> = [a, b]
        .iter()
        .filter_map(|name| bots.get(*name))
        .map(|bot| Owner::Peer(bot.connection.as_ref().and_then(|c| c.peer)))
        .collect();
    owners.dedup();
    if owners.is_empty() {
        owners.push(Owner::House);
    }
    owners
}

/// Sends a bot an event on its stream, if it has one; a stream that does not read its
/// events is closed (the bot is then away).
fn send(state: &mut HubState, bot: &str, event: pb::LadderEvent) {
    let Some(registered) = state.bots.get_mut(bot) else {
        return;
    };
    let Some(connection) = &registered.connection else {
        return;
    };
    if connection.events.try_send(Ok(event)).is_err() {
        tracing::warn!(%bot, "a ladder bot's stream fell behind and was closed");
        let _ = connection.events.try_send(Err(Status::resource_exhausted(
            "this bot's event stream fell behind and was closed: connect again",
        )));
        registered.connection = None;
        registered.away_since = Instant::now();
    }
}

/// Counts a game of `bot` ended on its stream, and ends the stream (OK) once every game it
/// was placed in there has ended and it asked for no more (`EventsRequest.max_games`).
fn finish_stream_if_done(state: &mut HubState, bot: &str) {
    let HubState { bots, ladders, .. } = state;
    let Some(registered) = bots.get_mut(bot) else {
        return;
    };
    let Some(connection) = registered.connection.as_mut() else {
        return;
    };
    connection.ended += 1;
    if connection.placed_enough() && connection.ended >= connection.placed {
        // Dropping the sender ends the stream once its events are read.
        registered.connection = None;
        registered.away_since = Instant::now();
        for game in &registered.games {
            if let Some(ladder) = ladders.get_mut(game) {
                let _ = ladder.set_connected(bot, false);
            }
        }
        tracing::info!(%bot, "a ladder bot played the games it asked for");
    }
}

/// Announces a game to one of its bots: its seats and their tokens.
fn announce_start(
    state: &mut HubState,
    bot: &str,
    summary: &pb::LadderGameSummary,
    seats: &[pb::LadderSeat],
    move_ms: u64,
) {
    send(
        state,
        bot,
        pb::LadderEvent {
            kind: pb::LadderEventKind::GameStarted as i32,
            game: Some(summary.clone()),
            seats: seats.to_vec(),
            move_ms,
            ..Default::default()
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use checkraise_core::ladder::set_seed;

    #[test]
    fn house_specs_split_at_the_commas_outside_parentheses() {
        assert_eq!(
            split_specs("random, ismcts(iterations=200,rollout=random),heuristic,"),
            [
                "random",
                "ismcts(iterations=200,rollout=random)",
                "heuristic"
            ]
        );
        assert_eq!(split_specs(DEFAULT_HOUSE).len(), 5);
        assert!(split_specs(" , ").is_empty());
    }

    #[test]
    fn a_games_own_deal_differs_from_its_sets() {
        let seed = 0x1234_5678;
        assert_ne!(set_seed(seed, 1), seed);
        assert_ne!(set_seed(seed, 1), set_seed(seed, 2));
    }
}
