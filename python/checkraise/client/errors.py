"""The errors of :mod:`checkraise.client`: every gRPC failure is raised as a
:class:`RemoteError`, of the subclass for its status code, keeping the code and the
server's message."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from .._optional import requires

with requires("checkraise.client", "grpc"):
    import grpc

_T = TypeVar("_T")


class RemoteError(Exception):
    """A call to the server failed: the gRPC status code and the server's message.

    Raised as the subclass for its code when there is one (:class:`InvalidArgumentError`,
    :class:`NotFoundError`, ...), so callers can catch exactly the failures they expect.
    """

    code: grpc.StatusCode
    message: str

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(f"{code.name}: {message}")
        self.code = code
        self.message = message

    @classmethod
    def from_rpc_error(cls, error: grpc.RpcError) -> RemoteError:
        """The exception for a grpcio error, of the subclass for its status code."""
        code = error.code() if hasattr(error, "code") else grpc.StatusCode.UNKNOWN
        details = error.details() if hasattr(error, "details") else str(error)
        if code is None:
            code = grpc.StatusCode.UNKNOWN
        subclass = _ERROR_BY_CODE.get(code, RemoteError)
        return subclass(code, details or "")


class InvalidArgumentError(RemoteError, ValueError):
    """INVALID_ARGUMENT: a bad game, parameter, seat kind, action or tensor (the engine's
    reason is the message). Also a ``ValueError``, as the local engine's errors are."""


class FailedPreconditionError(RemoteError):
    """FAILED_PRECONDITION: acting out of turn or after the end, choosing twice at a
    simultaneous node, joining a bot seat or a taken seat, or an ``act`` repeated with
    ``expected_version`` but another action than the one the seat made at that version."""


class AbortedError(RemoteError):
    """ABORTED: an ``act`` with ``expected_version`` when the match moved on without this seat
    acting at that version (the view it was chosen on is stale): read the view and act
    again."""


class NotFoundError(RemoteError, LookupError):
    """NOT_FOUND: an unknown or expired match or env batch, or an unknown game."""


class PermissionDeniedError(RemoteError):
    """PERMISSION_DENIED: a missing or wrong seat token, or a wrong ladder bot token."""


class AlreadyExistsError(RemoteError):
    """ALREADY_EXISTS: a ladder bot's name that is taken."""


class UnauthenticatedError(RemoteError):
    """UNAUTHENTICATED: a call that needs a token (a ladder bot's) sent none."""


class ResourceExhaustedError(RemoteError):
    """RESOURCE_EXHAUSTED: past the server's limits (matches, envs, message size), or a
    watcher that fell too far behind."""


class UnavailableError(RemoteError):
    """UNAVAILABLE: the server cannot be reached or is shutting down."""


class DeadlineExceededError(RemoteError):
    """DEADLINE_EXCEEDED: the call took longer than the client's timeout."""


class InternalError(RemoteError):
    """INTERNAL: a fault on the server, never the client's mistake."""


class DataLossError(RemoteError):
    """DATA_LOSS: a stored match whose history does not replay through the engine
    (``get_replay``)."""


_ERROR_BY_CODE: dict[grpc.StatusCode, type[RemoteError]] = {
    grpc.StatusCode.INVALID_ARGUMENT: InvalidArgumentError,
    grpc.StatusCode.FAILED_PRECONDITION: FailedPreconditionError,
    grpc.StatusCode.NOT_FOUND: NotFoundError,
    grpc.StatusCode.PERMISSION_DENIED: PermissionDeniedError,
    grpc.StatusCode.RESOURCE_EXHAUSTED: ResourceExhaustedError,
    grpc.StatusCode.UNAVAILABLE: UnavailableError,
    grpc.StatusCode.DEADLINE_EXCEEDED: DeadlineExceededError,
    grpc.StatusCode.INTERNAL: InternalError,
    grpc.StatusCode.ABORTED: AbortedError,
    grpc.StatusCode.DATA_LOSS: DataLossError,
    grpc.StatusCode.ALREADY_EXISTS: AlreadyExistsError,
    grpc.StatusCode.UNAUTHENTICATED: UnauthenticatedError,
}


def _unary(call: Callable[..., _T], request: Any, **kwargs: Any) -> _T:
    """Runs a unary call, raising grpcio's errors as :class:`RemoteError`."""
    try:
        return call(request, **kwargs)
    except grpc.RpcError as error:
        raise RemoteError.from_rpc_error(error) from None
