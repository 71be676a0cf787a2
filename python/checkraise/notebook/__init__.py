"""Notebook widgets: play a game against the engine's bots, step through a finished one, or
follow a server's live match, drawn by the web page's own table code (``widget.js``, built
from ``web/src`` by ``npm run build`` in ``web/``).

    from checkraise.notebook import play, replay, watch

    play("pokeros", opponents="heuristic", seat=0)           # click your moves
    replay(state, seat=1)                                    # a game seat 1's side, step by step
    replay(match.replay())                                   # a server's finished match
    watch("127.0.0.1:50051", match_id)                       # a live match, as a spectator

The widgets run on `anywidget` (the ``notebook`` extra: ``pip install 'checkraise[notebook]'``)
in JupyterLab and Jupyter Notebook 7 (both tested) and in VS Code (anywidget's support,
untested here). The kernel keeps the game; the browser is only ever sent what the seat may
know: at each step a frame of the seat's view (``State.view(seat)``, the same JSON the
server's ``SeatView.view_json`` carries), its legal actions with their texts and structs, and
who acted. Another seat's hidden card never reaches the browser. Each frame
is sent once: a view of the widget asks for the frames so far as it is drawn, then is sent
each new one in a message of its own. A server's replay is checked step by step through the
engine before it is drawn (:class:`ReplayMismatchError` names a step that is not the engine's).
"""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .._core import (
    Bot,
    CheckraiseError,
    Game,
    InvalidSeatError,
    State,
    games,
    make,
)
from .._optional import requires
from ._server_replay import ReplayMismatchError, checked_states

with requires("checkraise.notebook", "notebook"):
    import anywidget
    import traitlets

__all__ = [
    "PlayWidget",
    "ReplayMismatchError",
    "ReplayWidget",
    "TableWidget",
    "WatchWidget",
    "play",
    "replay",
    "watch",
]

_HERE = Path(__file__).resolve().parent


def _long_name(name: str) -> str:
    for entry in games():
        if entry["name"] == name:
            return str(entry["long_name"])
    return name


def _game(game: Game | str) -> Game:
    if isinstance(game, Game):
        return game
    if isinstance(game, str):
        return make(game)  # UnknownGameError / ParameterError name what is wrong
    raise TypeError(f"a game is a checkraise.Game or its name, not {type(game).__name__}")


def _seat(seat: object, players: int, what: str = "seat") -> int:
    if not isinstance(seat, int) or isinstance(seat, bool):
        raise TypeError(f"{what} is an int, not {type(seat).__name__}")
    if not 0 <= seat < players:
        raise InvalidSeatError(
            f"{what} {seat} does not exist; this game has seats 0 to {players - 1}"
        )
    return seat


def _legal(state: State, seat: int) -> list[dict[str, Any]]:
    return [
        {
            "id": a,
            "text": state.action_to_string(seat, a),
            "action_json": state.action_struct(a, seat),
        }
        for a in state.legal_actions(seat)
    ]


def _frame(
    state: State,
    seat: int | None,
    version: int,
    actor: int,
    seats: list[dict[str, Any]],
    chosen_seed: bool,
) -> dict[str, Any]:
    """A step as one viewer sees it: the fields of the server's ``SeatView`` the table reads,
    made from ``state.view(seat)`` and the seat's own legal actions only."""
    terminal = state.is_terminal()
    player = state.current_player()
    may_act = seat is not None and not terminal and player in (seat, -2)
    return {
        "version": version,
        "actor": actor,
        "view": state.view(seat),
        "current_player": player,
        "is_terminal": terminal,
        "may_act": may_act,
        "action_submitted": False,
        "legal_actions": _legal(state, seat) if may_act and seat is not None else [],
        "returns": list(state.returns()) if terminal else [],
        "seats": seats,
        "chosen_seed": chosen_seed,
    }


