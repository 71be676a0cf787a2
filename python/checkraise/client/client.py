"""The :class:`Client`: a connection to a ``checkraise-server``, whose methods list the
games, create and list matches, read replays and create env batches."""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any

from .._optional import requires
from .envs import (
    _AUTORESET_MODES,
    _OBSERVATION_ENCODINGS,
    RemoteVectorEnv,
    _autoreset_mode,
    _learner_seat,
    _opponent_pool,
)
from .errors import InvalidArgumentError, UnavailableError, _unary
from .matches import _MATCH_STATUSES, MATCH_STATUSES, Match, MatchSummary, _Ends
from .replay import Replay, ReplayStep

with requires("checkraise.client", "grpc"):
    import grpc

    from ..v1 import checkraise_pb2 as pb
    from ..v1 import checkraise_pb2_grpc as pb_grpc

#: The server's default message limit; the client accepts replies this large by default.
DEFAULT_MAX_MESSAGE_SIZE = 64 * 1024 * 1024

ParamValue = int | bool | str


def _text_parameters(params: Mapping[str, ParamValue]) -> dict[str, str]:
    """Game parameters as the text the service takes (``True`` → ``"true"``)."""
    text = {}
    for name, value in params.items():
        if isinstance(value, bool):
            text[name] = "true" if value else "false"
        elif isinstance(value, (numbers.Integral, str)):
            text[name] = str(value)
        else:
            raise TypeError(
                f"parameter {name!r} must be an int, bool or str, not {type(value).__name__}"
            )
    return text


def _unsigned(name: str, value: int, bits: int) -> int:
    """``value`` checked to be an int that fits an unsigned field of ``bits`` bits."""
    if (
        not isinstance(value, numbers.Integral)
        or isinstance(value, bool)
        or not 0 <= int(value) < 2**bits
    ):
        raise InvalidArgumentError(
            grpc.StatusCode.INVALID_ARGUMENT,
            f"{name} must be an int from 0 to {2**bits - 1}, not {value!r}",
        )
    return int(value)


def _epoch_ms(name: str, when: datetime | float, *, up: bool) -> int:
    """A ``datetime`` (a naive one is local time, as ``datetime.timestamp`` takes it) or
    seconds since the Unix epoch (as ``time.time()``) as milliseconds since the epoch, rounded
    down (or ``up``), so that a bound between two milliseconds admits the matches created
    within the millisecond it falls in (the server stores whole milliseconds)."""
    if isinstance(when, datetime):
        seconds = when.timestamp()
    elif isinstance(when, numbers.Real) and not isinstance(when, bool):
        seconds = float(when)
    else:
        raise TypeError(
            f"{name} is a datetime or seconds since the epoch, not {type(when).__name__}"
        )
    return math.ceil(seconds * 1000) if up else math.floor(seconds * 1000)


