//! One match being played: the engine state and core's `Driver` (the seeded chance and bot
//! streams, the choices held at a simultaneous node, and the one information rule for bots),
//! the seats (human with a secret token, or a bot), and the watchers that receive every change.
//! Everything here is generic over `dyn Game`/`dyn State`; the game is advanced only by the
//! driver.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use checkraise_core::bots::Bot;
use checkraise_core::driver::{Driver, Halt, Step};
use checkraise_core::{Action, Game, GameError, Player, State};
use tokio::sync::mpsc;
use tonic::Status;

use crate::errors::{server_fault, status_from_game_error};
use crate::pb;
use crate::tensor::f32_tensor;

/// Events a watcher may fall behind by before its stream is cut.
pub const WATCH_BUFFER: usize = 1024;

/// Who sits in a seat.
pub enum SeatKind {
    /// A person (or client program) holding the seat's token once joined.
    Human {
        /// The secret token, once the seat is joined.
        token: Option<String>,
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
}

/// The action a seat sends: an id or its text.
#[derive(Clone, Debug)]
pub enum ActionChoice {
    /// An id in the game's action space.
    Id(Action),
    /// The action's text, parsed by the engine.
    Text(String),
}

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
}

impl ViewParts {
    /// The whole view: what a request without `ViewOptions` gets.
    pub const ALL: ViewParts = ViewParts {
        view_json: true,
        observation: true,
        observation_text: true,
        action_texts: true,
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
            },
        }
    }
}

/// One subscriber of a match's changes: a seat or a spectator.
struct Watcher {
    viewer: Option<usize>,
    parts: ViewParts,
    events: mpsc::Sender<Result<pb::MatchEvent, Status>>,
    lagged: Arc<AtomicBool>,
}

/// Everything of a match but its state and driver: what a view and a notification need while
/// the driver holds the state.
struct Table {
    id: String,
    game: Arc<dyn Game>,
    seats: Vec<Seat>,
    version: u64,
    watchers: Vec<Watcher>,
}

/// A match in play.
pub struct LiveMatch {
    table: Table,
    state: Box<dyn State>,
    driver: Driver,
    last_active: Instant,
}

impl LiveMatch {
    /// A new match; chance and bots act at once up to the first human decision (in an
    /// all-bot match, to the end). Bots think on the calling thread: the service calls this on
    /// the blocking pool.
    pub fn new(
        id: String,
        game: Arc<dyn Game>,
        seed: u64,
        seats: Vec<Seat>,
    ) -> Result<Self, Status> {
        Self::new_unless(id, game, seed, seats, &AtomicBool::new(false))
    }

    /// `new`, giving up with CANCELLED before the next bot move once `stop` is set (the
    /// request creating the match was abandoned, so nobody will ever see the match).
    pub fn new_unless(
        id: String,
        game: Arc<dyn Game>,
        seed: u64,
        seats: Vec<Seat>,
        stop: &AtomicBool,
    ) -> Result<Self, Status> {
        let state = game.new_initial_state();
        let game_players = game.num_players();
        let mut live = LiveMatch {
            table: Table {
                id,
                game,
                seats,
                version: 0,
                watchers: Vec::new(),
            },
            state,
            // A match with seed s deals exactly as an `Env` with seed s, whatever its bots do.
            driver: Driver::from_seed(seed, game_players).describing(),
            last_active: Instant::now(),
        };
        live.driver.resolve_chance(live.state.as_mut());
        live.run_bots(Some(stop))?;
        Ok(live)
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
        self.state.is_terminal()
    }

    /// When a request last touched the match.
    pub fn last_active(&self) -> Instant {
        self.last_active
    }

    /// Records a request touching the match (idle expiry counts from here).
    pub fn touch(&mut self) {
        self.last_active = Instant::now();
    }

    /// The seats' kinds and whether they are taken.
    pub fn seat_statuses(&self) -> Vec<pb::SeatStatus> {
        self.table.seat_statuses()
    }

