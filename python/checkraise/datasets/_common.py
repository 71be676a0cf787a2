"""What every part of :mod:`checkraise.datasets` shares: trajectories, and replaying one
through the engine to get each seat's observations, masks and rewards."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import _adapt
from .._core import Game, InvalidSeatError, State, __version__, make

#: The feature and the extra named when a dependency is missing.
FEATURE = "checkraise.datasets"
EXTRA = "datasets"


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


def game_of(game: str | Game) -> Game:
    if isinstance(game, Game):
        return game
    if not isinstance(game, str):
        raise TypeError(
            f"game must be a game string or a checkraise.Game, not {type(game).__name__}"
        )
    return make(game)


def check_seat(game: Game, seat: int) -> int:
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)):
        raise TypeError(f"seat must be an int, not {type(seat).__name__}")
    n = game.num_players()
    if not 0 <= seat < n:
        raise InvalidSeatError(f"seat {seat} does not exist; {game.name} has seats 0 to {n - 1}")
    return int(seat)


@dataclass
class Decision:
    step: int
    index: int
    seat: int
    observation: npt.NDArray[Any]
    mask: npt.NDArray[np.bool_]
    action: int
    before: float  # the seat's return when it decided


@dataclass
class Replayed:
    decisions: list[Decision]
    final: list[npt.NDArray[Any]]  # each seat's observation at the end
    returns: list[float]
    steps: int


def replay(game: Game, t: Trajectory, observation_type: str, seats: set[int]) -> Replayed:
    """Replays ``t``'s history through the engine, recording the decisions of ``seats``."""
    who = t.describe()
    state: State = game.new_initial_state()
    decisions: list[Decision] = []
    history = t.history
    i, step = 0, 0

    def decide(seat: int, action: int, index: int) -> None:
        if seat in seats:
            decisions.append(
                Decision(
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
    return Replayed(decisions, final, returns, step)


def rewards_of(decisions: Sequence[Decision], final_return: float) -> list[float]:
    """One seat's rewards: the change of its return from each decision to the next (the last
    to the end), the first from the start, so they add up to ``final_return``."""
    marks = [0.0] + [d.before for d in decisions[1:]] + [final_return]
    return [b - a for a, b in itertools.pairwise(marks)]


def check_trajectories(
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
    g = game_of(game) if game is not None else make(items[0].game)
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


def metadata_of(game: Game, items: Sequence[Trajectory], observation_type: str) -> dict[str, Any]:
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


def episode_of(t: Trajectory, replayed: Replayed) -> dict[str, Any]:
    return {
        "match_id": t.match_id,
        "seed": t.seed,
        "seats": list(t.seats),
        "returns": replayed.returns,
        "source": t.source.get("kind"),
    }
