//! Engine errors, the live-match layer's errors and service mistakes as gRPC statuses: the
//! service's edge, where each domain error gets its code.

use checkraise_core::{ErrorKind, GameError};
use tonic::{Code, Status};

use crate::live_match::MatchError;
use crate::matches::{MatchStoreError, ResumeError};
use crate::store::StoreError;

/// The status for an engine error, by the engine's own classification.
pub fn status_from_game_error(error: &GameError) -> Status {
    let message = error.to_string();
    match error.kind() {
        ErrorKind::InvalidArgument => Status::invalid_argument(message),
        ErrorKind::FailedPrecondition => Status::failed_precondition(message),
        ErrorKind::NotFound => Status::not_found(message),
    }
}

/// The status for an engine error about a request's own arguments (the game named in a
/// create request): an unknown game there is a bad argument, not a missing resource.
pub fn status_from_argument_error(error: &GameError) -> Status {
    match error.kind() {
        ErrorKind::NotFound => Status::invalid_argument(error.to_string()),
        _ => status_from_game_error(error),
    }
}

/// The one mapping of the live-match layer's errors to statuses: each error's text is its
/// message, and its kind gives the code.
impl From<MatchError> for Status {
    fn from(error: MatchError) -> Self {
        let code = match &error {
            MatchError::Engine(e) => return status_from_game_error(e),
            MatchError::Bot(e) => return server_fault("a bot could not act", e),
            MatchError::NoSeat { .. } => Code::InvalidArgument,
            MatchError::PlayedByServer { .. }
            | MatchError::ClaimedOtherSeat { .. }
            | MatchError::NoFreeSeat { .. }
            | MatchError::BotSeat { .. }
            | MatchError::SeatTaken { .. }
            | MatchError::Decided { .. } => Code::FailedPrecondition,
            MatchError::TokenMissing { .. } | MatchError::WrongToken { .. } => {
                Code::PermissionDenied
            }
            MatchError::Moved { .. } => Code::Aborted,
            MatchError::Stopped => Code::Cancelled,
            MatchError::Restore(_) => Code::DataLoss,
            MatchError::NotFound { .. } => Code::NotFound,
            MatchError::NotStored | MatchError::ShuttingDown => Code::Unavailable,
        };
        Status::new(code, error.to_string())
    }
}

/// The one mapping of the match store's errors to statuses. What a client is told is the
/// service's own sentence: a database's text (in a `StoreError`'s source) goes to the log.
impl From<MatchStoreError> for Status {
    fn from(error: MatchStoreError) -> Self {
        match error {
            MatchStoreError::Match(e) => e.into(),
            MatchStoreError::Store(e) => e.into(),
            MatchStoreError::NotResumed { match_id, source } => resume_status(&match_id, *source),
            e @ MatchStoreError::Seat(_) => Status::invalid_argument(e.to_string()),
            e @ MatchStoreError::SeatsUnreadable { .. } => Status::data_loss(e.to_string()),
            e @ MatchStoreError::Full(_) => Status::resource_exhausted(e.to_string()),
            e @ MatchStoreError::Conflict { .. } => Status::aborted(e.to_string()),
            e @ (MatchStoreError::Unreachable { .. } | MatchStoreError::NotStored { .. }) => {
                Status::unavailable(e.to_string())
            }
            e @ MatchStoreError::TaskFailed(_) => Status::internal(e.to_string()),
        }
    }
}

/// A stored match that could not be made live again: with the code of what refused it when
/// a retry may succeed (the store or the server failing on the way), else DATA_LOSS (its row
/// does not read, so no retry can).
fn resume_status(match_id: &str, source: ResumeError) -> Status {
    match source {
        ResumeError::Refused(refused) => {
            let refused = Status::from(*refused);
            match refused.code() {
                Code::Unavailable | Code::ResourceExhausted | Code::Cancelled => Status::new(
                    refused.code(),
                    format!(
                        "match '{match_id}' is stored but cannot be resumed now: {}",
                        refused.message()
                    ),
                ),
                _ => unreadable_match(match_id, &refused.message()),
            }
        }
        other => unreadable_match(match_id, &other),
    }
}