class TableWidget(anywidget.AnyWidget):
    """The web page's table in a notebook. What goes to the browser (these traitlets, and the
    frames) is the seat's side only; the game itself stays in the kernel.

    The frames are not a synced traitlet, which would send the whole list again at every step
    (traffic growing with the square of the game's length): the kernel keeps them, sends them
    from a view's ``"sync"`` request on (each view asks as it is drawn, so a notebook opened
    again or a second view of the widget draws the whole game), and sends each new frame once
    after that, as a message of its own."""

    _esm = _HERE / "widget.js"
    _css = _HERE / "widget.css"

    mode = traitlets.Unicode("play").tag(sync=True)
    """``"play"``, ``"watch"`` or ``"replay"``."""
    game = traitlets.Unicode("").tag(sync=True)
    long_name = traitlets.Unicode("").tag(sync=True)
    match_id = traitlets.Unicode("").tag(sync=True)
    seat = traitlets.Int(None, allow_none=True).tag(sync=True)
    """The seat whose side is drawn (``None``: a spectator, or everyone in a replay)."""
    steps = traitlets.List().tag(sync=True)
    """A replay's steps, each one's view from the chosen side."""
    seat_kinds = traitlets.List().tag(sync=True)
    finished = traitlets.Bool(False).tag(sync=True)
    replay_note = traitlets.Unicode("").tag(sync=True)
    perspectives = traitlets.List().tag(sync=True)
    perspective = traitlets.Unicode("").tag(sync=True)
    error = traitlets.Unicode("").tag(sync=True)
    """The last thing that went wrong outside a move (a move refused is said by the table)."""

    def __init__(self, **kwargs: Any) -> None:
        self._frames: list[dict[str, Any]] = []
        # Held while a frame is appended or frames are sent (a watch's stream appends from its
        # own thread), so that the messages go out in the frames' order.
        self._frames_lock = threading.Lock()
        # Whether some view asked for the frames: until then none is sent.
        self._synced = False
        super().__init__(**kwargs)
        self.on_msg(self._on_message)

    @property
    def frames(self) -> list[dict[str, Any]]:
        """Every step so far as the seat sees it (play and watch), as the browser is sent it."""
        with self._frames_lock:
            return list(self._frames)

    def _append(self, frame: dict[str, Any]) -> None:
        """Keeps a new frame and sends it to the views (once one has asked for the frames)."""
        with self._frames_lock:
            self._frames.append(frame)
            if self._synced:
                self.send({"type": "frames", "start": len(self._frames) - 1, "frames": [frame]})

    def _sync(self, start: object) -> None:
        """Sends the frames from ``start`` on, for a view that asked (a view being drawn asks
        from 0; one that missed a frame, from its first missing)."""
        if not isinstance(start, int) or isinstance(start, bool) or start < 0:
            raise ValueError(f"a sync starts at a frame's index (an int from 0), not {start!r}")
        with self._frames_lock:
            self._synced = True
            if start < len(self._frames):
                self.send({"type": "frames", "start": start, "frames": self._frames[start:]})

    def _sent(self, frame: dict[str, Any]) -> bool:
        """Whether the views have been sent ``frame``'s version already (the frames' versions
        only grow)."""
        with self._frames_lock:
            return (
                self._synced
                and bool(self._frames)
                and self._frames[-1]["version"] >= frame["version"]
            )

    def _on_message(self, _widget: object, content: object, _buffers: object) -> None:
        if not isinstance(content, dict):
            return
        request = content.get("request")
        try:
            if content.get("type") == "act":
                action = content.get("id", content.get("text"))
                frame = self._act(action)
                acted = {"type": "acted", "request": request, "version": frame["version"]}
                # A frame the views hold already is named by its version, not sent again.
                if not self._sent(frame):
                    acted["frame"] = frame
                self.send(acted)
            elif content.get("type") == "sync":
                self._sync(content.get("from", 0))
            elif content.get("type") == "perspective":
                self._perspective(str(content.get("value")))
        except (CheckraiseError, ValueError, TypeError) as error:
            if content.get("type") != "act":
                self.error = str(error)
                return
            self.send(
                {
                    "type": "refused",
                    "request": request,
                    "code": getattr(error, "code_name", "invalid_argument"),
                    "message": str(error),
                }
            )
        except Exception as error:  # noqa: BLE001 (said in the widget, never a kernel crash)
            self.error = f"{type(error).__name__}: {error}"
            self.send(
                {"type": "refused", "request": request, "code": "internal", "message": str(error)}
            )

    def _act(self, action: object) -> dict[str, Any]:
        raise CheckraiseError("this table takes no moves")

    def _perspective(self, value: str) -> None:
        raise CheckraiseError("this table has one side only")


