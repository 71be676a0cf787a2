//! One match being played: the engine state and core's `Driver` (the seeded chance and bot
//! streams, the choices held at a simultaneous node, and the one information rule for bots),
//! the seats (human with a secret token, or a bot), and the watchers that receive every change.
//! Everything here is generic over `dyn Game`/`dyn State`; the game is advanced only by the
//! driver.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use checkraise_core::bots::Bot;
use checkraise_core::driver::{BOT_SEED_OFFSET, Driver, Halt, Step};
use checkraise_core::table::{ActError, Match, OnStep};
use checkraise_core::{Action, Game, GameError, GameRng, Player, State};
use prost::Message;
use tokio::sync::{mpsc, watch};
use tonic::Status;

use crate::errors::{server_fault, status_from_game_error};
use crate::pb;
use crate::store::{
    Durability, DurabilityWatch, MatchRow, MatchWrite, Status as Stored, StepRow, StoredMatch,
    now_ms, token_hash,
};
use crate::tensor::f32_tensor;

/// Events a watcher may fall behind by before its stream is cut.
pub const WATCH_BUFFER: usize = 1024;
/// Bytes of events (encoded) a watcher may fall behind by before its stream is cut, unless
/// the server says otherwise (`--watch-buffer-kib`): what a client that does not read can make
/// the server hold for it.
pub const WATCH_BYTES: usize = 256 * 1024;

/// How far a watcher is behind: the encoded bytes of the events queued for it, and whether it
/// was cut off for falling too far behind.
#[derive(Debug)]
pub struct Backlog {
    budget: usize,
    bytes: AtomicUsize,
    lagged: AtomicBool,
}

impl Backlog {
    /// No events queued yet; at most `budget` bytes of them.
    pub fn new(budget: usize) -> Self {
        Backlog {
            budget,
            bytes: AtomicUsize::new(0),
            lagged: AtomicBool::new(false),
        }
    }

    /// The most bytes of events this watcher may fall behind by.
    pub fn budget(&self) -> usize {
        self.budget
    }

    /// Counts an event queued; `false` (and the watcher marked as cut off) when it would put
    /// the watcher past its budget. The first event is always queued.
    fn queue(&self, bytes: usize) -> bool {
        let before = self.bytes.fetch_add(bytes, Ordering::Relaxed);
        if before > 0 && before + bytes > self.budget {
            self.lagged.store(true, Ordering::Relaxed);
            return false;
        }
        true
    }

    /// Counts an event handed to the client's stream.
    pub fn sent(&self, bytes: usize) {
        self.bytes.fetch_sub(bytes, Ordering::Relaxed);
    }

    /// Whether the watcher was cut off for falling behind.
    pub fn lagged(&self) -> bool {
        self.lagged.load(Ordering::Relaxed)
    }
}

/// Who sits in a seat.
pub enum SeatKind {
    /// A person (or client program) holding the seat's token once joined.
    Human {
        /// The SHA-256 (hex) of the seat's secret token, once the seat is joined: the token
        /// itself is kept nowhere.
        token_hash: Option<String>,
    },
    /// A server-side bot.
    Bot(Box<dyn Bot>),
}

/// A seat of a match.
pub struct Seat {
    /// `human`, or the bot's canonical spec string (`random`, `heuristic`,
    /// `ismcts(iterations=1000,max_ms=2000,c=0.7,rollout=heuristic)`): what `SeatStatus.kind`
    /// reports.
    pub kind_name: String,
    /// Who sits there.
    pub kind: SeatKind,
    /// A human seat with an open watch stream (`SeatStatus.connected`).
    pub connected: bool,
}

/// The action a seat sends: an id or its text (core's `table::Choice`).
pub use checkraise_core::table::Choice as ActionChoice;

/// Which parts of a seat's view to build: a seat request's `ViewOptions` (all of them when it
/// has none; spectators always get all).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ViewParts {
    /// `view_json`.
    pub view_json: bool,
    /// `observation`.
    pub observation: bool,
    /// `observation_text`.
    pub observation_text: bool,
    /// The texts of `legal_actions` (their ids are always sent).
    pub action_texts: bool,
    /// `sample_state`, while the seat may act (asked for; never part of the whole view).
    pub sample_state: bool,
}

impl ViewParts {
    /// The whole view: what a request without `ViewOptions` gets.
    pub const ALL: ViewParts = ViewParts {
        view_json: true,
        observation: true,
        observation_text: true,
        action_texts: true,
        sample_state: false,
    };

    /// The parts a request's options ask for.
    pub fn from_options(options: Option<&pb::ViewOptions>) -> Self {
        match options {
            None => Self::ALL,
            Some(o) => ViewParts {
                view_json: !o.omit_view_json,
                observation: !o.omit_observation,
                observation_text: !o.omit_observation_text,
                action_texts: !o.omit_action_texts,
                sample_state: o.with_sample_state,
            },
        }
    }
}

/// One subscriber of a match's changes: a seat or a spectator.
struct Watcher {
    viewer: Option<usize>,
    parts: ViewParts,
    /// Also told when who is connected changes (`WatchSeatRequest.presence`).
    presence: bool,
    events: mpsc::Sender<Result<QueuedEvent, Status>>,
    backlog: Arc<Backlog>,
}

/// A watcher's queue of events: each event shared by every watcher of the match that sees the
/// same view (all spectators, a seat's several watchers), so that a thousand spectators of a
/// match hold its events once, not a thousand times.
pub type EventQueue = mpsc::Receiver<Result<QueuedEvent, Status>>;

/// An event in a watcher's queue, with its encoded size (measured once, when it was built,
/// however many watchers it goes to).
#[derive(Clone, Debug)]
pub struct QueuedEvent {
    /// The event, shared.
    pub event: Arc<pb::MatchEvent>,
    /// Its encoded size in bytes.
    pub bytes: usize,
}

impl std::ops::Deref for QueuedEvent {
    type Target = pb::MatchEvent;

    fn deref(&self) -> &pb::MatchEvent {
        &self.event
    }
}

/// Everything of a match but its state and driver: what a view and a notification need while
/// the driver holds the state.
struct Table {
    id: String,
    game: Arc<dyn Game>,
    seats: Vec<Seat>,
    watchers: Vec<Watcher>,
    /// For each step applied since the last write: the history's length after it and the
    /// version it made (what `MatchWrite` stores beside each history entry).
    marks: Vec<(usize, u64)>,
    /// The largest view a reply or event may carry (`--max-message-size` less `REPLY_SLACK`):
    /// a larger one leaves parts out (`fit_view`).
    view_limit: usize,
    /// The creator chose the seed (a practice deal): every view says so.
    chosen_seed: bool,
}

/// What an `Act` did (core's `table::Acted`): applied now, or a retry recognised.
pub use checkraise_core::table::Acted as ActOutcome;

