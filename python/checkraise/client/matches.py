"""Matches on the server: a seat's or a spectator's :class:`View`, the :class:`Event`
objects of a watch stream, the claimed :class:`Seat` that acts, the :class:`Match`, and
the :class:`MatchSummary` that listings give."""

from __future__ import annotations

import json
import numbers
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from types import TracebackType
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from .._optional import requires
from .errors import InvalidArgumentError, RemoteError, _unary

with requires("checkraise.client", "grpc"):
    import grpc

    from ..v1 import checkraise_pb2 as pb

if TYPE_CHECKING:
    from typing_extensions import Self

    from .client import Client
    from .replay import Replay

#: The request metadata key that carries a seat's secret token.
SEAT_TOKEN_METADATA = "x-seat-token"


# --------------------------------------------------------------------------------------------
# Views and events
# --------------------------------------------------------------------------------------------

_NUMPY_DTYPES: dict[int, np.dtype[Any]] = {
    pb.DATA_TYPE_FLOAT32: np.dtype("<f4"),
    pb.DATA_TYPE_INT32: np.dtype("<i4"),
    pb.DATA_TYPE_BOOL: np.dtype(np.bool_),
    pb.DATA_TYPE_UINT8: np.dtype(np.uint8),
}


def tensor_to_array(tensor: pb.Tensor) -> npt.NDArray[Any]:
    """A packed tensor as a numpy array over its bytes (no copy; read-only)."""
    dtype = _NUMPY_DTYPES.get(tensor.dtype)
    if dtype is None:
        raise ValueError(f"the server sent a tensor of unknown dtype {tensor.dtype}")
    return np.frombuffer(tensor.data, dtype=dtype).reshape(tuple(tensor.shape))


@dataclass(frozen=True)
class SeatInfo:
    """A seat's kind (``"human"`` or a bot kind), whether a human has claimed it, and whether
    someone follows it now (``connected``: a watch stream for the human seat is open)."""

    seat: int
    kind: str
    taken: bool
    connected: bool = False


def _seat_infos(seats: Sequence[pb.SeatStatus]) -> tuple[SeatInfo, ...]:
    return tuple(SeatInfo(s.seat, s.kind, s.taken, s.connected) for s in seats)