    /// Claims a human seat (the first free one when `seat` is `None`) with a new token.
    pub fn join(&mut self, seat: Option<u32>, token: String) -> Result<usize, Status> {
        let table = &mut self.table;
        let seat = match seat {
            Some(s) => table.seat_index(s)?,
            None => table
                .seats
                .iter()
                .position(|s| matches!(s.kind, SeatKind::Human { token: None }))
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
            SeatKind::Human { token: Some(_) } => Err(Status::failed_precondition(format!(
                "seat {seat} of match '{}' is already taken",
                table.id
            ))),
            SeatKind::Human { token: slot } => {
                *slot = Some(token);
                Ok(seat)
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
            SeatKind::Human { token: Some(token) } if tokens_equal(token, presented) => Ok(seat),
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
        let player = Player::Seat(seat);
        let action = match choice {
            ActionChoice::Id(action) => action,
            ActionChoice::Text(text) => {
                if !self.state.is_simultaneous_node() || self.driver.has_chosen(seat) {
                    // Out of turn, or a second choice, is the error to report, not the text.
                    self.check_may_choose(seat)?;
                }
                self.state
                    .string_to_action(player, &text)
                    .map_err(|e| status_from_game_error(&e))?
            }
        };
        let LiveMatch {
            table,
            state,
            driver,
            ..
        } = self;
        driver
            .play(state.as_mut(), seat, action, &mut |s, step| {
                table.stepped(s, step)
            })
            .map_err(|e| status_from_game_error(&e))?;
        self.run_bots(None)
    }

    /// The error for `seat` choosing now, if it may not.
    fn check_may_choose(&self, seat: usize) -> Result<(), Status> {
        let err = if self.state.is_simultaneous_node() {
            self.driver
                .has_chosen(seat)
                .then(|| GameError::AlreadyChosen {
                    seat,
                    state: self.state.describe(),
                })
        } else {
            checkraise_core::game::check_turn(self.state.as_ref(), Player::Seat(seat)).err()
        };
        match err {
            Some(e) => Err(status_from_game_error(&e)),
            None => Ok(()),
        }
    }

    /// Lets chance and bot seats act (core's driver) until a human must decide or the game
    /// ends (or, before a bot move, until `stop` is set: CANCELLED).
    fn run_bots(&mut self, stop: Option<&AtomicBool>) -> Result<(), Status> {
        let LiveMatch {
            table,
            state,
            driver,
            ..
        } = self;
        let Table {
            id,
            game,
            seats,
            version,
            watchers,
        } = table;
        let seats: &[Seat] = seats;
        let bots: Vec<Option<&dyn Bot>> = seats
            .iter()
            .map(|seat| match &seat.kind {
                SeatKind::Bot(bot) => Some(bot.as_ref()),
                SeatKind::Human { .. } => None,
            })
            .collect();
        let halt = driver
            .advance(state.as_mut(), &bots, stop, &mut |s, step| {
                *version += 1;
                notify(watchers, s, step, |viewer, parts| {
                    seat_view(id, game, seats, *version, s, false, viewer, parts)
                });
            })
            .map_err(|e| server_fault("a bot could not act", &e))?;
        match halt {
            Halt::Stopped => Err(Status::cancelled(
                "the request was abandoned before the match's bots had played",
            )),
            Halt::Decide | Halt::Over => Ok(()),
        }
    }

    /// Subscribes a viewer (an authorized seat, or `None` for a spectator): the current view
    /// at once, then every change. The receiver ends after the terminal event.
    pub fn watch(
        &mut self,
        viewer: Option<usize>,
    ) -> (
        mpsc::Receiver<Result<pb::MatchEvent, Status>>,
        Arc<AtomicBool>,
    ) {
        self.watch_parts(viewer, ViewParts::ALL)
    }

    /// `watch`, with only `parts` of each of the seat's views filled.
    pub fn watch_parts(
        &mut self,
        viewer: Option<usize>,
        parts: ViewParts,
    ) -> (
        mpsc::Receiver<Result<pb::MatchEvent, Status>>,
        Arc<AtomicBool>,
    ) {
        let (events, receiver) = mpsc::channel(WATCH_BUFFER);
        let lagged = Arc::new(AtomicBool::new(false));
        let first = pb::MatchEvent {
            actor: Player::Chance.id(),
            own_action: None,
            view: Some(self.view_parts(viewer, parts)),
        };
        let _ = events.try_send(Ok(first));
        if !self.state.is_terminal() {
            self.table.watchers.push(Watcher {
                viewer,
                parts,
                events,
                lagged: lagged.clone(),
            });
        }
        (receiver, lagged)
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
        let t = &self.table;
        let submitted = viewer
            .is_some_and(|seat| self.state.is_simultaneous_node() && self.driver.has_chosen(seat));
        seat_view(
            &t.id,
            &t.game,
            &t.seats,
            t.version,
            self.state.as_ref(),
            submitted,
            viewer,
            parts,
        )
    }
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

    /// After a step the driver applied: the version moves on, and every watcher receives its
    /// own view of the change.
    fn stepped(&mut self, state: &dyn State, step: &Step) {
        self.version += 1;
        let (id, game, seats, version) = (&self.id, &self.game, &self.seats, self.version);
        notify(&mut self.watchers, state, step, |viewer, parts| {
            seat_view(id, game, seats, version, state, false, viewer, parts)
        });
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
                SeatKind::Human { token } => token.is_some(),
                SeatKind::Bot(_) => true,
            },
        })
        .collect()
}

