//! One match being played: the engine state and core's `Driver` (the seeded chance and bot
//! streams, the choices held at a simultaneous node, and the one information rule for bots),
//! the seats (human with a secret token, or a bot), and acting. Everything here is generic
//! over `dyn Game`/`dyn State`; the game is advanced only by the driver.
//!
//! Beside the match itself (this file): `watchers` (the watchers that receive every change,
//! their event queues and backlogs), `views` (what each seat and spectator may see), `record`
//! (what the match stores, and a stored match resumed) and `error` (`MatchError`: why the
//! match refuses).
//!
//! Nothing here knows the wire, as mini-redis's `Db` knows nothing of its `Frame`s: the layer
//! returns its own values (`SeatView`, `MatchEvent`, `SeatStatus`) and errors, and the service
//! turns them into messages fitted to its largest reply (`crate::matches::wire`) and statuses
//! (`crate::errors`) at its edge.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use checkraise_core::bots::Bot;
use checkraise_core::driver::{Driver, Halt, Step};
use checkraise_core::table::{ActError, Match, OnStep};
use checkraise_core::{Action, Game, GameError, Player, State};
use tokio::sync::watch;

use crate::auth::{random_hex, token_hash, token_matches};
use crate::store::{Durability, now_ms};

mod error;
mod record;
mod views;
mod watchers;

pub use error::{MatchError, RestoreError, StoredGameError};
pub use record::{parameters_json, stored_game};
pub use views::{LegalAction, Observation, SeatStatus, SeatView, ViewParts};
pub use watchers::{Backlog, EventQueue, Gate, MatchEvent, QueuedEvent, WATCH_BUFFER, WATCH_BYTES};

use record::Record;
use watchers::{Watcher, notify};

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
    /// `ismcts(iterations=1000,max_ms=2000,c=0.7,rollout=heuristic)`): what `SeatStatus::kind`
    /// reports.
    pub kind_name: String,
    /// Who sits there.
    pub kind: SeatKind,
    /// A human seat with an open watch stream (`SeatStatus::connected`).
    pub connected: bool,
}

/// The action a seat sends: an id or its text (core's `table::Choice`).
pub use checkraise_core::table::Choice as ActionChoice;

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
    /// The creator chose the seed (a practice deal): every view says so.
    chosen_seed: bool,
    /// This server plays the bot seats (always, but in cluster mode on a server that does not
    /// own the match: there the bots wait for their owner).
    plays_bots: bool,
    /// Steps up to this version are not told to the watchers (they were shown them already:
    /// a match reloaded under its watchers).
    shown: u64,
}

