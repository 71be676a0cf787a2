"""Datasets for offline RL: one seat's trajectories as a Minari dataset, every seat as Parquet.

::

    import checkraise.datasets as crd

    games = crd.play_games("detective_poker(players=2,rounds=1)", ["ismcts", "random"], 100)
    dataset = crd.minari_dataset("checkraise/detective_poker/ismcts-v0", games, seat=0)
    crd.write_multi_agent("games.parquet", games)
    table = crd.load_multi_agent("games.parquet")

A :class:`Trajectory` is one finished game as the engine recorded it: its game string, its
whole history (every chance outcome and seat action, as ``(player, action)`` pairs, chance
``-1``), each seat's kind (a bot spec or ``"human"``), the seed and the returns. They come from

- stored matches: :func:`read_export` reads ``checkraise-server export`` output (JSON lines or
  Parquet), :func:`read_server` a server's ``ListMatches`` and ``GetReplay``;
- :func:`play_arena`: an arena's schedule (every pair of bots, every seating of each deal);
- :func:`play_games`: bots playing every seat (self-play).

Every observation, mask and reward is made here, by replaying a trajectory's history (chance
outcomes included) through the engine: a seat's dataset holds ``state.observation(seat)`` and
``state.action_mask(seat)`` at each of its decisions, what that seat may know and nothing
else, whatever the source stored. A history that does not replay, that does not end the game or
that ends it with other returns than the stored ones is refused with a ``ValueError`` naming the
match.

- :func:`minari_dataset`: a `Minari <https://minari.farama.org>`_ dataset of one seat, episode
  by episode, with the Gymnasium env's spaces (``checkraise.gymnasium.env(game, seat=seat)``)
  and encoding: observations (the initial one to the final one, one more than the actions),
  the seat's actions, its rewards (the change of its return from one of its decisions to the
  next, so that an episode's rewards add up to the seat's return), ``terminations`` (the last
  step), ``truncations`` (never) and ``infos["action_mask"]`` (int8, all zeros at the end).
  Its metadata names the game string, the seat, the bots, every episode's seed and how each
  source was made, so the data can be regenerated. Stored in Minari's ``arrow`` format (no
  HDF5 needed).
- :func:`write_multi_agent`: every seat's decisions of every game as one Parquet file (Minari
  has no multi-agent format yet), its schema in :data:`MULTI_AGENT_COLUMNS`, the same metadata
  in the file's key-value metadata; :func:`load_multi_agent` reads it back as a
  :class:`MultiAgentDataset`.

Needs the ``datasets`` extra (``pip install 'checkraise[datasets]'``: minari, pyarrow,
gymnasium, pillow); the sources need nothing more, but for :func:`read_server` (the ``grpc``
extra).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from . import _adapt
from ._core import Bot, Game, InvalidSeatError, Match, State, __version__, make
from ._optional import requires

if TYPE_CHECKING:
    import minari
    import pyarrow as pa

    from .arena import ArenaResult
    from .client import Client

__all__ = [
    "MULTI_AGENT_COLUMNS",
    "MULTI_AGENT_FORMAT",
    "MultiAgentDataset",
    "Trajectory",
    "load_multi_agent",
    "minari_dataset",
    "play_arena",
    "play_games",
    "read_export",
    "read_server",
    "write_multi_agent",
]

_FEATURE = "checkraise.datasets"
_EXTRA = "datasets"

#: The ``format`` entry of a multi-agent Parquet file's metadata.
MULTI_AGENT_FORMAT = "checkraise-multi-agent-v1"

#: The key of the multi-agent file's key-value metadata holding the dataset's metadata (JSON),
#: and the one holding its episodes (JSON, one object per episode).
_META_KEY = b"checkraise.metadata"
_EPISODES_KEY = b"checkraise.episodes"

#: The columns of a multi-agent Parquet file, one row per seat decision (and one final row per
#: seat and game), with their meanings.
MULTI_AGENT_COLUMNS: dict[str, str] = {
    "episode": "int32: the game, an index into the file's episodes (0, 1, ...)",
    "step": "int32: the decision step of the game (a joint action's seats share one); "
    "final rows: the number of steps",
    "history_index": "int32: the entry's position in the game's history, chance included; "
    "final rows: the history's length",
    "seat": "int32: the seat deciding",
    "observation": "fixed-size list of float32 (uint8 for observation_type='compact'): the "
    "seat's observation tensor before its action, flat (the shape is in the metadata)",
    "action_mask": "fixed-size list of bool: the seat's legal actions there",
    "action": "int64: the action taken; -1 on final rows",
    "reward": "float64: the change of the seat's return from this decision to its next one "
    "(or the end); the first also counts what the seat earned before it, so a seat's rewards "
    "in a game add up to its return; 0 on final rows",
    "terminated": "bool: the seat's last decision of the game",
    "final": "bool: the seat's observation after the end (mask all false), one per seat and game",
}


# -- trajectories ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Trajectory:
    """One finished game: ``game`` (the game string, every parameter), ``history`` (every
    entry in order as ``(player, action)``, ``player`` a seat or -1 for a chance outcome; a
    joint action is its seats' entries in seat order), ``seats`` (each seat's kind: a bot spec
    or ``"human"``), ``seed`` (the match's seed, ``None`` where unknown), ``returns`` (the
    stored returns, checked when the history is replayed; ``None``: not checked), ``match_id``
    (the stored match's id, if any) and ``source`` (how it was made: a JSON-ready dict with
    ``"kind"`` one of ``export``, ``server``, ``arena``, ``self_play``, and what regenerates
    it)."""

    game: str
    history: tuple[tuple[int, int], ...]
    seats: tuple[str, ...]
    seed: int | None = None
    returns: tuple[float, ...] | None = None
    match_id: str | None = None
    source: Mapping[str, Any] = field(default_factory=dict, compare=False)

    def describe(self) -> str:
        """How errors name it: the match id, or the source and seed."""
        if self.match_id:
            return f"match {self.match_id}"
        return f"{self.source.get('kind', 'game')} game with seed {self.seed}"


def _game(game: str | Game) -> Game:
    if isinstance(game, Game):
        return game
    if not isinstance(game, str):
        raise TypeError(
            f"game must be a game string or a checkraise.Game, not {type(game).__name__}"
        )
    return make(game)


def _specs(game: Game, bots: str | Sequence[str], what: str) -> list[str]:
    """Each seat's canonical bot spec (a spec for every seat, or one per seat)."""
    n = game.num_players()
    if isinstance(bots, str):
        bots = [bots] * n
    if not isinstance(bots, Sequence) or not all(isinstance(b, str) for b in bots):
        raise TypeError(f"{what} must be a bot spec or a list of them, not {bots!r}")
    if len(bots) != n:
        raise ValueError(f"{what}: {len(bots)} bot specs for {game.name}'s {n} seats")
    return [Bot(game, spec).spec for spec in bots]