/// Sends each watcher its view after `step`; drops watchers that are gone or lag behind, and
/// all of them once the game is over.
fn notify(
    watchers: &mut Vec<Watcher>,
    state: &dyn State,
    step: &Step,
    view: impl Fn(Option<usize>, ViewParts) -> pb::SeatView,
) {
    if watchers.is_empty() {
        return;
    }
    let terminal = state.is_terminal();
    watchers.retain(|watcher| {
        let own_action = watcher.viewer.and_then(|seat| {
            step.chosen
                .iter()
                .find(|(s, _, _)| *s == seat)
                .map(|(_, id, text)| pb::LegalAction {
                    id: *id,
                    text: text.clone(),
                })
        });
        let event = pb::MatchEvent {
            actor: step.actor.id(),
            own_action,
            view: Some(view(watcher.viewer, watcher.parts)),
        };
        match watcher.events.try_send(Ok(event)) {
            Ok(()) => !terminal,
            Err(mpsc::error::TrySendError::Full(_)) => {
                watcher.lagged.store(true, Ordering::Relaxed);
                false
            }
            Err(mpsc::error::TrySendError::Closed(_)) => false,
        }
    });
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
        ..Default::default()
    };
    let Some(seat) = viewer else {
        return out;
    };
    let player = Player::Seat(seat);
    out.action_submitted = current == Player::Simultaneous && submitted;
    out.may_act = current == player || (current == Player::Simultaneous && !out.action_submitted);
    if out.may_act {
        out.legal_actions = state
            .legal_actions_for(player)
            .into_iter()
            .map(|id| pb::LegalAction {
                id,
                text: if parts.action_texts {
                    state.action_to_string(player, id)
                } else {
                    String::new()
                },
            })
            .collect();
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
    out
}

/// Compares tokens in time independent of where they differ.
fn tokens_equal(expected: &str, presented: &str) -> bool {
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
    use super::tokens_equal;

    #[test]
    fn tokens_compare_exactly() {
        assert!(tokens_equal("abc", "abc"));
        assert!(!tokens_equal("abc", "abd"));
        assert!(!tokens_equal("abc", "ab"));
    }
}