class PlayWidget(TableWidget):
    """A game against the engine's bots, played by clicking (see :func:`play`)."""

    def __init__(
        self,
        game: Game,
        seat: int,
        bots: dict[int, Bot],
        seed: int | None,
    ) -> None:
        self._state = game.new_initial_state()
        self._bots = bots
        self._seat = seat
        self._random = random.Random(seed)
        self._version = 0
        self._chosen_seed = seed is not None
        self._kinds = [
            {
                "seat": s,
                "kind": "human" if s == seat else bots[s].spec,
                "taken": True,
                "connected": s == seat,
            }
            for s in range(game.num_players())
        ]
        self._lock = threading.Lock()
        super().__init__(
            mode="play",
            game=game.name,
            long_name=_long_name(game.name),
            seat=seat,
        )
        self._chance()
        self._append(self._frame(-1))
        self._advance()

    def replay(self, seat: int | None = None) -> ReplayWidget:
        """This game step by step (see :func:`replay`), its seats named as they were played."""
        state = self._state.clone()
        kinds = [k["kind"] for k in self._kinds]
        return ReplayWidget(
            state.get_game(), _steps(state.get_game(), state.full_history()), seat, kinds
        )

    @property
    def state(self) -> State:
        """A copy of the game as it is now (every hidden card included: for after the game or
        for tests, never sent to the browser)."""
        return self._state.clone()

    def _frame(self, actor: int) -> dict[str, Any]:
        return _frame(self._state, self._seat, self._version, actor, self._kinds, self._chosen_seed)

    def _chance(self) -> None:
        while self._state.is_chance_node():
            self._state.sample_chance(self._random.getrandbits(63))

    def _step(self, actor: int) -> None:
        self._version += 1
        self._chance()
        self._append(self._frame(actor))

    def _advance(self) -> None:
        """The bots play up to the seat's next decision, each move its own frame (the table
        draws them one by one)."""
        state = self._state
        while not state.is_terminal():
            player = state.current_player()
            if player == -2 or player == self._seat:
                return
            state.apply_action(self._bots[player].act(state))
            self._step(player)

    def _act(self, action: object) -> dict[str, Any]:
        with self._lock:
            state = self._state
            if state.is_terminal():
                raise CheckraiseError("the game is over")
            player = state.current_player()
            if player not in (-2, self._seat):
                raise CheckraiseError(f"it is seat {player}'s turn, not seat {self._seat}'s")
            if isinstance(action, str):
                chosen = state.string_to_action(self._seat, action)
            elif isinstance(action, int) and not isinstance(action, bool):
                chosen = action
            else:
                raise TypeError(f"an action is an id or its text, not {action!r}")
            legal = state.legal_actions(self._seat)
            if chosen not in legal:
                raise CheckraiseError(f"action {action!r} is not legal for seat {self._seat} now")
            if player == -2:
                joint = [
                    chosen if s == self._seat else self._bots[s].act(state, seat=s)
                    for s in range(state.num_players())
                ]
                state.apply_actions(joint)
            else:
                state.apply_action(chosen)
            self._step(player)
            self._advance()
            return self._frames[-1]