/// What an `Act` did (core's `table::Acted`): applied now, or a retry recognised.
pub use checkraise_core::table::Acted as ActOutcome;

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
    ) -> Result<Self, MatchError> {
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
    ) -> Result<Self, MatchError> {
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
                chosen_seed: seed.chosen,
                plays_bots: true,
                shown: 0,
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
                stored: false,
                replaying: false,
                revision: 0,
                base_version: 0,
                owner: None,
                stored_epoch: 0,
                claiming: false,
            },
        }
    }

    /// After `restore`: lets chance and bots act if it is their turn (the server stopped while
    /// they were to move). Bots think on the calling thread.
    pub fn resume_bots(&mut self) -> Result<(), MatchError> {
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

    /// The steps taken (`SeatView::version`).
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

    /// Whether the match waits for bot seats only (in cluster mode, on a server that does not
    /// own the match, the owner plays them): the seat to act is a bot, or at a simultaneous
    /// node every human has chosen.
    pub fn awaits_bot(&self) -> bool {
        let waiting = self.waiting_on();
        !waiting.is_empty()
            && waiting
                .iter()
                .all(|&seat| matches!(self.table.seats[seat].kind, SeatKind::Bot(_)))
    }

    /// Hands a human seat to a server-side bot for the rest of the game (a ladder bot that
    /// ran out of time): its token no longer acts, its kind reads `kind_name`, and the bots,
    /// this one included, act at once if it is their turn. Bots think on the calling thread.
    pub fn hand_to_bot(
        &mut self,
        seat: usize,
        bot: Box<dyn Bot>,
        kind_name: String,
    ) -> Result<(), MatchError> {
        let Some(place) = self.table.seats.get_mut(seat) else {
            return Err(MatchError::NoSeat { seat });
        };
        if !matches!(place.kind, SeatKind::Human { .. }) {
            return Err(MatchError::PlayedByServer { seat });
        }
        place.kind = SeatKind::Bot(bot);
        place.kind_name = kind_name;
        place.connected = false;
        if self.play.state().is_terminal() {
            return Ok(());
        }
        // Every watcher learns the seat's new kind (`SeatStatus::kind`) before the bot moves.
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

    /// Claims a human seat (the first free one when `seat` is `None`) with a new token (only
    /// its hash is kept).
    pub fn join(&mut self, seat: Option<u32>, token: String) -> Result<usize, MatchError> {
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
    ) -> Result<(usize, bool), MatchError> {
        let table = &mut self.table;
        // A repeat of a join: the seat whose stored hash is that of the token this request
        // makes for it. One request id claims one seat: asking it for another is refused.
        let repeat = (0..table.seats.len()).filter(|_| repeatable).find(|&s| {
            matches!(&table.seats[s].kind, SeatKind::Human { token_hash: Some(h) }
                    if token_matches(h, &token(s)))
        });
        if let Some(joined) = repeat {
            return match seat {
                Some(wanted) if wanted as usize != joined => Err(MatchError::ClaimedOtherSeat {
                    match_id: table.id.clone(),
                    joined,
                    wanted,
                }),
                _ => Ok((joined, true)),
            };
        }
        let seat = match seat {
            Some(s) => table.seat_index(s)?,
            None => table
                .seats
                .iter()
                .position(|s| matches!(s.kind, SeatKind::Human { token_hash: None }))
                .ok_or_else(|| MatchError::NoFreeSeat {
                    match_id: table.id.clone(),
                })?,
        };
        match &mut table.seats[seat].kind {
            SeatKind::Bot(_) => Err(MatchError::BotSeat {
                match_id: table.id.clone(),
                seat,
                bot: table.seats[seat].kind_name.clone(),
            }),
            SeatKind::Human {
                token_hash: Some(_),
            } => Err(MatchError::SeatTaken {
                match_id: table.id.clone(),
                seat,
            }),
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
    pub fn authorize(&self, seat: u32, presented: Option<&str>) -> Result<usize, MatchError> {
        let seat = self.table.seat_index(seat)?;
        let presented = presented.ok_or(MatchError::TokenMissing { seat })?;
        match &self.table.seats[seat].kind {
            SeatKind::Human {
                token_hash: Some(hash),
            } if token_matches(hash, presented) => Ok(seat),
            _ => Err(MatchError::WrongToken {
                match_id: self.table.id.clone(),
                seat,
            }),
        }
    }

    /// Plays `seat`'s action (already authorized), then chance and bots up to the next human
    /// decision. At a simultaneous node the choice waits, hidden, until every seat has chosen.
    /// Bots think on the calling thread: the service calls this on the blocking pool.
    pub fn act(&mut self, seat: usize, choice: ActionChoice) -> Result<(), MatchError> {
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
    ) -> Result<ActOutcome, MatchError> {
        let before = self.play.version();
        let simultaneous = self.play.state().is_simultaneous_node();
        let gate = self.record.gate(true);
        let LiveMatch { table, play, .. } = self;
        let acted = table.run(gate, |bots, on_step| {
            play.act(seat, &choice, expected, bots, None, on_step)
        });
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
        acted.map_err(|e| self.act_error(e))
    }

    /// Why an `Act` was refused, as this layer says it.
    fn act_error(&self, e: ActError) -> MatchError {
        match e {
            ActError::Game(e) => MatchError::Engine(e),
            ActError::Moved {
                seat,
                expected,
                current,
            } => MatchError::Moved {
                match_id: self.table.id.clone(),
                seat,
                expected,
                current,
            },
            ActError::Decided {
                seat,
                expected,
                decision,
            } => MatchError::Decided {
                seat,
                expected,
                decision,
            },
            ActError::Stopped => MatchError::Stopped,
            ActError::Bot(e) => MatchError::Bot(e),
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
        let gate = self.record.gate(true);
        let LiveMatch { table, play, .. } = self;
        let held = table.run(gate, |_, on_step| play.decide(seat, action, on_step))?;
        if self.play.version() != before {
            self.record.held.clear();
        } else if held && self.is_human(seat) {
            self.record.held.push((seat, action));
        }
        Ok(())
    }

    /// Lets chance and bot seats act (core's driver) until a human must decide or the game
    /// ends (or, before a bot move, until `stop` is set: CANCELLED).
    fn run_bots(&mut self, stop: Option<&AtomicBool>) -> Result<(), MatchError> {
        let gate = self.record.gate(true);
        let before = self.play.version();
        let LiveMatch { table, play, .. } = self;
        let halt = table.run(gate, |bots, on_step| play.advance(bots, stop, on_step));
        // The bots completed a simultaneous node whose human choices were held (a restart, or
        // in cluster mode an owner that took the match over): those choices are played now.
        if self.play.version() != before {
            self.record.held.clear();
        }
        self.stamp_finished();
        match halt {
            Ok(Halt::Stopped) => Err(MatchError::Stopped),
            Ok(Halt::Decide | Halt::Over) => Ok(()),
            Err(e) => Err(self.act_error(e)),
        }
    }

    /// Stamps when the game ended, with or without a store (ListMatches reads it).
    fn stamp_finished(&mut self) {
        if self.play.state().is_terminal() && self.record.finished_ms.is_none() {
            self.record.finished_ms = Some(now_ms());
        }
    }
}

impl Table {
    fn seat_index(&self, seat: u32) -> Result<usize, MatchError> {
        let seat = seat as usize;
        if seat < self.seats.len() {
            Ok(seat)
        } else {
            Err(MatchError::Engine(GameError::InvalidSeat {
                seat: seat as i64,
                num_players: self.seats.len(),
            }))
        }
    }

    /// Runs `f` with the seats' engine bots (`Some` for a bot seat) and what each step the
    /// match applies does here: it is marked for the store, and every watcher receives its
    /// own view of the change.
    /// What watchers are sent waits for `gate` (see `Record::gate`).
    fn run<R>(
        &mut self,
        gate: Option<watchers::Gate>,
        f: impl FnOnce(&[Option<&dyn Bot>], &mut OnStep<'_>) -> R,
    ) -> R {
        let (plays_bots, shown) = (self.plays_bots, self.shown);
        let (viewing, watchers, marks) = self.split();
        let bots: Vec<Option<&dyn Bot>> = viewing
            .seats
            .iter()
            .map(|seat| match &seat.kind {
                SeatKind::Bot(bot) if plays_bots => Some(bot.as_ref()),
                SeatKind::Bot(_) | SeatKind::Human { .. } => None,
            })
            .collect();
        let mut on_step = |state: &dyn State, step: &Step, version: u64| {
            marks.push((state.history().len(), version));
            if version > shown {
                notify(
                    watchers,
                    state,
                    Some(step),
                    gate.clone(),
                    |viewer, parts| viewing.view(version, state, false, viewer, parts),
                );
            }
        };
        f(&bots, &mut on_step)
    }
}
