//! Engine errors and service mistakes as gRPC statuses.

use checkraise_core::{ErrorKind, GameError};
use tonic::Status;

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

/// A match that does not exist (never created, or expired).
pub fn unknown_match(match_id: &str) -> Status {
    Status::not_found(format!(
        "no match '{match_id}' (never created, or expired after being idle)"
    ))
}

/// A batch of envs that does not exist.
pub fn unknown_envs(envs_id: &str) -> Status {
    Status::not_found(format!(
        "no env batch '{envs_id}' (never created, closed, or expired after being idle)"
    ))
}

/// A server fault that is no client's mistake (a bot that chose an illegal action).
pub fn server_fault(what: &str, error: &GameError) -> Status {
    tracing::error!(%error, "{what}");
    Status::internal(format!("{what}: {error}"))
}
