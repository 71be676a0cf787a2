//! Why the server's store of live matches (`MatchStore`) could not serve a call, as its own
//! values: a live match refused, the durable store failed, the server is full, or (cluster
//! mode) another server wrote the match first. The service gives each its gRPC status at its
//! edge (`crate::errors`); a database's text is in an error's source, for the server's log,
//! never in what a client is told.

use checkraise_core::GameError;

use crate::live_match::{MatchError, StoredGameError};
use crate::sessions::{Over, Refusal};
use crate::store::StoreError;

/// What the store of live matches refuses, or why it failed.
#[derive(Debug, thiserror::Error)]
pub enum MatchStoreError {
    /// The live match refused (a token, a turn, an action), or there is no such match.
    #[error(transparent)]
    Match(#[from] MatchError),
    /// The durable store could not be read or written.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Cluster mode: the database could not be read to bring this server's copy of the match
    /// up to date.
    #[error("match '{match_id}' cannot be read from the database right now; retry in a moment")]
    Unreachable {
        /// The match.
        match_id: String,
        /// The store's error (for the log).
        #[source]
        source: StoreError,
    },
    /// A stored match that could not be made live again.
    #[error("match '{match_id}' is stored but cannot be resumed: {source}")]
    NotResumed {
        /// The match.
        match_id: String,
        /// Why.
        #[source]
        source: Box<ResumeError>,
    },
    /// Cluster mode: a stored match whose seats do not read, met while following it.
    #[error("match '{match_id}' is stored with seats that do not read: {source}")]
    SeatsUnreadable {
        /// The match.
        match_id: String,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
    /// A seat kind that is neither a person nor a bot spec the server plays.
    #[error(transparent)]
    Seat(#[from] SeatSpecError),
    /// No room for a new match: the server, or the client's address, holds its most.
    #[error("{}", full_message(.0))]
    Full(Refusal),
    /// Cluster mode: another server wrote the match at the same moment, so this call's change
    /// was not applied (the call may be made again on the caught-up copy).
    #[error(
        "match '{match_id}' was changed through another server at the same moment, so this \
         request's change was not applied; read the view and try again"
    )]
    Conflict {
        /// The match.
        match_id: String,
    },
    /// The change could not be stored, and is undone (the match was dropped from memory and
    /// is read back from the store as it was last stored).
    #[error(
        "the change to match '{match_id}' could not be stored ({failed}; the server's log has \
         why); it is undone: read the match again and try again in a moment"
    )]
    NotStored {
        /// The match.
        match_id: String,
        /// What failed, in the service's words.
        failed: &'static str,
    },
    /// A task of the server failed on this call (a panic on the blocking pool).
    #[error("the server failed on this request: {0}")]
    TaskFailed(String),
}

impl MatchStoreError {
    /// There is no match `match_id` (never created, or expired).
    pub fn unknown(match_id: &str) -> Self {
        MatchError::NotFound {
            match_id: match_id.to_string(),
        }
        .into()
    }
}

/// Why a stored match cannot be made live again (what follows "cannot be resumed: ").
#[derive(Debug, thiserror::Error)]
pub enum ResumeError {
    /// Its game cannot be made again.
    #[error(transparent)]
    Game(#[from] StoredGameError),
    /// Its seats are not the JSON array of seat kinds the store writes.
    #[error("its seats do not read: {0}")]
    Seats(#[source] serde_json::Error),
    /// Refused on the way: its seats, its replay, its bots, or storing it.
    #[error(transparent)]
    Refused(Box<MatchStoreError>),
}

impl From<MatchStoreError> for ResumeError {
    fn from(error: MatchStoreError) -> Self {
        ResumeError::Refused(Box::new(error))
    }
}

/// A seat kind that is neither `human` nor a bot spec the server plays.
#[derive(Debug, thiserror::Error)]
#[error("seat {seat}: {error}{}", if *.maybe_person { format!(" (or '{}' for a person)", super::HUMAN) } else { String::new() })]
pub struct SeatSpecError {
    /// The seat.
    pub seat: usize,
    /// Why the engine refuses the spec.
    pub error: GameError,
    /// The kind does not parse as a bot spec, so it may have meant a person.
    pub maybe_person: bool,
}

/// What a match refused for room is told.
fn full_message(refusal: &Refusal) -> String {
    match refusal.over {
        Over::PeerUnits(peer) => format!(
            "this client address ({peer}) holds {} matches, its most (--max-matches-per-peer); \
             finish or let some expire",
            refusal.held
        ),
        _ => format!(
            "the server holds its maximum of {} matches; finish or let some expire",
            refusal.most
        ),
    }
}