/// What the match has written to the store, and what it has yet to write.
struct Record {
    seed: u64,
    created_ms: i64,
    /// History entries written (the rest are new).
    written: usize,
    /// The match's first write (its creation) is not made yet.
    created: bool,
    /// A seat joined since the last write: its seat and token hash.
    token: Option<(usize, String)>,
    /// The choices held at this simultaneous node by human seats (bots choose again after a
    /// restart: their choices were never shown to anyone).
    held: Vec<(usize, Action)>,
    held_written: Vec<(usize, Action)>,
    status_written: Option<Stored>,
    /// Set once the match expired while unfinished.
    expired: bool,
    /// When the match last changed in a way everyone sees (created, a seat joined, a step,
    /// the end): never on a read or on a choice held at a simultaneous node, which would tell
    /// that a seat chose.
    touched_ms: i64,
    touched_written: i64,
    finished_ms: Option<i64>,
    /// Writes made so far; the durability watch counts them as committed.
    seq: u64,
    durability: DurabilityWatch,
}

/// A match's seed, and who chose it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatchSeed {
    /// The seed of the match's chance and bots.
    pub seed: u64,
    /// The creator chose it (a practice deal, announced in every view); `false`: the server
    /// drew it from the operating system's generator and keeps it secret until the end.
    pub chosen: bool,
}

impl MatchSeed {
    /// `chosen`, or else a secret seed drawn from the operating system's generator.
    pub fn chosen_or_secret(chosen: Option<u64>) -> Self {
        match chosen {
            Some(seed) => MatchSeed { seed, chosen: true },
            None => MatchSeed {
                seed: u64::from_str_radix(&random_hex(8), 16).expect("16 hex digits"),
                chosen: false,
            },
        }
    }
}

impl From<u64> for MatchSeed {
    /// A seed the creator chose.
    fn from(seed: u64) -> Self {
        MatchSeed { seed, chosen: true }
    }
}

/// A match in play: core's `Match` (the state, its driver, the version, the seats' latest
/// decisions) with what the server keeps beside it (seats and tokens, watchers, the store).
pub struct LiveMatch {
    table: Table,
    play: Match,
    last_active: Instant,
    record: Record,
}

impl LiveMatch {
    /// A new match; chance and bots act at once up to the first human decision (in an
    /// all-bot match, to the end). Bots think on the calling thread: the service calls this on
    /// the blocking pool.
    pub fn new(
        id: String,
        game: Arc<dyn Game>,
        seed: impl Into<MatchSeed>,
        seats: Vec<Seat>,
    ) -> Result<Self, Status> {
        Self::new_unless(id, game, seed, seats, &AtomicBool::new(false))
    }

    /// `new`, giving up with CANCELLED before the next bot move once `stop` is set (the
    /// request creating the match was abandoned, so nobody will ever see the match).
    pub fn new_unless(
        id: String,
        game: Arc<dyn Game>,
        seed: impl Into<MatchSeed>,
        seats: Vec<Seat>,
        stop: &AtomicBool,
    ) -> Result<Self, Status> {
        let seed = seed.into();
        let game_players = game.num_players();
        // A match with seed s deals exactly as an `Env` with seed s, whatever its bots do.
        let driver = Driver::from_seed(seed.seed, game_players).describing();
        let mut live = Self::fresh(id, game, seed, seats, driver, now_ms());
        live.play.deal();
        live.run_bots(Some(stop))?;
        Ok(live)
    }

    /// A match at its initial state, before chance.
    fn fresh(
        id: String,
        game: Arc<dyn Game>,
        seed: MatchSeed,
        seats: Vec<Seat>,
        driver: Driver,
        created_ms: i64,
    ) -> Self {
        LiveMatch {
            play: Match::new(game.new_initial_state(), driver),
            table: Table {
                id,
                game,
                seats,
                watchers: Vec::new(),
                marks: Vec::new(),
                view_limit: usize::MAX,
                chosen_seed: seed.chosen,
            },
            last_active: Instant::now(),
            record: Record {
                seed: seed.seed,
                created_ms,
                written: 0,
                created: true,
                token: None,
                held: Vec::new(),
                held_written: Vec::new(),
                status_written: None,
                expired: false,
                touched_ms: created_ms,
                touched_written: created_ms,
                finished_ms: None,
                seq: 0,
                durability: Arc::new(watch::channel(Durability::default()).0),
            },
        }
    }

    /// A stored match, resumed: its history replayed through the engine (the chance stream
    /// re-drawn from the seed must give the stored outcomes), its held choices held again and
    /// its tokens' hashes back in their seats. Bots do not move here: `resume_bots` lets them.
    /// The bots' streams after a restart are drawn from the seed and the history's length.
    pub fn restore(
        game: Arc<dyn Game>,
        stored: &StoredMatch,
        mut seats: Vec<Seat>,
    ) -> Result<Self, String> {
        let players = game.num_players();
        if seats.len() != players {
            return Err(format!(
                "{} seats stored for a game of {players}",
                seats.len()
            ));
        }
        for (seat, hash) in &stored.tokens {
            match seats.get_mut(*seat).map(|s| &mut s.kind) {
                Some(SeatKind::Human { token_hash }) => *token_hash = Some(hash.clone()),
                _ => {
                    return Err(format!(
                        "a token is stored for seat {seat}, not a human seat"
                    ));
                }
            }
        }
        let seed = stored.row.seed;
        let resumed = (stored.steps.len() as u64).wrapping_mul(0xD1B5_4A32_D192_ED03);
        let bots = (0..players as u64)
            .map(|k| GameRng::new(seed.wrapping_add(BOT_SEED_OFFSET).wrapping_add(k) ^ resumed))
            .collect();
        let driver = Driver::new(GameRng::new(seed), bots).describing();
        let mut live = Self::fresh(
            stored.id.clone(),
            game,
            MatchSeed {
                seed,
                chosen: stored.row.chosen_seed,
            },
            seats,
            driver,
            stored.row.created_ms,
        );
        live.play.deal();
        let decisions = stored
            .steps
            .iter()
            .filter(|s| s.player >= 0)
            .map(|s| (s.player as usize, s.action))
            .chain(stored.held.iter().map(|&(seat, a)| (seat, i64::from(a))));
        for (seat, action) in decisions {
            let action = Action::try_from(action)
                .map_err(|_| format!("a stored action ({action}) is out of range"))?;
            live.decide(seat, action)
                .map_err(|e| format!("the stored history does not replay: {e}"))?;
        }
        let replayed: Vec<(i64, i64)> = live
            .play
            .state()
            .history()
            .iter()
            .map(|h| (h.player.id(), i64::from(h.action)))
            .collect();
        let stored_history: Vec<(i64, i64)> =
            stored.steps.iter().map(|s| (s.player, s.action)).collect();
        if replayed != stored_history || live.play.version() != stored.version {
            return Err(format!(
                "replaying gives {} history entries at version {}, the store has {} at version {}",
                replayed.len(),
                live.play.version(),
                stored_history.len(),
                stored.version
            ));
        }
        let r = &mut live.record;
        r.written = stored_history.len();
        r.created = false;
        r.held_written = r.held.clone();
        r.status_written = Some(stored.status);
        r.touched_ms = stored.touched_ms;
        r.touched_written = stored.touched_ms;
        r.finished_ms = stored.finished_ms;
        live.table.marks.clear();
        // Idle expiry counts from the stored time of the last request.
        let idle = Duration::from_millis(now_ms().saturating_sub(stored.touched_ms).max(0) as u64);
        live.last_active = Instant::now()
            .checked_sub(idle)
            .unwrap_or_else(Instant::now);
        Ok(live)
    }