@dataclass(frozen=True)
class View:
    """What one seat (or a spectator) may know of a match at one moment.

    ``state`` is the engine's structured view (the JSON ``State.view(seat)`` gives locally;
    its shape per game is in ``docs/views.md``, with a JSON Schema in ``docs/views/``),
    ``legal_actions`` maps this seat's legal action ids to their texts in id order (empty when
    it may not act), ``action_structs`` maps the same ids to the game's action structs (dicts:
    the card, the cell, the squares, the amount; ``docs/actions/<game>.schema.json``), so a
    client reads an action's parts without parsing its text, ``observation`` is the seat's
    float32 tensor (``None`` for a spectator). ``raw`` is the wire message. Parts left out with
    ``omit=`` (see :data:`VIEW_PARTS`) come back empty: ``state`` ``{}``, ``observation``
    ``None``, ``observation_text`` ``""``, each text of ``legal_actions`` ``""`` and
    ``action_structs`` ``{}``.

    ``act_status`` says what the :meth:`Seat.act` call that returned this view did:
    ``"applied"`` (it applied the action) or ``"already_applied"`` (a repeat, with
    ``expected_version``, of an action applied before: nothing was applied again and the view
    is the match as it is now); ``None`` on every view that is not an ``act`` reply. It is not
    compared: two views of the same moment are equal whichever call returned them.

    ``omitted_parts`` names the parts the server left out because the whole view would exceed
    its largest message (``--max-message-size``), largest first: ``"observation"``,
    ``"observation_text"``, ``"view_json"`` (``state`` is then ``{}``), ``"action_texts"``.
    Before ``"view_json"`` goes, the oldest entries of the view's longest list (the match's
    growing history) are left out, the JSON keeping its shape: that is ``"view_json_entries"``.
    Empty when the view is whole or only ``omit=`` left parts out.

    ``sample_state``, when a watch asked for it (``Seat.watch(sample_state=True)``) and the
    seat may act: a whole state of the game (``Game.deserialize_state`` reads it) consistent
    with everything this seat knows, the rest drawn afresh by the server, on which an engine
    :class:`checkraise.Bot` can choose the seat's action; empty otherwise.

    ``chosen_seed`` is true for a practice deal: the match's creator chose its seed, so the
    creator (and anyone given the seed) can compute every hidden card. False when the server
    drew a secret seed (revealed in :attr:`MatchSummary.seed` once the match is over).
    """

    match_id: str
    seat: int | None
    version: int
    state: dict[str, Any]
    current_player: int
    is_terminal: bool
    may_act: bool
    action_submitted: bool
    legal_actions: dict[int, str]
    returns: tuple[float, ...] | None
    seat_return: float
    observation: npt.NDArray[np.float32] | None
    observation_text: str
    seats: tuple[SeatInfo, ...]
    raw: pb.SeatView = field(repr=False, compare=False)
    act_status: str | None = field(default=None, compare=False)
    omitted_parts: tuple[str, ...] = ()
    chosen_seed: bool = False
    action_structs: dict[int, dict[str, Any]] = field(default_factory=dict, compare=False)
    sample_state: str = field(default="", compare=False, repr=False)

    @classmethod
    def from_proto(cls, view: pb.SeatView) -> View:
        """Decodes a ``SeatView`` message."""
        return cls(
            match_id=view.match_id,
            seat=view.seat if view.HasField("seat") else None,
            version=view.version,
            state=json.loads(view.view_json) if view.view_json else {},
            current_player=view.current_player,
            is_terminal=view.is_terminal,
            may_act=view.may_act,
            action_submitted=view.action_submitted,
            legal_actions={a.id: a.text for a in view.legal_actions},
            returns=tuple(view.returns) if view.is_terminal else None,
            seat_return=view.seat_return,
            observation=(
                tensor_to_array(view.observation) if view.HasField("observation") else None
            ),
            observation_text=view.observation_text,
            seats=_seat_infos(view.seats),
            raw=view,
            act_status=_ACT_STATUSES.get(view.act_status),
            omitted_parts=tuple(view.omitted_parts),
            chosen_seed=view.chosen_seed,
            action_structs={
                a.id: json.loads(a.action_json) for a in view.legal_actions if a.action_json
            },
            sample_state=view.sample_state,
        )


#: ``View.act_status`` for each ``ActStatus`` (``ACT_STATUS_UNSPECIFIED``, not an ``Act``
#: reply, is ``None``).
_ACT_STATUSES: dict[int, str] = {
    pb.ACT_STATUS_APPLIED: "applied",
    pb.ACT_STATUS_ALREADY_APPLIED: "already_applied",
}


@dataclass(frozen=True)
class Event:
    """One change of a match as a viewer sees it.

    ``actor`` is the seat that acted, -2 for a joint action at a simultaneous node, or -1 for a
    view that is not a step: the first event of a stream (the view as of subscribing), and,
    for a watch with ``presence``, a change of who is connected (``view.seats``), at the same
    version. ``own_action`` is
    ``(id, text)`` only when the viewer's own seat acted: other seats' action ids are never
    sent.
    """

    actor: int
    own_action: tuple[int, str] | None
    view: View

    @classmethod
    def from_proto(cls, event: pb.MatchEvent) -> Event:
        """Decodes a ``MatchEvent`` message."""
        own = (event.own_action.id, event.own_action.text) if event.HasField("own_action") else None
        return cls(actor=event.actor, own_action=own, view=View.from_proto(event.view))


