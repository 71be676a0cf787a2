//! A watch stream (`WatchSeat`, `WatchSpectator`): a watcher's queue of the live match's
//! events sent as messages, each once the write that stores what it shows is committed (and
//! dropped if that write was undone), and a watcher that fell too far behind cut off.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use tokio_stream::Stream;
use tonic::Status;

use super::{MatchStore, MatchStoreError, wire};
use crate::connections::StreamPermit;
use crate::live_match::{Backlog, EventQueue, QueuedEvent};
use crate::pb;

/// A watcher's events; a watcher that fell too far behind gets RESOURCE_EXHAUSTED at the end.
pub(super) struct WatchStream {
    /// The watcher's queue; dropped (freeing what it holds) as soon as the watcher is found
    /// cut off.
    events: Option<EventQueue>,
    backlog: Arc<Backlog>,
    _permit: StreamPermit,
    /// Run once the stream is gone (its client left, or it ended), after its queue is dropped.
    on_drop: Option<Box<dyn FnOnce() + Send>>,
    /// An event waiting for the write that stores what it shows (`QueuedEvent::gate`).
    waiting: Option<(QueuedEvent, GateWait)>,
    /// The largest view an event may carry (`wire::view_limit`).
    view_limit: usize,
}

/// Waiting for an event's write (`Gate::passed`): `true` once committed, `false` if undone.
type GateWait = Pin<Box<dyn Future<Output = bool> + Send>>;

impl WatchStream {
    pub(super) fn new(
        events: EventQueue,
        backlog: Arc<Backlog>,
        permit: StreamPermit,
        view_limit: usize,
    ) -> Self {
        WatchStream {
            events: Some(events),
            backlog,
            _permit: permit,
            on_drop: None,
            waiting: None,
            view_limit,
        }
    }

    /// `stream` as a seat's: when it goes, the match reads its seats' presence again
    /// (`SeatStatus::connected`) and tells its other watchers if that changed.
    pub(super) fn for_seat(mut stream: WatchStream, store: MatchStore, match_id: String) -> Self {
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
                            Ok::<_, MatchStoreError>(())
                        })
                        .await;
                }
            });
        }));
        stream
    }

    /// A queued event as the message the watcher is sent.
    fn message(&self, queued: QueuedEvent) -> pb::MatchEvent {
        wire::match_event(Arc::unwrap_or_clone(queued.event), self.view_limit)
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
        loop {
            // An event is sent once what it shows is stored, and dropped if that was undone.
            if let Some((_, gate)) = self.waiting.as_mut() {
                let passed = std::task::ready!(gate.as_mut().poll(cx));
                let (queued, _) = self.waiting.take().expect("an event waits");
                self.backlog.sent(queued.bytes);
                if passed {
                    return Poll::Ready(Some(Ok(self.message(queued))));
                }
                continue;
            }
            let Some(events) = self.events.as_mut() else {
                return Poll::Ready(None);
            };
            return match events.poll_recv(cx) {
                Poll::Ready(None) => self.end(),
                Poll::Ready(Some(Ok(queued))) => match queued.gate.as_ref().map(|g| g.now()) {
                    None | Some(Some(true)) => {
                        self.backlog.sent(queued.bytes);
                        Poll::Ready(Some(Ok(self.message(queued))))
                    }
                    Some(Some(false)) => {
                        self.backlog.sent(queued.bytes);
                        continue;
                    }
                    Some(None) => {
                        let gate = queued.gate.clone().expect("a gate");
                        self.waiting = Some((queued, Box::pin(gate.passed())));
                        continue;
                    }
                },
                Poll::Ready(Some(Err(error))) => Poll::Ready(Some(Err(Status::from(error)))),
                Poll::Pending => Poll::Pending,
            };
        }
    }
}
