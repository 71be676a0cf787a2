"""A bot on a server's ladder: register it once, connect, and play rated games unattended.

The server's ``Ladder`` service (``docs/ladder.md``) places connected bots in games against
each other and its house bots (``random``, ``heuristic``, ...), continuously, and rates them.
A bot here is a function from its seat's :class:`~checkraise.client.View` to an action (an
id or its text), an engine :class:`checkraise.Bot` (it chooses on a state the server draws
consistent with what the seat knows: ``View.sample_state``), or a
:class:`checkraise.policy.Policy`::

    from checkraise.client import ladder

    bot = ladder.register("127.0.0.1:50051", "my-bot", games=["pokeros(board_size=3)"])
    bot.save("my-bot.json")                      # the token is shown once: keep it

    def act(view):                               # any function of the seat's view
        return min(view.legal_actions)

    ladder.play("127.0.0.1:50051", ladder.Credentials.load("my-bot.json"), act)
    # ... until Ctrl-C, which stops cleanly (the games in play are left to the time limit)
    # or an engine bot: ladder.play(address, bot, cr.Bot("pokeros(board_size=3)", "heuristic"))
    print(ladder.leaderboard("127.0.0.1:50051", "pokeros(board_size=3)"))

:func:`play` keeps the bot's ``Events`` stream open, reconnecting after a lost connection
(the server announces the games in play again), and plays each game it is placed in on a
thread of its own through the ``Matches`` calls (``WatchSeat`` and ``Act`` with the seat's
token), acting whenever the seat may act. A bot that takes longer than the server's move time
(``move_ms`` in each game's announcement) forfeits that game: the server plays the rest of it.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .. import _core
from . import (
    AbortedError,
    Client,
    FailedPreconditionError,
    Match,
    NotFoundError,
    PermissionDeniedError,
    RemoteError,
    Seat,
    View,
    _unary,
    grpc,
    pb,
    pb_grpc,
)

__all__ = [
    "BOT_TOKEN_METADATA",
    "Credentials",
    "ExploitabilityBound",
    "LadderGame",
    "LadderInfo",
    "PlayReport",
    "RatingPoint",
    "Standing",
    "games",
    "ladders",
    "leaderboard",
    "play",
    "rating_history",
    "register",
    "retire",
]

#: The request metadata key that carries a bot's secret token.
BOT_TOKEN_METADATA = "x-bot-token"

#: Seconds a seat's lost connection is retried in a row before the seat is left to the
#: server's time control (a forfeit).
LOST_SEAT_RETRY_S = 30.0

#: How a bot chooses: a function of its seat's view returning an action id or its text.
Act = Callable[[View], "int | str"]


@dataclass(frozen=True)
class Credentials:
    """A registered bot: its name, its secret token (shown once by the server) and the
    games it plays (each game string with every parameter spelled out)."""

    name: str
    token: str = field(repr=False)
    games: tuple[str, ...] = ()

    def save(self, path: str | os.PathLike[str]) -> None:
        """Writes the credentials as JSON, readable by the owner only."""
        data = json.dumps({"name": self.name, "token": self.token, "games": list(self.games)})
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as file:
            file.write(data)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Credentials:
        """Reads credentials written by :meth:`save`."""
        data = json.loads(Path(path).read_text())
        return cls(data["name"], data["token"], tuple(data.get("games", ())))

    @property
    def metadata(self) -> tuple[tuple[str, str], ...]:
        return ((BOT_TOKEN_METADATA, self.token),)


@dataclass(frozen=True)
class LadderGame:
    """One ladder game: its match (watch it, read its replay), game string, duplicate set,
    the bot at each seat, and once it ended each seat's return and forfeit."""

    match_id: str
    game: str
    set: int
    bots: tuple[str, ...]
    live: bool
    returns: tuple[float, ...]
    forfeits: tuple[bool, ...]

    @classmethod
    def from_proto(cls, game: pb.LadderGameSummary) -> LadderGame:
        return cls(
            game.match_id,
            game.game,
            game.set,
            tuple(game.bots),
            game.live,
            tuple(game.returns),
            tuple(game.forfeits),
        )


@dataclass(frozen=True)
class LadderInfo:
    """One ladder the server runs: its game string, its bots (house and registered), the
    registered ones connected now, its finished games and the games being played."""

    game: str
    bots: int
    connected: int
    games: int
    live: int

    @classmethod
    def from_proto(cls, info: pb.LadderInfo) -> LadderInfo:
        return cls(info.game, info.bots, info.connected, info.games, info.live)