    /// After `restore`: lets chance and bots act if it is their turn (the server stopped while
    /// they were to move). Bots think on the calling thread.
    pub fn resume_bots(&mut self) -> Result<(), Status> {
        let version = self.play.version();
        self.run_bots(None)?;
        if self.play.version() != version {
            self.changed();
        }
        Ok(())
    }

    /// The match id.
    pub fn id(&self) -> &str {
        &self.table.id
    }

    /// The game.
    pub fn game(&self) -> &Arc<dyn Game> {
        &self.table.game
    }

    /// Whether any seat is a bot.
    pub fn has_bots(&self) -> bool {
        self.table
            .seats
            .iter()
            .any(|seat| matches!(seat.kind, SeatKind::Bot(_)))
    }

    /// Whether any bot seat searches or evaluates moves (every bot but `random`, which picks
    /// a legal action in about the time it takes to list them): only such bots can think
    /// for long.
    pub fn has_thinking_bots(&self) -> bool {
        self.table
            .seats
            .iter()
            .any(|seat| matches!(&seat.kind, SeatKind::Bot(bot) if bot.name() != "random"))
    }

    /// Whether the game is over.
    pub fn is_finished(&self) -> bool {
        self.play.state().is_terminal()
    }

    /// The steps taken (`SeatView.version`).
    pub fn version(&self) -> u64 {
        self.play.version()
    }

    /// Every seat's return, once the game is over.
    pub fn final_returns(&self) -> Option<Vec<f64>> {
        let state = self.play.state();
        state.is_terminal().then(|| state.returns())
    }

    /// The seats whose decision the match waits for now: the seat to act, or at a
    /// simultaneous node every seat that has not chosen yet; none at the end.
    pub fn waiting_on(&self) -> Vec<usize> {
        let state = self.play.state();
        match state.current_player() {
            Player::Seat(seat) => vec![seat],
            Player::Simultaneous => (0..self.table.seats.len())
                .filter(|&seat| !self.play.has_chosen(seat))
                .collect(),
            Player::Chance | Player::Terminal => Vec::new(),
        }
    }

    /// Hands a human seat to a server-side bot for the rest of the game (a ladder bot that
    /// ran out of time): its token no longer acts, its kind reads `kind_name`, and the bots,
    /// this one included, act at once if it is their turn. Bots think on the calling thread.
    pub fn hand_to_bot(
        &mut self,
        seat: usize,
        bot: Box<dyn Bot>,
        kind_name: String,
    ) -> Result<(), Status> {
        let Some(place) = self.table.seats.get_mut(seat) else {
            return Err(Status::invalid_argument(format!("no seat {seat}")));
        };
        if !matches!(place.kind, SeatKind::Human { .. }) {
            return Err(Status::failed_precondition(format!(
                "seat {seat} is already played by the server"
            )));
        }
        place.kind = SeatKind::Bot(bot);
        place.kind_name = kind_name;
        place.connected = false;
        if self.play.state().is_terminal() {
            return Ok(());
        }
        // Every watcher learns the seat's new kind (SeatStatus.kind) before the bot moves.
        self.presence_changed();
        self.resume_bots()
    }

    /// When a request last touched the match.
    pub fn last_active(&self) -> Instant {
        self.last_active
    }

    /// Records a request touching the match (idle expiry counts from here). Not stored and
    /// never shown: `MatchSummary.touched_ms` moves only on public changes (`changed`).
    pub fn touch(&mut self) {
        self.last_active = Instant::now();
    }

    /// Records a change everyone sees (a seat joined, a step taken): the stored and listed
    /// `touched_ms`.
    fn changed(&mut self) {
        self.record.touched_ms = now_ms();
    }

    /// Marks an unfinished match as expired (stored by the next write).
    pub fn expire(&mut self) {
        self.record.expired = true;
    }

    /// The change to store since the last write, if anything changed. Call it with the match
    /// locked, and send it before unlocking, so that a match's writes are queued in order.
    pub fn take_write(&mut self) -> Option<MatchWrite> {
        let status = self.status();
        let returns = self.returns_json();
        let history = self.play.state().history();
        let r = &mut self.record;
        if status == Stored::Finished && r.finished_ms.is_none() {
            r.finished_ms = Some(now_ms());
        }
        let changed = r.created
            || r.written < history.len()
            || r.token.is_some()
            || r.held != r.held_written
            || r.status_written != Some(status)
            || r.touched_ms > r.touched_written;
        if !changed {
            return None;
        }
        let steps = step_rows(
            &history[r.written..],
            r.written,
            &self.table.marks,
            self.play.version(),
        );
        self.table.marks.clear();
        let create = r.created.then(|| match_row(&self.table, r));
        let write = MatchWrite {
            id: self.table.id.clone(),
            create,
            first_step: r.written,
            steps,
            token: r.token.take(),
            version: self.play.version(),
            status,
            held: serde_json::to_string(&r.held).expect("pairs serialize"),
            returns,
            touched_ms: r.touched_ms,
            finished_ms: r.finished_ms,
            seq: r.seq + 1,
            durability: r.durability.clone(),
        };
        r.seq += 1;
        r.created = false;
        r.written = history.len();
        r.held_written = r.held.clone();
        r.status_written = Some(status);
        r.touched_written = r.touched_ms;
        Some(write)
    }

    /// The match as the store would hold it (history, status, times), for listing and
    /// replays without a store. Token hashes and held choices are left out.
    pub fn snapshot(&self) -> StoredMatch {
        let history = self.play.state().history();
        StoredMatch {
            id: self.table.id.clone(),
            row: match_row(&self.table, &self.record),
            status: self.status(),
            version: self.play.version(),
            // Versions of entries are not kept in memory; replays count the steps themselves.
            steps: step_rows(history, 0, &[], self.play.version()),
            held: Vec::new(),
            tokens: std::collections::HashMap::new(),
            touched_ms: self.record.touched_ms,
            finished_ms: self.record.finished_ms,
            returns: self.returns_json(),
            sealed: false,
        }
    }

    /// The status to store.
    fn status(&self) -> Stored {
        if self.play.state().is_terminal() {
            Stored::Finished
        } else if self.record.expired {
            Stored::Expired
        } else {
            Stored::Live
        }
    }

    /// Every seat's return as JSON, once the game is over.
    fn returns_json(&self) -> Option<String> {
        let state = self.play.state();
        state
            .is_terminal()
            .then(|| serde_json::to_string(&state.returns()).expect("numbers serialize"))
    }

    /// What a reply showing the match as it is now must wait for: every write made so far.
    pub fn durable_point(&self) -> (watch::Receiver<Durability>, u64) {
        (self.record.durability.subscribe(), self.record.seq)
    }