def _bots(game: Game, seat: int, opponents: object, seed: int | None) -> dict[int, Bot]:
    others = [s for s in range(game.num_players()) if s != seat]
    if isinstance(opponents, (str, Bot)):
        specs: list[object] = [opponents] * len(others)
    elif isinstance(opponents, Sequence):
        specs = list(opponents)
        if len(specs) == game.num_players() and specs[seat] is None:
            specs = [spec for s, spec in enumerate(specs) if s != seat]
        if len(specs) != len(others):
            raise ValueError(
                f"opponents names {len(specs)} bots; {game.name} has {len(others)} other "
                f"seat{'s' if len(others) != 1 else ''} ({', '.join(map(str, others))})"
            )
    else:
        raise TypeError(
            f"opponents is a bot spec, a Bot or one per other seat, not {type(opponents).__name__}"
        )
    draw = random.Random(None if seed is None else seed + 1)
    bots: dict[int, Bot] = {}
    for s, spec in zip(others, specs, strict=True):
        if isinstance(spec, Bot):
            bots[s] = spec
        elif isinstance(spec, str):
            bots[s] = Bot(game, spec, seed=draw.getrandbits(63))
        else:
            raise TypeError(f"the bot of seat {s} is a spec or a Bot, not {type(spec).__name__}")
    return bots


def play(
    game: Game | str,
    opponents: str | Bot | Sequence[str | Bot | None] = "heuristic",
    seat: int = 0,
    *,
    seed: int | None = None,
) -> PlayWidget:
    """A game against the engine's bots, drawn from ``seat``'s side with the web page's table:
    the seat's legal actions are the only things that can be clicked, the bots' replies are
    drawn one by one, and the end is explained as the page explains it.

    ``opponents`` is a bot spec (``"heuristic"``, ``"ismcts(iterations=200)"``, ``"policy"``)
    or a :class:`checkraise.Bot` for every other seat, or one per other seat in seat order (a
    list as long as the game's seats, with ``None`` at ``seat``, is taken too). ``seed`` makes
    the deal and the bots repeatable (a practice deal, as the page calls it). The widget's
    ``state`` is the game in the kernel."""
    g = _game(game)
    s = _seat(seat, g.num_players())
    return PlayWidget(g, s, _bots(g, s, opponents, seed), seed)


class ReplayWidget(TableWidget):
    """A game step by step, from one seat's side or everyone's after the end (see
    :func:`replay`)."""

    def __init__(
        self,
        game: Game,
        states: list[tuple[int, State]],
        seat: int | None,
        players: Sequence[str] | None = None,
    ) -> None:
        self._states = states
        last = states[-1][1]
        self._finished = last.is_terminal()
        kinds, players = players, game.num_players()
        if kinds is not None and len(kinds) != players:
            raise ValueError(f"players names {len(kinds)} seats; {game.name} has {players}")
        options = [(str(s), f"Seat {s}") for s in range(players)]
        options.append(("spectator", "A spectator"))
        if self._finished:
            options.append(("everyone", "Everyone (after the end)"))
        if seat is None:
            chosen = "everyone" if self._finished else "spectator"
        else:
            chosen = str(_seat(seat, players))
        super().__init__(
            mode="replay",
            game=game.name,
            long_name=_long_name(game.name),
            seat_kinds=list(kinds) if kinds is not None else ["" for _ in range(players)],
            finished=self._finished,
            perspectives=[list(o) for o in options],
        )
        self._perspective(chosen)

    def _perspective(self, value: str) -> None:
        if value == "everyone":
            if not self._finished:
                raise CheckraiseError("everyone's view is shown only once the game is over")
            seat, note = None, "everyone's view: every seat's cards face up"
        elif value == "spectator":
            seat, note = None, "a spectator's view: public information only"
        else:
            seat = _seat(int(value), self._states[0][1].num_players())
            note = f"seat {seat}'s view: only what it could see at each step"
        steps = []
        for version, (actor, state) in enumerate(self._states):
            view = state.everyone_view() if value == "everyone" else state.view(seat)
            steps.append({"version": version, "actor": actor, "view": view, "entries": []})
        with self.hold_sync():
            self.perspective = value
            self.seat = seat
            self.replay_note = note
            self.steps = steps