class _Ends:
    """Use in a ``with`` block, whose exit ends the object: ``_end`` closes or cancels it."""

    def _end(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._end()


class EventStream(_Ends):
    """A watch stream: iterate for :class:`Event` objects, in order, until the terminal
    event. ``cancel()`` (or leaving a ``with`` block) ends it early."""

    def __init__(self, call: Any) -> None:
        self._call = call

    def __iter__(self) -> EventStream:
        return self

    def __next__(self) -> Event:
        try:
            event = next(self._call)
        except grpc.RpcError as error:
            if error.code() == grpc.StatusCode.CANCELLED and self._call.cancelled():
                raise StopIteration from None
            raise RemoteError.from_rpc_error(error) from None
        return Event.from_proto(event)

    def cancel(self) -> None:
        """Stops the stream; iterating afterwards ends at once."""
        self._call.cancel()

    def _end(self) -> None:
        self.cancel()


# --------------------------------------------------------------------------------------------
# Matches
# --------------------------------------------------------------------------------------------


#: The parts of a seat's view that ``Seat.view``, ``Seat.act`` and ``Seat.watch`` can leave
#: out with ``omit=``: the engine's JSON view (``View.state``), the observation tensor, the
#: observation text, and the texts of the legal actions (their ids always come). A view with
#: fewer parts is smaller and quicker to build; an agent that reads only the observation and
#: the legal ids might pass ``omit=("view_json", "observation_text", "action_texts")``.
VIEW_PARTS = ("view_json", "observation", "observation_text", "action_texts")


def _view_options(
    omit: Sequence[str] | str, *, sample_state: bool = False
) -> pb.ViewOptions | None:
    """The ``ViewOptions`` that leave out ``omit`` and add the sample state when asked
    (``None``, the whole view, when neither)."""
    if isinstance(omit, str):
        omit = (omit,)
    unknown = [part for part in omit if part not in VIEW_PARTS]
    if unknown:
        raise ValueError(
            f"cannot omit {', '.join(map(repr, unknown))}: the parts are {', '.join(VIEW_PARTS)}"
        )
    if not omit and not sample_state:
        return None
    return pb.ViewOptions(with_sample_state=sample_state, **{f"omit_{part}": True for part in omit})


class Seat:
    """A claimed human seat of a match. Sends its secret token with every call itself.

    ``repeated`` is true when the :meth:`Match.join` that gave it repeated an earlier one with
    the same ``request_id`` (the seat was already this client's; same seat, same token).
    """

    def __init__(self, match: Match, seat: int, token: str, *, repeated: bool = False) -> None:
        self.match = match
        self.seat = seat
        self.repeated = repeated
        self._metadata = ((SEAT_TOKEN_METADATA, token),)

    @property
    def token(self) -> str:
        """The seat's secret token (shown once by the server; keep it private)."""
        return self._metadata[0][1]

    def __repr__(self) -> str:
        return f"Seat(match_id={self.match.match_id!r}, seat={self.seat})"

    def view(self, *, omit: Sequence[str] = ()) -> View:
        """What this seat may know now (without the parts in ``omit``: see
        :data:`VIEW_PARTS`)."""
        client = self.match.client
        return View.from_proto(
            _unary(
                client._matches.GetView,
                pb.GetViewRequest(
                    match_id=self.match.match_id,
                    seat=self.seat,
                    view_options=_view_options(omit),
                ),
                metadata=self._metadata,
                timeout=client.timeout,
            )
        )

    def legal_actions(self) -> dict[int, str]:
        """This seat's legal actions now, id → text in id order (empty if it may not act)."""
        return self.view().legal_actions

    def act(
        self,
        action: int | str,
        *,
        omit: Sequence[str] = (),
        expected_version: int | None = None,
    ) -> View:
        """Plays an action, by id (``int``) or by its text (``str``, e.g. ``"Kd@1,0"``);
        returns this seat's view once chance and bots have moved on (without the parts in
        ``omit``: see :data:`VIEW_PARTS`), with ``act_status`` ``"applied"``.

        ``expected_version`` (the ``version`` of the view the action was chosen on) makes the
        call safe to repeat when its reply was lost (a timeout, a dropped connection): if this
        seat already made this same action at that version, nothing is applied again and the
        view returned is the match as it is now, with ``act_status`` ``"already_applied"``.
        If the match moved on without this seat acting at that version (the view was stale),
        :class:`AbortedError`: read the view and choose again; if the seat made another action
        at that version, :class:`FailedPreconditionError`. Without it the action applies to
        the match as it is now (a repeat may then be applied twice, or refused)."""
        request = pb.ActRequest(
            match_id=self.match.match_id, seat=self.seat, view_options=_view_options(omit)
        )
        if expected_version is not None:
            if (
                not isinstance(expected_version, numbers.Integral)
                or isinstance(expected_version, bool)
                or not 0 <= int(expected_version) < 2**64
            ):
                raise InvalidArgumentError(
                    grpc.StatusCode.INVALID_ARGUMENT,
                    f"expected_version must be a view's version (an int >= 0), "
                    f"not {expected_version!r}",
                )
            request.expected_version = int(expected_version)
        if isinstance(action, str):
            request.action_text = action
        elif isinstance(action, numbers.Integral) and not isinstance(action, bool):
            if not 0 <= int(action) < 2**32:
                raise InvalidArgumentError(
                    grpc.StatusCode.INVALID_ARGUMENT,
                    f"action id {int(action)} is negative or too large",
                )
            request.action_id = int(action)
        else:
            raise TypeError(f"an action is an int id or its str text, not {type(action).__name__}")
        client = self.match.client
        return View.from_proto(
            _unary(
                client._matches.Act,
                request,
                metadata=self._metadata,
                timeout=client.timeout,
            )
        )

    def watch(
        self, *, omit: Sequence[str] = (), presence: bool = False, sample_state: bool = False
    ) -> EventStream:
        """This seat's view now, then one event per change of the match, in order, ending
        after the terminal event (every view without the parts in ``omit``: see
        :data:`VIEW_PARTS`). With ``presence``, also an event (actor -1, the same version)
        whenever who is connected changes (``SeatInfo.connected``). With ``sample_state``,
        each view while the seat may act carries :attr:`View.sample_state`."""
        client = self.match.client
        call = client._matches.WatchSeat(
            pb.WatchSeatRequest(
                match_id=self.match.match_id,
                seat=self.seat,
                view_options=_view_options(omit, sample_state=sample_state),
                presence=presence,
            ),
            metadata=self._metadata,
        )
        return EventStream(call)


class Match:
    """A match on the server: join its human seats, spectate, watch.

    ``seed`` is the seed the creator chose (``chosen_seed`` true: a practice deal, announced
    to every seat), or 0 when the server drew a secret one, which stays secret until the
    match is over (:attr:`MatchSummary.seed` then gives it).
    """

    def __init__(
        self,
        client: Client,
        response: pb.CreateMatchResponse,
        game: str,
        *,
        chosen_seed: bool = False,
    ) -> None:
        self.client = client
        self.game = game
        self.match_id: str = response.match_id
        self.seed: int = response.seed
        self.chosen_seed = chosen_seed
        self.sizes: pb.GameSizes = response.sizes
        self.seats: tuple[SeatInfo, ...] = _seat_infos(response.seats)

    def __repr__(self) -> str:
        return f"Match(game={self.game!r}, match_id={self.match_id!r}, seed={self.seed})"

    @property
    def num_players(self) -> int:
        """Number of seats."""
        return self.sizes.num_players

    def join(self, seat: int | None = None, *, request_id: str | None = None) -> Seat:
        """Claims a human seat (the first free one when ``seat`` is None).

        ``request_id`` (16 to 256 characters of your choosing, e.g. ``str(uuid.uuid4())``)
        makes the call safe to repeat: a join repeated with the same ``request_id`` (and the
        same ``seat``, or none) returns the same seat and the same token (``Seat.repeated``
        true) instead of :class:`FailedPreconditionError`, so a lost reply does not lose the
        seat. Keep it as secret as the token: repeating it gives the token."""
        request = pb.JoinSeatRequest(match_id=self.match_id)
        if seat is not None:
            if not 0 <= seat < 2**32:
                raise InvalidArgumentError(
                    grpc.StatusCode.INVALID_ARGUMENT, f"seat {seat} is out of range"
                )
            request.seat = seat
        if request_id is not None:
            if not isinstance(request_id, str):
                raise TypeError(f"request_id is a str, not {type(request_id).__name__}")
            request.request_id = request_id
        reply = _unary(self.client._matches.JoinSeat, request, timeout=self.client.timeout)
        return Seat(self, reply.seat, reply.seat_token, repeated=reply.repeated)

    def spectate(self) -> View:
        """The public view: what anyone may know, no seat's hidden cards."""
        return View.from_proto(
            _unary(
                self.client._matches.GetSpectatorView,
                pb.GetSpectatorViewRequest(match_id=self.match_id),
                timeout=self.client.timeout,
            )
        )

    def watch(self, *, presence: bool = False) -> EventStream:
        """The public view now, then one event per change, ending after the terminal event;
        with ``presence``, also an event whenever who is connected changes."""
        call = self.client._matches.WatchSpectator(
            pb.WatchSpectatorRequest(match_id=self.match_id, presence=presence)
        )
        return EventStream(call)

    def replay(self, *, page_size: int = 0) -> Replay:
        """This match step by step, whole: every page of :meth:`Client.get_replay` read and
        joined (``page_size`` steps a request; 0, the server's 100). The whole replay is held
        in memory; :meth:`Client.iter_replay` reads it a page at a time instead."""
        return self.client._whole_replay(self.match_id, page_size)


# --------------------------------------------------------------------------------------------
# Listings
# --------------------------------------------------------------------------------------------

#: ``MatchSummary.status`` values, and the ``status`` filter of :meth:`Client.list_matches`:
#: being played, played to its end, removed after being idle before its end.
MATCH_STATUSES = ("live", "finished", "expired")

_MATCH_STATUSES: dict[str, pb.MatchStatus] = {
    "live": pb.MATCH_STATUS_LIVE,
    "finished": pb.MATCH_STATUS_FINISHED,
    "expired": pb.MATCH_STATUS_EXPIRED,
}
_STATUS_NAMES: dict[int, str] = {number: name for name, number in _MATCH_STATUSES.items()}


def _datetime(ms: int) -> datetime:
    """Milliseconds since the Unix epoch as an aware UTC ``datetime``."""
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc)