    /// The seats' kinds and whether they are taken.
    pub fn seat_statuses(&self) -> Vec<pb::SeatStatus> {
        self.table.seat_statuses()
    }

    /// Claims a human seat (the first free one when `seat` is `None`) with a new token (only
    /// its hash is kept).
    pub fn join(&mut self, seat: Option<u32>, token: String) -> Result<usize, Status> {
        self.join_with(seat, |_| token.clone(), false)
            .map(|(seat, _)| seat)
    }

    /// Claims a human seat (the first free one when `seat` is `None`) with `token` (the
    /// token for each seat: only its hash is kept). With `repeatable` (a client-chosen request
    /// id made the tokens), a seat already joined with its token from `token` is this request
    /// repeated: that seat is returned again. Returns the seat and whether it is a repeat.
    pub fn join_with(
        &mut self,
        seat: Option<u32>,
        token: impl Fn(usize) -> String,
        repeatable: bool,
    ) -> Result<(usize, bool), Status> {
        let table = &mut self.table;
        // A repeat of a join: the seat whose stored hash is that of the token this request
        // makes for it. One request id claims one seat: asking it for another is refused.
        let repeat = (0..table.seats.len()).filter(|_| repeatable).find(|&s| {
            matches!(&table.seats[s].kind, SeatKind::Human { token_hash: Some(h) }
                    if hashes_equal(h, &token_hash(&token(s))))
        });
        if let Some(joined) = repeat {
            return match seat {
                Some(want) if want as usize != joined => Err(Status::failed_precondition(format!(
                    "this request_id already claimed seat {joined} of match '{}'; one request \
                     id claims one seat: use a new request_id for seat {want}",
                    table.id
                ))),
                _ => Ok((joined, true)),
            };
        }
        let seat = match seat {
            Some(s) => table.seat_index(s)?,
            None => table
                .seats
                .iter()
                .position(|s| matches!(s.kind, SeatKind::Human { token_hash: None }))
                .ok_or_else(|| {
                    Status::failed_precondition(format!(
                        "match '{}' has no free human seat",
                        table.id
                    ))
                })?,
        };
        match &mut table.seats[seat].kind {
            SeatKind::Bot(_) => Err(Status::failed_precondition(format!(
                "seat {seat} of match '{}' is played by the {} bot; only human seats can be \
                 joined",
                table.id, table.seats[seat].kind_name
            ))),
            SeatKind::Human {
                token_hash: Some(_),
            } => Err(Status::failed_precondition(format!(
                "seat {seat} of match '{}' is already taken",
                table.id
            ))),
            SeatKind::Human { token_hash: slot } => {
                let hash = token_hash(&token(seat));
                *slot = Some(hash.clone());
                self.record.token = Some((seat, hash));
                self.changed();
                Ok((seat, false))
            }
        }
    }

    /// Checks a seat number and the token presented for it.
    pub fn authorize(&self, seat: u32, presented: Option<&str>) -> Result<usize, Status> {
        let seat = self.table.seat_index(seat)?;
        let presented = presented.ok_or_else(|| {
            Status::permission_denied(format!(
                "seat {seat} needs its token in the `{}` metadata",
                crate::SEAT_TOKEN_METADATA
            ))
        })?;
        match &self.table.seats[seat].kind {
            SeatKind::Human {
                token_hash: Some(hash),
            } if hashes_equal(hash, &token_hash(presented)) => Ok(seat),
            _ => Err(Status::permission_denied(format!(
                "wrong token for seat {seat} of match '{}'",
                self.table.id
            ))),
        }
    }

    /// Plays `seat`'s action (already authorized), then chance and bots up to the next human
    /// decision. At a simultaneous node the choice waits, hidden, until every seat has chosen.
    /// Bots think on the calling thread: the service calls this on the blocking pool.
    pub fn act(&mut self, seat: usize, choice: ActionChoice) -> Result<(), Status> {
        self.act_expecting(seat, choice, None).map(|_| ())
    }

    /// `act`, retry-safe when `expected` (the version of the view the action was chosen on)
    /// is given: if this seat's latest decision was made at that version with this action, it
    /// is not applied again (`AlreadyApplied`); if the match moved on without it, ABORTED.
    pub fn act_expecting(
        &mut self,
        seat: usize,
        choice: ActionChoice,
        expected: Option<u64>,
    ) -> Result<ActOutcome, Status> {
        let before = self.play.version();
        let simultaneous = self.play.state().is_simultaneous_node();
        let LiveMatch { table, play, .. } = self;
        let acted =
            table.run(|bots, on_step| play.act(seat, &choice, expected, bots, None, on_step));
        if self.play.version() != before {
            self.record.held.clear();
        } else if acted == Ok(ActOutcome::Applied)
            && simultaneous
            && self.play.has_chosen(seat)
            && self.is_human(seat)
        {
            // Held, hidden, until every seat has chosen; stored so that a restart holds it
            // again.
            if let Some(d) = self.play.decision(seat) {
                self.record.held.push((seat, d.action));
            }
        }
        self.stamp_finished();
        if self.play.version() != before {
            self.changed();
        }
        acted.map_err(|e| self.act_status(e))
    }

    /// The status of a refused `Act`.
    fn act_status(&self, e: ActError) -> Status {
        match e {
            ActError::Game(e) => status_from_game_error(&e),
            ActError::Moved {
                seat,
                expected,
                current,
            } => Status::aborted(format!(
                "match '{}' is at version {current}, not {expected} as expected, and seat {seat} did not act at version {expected}: read the view and act again",
                self.table.id
            )),
            e @ ActError::Decided { .. } => Status::failed_precondition(e.to_string()),
            ActError::Stopped => {
                Status::cancelled("the request was abandoned before the match's bots had played")
            }
            ActError::Bot(e) => server_fault("a bot could not act", &e),
        }
    }

    fn is_human(&self, seat: usize) -> bool {
        matches!(
            self.table.seats.get(seat).map(|s| &s.kind),
            Some(SeatKind::Human { .. })
        )
    }

    /// Plays `seat`'s decision through core's match (held at a simultaneous node until every
    /// seat has chosen), the bots not moving: a stored match's history replayed.
    fn decide(&mut self, seat: usize, action: Action) -> Result<(), GameError> {
        let before = self.play.version();
        let LiveMatch { table, play, .. } = self;
        let held = table.run(|_, on_step| play.decide(seat, action, on_step))?;
        if self.play.version() != before {
            self.record.held.clear();
        } else if held && self.is_human(seat) {
            self.record.held.push((seat, action));
        }
        Ok(())
    }

    /// Lets chance and bot seats act (core's driver) until a human must decide or the game
    /// ends (or, before a bot move, until `stop` is set: CANCELLED).
    fn run_bots(&mut self, stop: Option<&AtomicBool>) -> Result<(), Status> {
        let LiveMatch { table, play, .. } = self;
        let halt = table.run(|bots, on_step| play.advance(bots, stop, on_step));
        self.stamp_finished();
        match halt {
            Ok(Halt::Stopped) => Err(self.act_status(ActError::Stopped)),
            Ok(Halt::Decide | Halt::Over) => Ok(()),
            Err(e) => Err(self.act_status(e)),
        }
    }