@dataclass(frozen=True)
class ExploitabilityBound:
    """A lower bound measured on a house bot's exploitability: what a strategy (``method``,
    measured by ``command``) won from it, the game's return per game over ``games`` games,
    with its 95% interval."""

    value: float
    interval: tuple[float, float]
    games: int
    method: str
    command: str


@dataclass(frozen=True)
class Standing:
    """One bot on a leaderboard: Bradley-Terry rating on the Elo scale (the anchor,
    ``random``, at 0) with its 95% interval, the rating on returns in the game's units with
    its interval, games, wins (a tie counted half) and forfeits; for a house bot, the bound
    on its exploitability measured offline (``None`` where none above 0 was measured)."""

    bot: str
    house: bool
    connected: bool
    retired: bool
    rating: float
    interval: tuple[float, float]
    return_rating: float
    return_interval: tuple[float, float]
    games: int
    wins: float
    forfeits: int
    exploitability: ExploitabilityBound | None = None

    @classmethod
    def from_proto(cls, s: pb.LadderStanding) -> Standing:
        bound = None
        if s.HasField("exploitability"):
            e = s.exploitability
            bound = ExploitabilityBound(e.value, (e.low, e.high), e.games, e.method, e.command)
        return cls(
            s.bot,
            s.house,
            s.connected,
            s.retired,
            s.rating,
            (s.rating_low, s.rating_high),
            s.return_rating,
            (s.return_low, s.return_high),
            s.games,
            s.wins,
            s.forfeits,
            bound,
        )


@dataclass(frozen=True)
class RatingPoint:
    """A bot's rating after the ladder's first ``games`` finished games (``None`` before
    its first game), with its 95% interval and how many of those games were its own."""

    games: int
    rating: float | None
    interval: tuple[float, float]
    bot_games: int


@dataclass
class PlayReport:
    """What :func:`play` did: the games that ended while it played (as the server recorded
    them), and how many of them this bot forfeited."""

    games: list[LadderGame] = field(default_factory=list)
    forfeits: int = 0


def _stub(client: Client) -> Any:
    return pb_grpc.LadderStub(client.channel)


def _client(target: str | Client) -> tuple[Client, bool]:
    if isinstance(target, Client):
        return target, False
    return Client(target), True


def _call(target: str | Client, method: str, request: Any, **kwargs: Any) -> Any:
    """One Ladder call on ``target`` (an address, for a connection of this call's own, or a
    :class:`~checkraise.client.Client`)."""
    client, own = _client(target)
    try:
        return _unary(getattr(_stub(client), method), request, timeout=client.timeout, **kwargs)
    finally:
        if own:
            client.close()


def register(
    target: str | Client,
    name: str,
    games: Sequence[str],
    *,
    api_key: str | None = None,
) -> Credentials:
    """Registers a bot named ``name`` (3 to 32 characters of a-z, 0-9, ``_``, ``-``, starting
    with a letter) for ``games`` (game strings); returns its credentials, the token shown
    this once. ``api_key`` is sent when the server requires one (``--api-keys``)."""
    if isinstance(games, str):
        games = [games]
    reply = _call(
        target,
        "RegisterBot",
        pb.RegisterBotRequest(name=name, games=list(games)),
        metadata=(("x-api-key", api_key),) if api_key else None,
    )
    return Credentials(reply.name, reply.bot_token, tuple(reply.games))


def retire(target: str | Client, credentials: Credentials) -> None:
    """Retires the bot: it is never placed again; its games and ratings stay."""
    _call(
        target,
        "RetireBot",
        pb.RetireBotRequest(name=credentials.name),
        metadata=credentials.metadata,
    )


def ladders(target: str | Client, *, page_size: int = 1000) -> list[LadderInfo]:
    """Every ladder the server runs, by game string, read ``page_size`` (1 to 1000) a reply
    until the last page."""
    client, own = _client(target)
    out: list[LadderInfo] = []
    token = ""
    try:
        while True:
            reply = _call(
                client,
                "ListLadders",
                pb.ListLaddersRequest(page_size=page_size, page_token=token),
            )
            out.extend(LadderInfo.from_proto(info) for info in reply.ladders)
            token = reply.next_page_token
            if not token:
                return out
    finally:
        if own:
            client.close()


def leaderboard(target: str | Client, game: str) -> list[Standing]:
    """A ladder's standings, highest rating first: every bot that has played, and the
    anchor. :class:`~checkraise.client.NotFoundError` if no bot registered for ``game``."""
    reply = _call(target, "GetLeaderboard", pb.GetLeaderboardRequest(game=game))
    return [Standing.from_proto(s) for s in reply.standings]


