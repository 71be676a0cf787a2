"""Gymnasium environments: one seat of any checkraise game, the other seats played by bots.

``env(game, opponent="heuristic", seat=0, **params)`` makes a ``gymnasium.Env`` in which the
agent plays ``seat`` and every other seat is an engine bot: ``opponent`` is any bot spec
``checkraise.Bot`` takes (``"heuristic"``, ``"random"``, ``"ismcts"``,
``"ismcts(iterations=200,rollout=random)"``), validated when the env is made (a bad one raises
the engine's ``checkraise.ParameterError`` naming the setting). Generic over the registry:
every registered game works, later ones too.

Importing this module (which ``import checkraise`` does when Gymnasium is installed) registers
every game with Gymnasium as ``checkraise/<game>-v0``, so
``gymnasium.make("checkraise/pokeros-v0", opponent="random")`` works; the registered
``max_episode_steps`` is the default game's ``max_game_length()`` (see :func:`register_envs`).

- Observation: with ``observation_type="observation"`` (default) ``state.observation(seat)``,
  float32 of ``game.observation_shape()``; with ``"information_state"`` the seat's
  perfect-recall ``state.information_state_tensor(seat)``, float32 of
  ``game.information_state_tensor_shape()``; with ``"compact"`` the observation as a compact
  uint8 row (``state.observation_compact(seat)``, a ``Box(0, 255, (row_bytes,), uint8)``;
  ``checkraise.unpack_observations`` gives the float32 observation back exactly). The float32
  ones are an unbounded ``Box`` (the engine
  promises finite values but no per-entry bounds). With ``dict_observation=True`` the
  observation is PettingZoo's dict instead: ``{"observation": that tensor, "action_mask": int8
  0/1 array}`` (a ``Dict`` space). Action space: ``Discrete(game.num_distinct_actions())``.
- Masks: ``info["action_mask"]``: the seat's legal actions as an ``np.int8`` 0/1 array (the
  dtype ``Discrete.sample(mask=...)`` takes), in the info of ``reset`` and of every ``step``
  (all zeros once the episode is over); ``env.action_masks()`` gives them as bool (the method
  sb3-contrib's ``MaskablePPO`` calls). The last step's info also has ``"returns"``: every
  seat's final return.
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

  * ``"terminate"`` (default, PettingZoo's classic-env convention): the episode ends at once
    (``terminated=True``) with reward ``illegal_reward`` (default ``game.min_utility()``, the
    worst result the game allows); the info has ``"illegal_action"`` (the action id) and
    ``"illegal_action_message"`` (what ``"raise"`` would raise: the action's name and the legal
    ones). The game is abandoned, not scored. Gymnasium's ``check_env`` steps with unmasked
    ``action_space.sample()`` (almost always illegal in these games) and passes.
  * ``"raise"``: ``step`` raises ``checkraise.IllegalActionError`` (a ``ValueError``) naming
    the seat and the action; nothing changes, so the agent can try again.

  An action outside the action space is a bug, not a move, and raises in either mode:
  ``TypeError`` for a non-integer, ``IllegalActionError`` for an id out of range.
- Truncation: never by the env; every game ends by its own rules. ``step`` after the end raises
  ``checkraise.GameOverError``; call ``reset``.
- Render modes ``"human"`` (prints the ``"ansi"`` text after ``reset`` and every ``step``;
  ``render()`` prints it too and returns ``None``), ``"ansi"`` (``str(state)``: the whole
  table, every hand shown) and ``"rgb_array"`` (``checkraise.render.rgb_array(state)``);
  others raise ``ValueError``.
"""

from __future__ import annotations

from typing import Any

from ._optional import requires

with requires("checkraise.gymnasium", "gymnasium"):
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
    game_names,
    make,
)

__all__ = ["ID_PREFIX", "OPPONENTS", "CheckraiseEnv", "env", "env_id", "register_envs"]

#: How many games in a row may end before the agent's first decision before reset gives up.
_MAX_SKIPPED_GAMES = 1000

#: The bot kinds that can play the other seats; ``opponent`` is a spec of one of them, with or
#: without settings (``"ismcts(iterations=200)"``).
OPPONENTS: tuple[str, ...] = ("heuristic", "random", "ismcts")

#: The Gymnasium namespace of the registered ids: ``checkraise/<game>-v0``.
ID_PREFIX = "checkraise/"

#: An observation: the tensor, or with ``dict_observation=True`` the tensor and the mask.
Observation = np.ndarray | dict[str, np.ndarray]


