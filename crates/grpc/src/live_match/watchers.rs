//! The watchers of a match: each seat's and spectator's queue of events (shared by every
//! watcher that sees the same view), how far each is behind, and the notification of every
//! change.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use checkraise_core::driver::Step;
use checkraise_core::{Player, State};
use tokio::sync::{mpsc, watch};

use super::views::{LegalAction, SeatView, ViewParts};
use super::{LiveMatch, MatchError, SeatKind};
use crate::store::Durability;

/// Events a watcher may fall behind by before its stream is cut.
pub const WATCH_BUFFER: usize = 1024;
/// Bytes of events (what they hold: `MatchEvent::held_bytes`) a watcher may fall behind by
/// before its stream is cut, unless the server says otherwise (`--watch-buffer-kib`): what a
/// client that does not read can make the server hold for it.
pub const WATCH_BYTES: usize = 256 * 1024;

/// How far a watcher is behind: the bytes of the events queued for it, and whether it was cut
/// off for falling too far behind.
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

/// One subscriber of a match's changes: a seat or a spectator.
pub(super) struct Watcher {
    pub(super) viewer: Option<usize>,
    pub(super) parts: ViewParts,
    /// Also told when who is connected changes (`WatchSeatRequest.presence`).
    pub(super) presence: bool,
    pub(super) events: mpsc::Sender<Result<QueuedEvent, MatchError>>,
    pub(super) backlog: Arc<Backlog>,
}

/// A watcher's queue of events: each event shared by every watcher of the match that sees the
/// same view (all spectators, a seat's several watchers), so that a thousand spectators of a
/// match hold its events once, not a thousand times.
pub type EventQueue = mpsc::Receiver<Result<QueuedEvent, MatchError>>;

/// One change of a match as one viewer sees it: who acted, the viewer's own action if it was
/// one of those applied, and the viewer's view after it.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchEvent {
    /// Who acted: a seat, every seat at once (`Player::Simultaneous`) or chance; `None`: not a
    /// step (the watcher's first view, or a change of who is connected).
    pub actor: Option<Player>,
    /// The watching seat's own action, when the step applied one (its id and text).
    pub own_action: Option<LegalAction>,
    /// The view after the change.
    pub view: SeatView,
}

impl MatchEvent {
    /// The bytes the event holds: what a watcher's backlog counts.
    pub fn held_bytes(&self) -> usize {
        let own = self.own_action.as_ref().map_or(0, |a| {
            std::mem::size_of::<LegalAction>() + a.text.as_ref().map_or(0, String::len)
        });
        std::mem::size_of::<Option<Player>>() + own + self.view.held_bytes()
    }
}

/// An event in a watcher's queue, with its size (measured once, when it was built, however
/// many watchers it goes to).
#[derive(Clone, Debug)]
pub struct QueuedEvent {
    /// The event, shared.
    pub event: Arc<MatchEvent>,
    /// The bytes it holds (`MatchEvent::held_bytes`).
    pub bytes: usize,
    /// What must be stored before the event may be sent (`None`: nothing, it is stored).
    pub gate: Option<Gate>,
}

/// The write an event shows: the event is sent once that write is committed, and dropped if
/// it failed (the change it shows was undone), so that no watcher ever sees a state that is
/// not stored.
#[derive(Clone, Debug)]
pub struct Gate {
    /// The match's committed-writes watch.
    pub durability: watch::Receiver<Durability>,
    /// The write (its number among the match's writes) that stores what the event shows.
    pub seq: u64,
}

impl Gate {
    /// Waits until the write is committed (`true`) or failed (`false`: drop the event).
    pub async fn passed(mut self) -> bool {
        let seq = self.seq;
        match self
            .durability
            .wait_for(|d| d.committed >= seq || d.failed.is_some())
            .await
        {
            Ok(d) => d.committed >= seq,
            Err(_) => false,
        }
    }

    /// Whether the write is committed already (`Some(true)`), failed (`Some(false)`) or
    /// pending (`None`).
    pub fn now(&self) -> Option<bool> {
        let d = self.durability.borrow();
        if d.committed >= self.seq {
            Some(true)
        } else if d.failed.is_some() {
            Some(false)
        } else {
            None
        }
    }
}

impl QueuedEvent {
    /// Waits until the event may be sent: `false` if the change it shows was undone.
    pub async fn sendable(&self) -> bool {
        match &self.gate {
            None => true,
            Some(gate) => gate.clone().passed().await,
        }
    }
}

impl std::ops::Deref for QueuedEvent {
    type Target = MatchEvent;

    fn deref(&self) -> &MatchEvent {
        &self.event
    }
}

impl LiveMatch {
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
        let first = MatchEvent {
            actor: None,
            own_action: None,
            view: self.view_parts(viewer, parts),
        };
        let bytes = first.held_bytes();
        backlog.queue(bytes);
        let _ = events.try_send(Ok(QueuedEvent {
            event: Arc::new(first),
            bytes,
            gate: self.record.gate(false),
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
    pub(super) fn presence_changed(&mut self) {
        let state = self.play.state();
        let version = self.play.version();
        let submitted = |seat: usize| state.is_simultaneous_node() && self.play.has_chosen(seat);
        let gate = self.record.gate(false);
        let (viewing, watchers, _) = self.table.split();
        notify(watchers, state, None, gate, |viewer, parts| {
            let submitted = viewer.is_some_and(submitted);
            viewing.view(version, state, submitted, viewer, parts)
        });
    }

    /// Whether any watcher still follows the match.
    pub fn has_watchers(&self) -> bool {
        self.table.watchers.iter().any(|w| !w.events.is_closed())
    }

    /// Tells every watcher the match is gone, and drops them.
    pub fn close_watchers(&mut self, why: &MatchError) {
        for watcher in self.table.watchers.drain(..) {
            let _ = watcher.events.try_send(Err(why.clone()));
        }
    }
}

/// Sends each watcher its view after `step` (`None`: a change of who is connected, not a step,
/// actor -1, only to the watchers that asked for presence); drops watchers that are gone or
/// lag behind, and all of them once the game is over.
pub(super) fn notify(
    watchers: &mut Vec<Watcher>,
    state: &dyn State,
    step: Option<&Step>,
    gate: Option<Gate>,
    view: impl Fn(Option<usize>, ViewParts) -> SeatView,
) {
    if watchers.is_empty() {
        return;
    }
    let terminal = state.is_terminal();
    // One event per distinct (viewer, parts), built once and shared by its watchers.
    let mut built: Vec<(Option<usize>, ViewParts, Arc<MatchEvent>, usize)> = Vec::new();
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
                        .map(|(_, id, text)| LegalAction {
                            id: *id,
                            text: Some(text.clone()),
                            action_json: None,
                        })
                });
                let event = MatchEvent {
                    actor: step.map(|step| step.actor),
                    own_action,
                    view: view(watcher.viewer, watcher.parts),
                };
                let bytes = event.held_bytes();
                let event = Arc::new(event);
                built.push((watcher.viewer, watcher.parts, event.clone(), bytes));
                (event, bytes)
            }
        };
        if !watcher.backlog.queue(bytes) {
            return false;
        }
        let gate = gate.clone();
        match watcher
            .events
            .try_send(Ok(QueuedEvent { event, bytes, gate }))
        {
            Ok(()) => !terminal,
            Err(mpsc::error::TrySendError::Full(_)) => {
                watcher.backlog.lagged.store(true, Ordering::Relaxed);
                false
            }
            Err(mpsc::error::TrySendError::Closed(_)) => false,
        }
    });
}