def _count(value: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{what} must be a positive integer, not {value!r}")
    return int(value)


def _seed(value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"seed must be an int, not {type(value).__name__}")
    if not 0 <= value < 2**64:
        raise ValueError(f"seed must be from 0 to 2**64 - 1, not {value}")
    return int(value)


def _played(game: Game, specs: Sequence[str], seed: int, source: Mapping[str, Any]) -> Trajectory:
    play = Match(game, list(specs), seed)
    if play.start() != "over":
        raise RuntimeError(f"{game} with bots {list(specs)} stopped before the end")
    return Trajectory(
        game=str(game),
        history=tuple((int(p), int(a)) for p, a in play.state().full_history()),
        seats=tuple(specs),
        seed=seed,
        returns=tuple(float(r) for r in play.returns()),
        source=source,
    )


def play_games(
    game: str | Game,
    bots: str | Sequence[str],
    games: int,
    seed: int = 0,
    *,
    rotate: bool = False,
) -> list[Trajectory]:
    """``games`` games of ``bots`` (one spec for every seat, or one per seat), game ``i`` a
    ``checkraise.Match`` with seed ``seed + i`` (its chance and every bot's generator, as a
    gRPC match with that seed); with ``rotate`` game ``i`` seats the bots rotated by ``i``
    (seat ``s`` plays ``bots[(s + i) % n]``), so each bot plays every seat. Every bot acts on a
    state resampled from its own seat's information. The same arguments give the same games."""
    g = _game(game)
    specs = _specs(g, bots, "bots")
    count = _count(games, "games")
    seed = _seed(seed)
    n = g.num_players()
    source = {
        "kind": "self_play",
        "game": str(g),
        "bots": specs,
        "games": count,
        "seed": seed,
        "rotate": bool(rotate),
    }
    out = []
    for i in range(count):
        seating = [specs[(s + i) % n] for s in range(n)] if rotate else specs
        out.append(_played(g, seating, (seed + i) % 2**64, source))
    return out


def _mix(parts: Sequence[int]) -> int:
    """The arena's seed mixer (``checkraise_core::arena``'s SplitMix64 of a tuple)."""
    mask = 2**64 - 1
    h = 0x243F_6A88_85A3_08D3
    for p in parts:
        h = (h + p + 0x9E37_79B9_7F4A_7C15) & mask
        z = h
        z = ((z ^ (z >> 30)) * 0xBF58_476D_1CE4_E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D0_49BB_1331_11EB) & mask
        h = z ^ (z >> 31)
    return h


def _seatings(n: int) -> list[list[int]]:
    """The arena's seatings of a pair at ``n`` seats (``checkraise_core::arena::seatings``)."""
    out: list[list[int]] = []
    for first in range(2):
        for shift in range(n):
            seating = [((s + shift) % n + first) % 2 for s in range(n)]
            if seating not in out:
                out.append(seating)
    return out


def play_arena(
    game: str | Game | ArenaResult,
    bots: Sequence[str] | None = None,
    deals: int = 100,
    seed: int = 0,
) -> list[Trajectory]:
    """The games of an arena run (``checkraise.arena.run(game, bots, deals, seed)``'s
    schedule): every pair of ``bots`` (in order, each once), ``deals`` deals per pair, each deal
    played with every seating of the pair (the arena's: the two bots alternate around the
    table in every distinct rotation). Deal ``d`` of every pair and seating is a
    ``checkraise.Match`` with the arena's chance seed of deal ``d``, so its chance stream is
    the same in every seating (duplicate deals). The engine's arena keeps no histories, so its
    games are played again here: the bots' generators are the match's own (seeded from the
    same seed), not the arena's, and games of bots that draw random numbers differ from the
    arena's; the same arguments give the same games.

    ``game`` may be an :class:`checkraise.arena.ArenaResult`: its game, bots, deals and seed."""
    if bots is None:
        if isinstance(game, (str, Game)):
            raise TypeError("play_arena needs bots (a list of bot specs) or an ArenaResult")
        result = game
        game, bots, deals, seed = result.game, list(result.bots), result.deals, result.seed
    assert isinstance(game, (str, Game))
    g = _game(game)
    if isinstance(bots, str) or not isinstance(bots, Sequence):
        raise TypeError(f"bots must be a list of bot specs, not {type(bots).__name__}")
    specs = [Bot(g, spec).spec for spec in bots]
    if len(specs) < 2 or len(set(specs)) != len(specs):
        raise ValueError(f"bots must be two or more distinct bot specs, not {list(bots)}")
    count = _count(deals, "deals")
    seed = _seed(seed)
    source = {"kind": "arena", "game": str(g), "bots": specs, "deals": count, "seed": seed}
    out = []
    for a in range(len(specs)):
        for b in range(a + 1, len(specs)):
            for d in range(count):
                chance_seed = _mix([seed, d])
                for seating in _seatings(g.num_players()):
                    seats = [specs[a] if w == 0 else specs[b] for w in seating]
                    out.append(_played(g, seats, chance_seed, source))
    return out


def _export_files(path: Path) -> tuple[str, Path, Path | None]:
    """(format, matches file, steps file) of an export at ``path`` (a directory or a file)."""
    if path.is_dir():
        if (path / "matches.parquet").exists():
            return "parquet", path / "matches.parquet", path / "steps.parquet"
        if (path / "matches.jsonl").exists():
            return "jsonl", path / "matches.jsonl", None
        raise ValueError(
            f"{path} holds no checkraise-server export (matches.jsonl or matches.parquet)"
        )
    if not path.exists():
        raise ValueError(f"{path} does not exist")
    if path.suffix == ".jsonl":
        return "jsonl", path, None
    if path.suffix == ".parquet":
        return "parquet", path.with_name("matches.parquet"), path.with_name("steps.parquet")
    raise ValueError(f"{path} is not an export's matches.jsonl or a .parquet file")


def _stored(
    match_id: str,
    game: str,
    history: Iterable[tuple[int, int]],
    record: Mapping[str, Any],
    source: Mapping[str, Any],
) -> Trajectory:
    return Trajectory(
        game=game,
        history=tuple((int(p), int(a)) for p, a in history),
        seats=tuple(str(s) for s in record["seats"]),
        seed=int(record["seed"]),
        returns=tuple(float(r) for r in record["returns"]),
        match_id=match_id,
        source=source,
    )


def _same_game(stored: str, wanted: Game | None) -> bool:
    return wanted is None or make(stored) == wanted


def read_export(path: str | os.PathLike[str], game: str | Game | None = None) -> list[Trajectory]:
    """The matches of a ``checkraise-server export``: ``path`` is its output directory (its
    ``matches.parquet`` and ``steps.parquet``, else its ``matches.jsonl``) or one of those
    files. With ``game`` (a name or game string: its parameters count), only that game's
    matches. Observations stored by ``--observations`` are not read: they are made again from
    the history."""
    where = Path(path)
    fmt, matches_file, steps_file = _export_files(where)
    wanted = _game(game) if game is not None else None
    source = {"kind": "export", "path": str(where)}
    out = []
    if fmt == "jsonl":
        with open(matches_file, encoding="utf-8") as lines:
            for number, line in enumerate(lines, 1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                    match_id, game_string = record["match_id"], record["game_string"]
                    history = [(s["player"], s["action"]) for s in record["steps"]]
                except (ValueError, KeyError, TypeError) as error:
                    raise ValueError(
                        f"{matches_file}:{number} is not an exported match: {error!r}"
                    ) from None
                if _same_game(game_string, wanted):
                    out.append(_stored(match_id, game_string, history, record, source))
        return out
    with requires(_FEATURE, _EXTRA):
        import pyarrow.parquet as pq
    assert steps_file is not None
    if not steps_file.exists():
        raise ValueError(f"{steps_file} does not exist (an export writes it with matches.parquet)")
    matches = pq.read_table(
        matches_file, columns=["match_id", "game_string", "seed", "seats", "returns"]
    ).to_pylist()
    steps = pq.read_table(steps_file, columns=["match_id", "idx", "player", "action"]).to_pydict()
    histories: dict[str, list[tuple[int, int, int]]] = {}
    for match_id, idx, player, action in zip(
        steps["match_id"], steps["idx"], steps["player"], steps["action"], strict=True
    ):
        histories.setdefault(match_id, []).append((idx, player, action))
    for record in matches:
        if not _same_game(record["game_string"], wanted):
            continue
        entries = sorted(histories.get(record["match_id"], []))
        out.append(
            _stored(
                record["match_id"],
                record["game_string"],
                [(p, a) for _, p, a in entries],
                record,
                source,
            )
        )
    return out


def read_server(
    client: Client | str,
    game: str | Game | None = None,
    *,
    match_ids: Sequence[str] | None = None,
) -> list[Trajectory]:
    """Finished matches of a ``checkraise-server`` (a ``checkraise.client.Client`` or its
    address): every one ``ListMatches`` lists (with ``game``, a name or game string, only that
    game's), or the ones of ``match_ids``, each history read with ``GetReplay`` (every entry,
    chance included, once a match is over). A listed id that is not finished raises
    ``ValueError``."""
    from .client import Client

    if isinstance(client, str):
        with Client(client, timeout=60) as own:
            return read_server(own, game, match_ids=match_ids)
    wanted = _game(game) if game is not None else None
    source = {"kind": "server", "address": client.address}
    if match_ids is None:
        summaries = list(
            client.list_matches(game=wanted.name if wanted else None, status="finished")
        )
    else:
        if isinstance(match_ids, str):
            raise TypeError("match_ids is a list of match ids")
        by_id = {m.match_id: m for m in client.list_matches()}
        missing = [m for m in match_ids if m not in by_id]
        if missing:
            raise ValueError(f"the server lists no match {', '.join(missing)}")
        summaries = [by_id[m] for m in match_ids]
    out = []
    for summary in summaries:
        if summary.status != "finished":
            raise ValueError(f"match {summary.match_id} is {summary.status}, not finished")
        if not _same_game(summary.game, wanted):
            continue
        history: list[tuple[int, int]] = []
        for step in client.iter_replay(summary.match_id, page_size=1000):
            history.extend((e.player, e.action) for e in step.entries)
        record = {"seats": summary.seats, "seed": summary.seed, "returns": summary.returns}
        out.append(_stored(summary.match_id, summary.game, history, record, source))
    return out


# -- replaying a history -----------------------------------------------------------------------


@dataclass
class _Decision:
    step: int
    index: int
    seat: int
    observation: npt.NDArray[Any]
    mask: npt.NDArray[np.bool_]
    action: int
    before: float  # the seat's return when it decided


@dataclass
class _Replayed:
    decisions: list[_Decision]
    final: list[npt.NDArray[Any]]  # each seat's observation at the end
    returns: list[float]
    steps: int


def _replay(game: Game, t: Trajectory, observation_type: str, seats: set[int]) -> _Replayed:
    """Replays ``t``'s history through the engine, recording the decisions of ``seats``."""
    who = t.describe()
    state: State = game.new_initial_state()
    decisions: list[_Decision] = []
    history = t.history
    i, step = 0, 0

    def decide(seat: int, action: int, index: int) -> None:
        if seat in seats:
            decisions.append(
                _Decision(
                    step,
                    index,
                    seat,
                    _adapt.observation(state, seat, observation_type),
                    np.asarray(state.action_mask(seat), dtype=bool),
                    action,
                    float(state.returns()[seat]),
                )
            )

    try:
        while i < len(history):
            if state.is_terminal():
                raise ValueError(f"its history goes on after the game ended (entry {i})")
            player, action = history[i]
            if state.is_chance_node():
                if player != -1:
                    raise ValueError(f"entry {i} is seat {player}'s, but chance is to act")
                state.apply_action(action)
                i += 1
                continue
            if state.is_simultaneous_node():
                n = state.num_players()
                joint = history[i : i + n]
                if [p for p, _ in joint] != list(range(n)):
                    raise ValueError(
                        f"entries {i} to {i + n - 1} are not a joint action of seats 0 to {n - 1}"
                    )
                for k, (p, a) in enumerate(joint):
                    _adapt.check_action(state, p, a, f"entry {i + k}, seat {p}")
                    decide(p, a, i + k)
                state.apply_actions([a for _, a in joint])
                i += n
            else:
                if player != state.current_player():
                    raise ValueError(
                        f"entry {i} is {'chance' if player < 0 else f'seat {player}'}'s, but "
                        f"seat {state.current_player()} is to act"
                    )
                _adapt.check_action(state, player, action, f"entry {i}, seat {player}")
                decide(player, action, i)
                state.apply_action(action)
                i += 1
            step += 1
        if not state.is_terminal():
            raise ValueError(f"its history ({len(history)} entries) does not end the game")
    except ValueError as error:
        raise ValueError(f"{who} of {game} does not replay: {error}") from None
    returns = [float(r) for r in state.returns()]
    if t.returns is not None and (
        len(t.returns) != len(returns)
        or not all(
            math.isclose(a, b, abs_tol=1e-9) for a, b in zip(t.returns, returns, strict=True)
        )
    ):
        raise ValueError(
            f"{who}: its history replays to returns {returns}, not the stored {list(t.returns)}"
        )
    final = [_adapt.observation(state, s, observation_type) for s in range(game.num_players())]
    return _Replayed(decisions, final, returns, step)


def _rewards(decisions: Sequence[_Decision], final_return: float) -> list[float]:
    """One seat's rewards: the change of its return from each decision to the next (the last
    to the end), the first from the start, so they add up to ``final_return``."""
    marks = [0.0] + [d.before for d in decisions[1:]] + [final_return]
    return [b - a for a, b in itertools.pairwise(marks)]


def _check(
    trajectories: Iterable[Trajectory], game: str | Game | None
) -> tuple[Game, list[Trajectory]]:
    if isinstance(trajectories, Trajectory):
        trajectories = [trajectories]
    items = list(trajectories)
    if not items:
        raise ValueError("no trajectories: the source gave no finished game")
    for t in items:
        if not isinstance(t, Trajectory):
            raise TypeError(f"trajectories must be checkraise.datasets.Trajectory, not {t!r}")
    g = _game(game) if game is not None else make(items[0].game)
    for t in items:
        if make(t.game) != g:
            raise ValueError(f"{t.describe()} is a game of {t.game}, not of {g}")
        if len(t.seats) != g.num_players():
            raise ValueError(f"{t.describe()} has {len(t.seats)} seats; {g} has {g.num_players()}")
    return g, items


def _sources(items: Sequence[Trajectory]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for t in items:
        s = dict(t.source)
        if s not in out:
            out.append(s)
    return out


def _metadata(game: Game, items: Sequence[Trajectory], observation_type: str) -> dict[str, Any]:
    bots = sorted({s for t in items for s in t.seats})
    return {
        "checkraise_version": __version__,
        "game": str(game),
        "observation_type": observation_type,
        "observation_shape": list(_adapt.observation_shape(game, observation_type)),
        "num_actions": game.num_distinct_actions(),
        "bots": bots,
        "seeds": [t.seed for t in items],
        "sources": _sources(items),
    }


def _episode(t: Trajectory, replayed: _Replayed) -> dict[str, Any]:
    return {
        "match_id": t.match_id,
        "seed": t.seed,
        "seats": list(t.seats),
        "returns": replayed.returns,
        "source": t.source.get("kind"),
    }


def _check_seat(game: Game, seat: int) -> int:
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)):
        raise TypeError(f"seat must be an int, not {type(seat).__name__}")
    n = game.num_players()
    if not 0 <= seat < n:
        raise InvalidSeatError(f"seat {seat} does not exist; {game.name} has seats 0 to {n - 1}")
    return int(seat)


# -- Minari ------------------------------------------------------------------------------------


def minari_dataset(
    dataset_id: str,
    trajectories: Iterable[Trajectory],
    seat: int,
    *,
    game: str | Game | None = None,
    observation_type: str = "observation",
    eval_opponent: str = "random",
    author: str | None = None,
    author_email: str | None = None,
    code_permalink: str | None = None,
    description: str | None = None,
) -> minari.MinariDataset:
    """A Minari dataset ``dataset_id`` (``"checkraise/pokeros/ismcts-v0"``; Minari keeps it
    under ``$MINARI_DATASETS_PATH``) of ``seat``'s side of each trajectory, replayed through
    the engine (see the module docstring).

    ``game`` (default: the first trajectory's) must be every trajectory's game, parameters
    included, else ``ValueError`` naming the match. A game in which ``seat`` never decided
    (one that ended before its turn) cannot be an episode and is left out; the metadata counts
    it (``skipped_episodes``). ``observation_type`` is the Gymnasium env's (``"observation"``,
    ``"information_state"`` or ``"compact"``), and so are the spaces. The dataset's env is
    ``checkraise.gymnasium.env(game, opponent=eval_opponent, seat=seat, ...)``
    (``dataset.recover_environment()`` makes it). ``author``, ``author_email``,
    ``code_permalink`` and ``description`` are Minari's (it warns when they are missing).

    The dataset's metadata (``dataset.storage.metadata``) adds ``checkraise_version``,
    ``game``, ``seat``, ``observation_type``, ``observation_shape``, ``num_actions``, ``bots``
    (every seat kind), ``seeds`` (each trajectory's), ``sources`` (how each was made: enough
    to regenerate it) and ``skipped_episodes``; each episode's metadata
    (``dataset.storage.get_episode_metadata([i])``) its ``match_id``, ``match_seed``,
    ``seats``, ``returns`` and ``source``."""
    with requires(_FEATURE, _EXTRA):
        import gymnasium
        import minari
        from minari.data_collector import EpisodeBuffer

        from . import gymnasium as cr_gymnasium
    if not isinstance(dataset_id, str):
        raise TypeError(f"dataset_id must be a str, not {type(dataset_id).__name__}")
    root = os.environ.get("MINARI_DATASETS_PATH")
    if root is not None and not os.path.isabs(root):
        raise ValueError(
            f"MINARI_DATASETS_PATH is {root!r}: make it an absolute path (Minari 0.5 fails "
            "to write a dataset under a relative one)"
        )
    g, items = _check(trajectories, game)
    seat = _check_seat(g, seat)
    observation_type = _adapt.check_observation_type(observation_type)
    eval_spec = Bot(g, eval_opponent).spec
    num_actions = g.num_distinct_actions()
    buffers: list[EpisodeBuffer] = []
    episodes: list[dict[str, Any]] = []
    skipped = 0
    for t in items:
        replayed = _replay(g, t, observation_type, {seat})
        mine = replayed.decisions
        if not mine:
            skipped += 1
            continue
        rewards = _rewards(mine, replayed.returns[seat])
        masks = np.zeros((len(mine) + 1, num_actions), dtype=np.int8)
        masks[:-1] = np.stack([d.mask for d in mine])
        buffers.append(
            EpisodeBuffer(
                id=len(buffers),
                observations=np.stack([d.observation for d in mine] + [replayed.final[seat]]),
                actions=np.asarray([d.action for d in mine], dtype=np.int64),
                rewards=rewards,
                terminations=[False] * (len(mine) - 1) + [True],
                truncations=[False] * len(mine),
                infos={"action_mask": masks},
            )
        )
        episode = _episode(t, replayed)
        episode["match_seed"] = episode.pop("seed")
        episodes.append(episode)
    if not buffers:
        raise ValueError(f"seat {seat} has no decision in any of the {len(items)} games")
    metadata = _metadata(g, items, observation_type)
    metadata.update(seat=seat, skipped_episodes=skipped)
    env_spec = gymnasium.spec(cr_gymnasium.env_id(g.name))
    env_spec = dataclasses.replace(
        env_spec,
        kwargs={
            **env_spec.kwargs,
            **g.parameters,
            "seat": seat,
            "opponent": eval_spec,
            "observation_type": observation_type,
        },
        max_episode_steps=g.max_game_length(),
    )
    env = cr_gymnasium.env(g, eval_spec, seat, observation_type=observation_type)
    dataset = minari.create_dataset_from_buffers(
        dataset_id,
        buffers,
        env=env_spec,
        eval_env=env_spec,
        algorithm_name=f"checkraise bots: {', '.join(metadata['bots'])}",
        author=author,
        author_email=author_email,
        code_permalink=code_permalink,
        observation_space=env.observation_space,
        action_space=env.action_space,
        description=description
        or (
            f"Seat {seat} of {len(buffers)} games of {g} played by {', '.join(metadata['bots'])}"
            " (checkraise.datasets)"
        ),
        data_format="arrow",
    )
    dataset.storage.update_metadata(metadata)
    dataset.storage.update_episode_metadata(episodes, range(len(episodes)))
    return dataset


# -- every seat: Parquet -----------------------------------------------------------------------


def write_multi_agent(
    path: str | os.PathLike[str],
    trajectories: Iterable[Trajectory],
    *,
    game: str | Game | None = None,
    observation_type: str = "observation",
) -> Path:
    """Writes every seat's decisions of every trajectory to the Parquet file ``path``: one row
    per seat decision, then one final row per seat (its observation after the end), episode by
    episode in order, with the columns of :data:`MULTI_AGENT_COLUMNS`; the file's key-value
    metadata holds the dataset's metadata (``checkraise.metadata``: the format, the checkraise
    version, the game string, observation type and shape, the bots, the seeds and the sources)
    and its episodes (``checkraise.episodes``: each one's ``match_id``, ``seed``, ``seats``,
    ``returns`` and ``source``), both JSON. Errors as :func:`minari_dataset`'s. Returns the
    path. Written under a temporary name and renamed, so a failure leaves no partial file."""
    with requires(_FEATURE, _EXTRA):
        import pyarrow as pa
        import pyarrow.parquet as pq
    g, items = _check(trajectories, game)
    observation_type = _adapt.check_observation_type(observation_type)
    shape = _adapt.observation_shape(g, observation_type)
    size = math.prod(shape)
    n, num_actions = g.num_players(), g.num_distinct_actions()
    columns: dict[str, list[Any]] = {name: [] for name in MULTI_AGENT_COLUMNS}
    observations: list[npt.NDArray[Any]] = []
    masks: list[npt.NDArray[np.bool_]] = []
    episodes = []
    for e, t in enumerate(items):
        replayed = _replay(g, t, observation_type, set(range(n)))
        rewards: dict[int, list[float]] = {}
        last: dict[int, int] = {}
        for s in range(n):
            mine = [d for d in replayed.decisions if d.seat == s]
            rewards[s] = _rewards(mine, replayed.returns[s]) if mine else []
            if mine:
                last[s] = mine[-1].index
        seen = dict.fromkeys(range(n), 0)
        for d in replayed.decisions:
            columns["episode"].append(e)
            columns["step"].append(d.step)
            columns["history_index"].append(d.index)
            columns["seat"].append(d.seat)
            columns["action"].append(d.action)
            columns["reward"].append(rewards[d.seat][seen[d.seat]])
            columns["terminated"].append(d.index == last[d.seat])
            columns["final"].append(False)
            observations.append(d.observation.reshape(-1))
            masks.append(d.mask)
            seen[d.seat] += 1
        for s in range(n):
            columns["episode"].append(e)
            columns["step"].append(replayed.steps)
            columns["history_index"].append(len(t.history))
            columns["seat"].append(s)
            columns["action"].append(-1)
            columns["reward"].append(0.0)
            columns["terminated"].append(False)
            columns["final"].append(True)
            observations.append(replayed.final[s].reshape(-1))
            masks.append(np.zeros(num_actions, dtype=bool))
        episodes.append(_episode(t, replayed))
    obs = np.stack(observations)
    obs_type = pa.from_numpy_dtype(obs.dtype)
    arrays: dict[str, pa.Array] = {
        "episode": pa.array(columns["episode"], pa.int32()),
        "step": pa.array(columns["step"], pa.int32()),
        "history_index": pa.array(columns["history_index"], pa.int32()),
        "seat": pa.array(columns["seat"], pa.int32()),
        "observation": pa.FixedSizeListArray.from_arrays(pa.array(obs.reshape(-1), obs_type), size),
        "action_mask": pa.FixedSizeListArray.from_arrays(
            pa.array(np.stack(masks).reshape(-1), pa.bool_()), num_actions
        ),
        "action": pa.array(columns["action"], pa.int64()),
        "reward": pa.array(columns["reward"], pa.float64()),
        "terminated": pa.array(columns["terminated"], pa.bool_()),
        "final": pa.array(columns["final"], pa.bool_()),
    }
    metadata = {"format": MULTI_AGENT_FORMAT, **_metadata(g, items, observation_type)}
    table = pa.table(arrays).replace_schema_metadata(
        {_META_KEY: json.dumps(metadata), _EPISODES_KEY: json.dumps(episodes)}
    )
    out = Path(path)
    tmp = out.with_name(f".{out.name}.partial")
    pq.write_table(table, tmp)
    tmp.replace(out)
    return out


@dataclass(frozen=True)
class MultiAgentDataset:
    """A multi-agent Parquet file read back (:func:`load_multi_agent`): ``metadata`` and
    ``episodes`` as written, ``table`` the whole ``pyarrow.Table``, and its columns as numpy
    arrays (one entry per row): ``episode``, ``step``, ``seat``, ``observations`` (shaped
    ``[rows, *observation_shape]``), ``action_masks`` (bool ``[rows, num_actions]``),
    ``actions``, ``rewards``, ``terminated`` and ``final``."""

    metadata: dict[str, Any]
    episodes: list[dict[str, Any]]
    table: pa.Table = field(repr=False)
    episode: npt.NDArray[np.int32] = field(repr=False)
    step: npt.NDArray[np.int32] = field(repr=False)
    seat: npt.NDArray[np.int32] = field(repr=False)
    observations: npt.NDArray[Any] = field(repr=False)
    action_masks: npt.NDArray[np.bool_] = field(repr=False)
    actions: npt.NDArray[np.int64] = field(repr=False)
    rewards: npt.NDArray[np.float64] = field(repr=False)
    terminated: npt.NDArray[np.bool_] = field(repr=False)
    final: npt.NDArray[np.bool_] = field(repr=False)

    @property
    def game(self) -> str:
        """The game string."""
        return str(self.metadata["game"])

    def transitions(self, seat: int | None = None) -> dict[str, npt.NDArray[Any]]:
        """Every decision of ``seat`` (``None``: of every seat) as offline-RL transitions, in
        file order: ``observations``, ``action_masks``, ``actions``, ``rewards``,
        ``next_observations`` and ``next_action_masks`` (the seat's next decision's, or its
        final observation and an all-false mask), ``terminated``, ``episode``, ``seat``."""
        rows = ~self.final
        if seat is not None:
            rows &= self.seat == _check_seat(make(self.game), seat)
        index = np.flatnonzero(rows)
        # A seat's next row in the same episode: its next decision, or its final row.
        order = np.lexsort((np.arange(len(self.seat)), self.seat, self.episode))
        position = np.empty_like(order)
        position[order] = np.arange(len(order))
        following = order[np.minimum(position[index] + 1, len(order) - 1)]
        return {
            "observations": self.observations[index],
            "action_masks": self.action_masks[index],
            "actions": self.actions[index],
            "rewards": self.rewards[index],
            "next_observations": self.observations[following],
            "next_action_masks": self.action_masks[following],
            "terminated": self.terminated[index],
            "episode": self.episode[index],
            "seat": self.seat[index],
        }


def load_multi_agent(path: str | os.PathLike[str]) -> MultiAgentDataset:
    """Reads a file :func:`write_multi_agent` wrote; a Parquet file without its metadata, or
    of another format, raises ``ValueError``. (Any Parquet reader reads the file too:
    ``polars.read_parquet(path)``, ``pandas.read_parquet(path)``.)"""
    with requires(_FEATURE, _EXTRA):
        import pyarrow.parquet as pq
    table = pq.read_table(path)
    meta = table.schema.metadata or {}
    if _META_KEY not in meta or _EPISODES_KEY not in meta:
        raise ValueError(f"{path} is not a checkraise multi-agent dataset (no checkraise.metadata)")
    metadata = json.loads(meta[_META_KEY])
    if metadata.get("format") != MULTI_AGENT_FORMAT:
        raise ValueError(f"{path} has format {metadata.get('format')!r}, not {MULTI_AGENT_FORMAT}")
    missing = [c for c in MULTI_AGENT_COLUMNS if c not in table.column_names]
    if missing:
        raise ValueError(f"{path} has no column {', '.join(missing)}")
    shape = tuple(metadata["observation_shape"])

    def flat(name: str) -> npt.NDArray[Any]:
        column = table.column(name).combine_chunks()
        return np.asarray(column.flatten().to_numpy(zero_copy_only=False))

    rows = table.num_rows
    return MultiAgentDataset(
        metadata=metadata,
        episodes=json.loads(meta[_EPISODES_KEY]),
        table=table,
        episode=table.column("episode").to_numpy(),
        step=table.column("step").to_numpy(),
        seat=table.column("seat").to_numpy(),
        observations=flat("observation").reshape(rows, *shape),
        action_masks=flat("action_mask").astype(bool).reshape(rows, -1),
        actions=table.column("action").to_numpy(),
        rewards=table.column("reward").to_numpy(),
        terminated=table.column("terminated").to_numpy(zero_copy_only=False),
        final=table.column("final").to_numpy(zero_copy_only=False),
    )