def _steps(game: Game, history: Sequence[tuple[int, int]]) -> list[tuple[int, State]]:
    """The state at every decision step of ``history`` (``State.full_history()`` pairs), each
    step's chance folded into it, with who acted (-1: the deal, -2: every seat at once)."""
    state = game.new_initial_state()
    pairs = [(int(p), int(a)) for p, a in history]
    i = 0

    def chance() -> None:
        nonlocal i
        while state.is_chance_node() and i < len(pairs) and pairs[i][0] == -1:
            state.apply_action(pairs[i][1])
            i += 1

    chance()
    out = [(-1, state.clone())]
    while i < len(pairs) and not state.is_terminal():
        if state.is_simultaneous_node():
            joint = dict(pairs[i : i + state.num_players()])
            i += state.num_players()
            state.apply_actions([joint[s] for s in range(state.num_players())])
            actor = -2
        else:
            actor, action = pairs[i]
            state.apply_action(action, actor)
            i += 1
        chance()
        out.append((actor, state.clone()))
    return out


def _server_replay(value: object) -> bool:
    """Whether ``value`` is the client's :class:`checkraise.client.Replay` (the client, and
    grpc, imported only if it may be one)."""
    if isinstance(value, (State, Sequence)):
        return False
    try:
        from ..client.replay import Replay
    except ImportError:
        return False
    return isinstance(value, Replay)


def replay(
    state_or_history: State | Sequence[tuple[int, int]] | Any,
    seat: int | None = None,
    *,
    game: Game | str | None = None,
    players: Sequence[str] | None = None,
) -> ReplayWidget:
    """A game step by step with a slider, drawn from ``seat``'s side at every step (``None``:
    everyone's view once the game is over, a spectator's before); the widget's *View as* menu
    changes the side. ``state_or_history`` is a :class:`checkraise.State` (its whole history is
    replayed from the start), ``State.full_history()`` pairs with ``game=``, or a server's
    finished match as the client reads it (``Match.replay()``, a
    :class:`checkraise.client.Replay`), checked step by step through the engine first: a step
    that is not what the engine gives is refused (:class:`ReplayMismatchError`, naming the
    step). ``players`` names each seat's player (``"human"``, a bot spec) in the seats' table;
    a server's replay names them itself."""
    if isinstance(state_or_history, State):
        g = state_or_history.get_game()
        return ReplayWidget(g, _steps(g, state_or_history.full_history()), seat, players)
    if _server_replay(state_or_history):
        g, states = checked_states(state_or_history)
        kinds = players if players is not None else list(state_or_history.match.seats)
        return ReplayWidget(g, states, seat, kinds)
    if not isinstance(state_or_history, Sequence) or isinstance(state_or_history, (str, bytes)):
        raise TypeError(
            "replay takes a checkraise.State, State.full_history() pairs with game=, or a "
            f"server's Replay (Match.replay()), not {type(state_or_history).__name__}"
        )
    if game is None:
        raise TypeError("a history needs its game: replay(history, game='pokeros')")
    g = _game(game)
    return ReplayWidget(g, _steps(g, list(state_or_history)), seat, players)


