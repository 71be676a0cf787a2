//! Why the live-match layer refuses, as its own values: each error's text is what the client
//! reads, and the service gives each its gRPC status at its edge (`crate::errors`), the one
//! place that knows the wire.

use checkraise_core::GameError;
use checkraise_core::table::Decision;

/// What a live match refuses, or why its watchers were told it ended.
#[derive(Clone, Debug, thiserror::Error)]
pub enum MatchError {
    /// The engine refused (an illegal action, a seat out of range, out of turn), classified
    /// by the engine itself (`GameError::kind`).
    #[error(transparent)]
    Engine(#[from] GameError),
    /// A bot failed to act: an engine fault, no client's mistake.
    #[error("a bot could not act: {0}")]
    Bot(GameError),
    /// A seat handed to a bot that the match does not have.
    #[error("no seat {seat}")]
    NoSeat {
        /// The seat asked for.
        seat: usize,
    },
    /// A seat handed to a bot that a bot already plays.
    #[error("seat {seat} is already played by the server")]
    PlayedByServer {
        /// The seat asked for.
        seat: usize,
    },
    /// A repeated join (the same request id) asking for another seat than the one it claimed.
    #[error(
        "this request_id already claimed seat {joined} of match '{match_id}'; one request id \
         claims one seat: use a new request_id for seat {wanted}"
    )]
    ClaimedOtherSeat {
        /// The match.
        match_id: String,
        /// The seat the request id claimed.
        joined: usize,
        /// The seat asked for now.
        wanted: u32,
    },
    /// A join without a seat named, and every human seat taken.
    #[error("match '{match_id}' has no free human seat")]
    NoFreeSeat {
        /// The match.
        match_id: String,
    },
    /// A join of a seat a bot plays.
    #[error(
        "seat {seat} of match '{match_id}' is played by the {bot} bot; only human seats can be \
         joined"
    )]
    BotSeat {
        /// The match.
        match_id: String,
        /// The seat asked for.
        seat: usize,
        /// The bot's spec (`Seat::kind_name`).
        bot: String,
    },
    /// A join of a seat already joined.
    #[error("seat {seat} of match '{match_id}' is already taken")]
    SeatTaken {
        /// The match.
        match_id: String,
        /// The seat asked for.
        seat: usize,
    },
    /// A seat's request without the seat's token.
    #[error(
        "seat {seat} needs its token in the `{}` metadata",
        crate::SEAT_TOKEN_METADATA
    )]
    TokenMissing {
        /// The seat.
        seat: usize,
    },
    /// A seat's request with a token that is not the seat's (or for a seat no one joined).
    #[error("wrong token for seat {seat} of match '{match_id}'")]
    WrongToken {
        /// The match.
        match_id: String,
        /// The seat.
        seat: usize,
    },
    /// An action chosen on an old view: the match moved on, and the seat did not act at the
    /// version expected.
    #[error(
        "match '{match_id}' is at version {current}, not {expected} as expected, and seat {seat} \
         did not act at version {expected}: read the view and act again"
    )]
    Moved {
        /// The match.
        match_id: String,
        /// The seat that acted.
        seat: usize,
        /// The version the action was chosen at.
        expected: u64,
        /// The match's version now.
        current: u64,
    },
    /// A retried action that is not the one the seat made at that version (worded as core's
    /// `ActError::Decided`).
    #[error(
        "seat {seat} already acted at version {expected}, with '{}' (id {}); this request asks \
         for another action",
        decision.text,
        decision.action
    )]
    Decided {
        /// The seat that acted.
        seat: usize,
        /// The version the action was chosen at.
        expected: u64,
        /// The decision made there.
        decision: Decision,
    },
    /// The request that made the bots move was abandoned before their next move.
    #[error("the request was abandoned before the match's bots had played")]
    Stopped,
    /// A stored match that does not resume.
    #[error(transparent)]
    Restore(#[from] RestoreError),
    /// The match is gone (expired, or ended by the server): what its watchers are told.
    #[error("no match '{match_id}' (never created, or expired after being idle)")]
    NotFound {
        /// The match.
        match_id: String,
    },
    /// The match's last change could not be stored (it is dropped from memory and read back
    /// from the store): what its watchers are told.
    #[error("the match's last change could not be stored")]
    NotStored,
    /// The server is stopping: what every watcher is told.
    #[error("the server is shutting down")]
    ShuttingDown,
}

/// Why a stored match does not resume: what the store holds does not replay as the engine
/// plays it.
#[derive(Clone, Debug, thiserror::Error)]
pub enum RestoreError {
    /// Not one seat per seat of the game.
    #[error("{seats} seats stored for a game of {players}")]
    SeatCount {
        /// Seats stored.
        seats: usize,
        /// Seats of the game.
        players: usize,
    },
    /// A token for a seat that is not a human's.
    #[error("a token is stored for seat {seat}, not a human seat")]
    TokenForBot {
        /// The seat.
        seat: usize,
    },
    /// An action id that no action can have.
    #[error("a stored action ({action}) is out of range")]
    ActionOutOfRange {
        /// The stored action.
        action: i64,
    },
    /// The engine refuses the stored history.
    #[error("the stored history does not replay: {0}")]
    DoesNotReplay(#[source] GameError),
    /// The replay is not what the store holds.
    #[error(
        "replaying gives {replayed} history entries at version {version}, the store has \
         {stored} at version {stored_version}"
    )]
    Diverges {
        /// History entries replayed.
        replayed: usize,
        /// The version replayed to.
        version: u64,
        /// History entries stored.
        stored: usize,
        /// The version stored.
        stored_version: u64,
    },
}

/// Why a stored match's game cannot be made again.
#[derive(Debug, thiserror::Error)]
pub enum StoredGameError {
    /// Its parameters are not the JSON object `parameters_json` writes.
    #[error("its parameters do not read: {0}")]
    Parameters(#[source] serde_json::Error),
    /// The engine refuses the game or its parameters.
    #[error(transparent)]
    Game(#[from] GameError),
}

#[cfg(test)]
mod tests {
    use checkraise_core::table::{ActError, Decision};

    use super::MatchError;

    /// A refused retry reads as core words it.
    #[test]
    fn a_refused_retry_reads_as_core_words_it() {
        let decision = Decision {
            version: 3,
            action: 7,
            text: "pick7".into(),
        };
        let core = ActError::Decided {
            seat: 1,
            expected: 3,
            decision: decision.clone(),
        };
        let ours = MatchError::Decided {
            seat: 1,
            expected: 3,
            decision,
        };
        assert_eq!(ours.to_string(), core.to_string());
    }
}