class Client(_Ends):
    """A connection to a ``checkraise-server``.

    ``timeout`` (seconds) bounds every unary call (watch streams are not bounded);
    ``max_message_size`` is the largest reply accepted (envs replies grow with the batch; the
    server's default limit is 64 MiB). ``options`` are extra grpcio channel arguments (e.g.
    ``[("grpc.use_local_subchannel_pool", 1)]`` for a connection of its own). Pass
    ``channel`` to use a channel you configured yourself (TLS, interceptors); the client then
    does not close it.
    """

    def __init__(
        self,
        address: str = "127.0.0.1:50051",
        *,
        timeout: float | None = None,
        max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE,
        options: Sequence[tuple[str, Any]] = (),
        channel: grpc.Channel | None = None,
    ) -> None:
        self.address = address
        self.timeout = timeout
        self._owns_channel = channel is None
        if channel is None:
            channel = grpc.insecure_channel(
                address,
                options=[
                    ("grpc.max_receive_message_length", max_message_size),
                    ("grpc.max_send_message_length", max_message_size),
                    *options,
                ],
            )
        self.channel = channel
        self._catalog = pb_grpc.CatalogStub(channel)
        self._matches = pb_grpc.MatchesStub(channel)
        self._envs = pb_grpc.EnvsStub(channel)

    def __repr__(self) -> str:
        return f"Client({self.address!r})"

    def wait_ready(self, timeout: float = 10.0) -> None:
        """Blocks until the channel is connected; :class:`UnavailableError` after ``timeout``."""
        try:
            grpc.channel_ready_future(self.channel).result(timeout=timeout)
        except grpc.FutureTimeoutError:
            raise UnavailableError(
                grpc.StatusCode.UNAVAILABLE,
                f"no checkraise-server answered at {self.address} within {timeout} s",
            ) from None

    def close(self) -> None:
        """Closes the channel (if the client opened it)."""
        if self._owns_channel:
            self.channel.close()

    def _end(self) -> None:
        self.close()

    # Catalog ---------------------------------------------------------------------------------

    def games(self) -> list[pb.GameDescription]:
        """Every registered game: facts, parameter schema, bot kinds, default sizes."""
        reply = _unary(self._catalog.ListGames, pb.ListGamesRequest(), timeout=self.timeout)
        return list(reply.games)

    def game_names(self) -> list[str]:
        """The registered games' names, in registry order."""
        return [g.name for g in self.games()]

    def game(self, name: str, **params: ParamValue) -> pb.GetGameResponse:
        """One game's description and its sizes under ``params`` (validated by the engine:
        a bad one is :class:`InvalidArgumentError`; an unknown game :class:`NotFoundError`)."""
        return _unary(
            self._catalog.GetGame,
            pb.GetGameRequest(name=name, parameters=_text_parameters(params)),
            timeout=self.timeout,
        )

    # Matches ---------------------------------------------------------------------------------

    def create_match(
        self,
        game: str,
        *,
        seed: int | None = None,
        seats: Sequence[str] | None = None,
        **params: ParamValue,
    ) -> Match:
        """Creates a match; chance and bot seats act at once up to the first human decision.

        ``seats`` gives one kind per seat: ``"human"`` or a bot kind (``"heuristic"``,
        ``"random"``). By default seat 0 is human and every other seat the heuristic bot
        (the number of seats is asked of the catalog for ``params``).

        ``seed`` fixes chance and the bots (a match replays identically): a practice deal,
        since whoever knows the seed can compute every hidden card, so the match tells every
        seat and spectator (``View.chosen_seed``, ``MatchSummary.chosen_seed``). When None
        (the default) the server draws a secret seed: ``Match.seed`` is then 0, and the seed
        is revealed in ``MatchSummary.seed`` once the match is over.
        """
        parameters = _text_parameters(params)
        if seats is None:
            players = self.game(game, **params).sizes.num_players
            seats = ["human"] + ["heuristic"] * (players - 1)
        elif isinstance(seats, str):
            raise TypeError("seats is a sequence of kinds, e.g. ['human', 'heuristic']")
        request = pb.CreateMatchRequest(game=game, parameters=parameters, seats=list(seats))
        if seed is not None:
            request.seed = seed
        reply = _unary(self._matches.CreateMatch, request, timeout=self.timeout)
        return Match(self, reply, game, chosen_seed=seed is not None)

    def list_matches(
        self,
        game: str | None = None,
        status: str | None = None,
        created_after: datetime | float | None = None,
        created_before: datetime | float | None = None,
        page_size: int | None = None,
    ) -> Iterator[MatchSummary]:
        """The matches the server holds (with a database, every match it stored: live,
        finished or expired), oldest first (by creation time in milliseconds, then id), as
        :class:`MatchSummary` objects.

        Filters (``None``: any): ``game``, a registry name (``"pokeros"``); ``status``, one of
        :data:`MATCH_STATUSES`; ``created_after`` (at or after) and ``created_before``
        (strictly before), each a ``datetime`` or seconds since the epoch (``time.time()``).
        A generator that reads every page lazily, one request per ``page_size`` matches (1 to
        1000; the server's 100 when None), so errors surface while iterating; wrap it in
        ``list()`` for them all."""
        if status is not None and status not in _MATCH_STATUSES:
            raise ValueError(
                f"status must be one of {', '.join(map(repr, MATCH_STATUSES))}, not {status!r}"
            )
        request = pb.ListMatchesRequest(
            game=game or "",
            status=_MATCH_STATUSES[status] if status is not None else pb.MATCH_STATUS_UNSPECIFIED,
            page_size=page_size or 0,
        )
        if created_after is not None:
            request.created_after_ms = _epoch_ms("created_after", created_after, up=False)
        if created_before is not None:
            request.created_before_ms = _epoch_ms("created_before", created_before, up=True)
        return self._list_pages(request)

    def _list_pages(self, request: pb.ListMatchesRequest) -> Iterator[MatchSummary]:
        while True:
            reply = _unary(self._matches.ListMatches, request, timeout=self.timeout)
            for summary in reply.matches:
                yield MatchSummary.from_proto(summary)
            if not reply.next_page_token:
                return
            request.page_token = reply.next_page_token

    def get_replay(self, match_id: str, from_version: int = 0, page_size: int = 0) -> Replay:
        """One page of a match step by step (no token needed): the steps from version
        ``from_version`` (0, the deal) on, at most ``page_size`` of them (1 to 1000; 0, the
        server's 100; a page also ends early rather than exceed the server's largest message).
        ``Replay.next_version`` is the ``from_version`` of the next page (``None`` on the
        last); :meth:`iter_replay` reads every page, :meth:`Match.replay` joins them.

        For a finished match every history entry, every card dealt included (``revealed``);
        for a match still being played only what a spectator may see. Each step's public view
        (``ReplayStep.state``) is rebuilt from the page's first view and the later steps'
        patches. An unknown match is :class:`NotFoundError`; a ``from_version`` past the
        match's version or a ``page_size`` over 1000 :class:`InvalidArgumentError`."""
        request = pb.GetReplayRequest(
            match_id=match_id,
            from_version=_unsigned("from_version", from_version, 64),
            page_size=_unsigned("page_size", page_size, 32),
        )
        return Replay.from_proto(_unary(self._matches.GetReplay, request, timeout=self.timeout))

    def iter_replay(
        self, match_id: str, *, from_version: int = 0, page_size: int = 0
    ) -> Iterator[ReplayStep]:
        """Every step of a match from ``from_version`` on, each with its public view rebuilt,
        reading one page of :meth:`get_replay` at a time (``page_size`` steps a request), so
        that memory stays bounded by a page however long the match. A generator: errors
        surface while iterating. A match still being played is read up to its version when
        the last page is asked for; one that ends while it is read has ``entries`` only on
        the steps of the pages read after its end (read it again for every entry)."""
        version: int | None = from_version
        while version is not None:
            page = self.get_replay(match_id, version, page_size)
            yield from page.steps
            version = page.next_version

    def _whole_replay(self, match_id: str, page_size: int = 0) -> Replay:
        """Every page of a match's replay joined into one :class:`Replay` (``next_version``
        ``None``). A match that ends while its pages are read is read again from the start
        (once: a finished match does not change), so that every step is ``revealed`` alike."""
        for attempt in range(2):
            page = self.get_replay(match_id, 0, page_size)
            pages = [page]
            ended = False
            while page.next_version is not None:
                page = self.get_replay(match_id, page.next_version, page_size)
                if page.revealed != pages[0].revealed and attempt == 0:
                    ended = True
                    break
                pages.append(page)
            if not ended:
                break
        revealed = all(p.revealed for p in pages)
        raw = pb.Replay(
            match=page.raw.match,
            revealed=revealed,
            steps=[step for p in pages for step in p.raw.steps],
        )
        return Replay(
            match=page.match,
            revealed=revealed,
            steps=tuple(step for p in pages for step in p.steps),
            raw=raw,
        )

    # Envs ------------------------------------------------------------------------------------

    def envs(
        self,
        game: str,
        num_envs: int,
        seed: int = 0,
        *,
        all_seats: bool = False,
        autoreset_mode: str = "next_step",
        max_episode_steps: int | None = None,
        observation_encoding: str = "float32",
        opponent: Any = None,
        seat: int | str | None = None,
        **params: ParamValue,
    ) -> RemoteVectorEnv:
        """Creates ``num_envs`` envs of ``game`` on the server (env i seeded ``seed + i``),
        already reset. With ``all_seats`` every seat's observation and mask is returned and
        ``step`` takes one action per seat (simultaneous games need it). ``autoreset_mode``:
        ``"next_step"`` (Gymnasium's default, as ``checkraise.VectorEnv``) or ``"same_step"``
        (also Gymnasium's ``AutoresetMode`` members); ``max_episode_steps`` truncates games.
        ``observation_encoding="compact"`` sends compact observation rows and packed masks
        (uint8; ``RemoteVectorEnv.unpack_observations``/``unpack_action_masks``), 12 to 27
        times fewer bytes than ``"float32"``.

        With ``opponent=`` the server plays every seat but a learner's, as
        ``checkraise.VectorEnv(..., opponent=..., seat=...)`` does (the same seed, pool and
        actions give the same games): ``opponent`` is a bot spec (``"heuristic"``,
        ``"random"``, ``"ismcts(iterations=200)"``, ``"policy"``: the server's shipped one), a
        ``checkraise.Bot``, a policy file's bytes (a trainer's snapshot; the server never reads
        a file a client names, so ``"policy(path=...)"`` is refused), or a weighted pool of
        these (a list of entries or of ``(entry, weight)`` pairs, or a dict entry -> weight),
        drawn for each opponent seat of each env at every game. ``seat`` is the learner's seat:
        a seat number (default 0) or ``"random"`` (drawn for every game). Every env then stops
        only at its learner's decisions: ``step`` takes one action per env (also in
        simultaneous games), and ``rewards`` and ``final_returns`` are ``[n, 1]``. Not with
        ``all_seats``. The server caps a searching bot's time per move (``--max-bot-ms``)."""
        mode = _autoreset_mode(autoreset_mode)
        if observation_encoding not in _OBSERVATION_ENCODINGS:
            raise ValueError(
                f"observation_encoding must be 'float32' or 'compact', not {observation_encoding!r}"
            )
        request = pb.CreateEnvsRequest(
            game=game,
            parameters=_text_parameters(params),
            num_envs=num_envs,
            seed=seed,
            all_seats=all_seats,
            autoreset_mode=_AUTORESET_MODES[mode],
            observation_encoding=_OBSERVATION_ENCODINGS[observation_encoding],
        )
        if max_episode_steps is not None:
            request.max_episode_steps = max_episode_steps
        if opponent is not None:
            request.opponents.extend(_opponent_pool(opponent))
            if seat is not None:
                _learner_seat(seat, request)
        elif seat is not None:
            raise InvalidArgumentError(
                grpc.StatusCode.INVALID_ARGUMENT,
                "seat is the learner's seat in a batch with opponents: give opponent too "
                "(without opponents the client plays every seat)",
            )
        reply = _unary(self._envs.CreateEnvs, request, timeout=self.timeout)
        return RemoteVectorEnv(
            self,
            reply,
            game,
            all_seats,
            mode,
            observation_encoding,
            has_opponents=opponent is not None,
            seat=(
                ("random" if request.random_learner_seat else request.learner_seat)
                if opponent is not None
                else None
            ),
        )