    /// Stamps when the game ended, with or without a store (ListMatches reads it).
    fn stamp_finished(&mut self) {
        if self.play.state().is_terminal() && self.record.finished_ms.is_none() {
            self.record.finished_ms = Some(now_ms());
        }
    }

    /// Subscribes a viewer (an authorized seat, or `None` for a spectator): the current view
    /// at once, then every change. The receiver ends after the terminal event.
    pub fn watch(&mut self, viewer: Option<usize>) -> (EventQueue, Arc<Backlog>) {
        self.watch_parts(viewer, ViewParts::ALL, WATCH_BYTES, false)
    }

    /// `watch`, with only `parts` of each of the seat's views filled, a watcher cut off once
    /// `budget` bytes of events wait for it, and with `presence` also told (an event that is
    /// not a step) when who is connected changes.
    pub fn watch_parts(
        &mut self,
        viewer: Option<usize>,
        parts: ViewParts,
        budget: usize,
        presence: bool,
    ) -> (EventQueue, Arc<Backlog>) {
        let (events, receiver) = mpsc::channel(WATCH_BUFFER);
        let backlog = Arc::new(Backlog::new(budget));
        let terminal = self.play.state().is_terminal();
        // A human seat's first watcher connects it: the other watchers are told.
        if let Some(seat) = viewer.and_then(|s| self.table.seats.get_mut(s))
            && matches!(seat.kind, SeatKind::Human { .. })
            && !seat.connected
            && !terminal
        {
            seat.connected = true;
            self.presence_changed();
        }
        let first = pb::MatchEvent {
            actor: Player::Chance.id(),
            own_action: None,
            view: Some(self.view_parts(viewer, parts)),
        };
        let bytes = first.encoded_len();
        backlog.queue(bytes);
        let _ = events.try_send(Ok(QueuedEvent {
            event: Arc::new(first),
            bytes,
        }));
        if !terminal {
            self.table.watchers.push(Watcher {
                viewer,
                parts,
                presence,
                events,
                backlog: backlog.clone(),
            });
        }
        (receiver, backlog)
    }

    /// Reads again which human seats have an open watch stream (after one closed), and tells
    /// every watcher if that changed.
    pub fn refresh_presence(&mut self) {
        let t = &mut self.table;
        t.watchers.retain(|w| !w.events.is_closed());
        let mut changed = false;
        for (i, seat) in t.seats.iter_mut().enumerate() {
            let now = matches!(seat.kind, SeatKind::Human { .. })
                && t.watchers.iter().any(|w| w.viewer == Some(i));
            changed |= seat.connected != now;
            seat.connected = now;
        }
        if changed && !self.play.state().is_terminal() {
            self.presence_changed();
        }
    }

    /// Sends every watcher that asked for presence its view again, as an event that is not a
    /// step (actor -1, the same version): who is connected changed.
    fn presence_changed(&mut self) {
        let state = self.play.state();
        let version = self.play.version();
        let submitted = |seat: usize| state.is_simultaneous_node() && self.play.has_chosen(seat);
        let (viewing, watchers, _) = self.table.split();
        notify(watchers, state, None, |viewer, parts| {
            let submitted = viewer.is_some_and(submitted);
            viewing.view(version, state, submitted, viewer, parts)
        });
    }

    /// Tells every watcher the match is gone, and drops them.
    pub fn close_watchers(&mut self, why: &Status) {
        for watcher in self.table.watchers.drain(..) {
            let _ = watcher
                .events
                .try_send(Err(Status::new(why.code(), why.message().to_string())));
        }
    }

    /// What `viewer` (a seat, or `None` for a spectator) may know now. A seat's view comes
    /// only from the engine's functions of that seat.
    pub fn view(&self, viewer: Option<usize>) -> pb::SeatView {
        self.view_parts(viewer, ViewParts::ALL)
    }

    /// `view`, with only `parts` of a seat's view filled.
    pub fn view_parts(&self, viewer: Option<usize>, parts: ViewParts) -> pb::SeatView {
        self.view_within(viewer, parts, self.table.view_limit)
    }

    fn view_within(&self, viewer: Option<usize>, parts: ViewParts, limit: usize) -> pb::SeatView {
        let state = self.play.state();
        let submitted =
            viewer.is_some_and(|seat| state.is_simultaneous_node() && self.play.has_chosen(seat));
        let viewing = Viewing {
            limit,
            ..self.table.viewing()
        };
        viewing.view(self.play.version(), state, submitted, viewer, parts)
    }

    /// Caps the views this match sends at `message_bytes` (`--max-message-size`) less
    /// `REPLY_SLACK`: a view that would be larger leaves parts out and names them in
    /// `omitted_parts`, so that a reply can always be sent.
    pub fn limit_views(&mut self, message_bytes: usize) {
        self.table.view_limit = message_bytes.saturating_sub(REPLY_SLACK);
    }

    /// The encoded size of the largest whole view anyone may get now (every seat's and the
    /// spectator's), whatever the limit.
    pub fn largest_view_bytes(&self) -> usize {
        (0..self.table.seats.len())
            .map(Some)
            .chain([None])
            .map(|viewer| {
                self.view_within(viewer, ViewParts::ALL, usize::MAX)
                    .encoded_len()
            })
            .max()
            .unwrap_or(0)
    }
}

/// Bytes a reply or event may carry beside its view: a watch event's actor and own action,
/// and room to spare.
pub const REPLY_SLACK: usize = 1024;

/// Leaves parts out of `view` until it is at most `limit` bytes encoded (the largest first:
/// the observation tensor, its text, the oldest entries of the JSON view's longest list, the
/// JSON view, the legal actions' texts), naming each in `omitted_parts`.
fn fit_view(view: &mut pb::SeatView, limit: usize) {
    if limit == usize::MAX || view.encoded_len() <= limit {
        return;
    }
    type LeaveOut = fn(&mut pb::SeatView, usize);
    let steps: [(&str, LeaveOut); 6] = [
        ("sample_state", |v, _| v.sample_state.clear()),
        ("observation", |v, _| v.observation = None),
        ("observation_text", |v, _| v.observation_text.clear()),
        ("view_json_entries", trim_view_json),
        ("view_json", |v, _| v.view_json.clear()),
        ("action_texts", |v, _| {
            for action in &mut v.legal_actions {
                action.text.clear();
                action.action_json.clear();
            }
        }),
    ];
    for (name, leave_out) in steps {
        // Named first, so that what is left out makes room for its name too.
        view.omitted_parts.push(name.to_string());
        let before = view.encoded_len();
        leave_out(view, limit);
        if view.encoded_len() == before {
            view.omitted_parts.pop();
        }
        if view.encoded_len() <= limit {
            return;
        }
    }
}