class CheckraiseEnv(_adapt.EngineHolder, gymnasium.Env[Observation, np.int64]):
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
        illegal_action: str = "terminate",
        illegal_reward: float | None = None,
        *,
        observation_type: str = "observation",
        dict_observation: bool = False,
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
                f"seat {seat} does not exist; {self.game.name} has seats 0 to {n - 1}"
            )
        self.opponent = opponent
        """The opponent as given; ``opponent_spec`` is its canonical spec (every setting)."""
        self.seat = int(seat)
        self.render_mode = _adapt.check_render_mode(render_mode)
        self.illegal_action = _adapt.check_illegal_action_mode(illegal_action)
        self.illegal_reward = (
            float(self.game.min_utility()) if illegal_reward is None else float(illegal_reward)
        )
        self.observation_type = _adapt.check_observation_type(observation_type)
        if not isinstance(dict_observation, (bool, np.bool_)):
            raise TypeError(
                f"dict_observation must be a bool, not {type(dict_observation).__name__}"
            )
        self.dict_observation = bool(dict_observation)
        num_actions = self.game.num_distinct_actions()
        tensor_space = _adapt.observation_box(self.game, observation_type)
        self.observation_space: gymnasium.spaces.Space[Any] = (
            gymnasium.spaces.Dict(
                {
                    "observation": tensor_space,
                    "action_mask": gymnasium.spaces.Box(0, 1, (num_actions,), np.int8),
                }
            )
            if self.dict_observation
            else tensor_space
        )
        self.action_space = gymnasium.spaces.Discrete(num_actions)
        self._state: State | None = None
        self._driver: Driver | None = None
        self._over = True

    # -- engine plumbing ---------------------------------------------------------------------

    def _new_driver(self) -> Driver:
        bots = [
            None if s == self.seat else self.opponent_spec for s in range(self.game.num_players())
        ]
        return Driver(self.game, bots, _adapt.draw_seed(self.np_random))

    def _mask(self, state: State) -> np.ndarray:
        if self._over:
            return np.zeros(self.game.num_distinct_actions(), dtype=np.int8)
        return _adapt.action_mask(state, self.seat)

    def _observe(self, state: State) -> Observation:
        tensor = _adapt.observation(state, self.seat, self.observation_type)
        if self.dict_observation:
            return {"observation": tensor, "action_mask": self._mask(state)}
        return tensor

    def _info(self, state: State) -> dict[str, Any]:
        info: dict[str, Any] = {"action_mask": self._mask(state)}
        if state.is_terminal():
            info["returns"] = [float(r) for r in state.returns()]
        return info

    # -- Gymnasium API -----------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
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
        self._render_human()
        return self._observe(state), info

    def step(self, action: Any) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        """Plays the agent's action, then the bots and chance up to its next decision."""
        state = self._live_state()
        if self._over:
            raise GameOverError("the episode is over; call reset()")
        who = f"seat {self.seat}"
        action_id = _adapt.check_in_space(state, action, who)
        message = _adapt.illegal_action_message(state, self.seat, action_id, who)
        if message is not None:
            if self.illegal_action == "raise":
                raise IllegalActionError(message)
            self._over = True
            info = self._info(state)
            info.update(_adapt.illegal_action_info(action_id, message))
            reward = self.illegal_reward
        else:
            before = float(state.returns()[self.seat])
            assert self._driver is not None
            self._driver.play(state, self.seat, action_id)
            self._driver.advance(state)
            reward = float(state.returns()[self.seat]) - before
            self._over = state.is_terminal()
            info = self._info(state)
        self._render_human()
        return self._observe(state), reward, self._over, False, info

    def action_masks(self) -> np.ndarray:
        """The agent's legal actions as a bool array of ``num_distinct_actions`` (the method
        sb3-contrib's ``MaskablePPO`` calls); all ``False`` once the episode is over."""
        state = self._live_state()
        if self._over:
            return np.zeros(self.game.num_distinct_actions(), dtype=bool)
        return np.asarray(state.legal_actions_mask(self.seat), dtype=bool)


def env(
    game: str | Game,
    opponent: str = "heuristic",
    seat: int = 0,
    render_mode: str | None = None,
    illegal_action: str = "terminate",
    illegal_reward: float | None = None,
    *,
    observation_type: str = "observation",
    dict_observation: bool = False,
    **params: int | bool | str,
) -> CheckraiseEnv:
    """A Gymnasium env: ``seat`` of ``game`` against ``opponent`` bots (a bot spec), e.g.
    ``env("pokeros", opponent="random", players=3)`` or
    ``env("pokeros", opponent="ismcts(iterations=200)")``. See the module docstring."""
    return CheckraiseEnv(
        game,
        opponent,
        seat,
        render_mode,
        illegal_action,
        illegal_reward,
        observation_type=observation_type,
        dict_observation=dict_observation,
        **params,
    )


# -- registration with Gymnasium ---------------------------------------------------------------


def env_id(game: str) -> str:
    """The Gymnasium id of checkraise game ``game``: ``checkraise/<game>-v0``."""
    return f"{ID_PREFIX}{game}-v0"


def register_envs() -> list[str]:
    """Registers every game of the engine's registry with Gymnasium as ``checkraise/<game>-v0``
    (games already registered are left alone, so calling it again is safe and picks up games
    registered since) and returns the ids, one per game.

    Each id makes :class:`CheckraiseEnv` for its game; ``gymnasium.make``'s keyword arguments
    are the env's (``opponent``, ``seat``, ``render_mode``, ``illegal_action``,
    ``observation_type``, ``dict_observation``, game parameters). ``max_episode_steps`` is the
    default game's ``max_game_length()``: a bound on every action of a game, chance and every
    seat included, so it bounds the agent's steps too and the ``TimeLimit`` wrapper never cuts
    a game of default parameters short. Parameters that allow longer games (more seats, more
    turns) need a larger one: ``gymnasium.make(id, max_episode_steps=n, **params)`` with
    ``n = checkraise.make(game, **params).max_game_length()``, or ``-1`` for no limit.
    """
    ids = []
    for name in game_names():
        id_ = env_id(name)
        if id_ not in gymnasium.registry:
            gymnasium.register(
                id=id_,
                entry_point=f"{__name__}:CheckraiseEnv",
                kwargs={"game": name},
                max_episode_steps=make(name).max_game_length(),
            )
        ids.append(id_)
    return ids


register_envs()