@dataclass(frozen=True)
class MatchSummary:
    """One match as :meth:`Client.list_matches` lists it.

    ``game`` is the game with every parameter spelled out (``"pokeros(board_size=5,...)"``;
    ``game_name`` is its registry name), ``seats`` each seat's kind (``"human"`` or the bot's
    canonical spec), ``status`` one of :data:`MATCH_STATUSES`, ``version`` the steps taken,
    ``created``/``touched`` (the last change every seat and spectator sees: created, a seat
    joined, a step taken, the end)/``finished`` aware UTC datetimes (``finished`` ``None``
    until the end), ``returns`` each seat's return once the game is over (``None`` before).
    ``seed`` is the match's seed once it can no longer be played (finished or expired), and 0
    while it is live (the seed gives away every hidden card); ``chosen_seed`` is true when
    the creator chose the seed (a practice deal: see :attr:`View.chosen_seed`).
    """

    match_id: str
    game: str
    seed: int
    seats: tuple[str, ...]
    status: str
    version: int
    created: datetime
    touched: datetime
    finished: datetime | None
    returns: tuple[float, ...] | None
    chosen_seed: bool = False

    @property
    def game_name(self) -> str:
        """The game's registry name, without its parameters (``"pokeros"``)."""
        return self.game.split("(", 1)[0]

    @classmethod
    def from_proto(cls, summary: pb.MatchSummary) -> MatchSummary:
        """Decodes a ``MatchSummary`` message."""
        status = _STATUS_NAMES.get(summary.status)
        if status is None:
            status = pb.MatchStatus.Name(summary.status).removeprefix("MATCH_STATUS_").lower()
        return cls(
            match_id=summary.match_id,
            game=summary.game,
            seed=summary.seed,
            seats=tuple(summary.seats),
            status=status,
            version=summary.version,
            created=_datetime(summary.created_ms),
            touched=_datetime(summary.touched_ms),
            finished=(_datetime(summary.finished_ms) if summary.HasField("finished_ms") else None),
            returns=tuple(summary.returns) if summary.returns else None,
            chosen_seed=summary.chosen_seed,
        )