def rating_history(
    target: str | Client, game: str, bot: str, *, points: int = 20
) -> list[RatingPoint]:
    """A bot's rating over the ladder's history: its rating after each of ``points`` (2 to
    100) evenly spaced numbers of the ladder's finished games, oldest first."""
    reply = _call(
        target,
        "GetRatingHistory",
        pb.GetRatingHistoryRequest(game=game, bot=bot, points=points),
    )
    return [
        RatingPoint(
            p.games,
            p.rating if p.HasField("rating") else None,
            (p.rating_low, p.rating_high),
            p.bot_games,
        )
        for p in reply.points
    ]


def games(
    target: str | Client, *, bot: str = "", game: str = "", limit: int = 1000
) -> list[LadderGame]:
    """Ladder games, those in play first, then the finished ones newest first (at most
    ``limit``), of one bot and one game when given."""
    client, own = _client(target)
    out: list[LadderGame] = []
    token = ""
    try:
        while len(out) < limit:
            reply = _call(
                client,
                "ListLadderGames",
                pb.ListLadderGamesRequest(
                    bot=bot, game=game, page_size=min(1000, limit - len(out)), page_token=token
                ),
            )
            out.extend(LadderGame.from_proto(g) for g in reply.games)
            token = reply.next_page_token
            if not token:
                break
    finally:
        if own:
            client.close()
    return out[:limit]


def _policy_act(policy: Any) -> Act:
    """A :class:`checkraise.policy.Policy` as a bot: its action on the seat's observation
    among the legal ones."""

    def act(view: View) -> int:
        if view.observation is None:
            raise ValueError("the policy needs the seat's observation; do not omit it")
        mask = np.zeros((1, policy.num_actions), dtype=bool)
        mask[0, list(view.legal_actions)] = True
        return int(policy.actions(view.observation.reshape(1, -1), mask)[0])

    return act


def _bot_act(bot: _core.Bot, game: str) -> Act:
    """An engine :class:`checkraise.Bot` as a ladder bot in ``game``: it chooses on the state
    the server draws consistent with everything the seat knows (``View.sample_state``), as
    the server's own bots do."""
    made = _core.make(game)
    # One bot, several games on threads: it chooses for one at a time.
    lock = threading.Lock()

    def act(view: View) -> int:
        if not view.sample_state:
            raise ValueError("the view carries no sample state to choose on")
        state = made.deserialize_state(view.sample_state)
        with lock:
            return bot.act(state, view.seat)

    return act


def _chooser(act: Any) -> Callable[[str], Act]:
    """How the bot chooses in a game (by its game string)."""
    if isinstance(act, _core.Bot):
        bot = act
        return lambda game: _bot_act(bot, game)
    if callable(act):
        return lambda game: act
    if hasattr(act, "actions") and hasattr(act, "num_actions"):
        policy = _policy_act(act)
        return lambda game: policy
    raise TypeError(
        "act must be a function of a View, a checkraise.Bot or a checkraise.policy.Policy, "
        f"not {type(act).__name__}"
    )


def _play_seat(
    client: Client,
    event: pb.LadderEvent,
    seat: pb.LadderSeat,
    act: Act,
    stop: threading.Event,
    omit: Sequence[str],
    sample_state: bool,
) -> None:
    """Plays one seat of a ladder game to its end (or until the server took it over).

    A lost connection (``UNAVAILABLE``: a server of a cluster went away) is retried, the
    seat watched again, for as long as ``LOST_SEAT_RETRY_S`` in a row."""
    response = pb.CreateMatchResponse(match_id=event.game.match_id)
    match = Match(client, response, event.game.game)
    player = Seat(match, seat.seat, seat.seat_token)
    acted_at: int | None = None
    lost_since: float | None = None
    while not stop.is_set():
        try:
            with player.watch(omit=omit, sample_state=sample_state) as stream:
                for update in stream:
                    lost_since = None
                    if stop.is_set():
                        return
                    view = update.view
                    if view.is_terminal:
                        return
                    if not view.may_act or acted_at == view.version:
                        continue
                    action = act(view)
                    acted_at = view.version
                    try:
                        player.act(action, omit=omit, expected_version=view.version)
                    except AbortedError:
                        continue  # the match moved on: the next event says how
            return
        except (FailedPreconditionError, PermissionDeniedError, NotFoundError):
            # The server played the rest of this seat (a forfeit), or the game is gone.
            return
        except RemoteError as error:
            # A lost connection: UNAVAILABLE, or a stream cut by a balancer as its server went
            # (UNKNOWN: "Stream removed"), or cancelled.
            if error.code not in (
                grpc.StatusCode.UNAVAILABLE,
                grpc.StatusCode.CANCELLED,
                grpc.StatusCode.UNKNOWN,
            ):
                raise
            if error.code == grpc.StatusCode.CANCELLED and stop.is_set():
                return
            now = time.monotonic()
            lost_since = now if lost_since is None else lost_since
            if now - lost_since > LOST_SEAT_RETRY_S:
                return
            stop.wait(0.2)