/// Leaves out the fewest oldest entries of the longest list (by its JSON text) in the view's
/// JSON that make the view fit `limit`, keeping the JSON's shape; or, if no number of them
/// does, the whole list's entries (the view then loses its JSON next).
fn trim_view_json(view: &mut pb::SeatView, limit: usize) {
    use serde_json::Value;
    let Ok(value) = serde_json::from_str::<Value>(&view.view_json) else {
        return;
    };
    let Some(path) = longest_list(&value, String::new()).map(|(path, _)| path) else {
        return;
    };
    let entries = value
        .pointer(&path)
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    let without = |oldest: usize| {
        let mut trimmed = value.clone();
        if let Some(list) = trimmed.pointer_mut(&path).and_then(Value::as_array_mut) {
            list.drain(..oldest.min(list.len()));
        }
        serde_json::to_string(&trimmed).expect("a JSON value serializes")
    };
    let fits = |view: &mut pb::SeatView, oldest: usize| {
        view.view_json = without(oldest);
        view.encoded_len() <= limit
    };
    // The fewest entries to leave out, by bisection: leaving out more never makes it larger.
    let (mut low, mut high) = (1, entries);
    let whole = view.view_json.clone();
    if entries == 0 || !fits(view, high) {
        view.view_json = whole;
        return;
    }
    while low < high {
        let middle = low + (high - low) / 2;
        if fits(view, middle) {
            high = middle;
        } else {
            low = middle + 1;
        }
    }
    view.view_json = without(low);
}

/// The JSON Pointer and text length of the longest non-empty list in `value` (by its JSON
/// text), if it holds one.
fn longest_list(value: &serde_json::Value, at: String) -> Option<(String, usize)> {
    use serde_json::Value;
    let children: Box<dyn Iterator<Item = (String, &Value)>> = match value {
        Value::Array(items) => Box::new(
            items
                .iter()
                .enumerate()
                .map(|(i, item)| (format!("{at}/{i}"), item)),
        ),
        Value::Object(fields) => Box::new(fields.iter().map(|(key, item)| {
            let key = key.replace('~', "~0").replace('/', "~1");
            (format!("{at}/{key}"), item)
        })),
        _ => return None,
    };
    let own = match value {
        Value::Array(items) if !items.is_empty() => Some((
            at.clone(),
            serde_json::to_string(value).map_or(0, |t| t.len()),
        )),
        _ => None,
    };
    children
        .filter_map(|(path, child)| longest_list(child, path))
        .chain(own)
        .max_by_key(|(_, length)| *length)
}

impl Table {
    fn seat_statuses(&self) -> Vec<pb::SeatStatus> {
        seat_statuses(&self.seats)
    }

    fn seat_index(&self, seat: u32) -> Result<usize, Status> {
        let seat = seat as usize;
        if seat < self.seats.len() {
            Ok(seat)
        } else {
            Err(status_from_game_error(&GameError::InvalidSeat {
                seat: seat as i64,
                num_players: self.seats.len(),
            }))
        }
    }

    /// What a view needs of the table.
    fn viewing(&self) -> Viewing<'_> {
        Viewing {
            id: &self.id,
            game: &self.game,
            seats: &self.seats,
            limit: self.view_limit,
            chosen_seed: self.chosen_seed,
        }
    }

    /// The table taken apart: what a view needs, borrowed beside the watchers and the step
    /// marks, so that a notification builds views while it sends them.
    #[allow(clippy::type_complexity)]
    fn split(&mut self) -> (Viewing<'_>, &mut Vec<Watcher>, &mut Vec<(usize, u64)>) {
        let Table {
            id,
            game,
            seats,
            watchers,
            marks,
            view_limit,
            chosen_seed,
        } = self;
        let viewing = Viewing {
            id,
            game,
            seats,
            limit: *view_limit,
            chosen_seed: *chosen_seed,
        };
        (viewing, watchers, marks)
    }

    /// Runs `f` with the seats' engine bots (`Some` for a bot seat) and what each step the
    /// match applies does here: it is marked for the store, and every watcher receives its
    /// own view of the change.
    fn run<R>(&mut self, f: impl FnOnce(&[Option<&dyn Bot>], &mut OnStep<'_>) -> R) -> R {
        let (viewing, watchers, marks) = self.split();
        let bots: Vec<Option<&dyn Bot>> = viewing
            .seats
            .iter()
            .map(|seat| match &seat.kind {
                SeatKind::Bot(bot) => Some(bot.as_ref()),
                SeatKind::Human { .. } => None,
            })
            .collect();
        let mut on_step = |state: &dyn State, step: &Step, version: u64| {
            marks.push((state.history().len(), version));
            notify(watchers, state, Some(step), |viewer, parts| {
                viewing.view(version, state, false, viewer, parts)
            });
        };
        f(&bots, &mut on_step)
    }
}

fn seat_statuses(seats: &[Seat]) -> Vec<pb::SeatStatus> {
    seats
        .iter()
        .enumerate()
        .map(|(i, seat)| pb::SeatStatus {
            seat: i as u32,
            kind: seat.kind_name.clone(),
            taken: match &seat.kind {
                SeatKind::Human { token_hash } => token_hash.is_some(),
                SeatKind::Bot(_) => true,
            },
            connected: seat.connected,
        })
        .collect()
}

/// Sends each watcher its view after `step` (`None`: a change of who is connected, not a step,
/// actor -1, only to the watchers that asked for presence); drops watchers that are gone or
/// lag behind, and all of them once the game is over.
fn notify(
    watchers: &mut Vec<Watcher>,
    state: &dyn State,
    step: Option<&Step>,
    view: impl Fn(Option<usize>, ViewParts) -> pb::SeatView,
) {
    if watchers.is_empty() {
        return;
    }
    let terminal = state.is_terminal();
    // One event per distinct (viewer, parts), built once and shared by its watchers.
    let mut built: Vec<(Option<usize>, ViewParts, Arc<pb::MatchEvent>, usize)> = Vec::new();
    watchers.retain(|watcher| {
        if step.is_none() && !watcher.presence {
            return true;
        }
        let shared = built
            .iter()
            .find(|(viewer, parts, _, _)| *viewer == watcher.viewer && *parts == watcher.parts);
        let (event, bytes) = match shared {
            Some((_, _, event, bytes)) => (event.clone(), *bytes),
            None => {
                let own_action = watcher.viewer.zip(step).and_then(|(seat, step)| {
                    step.chosen
                        .iter()
                        .find(|(s, _, _)| *s == seat)
                        .map(|(_, id, text)| pb::LegalAction {
                            id: *id,
                            text: text.clone(),
                            ..Default::default()
                        })
                });
                let event = pb::MatchEvent {
                    actor: step.map_or(Player::Chance.id(), |step| step.actor.id()),
                    own_action,
                    view: Some(view(watcher.viewer, watcher.parts)),
                };
                let bytes = event.encoded_len();
                let event = Arc::new(event);
                built.push((watcher.viewer, watcher.parts, event.clone(), bytes));
                (event, bytes)
            }
        };
        if !watcher.backlog.queue(bytes) {
            return false;
        }
        match watcher.events.try_send(Ok(QueuedEvent { event, bytes })) {
            Ok(()) => !terminal,
            Err(mpsc::error::TrySendError::Full(_)) => {
                watcher.backlog.lagged.store(true, Ordering::Relaxed);
                false
            }
            Err(mpsc::error::TrySendError::Closed(_)) => false,
        }
    });
}