class WatchWidget(TableWidget):
    """A server's match followed live (see :func:`watch`); ``close()`` stops following it."""

    def __init__(self, address: str, match_id: str, seat: int | None, token: str | None) -> None:
        with requires("checkraise.notebook.watch", "grpc"):
            from ..client import Client
            from ..client.matches import SEAT_TOKEN_METADATA, EventStream
            from ..v1 import checkraise_pb2 as pb
        self._pb = pb
        self._client = Client(address)
        self._metadata = ((SEAT_TOKEN_METADATA, token),) if token else ()
        if seat is None:
            call = self._client._matches.WatchSpectator(pb.WatchSpectatorRequest(match_id=match_id))
        else:
            call = self._client._matches.WatchSeat(
                pb.WatchSeatRequest(match_id=match_id, seat=seat), metadata=self._metadata
            )
        self._stream = EventStream(call)
        super().__init__(mode="watch", match_id=match_id, seat=seat)
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._follow, name="checkraise-watch", daemon=True)
        self._thread.start()
        self._ready.wait(30)

    def _frame(self, view: Any, actor: int) -> dict[str, Any]:
        return {
            "version": view.version,
            "actor": actor,
            "view": view.state,
            "current_player": view.current_player,
            "is_terminal": view.is_terminal,
            "may_act": view.may_act,
            "action_submitted": view.action_submitted,
            "legal_actions": [
                {"id": a, "text": text, "action_json": view.action_structs.get(a)}
                for a, text in view.legal_actions.items()
            ],
            "returns": list(view.returns or ()),
            "seats": [
                {"seat": s.seat, "kind": s.kind, "taken": s.taken, "connected": s.connected}
                for s in view.seats
            ],
            "chosen_seed": view.chosen_seed,
        }

    def _follow(self) -> None:
        from ..client import RemoteError

        try:
            for event in self._stream:
                frame = self._frame(event.view, event.actor)
                if not self.game:
                    game = str(frame["view"].get("game", ""))
                    self.long_name = _long_name(game)
                    self.game = game
                self._append(frame)
                self._ready.set()
        except RemoteError as error:
            self.error = f"The match's stream stopped: {error}"
        except Exception as error:  # noqa: BLE001 (said in the widget, never a thread's traceback)
            self.error = f"The match's stream stopped: {type(error).__name__}: {error}"
        finally:
            self._ready.set()

    def _act(self, action: object) -> dict[str, Any]:
        from ..client import RemoteError
        from ..client.matches import View

        pb = self._pb
        if self.seat is None:
            raise CheckraiseError("a spectator takes no moves")
        request = pb.ActRequest(match_id=self.match_id, seat=self.seat)
        if isinstance(action, str):
            request.action_text = action
        elif isinstance(action, int) and not isinstance(action, bool) and action >= 0:
            request.action_id = action
        else:
            raise TypeError(f"an action is an id or its text, not {action!r}")
        try:
            reply = self._client._matches.Act(
                request, metadata=self._metadata, timeout=self._client.timeout
            )
        except Exception as error:
            import grpc

            if isinstance(error, grpc.RpcError):
                remote = RemoteError.from_rpc_error(error)
                refusal = CheckraiseError(remote.message)
                refusal.code_name = remote.code.name.lower()  # type: ignore[attr-defined]
                raise refusal from None
            raise
        return self._frame(View.from_proto(reply), self.seat)

    def close(self) -> None:
        """Stops following the match and closes the connection, then the widget."""
        stream, client = getattr(self, "_stream", None), getattr(self, "_client", None)
        if stream is not None:
            stream.cancel()
        if client is not None:
            client.close()
        super().close()


def watch(
    address: str, match_id: str, seat: int | None = None, token: str | None = None
) -> WatchWidget:
    """A live match of the server at ``address`` (``host:port``), updating as it moves: as a
    spectator (public information only), or as ``seat`` with its ``token``, whose legal actions
    can then be clicked. The widget's stream runs in a background thread until the match ends
    or ``close()``."""
    if seat is not None:
        if not isinstance(seat, int) or isinstance(seat, bool) or seat < 0:
            raise InvalidSeatError(f"seat {seat!r} is not a seat (an int from 0)")
        if not token:
            raise ValueError("watching as a seat needs the seat's token (token=...)")
    return WatchWidget(address, match_id, seat, token)


def _json(widget: TableWidget) -> str:
    """Everything the browser is sent of the widget, its model's state and its frames (for
    tests)."""
    return json.dumps({**widget.get_state(), "frames": widget.frames}, default=str)
