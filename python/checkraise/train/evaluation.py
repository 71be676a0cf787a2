"""Evaluation: games played from every seat as engine matches (:class:`Games`), and the
learner's result against one fixed opponent (:func:`evaluate`)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from checkraise import _core
from checkraise.policy import Policy

LEARNER = "learner"
"""The ``players`` entry of the learner's seat in a :class:`Games` schedule."""


@dataclass
class Game:
    """One game being played: the engine's :class:`checkraise.Match` (its bot seats played by
    the engine, the learner's and opponent policies' seats from here), the learner's seat, who
    plays each seat (a bot spec, :data:`LEARNER`, or an opponent :class:`Policy`) and the
    match's seed."""

    match: Any
    seat: int
    players: list[Any]
    seed: int


class Games:
    """Up to ``n`` games played at once, started in order from ``schedule(k)``, which gives
    the ``k``-th game's ``(learner seat, players, driver seed)``; ``limit`` games in all
    (``None``: no end). The engine plays bot seats; the caller plays the learner's, and
    :meth:`settle` plays opponent policies' seats (as their files say), batched per policy."""

    def __init__(
        self,
        game: _core.Game,
        n: int,
        schedule: Callable[[int], tuple[int, list[Any], int]],
        limit: int | None = None,
    ) -> None:
        self.game = game
        self.schedule = schedule
        self.limit = limit
        self.started = 0
        self.slots: list[Game | None] = [self._start() for _ in range(n)]

    def _start(self) -> Game | None:
        if self.limit is not None and self.started >= self.limit:
            return None
        seat, players, seed = self.schedule(self.started)
        self.started += 1
        bots = [p if isinstance(p, str) and p != LEARNER else None for p in players]
        played = _core.Match(self.game, bots, seed)
        played.start()
        return Game(played, seat, players, seed)

    def _pending(self, g: Game) -> list[int]:
        """The seats the learner or an opponent policy must play now, after the engine's bots
        and chance have played."""
        g.match.advance()
        return g.match.waiting()

    def settle(self, on_end: Callable[[int, Game], None]) -> list[int]:
        """Plays bots and opponent policies until every game waits for its learner.
        A game that ends calls ``on_end(slot, game)`` and its slot starts the next game.
        Returns the slots waiting for their learner (in order)."""
        waiting: list[int] = []
        todo = list(range(len(self.slots)))
        while todo:
            batch: dict[int, list[tuple[int, int]]] = {}
            policies: dict[int, Policy] = {}
            again = []
            for i in todo:
                g = self.slots[i]
                if g is None:
                    continue
                seats = self._pending(g)
                if not seats:
                    on_end(i, g)
                    self.slots[i] = self._start()
                    again.append(i)
                    continue
                others = [s for s in seats if g.players[s] != LEARNER]
                if others:
                    for s in others:
                        policies[id(g.players[s])] = g.players[s]
                        batch.setdefault(id(g.players[s]), []).append((i, s))
                    again.append(i)
                else:
                    waiting.append(i)
            for index, items in batch.items():
                matches = [(self.slots[i].match, s) for i, s in items]  # type: ignore[union-attr]
                obs = np.stack([m.observation(s) for m, s in matches])
                masks = np.stack([m.action_mask(s) for m, s in matches])
                for (m, s), a in zip(matches, policies[index].actions(obs, masks), strict=True):
                    m.decide(s, int(a))
            todo = again
        return sorted(waiting)

    def learner_inputs(
        self, waiting: Sequence[int]
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_]]:
        """Observations and masks of the learners of ``waiting`` slots."""
        games = [self.slots[i] for i in waiting]
        obs = np.stack([g.match.observation(g.seat) for g in games])  # type: ignore[union-attr]
        masks = np.stack([g.match.action_mask(g.seat) for g in games])  # type: ignore[union-attr]
        return obs, masks

    def play_learners(self, waiting: Sequence[int], actions: npt.ArrayLike) -> None:
        """Plays each waiting learner's action."""
        for i, a in zip(waiting, np.asarray(actions).tolist(), strict=True):
            g = self.slots[i]
            g.match.decide(g.seat, int(a))  # type: ignore[union-attr]


def _won(returns: Sequence[float], seat: int) -> float:
    """1 for a sole best return, 1/k shared among k best, else 0."""
    best = max(returns)
    return 1.0 / sum(1 for r in returns if r == best) if returns[seat] == best else 0.0


# --- evaluation --------------------------------------------------------------------------


@dataclass
class Evaluation:
    """The learner against one fixed opponent."""

    opponent: str
    games: int
    mean: float
    ci: tuple[float, float]
    win_rate: float


def evaluate(
    policy: Policy,
    game: _core.Game,
    opponent: str,
    games: int,
    seed: int,
    batch: int = 128,
) -> Evaluation:
    """Plays ``games`` games (rounded down to whole deals) of ``policy`` (as the ``policy``
    bot plays its file: greedy, or drawing from a generator seeded with ``seed`` where the file
    says ``play=sample``) against ``opponent`` (a bot spec) in every other seat. Game ``k``
    seats the policy at ``k % players`` with driver seed ``seed + k // players``, so each deal
    is played from every seat. The 95% interval is normal, over deals (a deal's seatings
    averaged)."""
    n = game.num_players()
    deals = max(1, games // n)
    _core.Bot(game, opponent)  # a bad spec is an error here, before any game

    def schedule(k: int) -> tuple[int, list[Any], int]:
        players: list[Any] = [opponent] * n
        players[k % n] = LEARNER
        return k % n, players, seed + k // n

    per_deal = np.zeros(deals)
    wins = 0.0

    def on_end(_slot: int, g: Game) -> None:
        nonlocal wins
        returns = g.match.returns()
        per_deal[g.seed - seed] += returns[g.seat] / n
        wins += _won(returns, g.seat)

    draws = np.random.default_rng(seed)
    play = Games(game, min(batch, deals * n), schedule, limit=deals * n)
    while waiting := play.settle(on_end):
        obs, masks = play.learner_inputs(waiting)
        play.play_learners(waiting, policy.actions(obs, masks, draws))
    mean = float(per_deal.mean())
    half = 1.96 * float(per_deal.std(ddof=1)) / math.sqrt(deals) if deals > 1 else 0.0
    return Evaluation(opponent, deals * n, mean, (mean - half, mean + half), wins / (deals * n))
