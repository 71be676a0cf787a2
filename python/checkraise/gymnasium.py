"""Gymnasium environments: one seat of any checkraise game, the other seats played by bots.

``env(game, opponent="heuristic", seat=0, **params)`` makes a ``gymnasium.Env`` in which the
agent plays ``seat`` and every other seat is an engine bot: ``opponent`` is any bot spec
``checkraise.Bot`` takes (``"heuristic"``, ``"random"``, ``"ismcts"``,
``"ismcts(iterations=200,rollout=random)"``), validated when the env is made (a bad one raises
the engine's ``checkraise.ParameterError`` naming the setting). Generic over the registry:
every registered game works, later ones too.

- Observation: ``state.observation(seat)``, float32 of ``game.observation_shape()`` (an
  unbounded ``Box``: the engine promises finite values but no per-entry bounds). Action space:
  ``Discrete(game.num_distinct_actions())``.
- ``info["action_mask"]``: the seat's legal actions as an ``np.int8`` 0/1 array (the dtype
  ``Discrete.sample(mask=...)`` takes), in the info of ``reset`` and of every ``step`` (all
  zeros once the episode is over). The last step's info also has ``"returns"``: every seat's
  final return.
- Reward: the change of the agent's return (``state.returns()[seat]``) from its action up to
  its next decision (bots' moves and chance included), so an episode's rewards sum to the
  agent's return.
- The game is advanced by the engine's one driver (``checkraise.Driver``, the same one the
  gRPC matches and the arena use): it resolves chance and plays the bots until the agent must
  decide. Every bot acts on a state resampled from its own seat's information, so it sees no
  hidden card and, at a simultaneous node (Prediction Chess), not the agent's pending choice;
  the choices are applied together with the agent's action. Each episode's seed (chance and
  bots) comes from the env's ``np_random``, so ``reset(seed=s)`` fixes the whole episode, and
  ``reset()`` without a seed continues the stream.
- A game that ends before the agent has any decision (possible when other seats act first, e.g.
  a fold) cannot be an episode; ``reset`` then plays a new game and lists the agent's returns of
  the games it skipped in ``info["skipped_returns"]`` (present only when not empty).
- Illegal actions, ``illegal_action=``:

  * ``"raise"`` (default): ``step`` raises ``checkraise.IllegalActionError`` (a ``ValueError``)
    naming the seat and the action; nothing changes, so the agent can try again.
  * ``"terminate"``: the episode ends at once (``terminated=True``) with reward
    ``illegal_reward`` (default ``game.min_utility()``, the worst result the game allows) and
    ``info["illegal_action"]`` set to the action; the game is abandoned, not scored.

  Gymnasium's ``check_env`` steps with unmasked ``action_space.sample()`` (almost always
  illegal in these games), so it passes with ``illegal_action="terminate"``.
- Truncation: never; every game ends by its own rules. ``step`` after the end raises
  ``checkraise.GameOverError``; call ``reset``.
- Render modes ``"ansi"`` (``str(state)``: the whole table, every hand shown) and
  ``"rgb_array"`` (``checkraise.render.rgb_array(state)``); others raise ``ValueError``.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np

from . import _adapt
from ._core import (
    Bot,
    CheckraiseError,
    Driver,
    Game,
    GameOverError,
    IllegalActionError,
    InvalidSeatError,
    State,
)

__all__ = ["OPPONENTS", "CheckraiseEnv", "env"]

#: How many games in a row may end before the agent's first decision before reset gives up.
_MAX_SKIPPED_GAMES = 1000

#: The bot kinds that can play the other seats; ``opponent`` is a spec of one of them, with or
#: without settings (``"ismcts(iterations=200)"``).
OPPONENTS: tuple[str, ...] = ("heuristic", "random", "ismcts")


class CheckraiseEnv(_adapt.EngineHolder, gymnasium.Env[np.ndarray, np.int64]):
    """One seat of a checkraise game against engine bots (see the module docstring)."""

    # Gymnasium declares `metadata` an instance attribute with a class default; keep its shape.
    metadata: dict[str, Any] = {  # noqa: RUF012
        "render_modes": list(_adapt.RENDER_MODES),
        "render_fps": 1,
    }

    def __init__(
        self,
        game: str | Game,
        opponent: str = "heuristic",
        seat: int = 0,
        render_mode: str | None = None,
        illegal_action: str = "raise",
        illegal_reward: float | None = None,
        **params: int | bool | str,
    ) -> None:
        """Makes the game and checks the arguments; bad ones raise ``ValueError`` saying why
        (``UnknownGameError``, ``ParameterError``, ``InvalidSeatError`` for the engine's)."""
        self.game = _adapt.make_game(game, params)
        if not isinstance(opponent, str):
            raise TypeError(f"opponent must be a bot spec (str), not {type(opponent).__name__}")
        try:
            # The engine validates the spec; its message names the setting and what is allowed.
            self.opponent_spec = Bot(self.game, opponent).spec
        except CheckraiseError as error:
            raise type(error)(f"bad opponent {opponent!r}: {error}") from None
        n = self.game.num_players()
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)):
            raise TypeError(f"seat must be an int, not {type(seat).__name__}")
        if not 0 <= seat < n:
            raise InvalidSeatError(
                f"seat {seat} does not exist; {self.game.name} has seats 0..{n - 1}"
            )
        self.opponent = opponent
        """The opponent as given; ``opponent_spec`` is its canonical spec (every setting)."""
        self.seat = int(seat)
        self.render_mode = _adapt.check_render_mode(render_mode)
        self.illegal_action = _adapt.check_illegal_action_mode(illegal_action)
        self.illegal_reward = (
            float(self.game.min_utility()) if illegal_reward is None else float(illegal_reward)
        )
        self.observation_space = gymnasium.spaces.Box(
            -np.inf, np.inf, self.game.observation_shape(), np.float32
        )
        self.action_space = gymnasium.spaces.Discrete(self.game.num_distinct_actions())
        self._state: State | None = None
        self._driver: Driver | None = None
        self._over = True

    # -- engine plumbing ---------------------------------------------------------------------

    def _new_driver(self) -> Driver:
        bots = [
            None if s == self.seat else self.opponent_spec for s in range(self.game.num_players())
        ]
        return Driver(self.game, bots, _adapt.draw_seed(self.np_random))

    def _info(self, state: State) -> dict[str, Any]:
        info: dict[str, Any] = {"action_mask": _adapt.action_mask(state, self.seat)}
        if state.is_terminal():
            info["returns"] = [float(r) for r in state.returns()]
        return info

    # -- Gymnasium API -----------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Starts a new game and plays up to the agent's first decision."""
        self._check_open()
        super().reset(seed=seed)
        skipped: list[float] = []
        while True:
            driver = self._new_driver()
            state = self.game.new_initial_state()
            if driver.advance(state) == "decide":
                break
            skipped.append(float(state.returns()[self.seat]))
            if len(skipped) >= _MAX_SKIPPED_GAMES:
                raise RuntimeError(
                    f"{len(skipped)} games of {self.game} in a row ended before seat "
                    f"{self.seat} had a decision; this seat never gets to play"
                )
        self._state = state
        self._driver = driver
        self._over = False
        info = self._info(state)
        if skipped:
            info["skipped_returns"] = skipped
        return _adapt.observation(state, self.seat), info

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Plays the agent's action, then the bots and chance up to its next decision."""
        state = self._live_state()
        if self._over:
            raise GameOverError("the episode is over; call reset()")
        who = f"seat {self.seat}"
        action_id = _adapt.as_action(action, who)
        message = _adapt.illegal_action_message(state, self.seat, action_id, who)
        if message is not None:
            if self.illegal_action == "raise":
                raise IllegalActionError(message)
            self._over = True
            info = self._info(state)
            info["action_mask"] = np.zeros_like(info["action_mask"])
            info["illegal_action"] = action_id
            return (
                _adapt.observation(state, self.seat),
                self.illegal_reward,
                True,
                False,
                info,
            )
        before = float(state.returns()[self.seat])
        assert self._driver is not None
        self._driver.play(state, self.seat, action_id)
        self._driver.advance(state)
        reward = float(state.returns()[self.seat]) - before
        terminated = state.is_terminal()
        self._over = terminated
        return (
            _adapt.observation(state, self.seat),
            reward,
            terminated,
            False,
            self._info(state),
        )

    def action_masks(self) -> np.ndarray:
        """The agent's legal actions as a bool mask (the name sb3-contrib's MaskablePPO reads)."""
        if self._over:
            return np.zeros(self.game.num_distinct_actions(), dtype=bool)
        return self._live_state().legal_actions_mask(self.seat)

    def render(self) -> str | np.ndarray | None:
        """The current table in ``render_mode``; ``None`` (with a warning) without one."""
        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() called without a render_mode; make the env with "
                "render_mode='ansi' or 'rgb_array'"
            )
            return None
        return _adapt.render(self._live_state(), self.render_mode)


def env(
    game: str | Game,
    opponent: str = "heuristic",
    seat: int = 0,
    render_mode: str | None = None,
    illegal_action: str = "raise",
    illegal_reward: float | None = None,
    **params: int | bool | str,
) -> CheckraiseEnv:
    """A Gymnasium env: ``seat`` of ``game`` against ``opponent`` bots (a bot spec), e.g.
    ``env("pokeros", opponent="random", players=3)`` or
    ``env("pokeros", opponent="ismcts(iterations=200)")``. See the module docstring."""
    return CheckraiseEnv(
        game, opponent, seat, render_mode, illegal_action, illegal_reward, **params
    )