/// What every view of a match is built with besides the state: the match's id, game and seats,
/// the largest view a message may carry, and whether the creator chose the seed.
#[derive(Clone, Copy)]
struct Viewing<'a> {
    id: &'a str,
    game: &'a Arc<dyn Game>,
    seats: &'a [Seat],
    limit: usize,
    chosen_seed: bool,
}

impl Viewing<'_> {
    /// What `viewer` may know at `state` (`seat_view`).
    fn view(
        &self,
        version: u64,
        state: &dyn State,
        submitted: bool,
        viewer: Option<usize>,
        parts: ViewParts,
    ) -> pb::SeatView {
        seat_view(
            self.id,
            self.game,
            self.seats,
            version,
            state,
            submitted,
            viewer,
            parts,
            self.limit,
            self.chosen_seed,
        )
    }
}

/// What `viewer` (a seat, or `None` for a spectator) may know at `state`, with `parts` of a
/// seat's view; `submitted`: the seat's choice at this simultaneous node is held.
#[allow(clippy::too_many_arguments)]
fn seat_view(
    id: &str,
    game: &Arc<dyn Game>,
    seats: &[Seat],
    version: u64,
    state: &dyn State,
    submitted: bool,
    viewer: Option<usize>,
    parts: ViewParts,
    limit: usize,
    chosen_seed: bool,
) -> pb::SeatView {
    let current = state.current_player();
    let terminal = state.is_terminal();
    // A seat's own return is read from the same call as every seat's at the end.
    let returns = if terminal || viewer.is_some() {
        state.returns()
    } else {
        Vec::new()
    };
    let mut out = pb::SeatView {
        match_id: id.to_string(),
        seat: viewer.map(|s| s as u32),
        version,
        view_json: if parts.view_json {
            // Straight into a byte buffer: `Value`'s `Display` goes through `fmt::Write` a
            // piece at a time, for the same text.
            serde_json::to_string(&state.view(viewer)).expect("a JSON value serializes")
        } else {
            String::new()
        },
        current_player: current.id(),
        is_terminal: terminal,
        seat_return: viewer.and_then(|s| returns.get(s).copied()).unwrap_or(0.0),
        returns: if terminal { returns } else { Vec::new() },
        seats: seat_statuses(seats),
        chosen_seed,
        ..Default::default()
    };
    let Some(seat) = viewer else {
        fit_view(&mut out, limit);
        return out;
    };
    let player = Player::Seat(seat);
    out.action_submitted = current == Player::Simultaneous && submitted;
    out.may_act = current == player || (current == Player::Simultaneous && !out.action_submitted);
    if out.may_act {
        out.legal_actions = state
            .legal_actions_for(player)
            .into_iter()
            .map(|id| {
                if !parts.action_texts {
                    return pb::LegalAction {
                        id,
                        ..Default::default()
                    };
                }
                pb::LegalAction {
                    id,
                    text: state.action_to_string(player, id),
                    action_json: state
                        .action_struct(seat, id)
                        .map(|s| s.to_string())
                        .unwrap_or_default(),
                }
            })
            .collect();
    }
    if parts.sample_state && out.may_act {
        out.sample_state = sample_state(state, seat);
    }
    if parts.observation {
        let mut observation = vec![0.0f32; game.observation_size()];
        state.observation_tensor(seat, &mut observation);
        let shape = game.observation_shape().iter().map(|&d| d as u32).collect();
        out.observation = Some(f32_tensor(shape, &observation));
    }
    if parts.observation_text {
        out.observation_text = state.observation_string(seat);
    }
    fit_view(&mut out, limit);
    out
}

/// A state consistent with everything `seat` knows, the rest drawn from a fresh seed of the
/// operating system's generator, as text (`SeatView.sample_state`): the engine's
/// `resample_from_infostate`, the determinization the server's own bots choose on.
fn sample_state(state: &dyn State, seat: usize) -> String {
    let seed = u64::from_str_radix(&random_hex(8), 16).expect("16 hex digits");
    sample_state_with(state, seat, seed)
}

/// `sample_state` with the draw's seed given.
fn sample_state_with(state: &dyn State, seat: usize, seed: u64) -> String {
    state
        .resample_from_infostate(seat, &mut GameRng::new(seed))
        .serialize()
}

/// The history entries `entries` (from index `first`) as stored, each with the version of
/// the step it belongs to (`marks`: the history's length after each step since the last write
/// and the version it made). The deal before the first decision is at version 0; nothing
/// follows the last step, but for safety later entries take the current version.
fn step_rows(
    entries: &[checkraise_core::PlayerAction],
    first: usize,
    marks: &[(usize, u64)],
    current: u64,
) -> Vec<StepRow> {
    let mut marks = marks.iter().peekable();
    entries
        .iter()
        .enumerate()
        .map(|(i, entry)| {
            let index = first + i;
            while marks.next_if(|(end, _)| *end <= index).is_some() {}
            let version = match marks.peek() {
                Some((_, v)) => *v,
                None => current,
            };
            // Chance before any decision (the deal at creation) is at version 0.
            let before_any = first == 0 && entries[..=i].iter().all(|e| e.player == Player::Chance);
            StepRow {
                player: entry.player.id(),
                action: i64::from(entry.action),
                version: if before_any { 0 } else { version },
            }
        })
        .collect()
}

/// What never changes of a match, as stored.
fn match_row(table: &Table, record: &Record) -> MatchRow {
    MatchRow {
        game: table.game.info().name.to_string(),
        parameters: parameters_json(table.game.as_ref()),
        seed: record.seed,
        chosen_seed: table.chosen_seed,
        seats: serde_json::to_string(
            &table
                .seats
                .iter()
                .map(|s| s.kind_name.as_str())
                .collect::<Vec<_>>(),
        )
        .expect("strings serialize"),
        created_ms: record.created_ms,
    }
}

/// Every parameter of `game` as text, a JSON object (what the store keeps to make the game
/// again).
pub fn parameters_json(game: &dyn Game) -> String {
    let values: std::collections::BTreeMap<&str, String> = game
        .params()
        .values()
        .iter()
        .map(|(k, v)| (k.as_str(), v.to_string()))
        .collect();
    serde_json::to_string(&values).expect("strings serialize")
}

/// The game a stored match is of: its name and its parameters as `parameters_json` wrote them.
pub fn stored_game(row: &MatchRow) -> Result<Arc<dyn Game>, String> {
    let parameters: std::collections::BTreeMap<String, String> =
        serde_json::from_str(&row.parameters)
            .map_err(|e| format!("its parameters do not read: {e}"))?;
    checkraise_core::make_game(&row.game, &parameters).map_err(|e| e.to_string())
}