/// The store cannot read or write: UNAVAILABLE, saying what could not be done and to try
/// again, in the service's own words: the database's text (which can quote a constraint, a
/// statement, a host) goes to the server's log, never into a reply. A stored row that does
/// not read (JSON the store did not write, a status it does not know) is DATA_LOSS, since no
/// retry reads it.
impl From<StoreError> for Status {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::Json { .. } | StoreError::UnknownStatus(_) | StoreError::Unreadable(_) => {
                Status::data_loss(format!(
                    "the store holds a row that cannot be read: {error}; restore the store from \
                     a backup"
                ))
            }
            StoreError::NotLadderHolder => Status::unavailable(format!(
                "{error}; call again (the call reaches the new holder)"
            )),
            StoreError::Query { what, .. } => {
                tracing::warn!(%error, "a store call failed");
                Status::unavailable(format!(
                    "the store failed: {what}; try again in a moment (the server's log has the \
                     database's error)"
                ))
            }
            _ => {
                tracing::warn!(%error, "the store failed");
                Status::unavailable(
                    "the store failed; try again in a moment (the server's log has the \
                     database's error)",
                )
            }
        }
    }
}

/// A stored match whose row does not read (its game, seats, returns or history): DATA_LOSS,
/// naming the match and what is wrong, from every call that reads it (`GetView`, `JoinSeat`,
/// `GetReplay`, ...), since no retry can succeed.
pub fn unreadable_match(match_id: &str, what: &dyn std::fmt::Display) -> Status {
    Status::data_loss(format!(
        "match '{match_id}' is stored but cannot be read: {what}; restore the store from a \
         backup to play or replay it"
    ))
}

/// A batch of envs that does not exist.
pub fn unknown_envs(envs_id: &str) -> Status {
    Status::not_found(format!(
        "no env batch '{envs_id}' on this server (never created, closed, or expired after being \
         idle); a batch lives in the server process that made it: without cluster mode, behind \
         a load balancer every call of a batch must reach that server (see docs/cluster.md)"
    ))
}

/// A server fault that is no client's mistake (a bot that chose an illegal action).
pub fn server_fault(what: &str, error: &GameError) -> Status {
    tracing::error!(%error, "{what}");
    Status::internal(format!("{what}: {error}"))
}

/// Most bytes of an error message the server sends: messages quote bad input, and a megabyte
/// of input echoed back would cost a megabyte of reply and hide the real error.
pub const MAX_ERROR_MESSAGE_BYTES: usize = 1024;

/// A request's `page_size`: `default` when 0 (unset), refused over `max`.
pub fn page_size(requested: u32, default: u32, max: u32) -> Result<u32, Status> {
    match requested {
        0 => Ok(default),
        n if n <= max => Ok(n),
        n => Err(Status::invalid_argument(format!(
            "page_size {n} is over the most, {max}"
        ))),
    }
}

/// `message` cut to at most `MAX_ERROR_MESSAGE_BYTES` bytes between characters, with a note
/// of its whole length (for error texts that travel in a message rather than in
/// `grpc-message`, which the server cuts as it sends it).
pub fn capped_message(message: &str) -> String {
    if message.len() <= MAX_ERROR_MESSAGE_BYTES {
        return message.to_string();
    }
    let note = format!(" ... (message cut: {} bytes in all)", message.len());
    let mut end = MAX_ERROR_MESSAGE_BYTES - note.len();
    while !message.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}{note}", &message[..end])
}

/// An error with every cause under it (`transport error: ...: the real reason`): errors such
/// as tonic's say only their kind at the top.
pub fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.ends_with(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::{MAX_ERROR_MESSAGE_BYTES, capped_message};

    #[test]
    fn long_messages_are_cut_between_characters_with_their_length() {
        assert_eq!(capped_message("short"), "short");
        let long = "é".repeat(2000);
        let cut = capped_message(&long);
        assert!(cut.len() <= MAX_ERROR_MESSAGE_BYTES, "{}", cut.len());
        assert!(cut.ends_with("(message cut: 4000 bytes in all)"), "{cut}");
        assert!(cut.starts_with("éé"));
    }
}