def play(
    target: str | Client,
    credentials: Credentials,
    act: Act | Any,
    *,
    max_games: int | None = None,
    stop: threading.Event | None = None,
    omit: Sequence[str] = ("view_json", "observation_text"),
    reconnect_delay: float = 1.0,
    on_game: Callable[[LadderGame], None] | None = None,
) -> PlayReport:
    """Plays the ladder as ``credentials``' bot until ``max_games`` of its games have ended,
    ``stop`` is set, or Ctrl-C; returns what happened.

    ``act`` is a function of the seat's :class:`~checkraise.client.View` returning a legal
    action id or its text, an engine :class:`checkraise.Bot` made for the bot's game (it
    chooses on ``View.sample_state``: a state consistent with everything the seat knows, the
    rest drawn by the server), or a :class:`checkraise.policy.Policy`. Each game runs on a thread
    of its own, so ``act`` may be called from several threads at once. ``omit`` leaves parts
    out of the views (:data:`checkraise.client.VIEW_PARTS`; a policy needs the observation).
    A lost connection is retried after ``reconnect_delay`` seconds; the server announces the
    games in play again. ``on_game`` is called with each game that ends while connected.

    With ``max_games`` the server places the bot in no new duplicate set once those it was
    placed in hold that many games, and ends the stream when they have all ended: the bot
    plays at least ``max_games`` games and fewer than ``max_games`` plus a set's size.
    ``stop`` and Ctrl-C stop at once: the games in play are left to the server's time limit
    (forfeits)."""
    choose = _chooser(act)
    sample_state = isinstance(act, _core.Bot)
    by_game: dict[str, Act] = {}
    stop = stop or threading.Event()
    client, own = _client(target)
    report = PlayReport()
    threads: dict[tuple[str, int], threading.Thread] = {}
    calls: list[Any] = []
    enough = threading.Event()
    if max_games is not None and max_games < 1:
        raise ValueError(f"max_games must be at least 1, not {max_games}")

    def finished(game: LadderGame) -> None:
        report.games.append(game)
        report.forfeits += sum(
            1
            for bot, forfeit in zip(game.bots, game.forfeits, strict=False)
            if bot == credentials.name and forfeit
        )
        if on_game is not None:
            on_game(game)

    def cancel_on_stop() -> None:
        stop.wait()
        for call in calls:
            call.cancel()

    threading.Thread(target=cancel_on_stop, daemon=True).start()
    try:
        while not stop.is_set() and not enough.is_set():
            request = pb.EventsRequest(name=credentials.name)
            if max_games is not None:
                # After a reconnect, only the games still wanted.
                request.max_games = max(1, max_games - len(report.games))
            call = _stub(client).Events(request, metadata=credentials.metadata)
            calls.append(call)
            try:
                for event in call:
                    if event.kind == pb.LADDER_EVENT_KIND_GAME_STARTED:
                        for seat in event.seats:
                            key = (event.game.match_id, seat.seat)
                            if key in threads and threads[key].is_alive():
                                continue
                            game = event.game.game
                            if game not in by_game:
                                by_game[game] = choose(game)
                            thread = threading.Thread(
                                target=_play_seat,
                                args=(client, event, seat, by_game[game], stop, omit, sample_state),
                                daemon=True,
                            )
                            threads[key] = thread
                            thread.start()
                    elif event.kind == pb.LADDER_EVENT_KIND_GAME_FINISHED:
                        finished(LadderGame.from_proto(event.game))
                    if stop.is_set():
                        break
                else:
                    # The server ended the stream: with max_games, every game asked for ended.
                    if max_games is not None:
                        enough.set()
            except grpc.RpcError as error:
                code = error.code()
                if code == grpc.StatusCode.CANCELLED and stop.is_set():
                    break
                if code in (
                    grpc.StatusCode.UNAUTHENTICATED,
                    grpc.StatusCode.PERMISSION_DENIED,
                    grpc.StatusCode.FAILED_PRECONDITION,
                    grpc.StatusCode.INVALID_ARGUMENT,
                ):
                    raise RemoteError.from_rpc_error(error) from None
            finally:
                call.cancel()
            if not stop.is_set() and not enough.is_set():
                stop.wait(reconnect_delay)
        # The games still in play are played to their end (unless stopped).
        for thread in threads.values():
            while thread.is_alive() and not stop.is_set():
                thread.join(timeout=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        for thread in threads.values():
            thread.join(timeout=5)
        if own:
            client.close()
    return report