/// Compares token hashes in time independent of where they differ.
pub(crate) fn hashes_equal(expected: &str, presented: &str) -> bool {
    let (a, b) = (expected.as_bytes(), presented.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A fresh secret: `bytes` random bytes from the operating system, as hex.
pub fn random_hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf).expect("the operating system provides randomness");
    buf.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use prost::Message;

    use super::{LiveMatch, REPLY_SLACK, Seat, SeatKind, ViewParts, hashes_equal};

    fn pokeros(players: usize) -> LiveMatch {
        let game = checkraise_core::make_game(
            "pokeros",
            [
                ("players", players.to_string()),
                ("board_size", "31".to_string()),
            ],
        )
        .expect("valid parameters");
        let seats = (0..players)
            .map(|_| Seat {
                connected: false,
                kind_name: "human".into(),
                kind: SeatKind::Human { token_hash: None },
            })
            .collect();
        LiveMatch::new("m".into(), game, 7, seats).expect("a match")
    }

    #[test]
    fn views_over_the_limit_leave_their_largest_parts_out_and_say_so() {
        let mut live = pokeros(4);
        let whole = live.view(Some(0));
        assert!(whole.omitted_parts.is_empty());
        let whole_bytes = whole.encoded_len();
        assert!(live.largest_view_bytes() >= whole_bytes);

        // Room for everything but the observation tensor.
        let tensor = whole
            .observation
            .as_ref()
            .expect("a seat's view has one")
            .encoded_len();
        // (Naming the part left out costs a few bytes.)
        live.limit_views(whole_bytes - tensor + 16 + REPLY_SLACK);
        let fitted = live.view(Some(0));
        assert_eq!(fitted.omitted_parts, ["observation"]);
        assert!(fitted.observation.is_none());
        assert_eq!(fitted.view_json, whole.view_json);
        assert_eq!(fitted.legal_actions, whole.legal_actions);

        // Room for almost nothing: every part goes, in order, and the rest still fits.
        live.limit_views(REPLY_SLACK + 50);
        let lean = live.view(Some(0));
        assert_eq!(
            lean.omitted_parts,
            [
                "observation",
                "observation_text",
                "view_json",
                "action_texts"
            ]
        );
        assert_eq!(lean.legal_actions.len(), whole.legal_actions.len());
        assert!(lean.legal_actions.iter().all(|a| a.text.is_empty()));

        // Parts a client left out itself are not reported as omitted.
        live.limit_views(usize::MAX);
        let asked = live.view_parts(
            Some(0),
            ViewParts {
                observation: false,
                ..ViewParts::ALL
            },
        );
        assert!(asked.omitted_parts.is_empty());
    }

    #[test]
    fn a_view_over_the_limit_loses_its_oldest_entries_before_its_json() {
        let history: Vec<String> = (0..1000).map(|i| format!("move {i}")).collect();
        let json = serde_json::json!({"board": "k7/8/8/8/8/8/8/K7", "history": history});
        let mut view = checkraise_grpc_view(json.to_string());
        let whole = view.encoded_len();
        super::fit_view(&mut view, whole / 2);
        assert_eq!(view.omitted_parts, ["view_json_entries"]);
        assert!(view.encoded_len() <= whole / 2);
        let kept: serde_json::Value = serde_json::from_str(&view.view_json).unwrap();
        assert_eq!(kept["board"], "k7/8/8/8/8/8/8/K7", "the shape is kept");
        let kept = kept["history"].as_array().unwrap();
        assert!(kept.len() > 100 && kept.len() < 1000, "{}", kept.len());
        assert_eq!(
            kept.last().unwrap(),
            "move 999",
            "the newest entries are kept"
        );
        // The fewest entries go: one more would fit too.
        let mut one_more = checkraise_grpc_view(json.to_string());
        let longer: Vec<&str> = history[1000 - kept.len() - 1..]
            .iter()
            .map(String::as_str)
            .collect();
        one_more.view_json =
            serde_json::json!({"board": "k7/8/8/8/8/8/8/K7", "history": longer}).to_string();
        one_more.omitted_parts = view.omitted_parts.clone();
        assert!(one_more.encoded_len() > whole / 2);

        // Too small for any entry to help: the JSON goes whole, as before.
        let mut view = checkraise_grpc_view(json.to_string());
        super::fit_view(&mut view, 40);
        assert_eq!(view.omitted_parts, ["view_json"]);
        assert!(view.view_json.is_empty());
    }

    fn checkraise_grpc_view(view_json: String) -> crate::pb::SeatView {
        crate::pb::SeatView {
            match_id: "m".into(),
            view_json,
            ..Default::default()
        }
    }

    /// A seat's sample state carries nothing beyond its information: for states the seat
    /// cannot tell apart (the true one and one redrawn from its information), the same draw
    /// gives the same text; and it keeps what the seat knows.
    #[test]
    fn a_sample_state_depends_only_on_what_the_seat_knows() {
        use checkraise_core::{GameRng, Player, make_game_from_string, registry::game_names};
        for name in game_names() {
            let game = make_game_from_string(name).expect("a registered game");
            let mut rng = GameRng::new(11);
            let mut checked = 0;
            for game_seed in 0..6u64 {
                let mut state = game.new_initial_state();
                let mut rng_play = GameRng::new(game_seed);
                let mut step = 0;
                while !state.is_terminal() && step < 400 {
                    if state.is_chance_node() {
                        let outcome = state.sample_chance_outcome(&mut rng_play);
                        state.apply_action(outcome).expect("a chance outcome");
                        continue;
                    }
                    let seats: Vec<usize> = match state.current_player() {
                        Player::Seat(seat) => vec![seat],
                        _ => (0..game.num_players()).collect(),
                    };
                    if step % 5 == 0 {
                        for &seat in &seats {
                            let twin = state.resample_from_infostate(seat, &mut rng);
                            assert_eq!(
                                twin.information_state_string(seat),
                                state.information_state_string(seat),
                                "{name}: a redraw changed what seat {seat} knows"
                            );
                            let seed = 1000 + step as u64;
                            let sample = super::sample_state_with(state.as_ref(), seat, seed);
                            assert_eq!(
                                sample,
                                super::sample_state_with(twin.as_ref(), seat, seed),
                                "{name}: seat {seat}'s sample depends on what it cannot see"
                            );
                            let read = game.deserialize_state(&sample).expect("a state");
                            assert_eq!(
                                read.information_state_string(seat),
                                state.information_state_string(seat),
                            );
                            checked += 1;
                        }
                    }
                    step += 1;
                    let joint: Vec<_> = seats
                        .iter()
                        .map(|&seat| rng_play.choose(&state.legal_actions_for(Player::Seat(seat))))
                        .collect();
                    if let [action] = joint[..] {
                        state.apply_action(action).expect("a legal action");
                    } else {
                        state.apply_actions(&joint).expect("a legal joint action");
                    }
                }
            }
            assert!(checked > 5, "{name}: only {checked} positions checked");
        }
    }

    #[test]
    fn tokens_compare_exactly() {
        assert!(hashes_equal("abc", "abc"));
        assert!(!hashes_equal("abc", "abd"));
        assert!(!hashes_equal("abc", "ab"));
    }
}
