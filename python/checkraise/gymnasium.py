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
  agent's return: ``Match.take_reward``.
- The game is played as a ``checkraise.Match``, the engine's game in play (the same one the
  gRPC matches, dm_env_rpc worlds and the arena play), whose driver resolves chance and plays
  the bots until the agent must decide. Every bot acts on a state resampled from its own
  seat's information, so it sees no hidden card and, at a simultaneous node (Prediction
  Chess), not the agent's pending choice; the choices are applied together with the agent's
  action. Each episode's seed (chance and bots) comes from the env's ``np_random``, so
  ``reset(seed=s)`` fixes the whole episode, and ``reset()`` without a seed continues the
  stream.
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

from collections.abc import Sequence
from typing import Any

from ._optional import requires

with requires("checkraise.gymnasium", "gymnasium"):
    import gymnasium
    import gymnasium.vector
    import gymnasium.vector.utils
import numpy as np

from . import _adapt
from ._compact import unpack_action_masks
from ._core import (
    Bot,
    CheckraiseError,
    Game,
    GameOverError,
    IllegalActionError,
    InvalidSeatError,
    Match,
    State,
    VectorEnv,
    game_names,
    make,
)

__all__ = [
    "ID_PREFIX",
    "OPPONENTS",
    "CheckraiseEnv",
    "CheckraiseVectorEnv",
    "env",
    "env_id",
    "register_envs",
    "vector_env",
]

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
        # The match, and a copy of its state after the last reset or step (what observing,
        # masking and rendering read).
        self._state: State | None = None
        self._match: Match | None = None
        self._over = True

    # -- engine plumbing ---------------------------------------------------------------------

    def _new_match(self) -> Match:
        bots = [
            None if s == self.seat else self.opponent_spec for s in range(self.game.num_players())
        ]
        return Match(self.game, bots, _adapt.draw_seed(self.np_random))

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
            play = self._new_match()
            if play.start() == "decide":
                break
            skipped.append(float(play.returns()[self.seat]))
            if len(skipped) >= _MAX_SKIPPED_GAMES:
                raise RuntimeError(
                    f"{len(skipped)} games of {self.game} in a row ended before seat "
                    f"{self.seat} had a decision; this seat never gets to play"
                )
        self._match = play
        self._state = state = play.state()
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
            play = self._match
            assert play is not None
            play.act(self.seat, action_id)
            reward = play.take_reward(self.seat)
            self._state = state = play.state()
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
        return np.asarray(state.action_mask(self.seat), dtype=bool)


@_adapt.parameters_of(CheckraiseEnv)
def env(*args: Any, **kwargs: Any) -> CheckraiseEnv:
    """A Gymnasium env: ``seat`` of ``game`` against ``opponent`` bots (a bot spec), e.g.
    ``env("pokeros", opponent="random", players=3)`` or
    ``env("pokeros", opponent="ismcts(iterations=200)")``. The arguments are
    :class:`CheckraiseEnv`'s; see the module docstring."""
    return CheckraiseEnv(*args, **kwargs)


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
                vector_entry_point=f"{__name__}:CheckraiseVectorEnv",
                kwargs={"game": name},
                max_episode_steps=make(name).max_game_length(),
            )
        ids.append(id_)
    return ids


register_envs()


# -- the native vector env ----------------------------------------------------------------------


class CheckraiseVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` games of one checkraise game, the agent (the *learner*) at ``seat`` in each
    and every other seat played by the engine, as a native ``gymnasium.vector.VectorEnv``.

    It steps :class:`checkraise.VectorEnv` with opponents: one call advances every env to its
    learner's next decision on the engine's worker threads, the opponents' moves and chance
    included, with no Python work per env or per opponent move. ``gymnasium.make_vec(
    "checkraise/<game>-v0", num_envs=N)`` returns it (``vectorization_mode=
    "vector_entry_point"`` is the default for these ids); ``vector_env(game, num_envs, ...)``
    makes it directly.

    - ``opponent``: a bot spec (``"heuristic"``, ``"random"``, ``"ismcts(iterations=200)"``,
      ``"policy"``, ``"policy(path=FILE)"``), a ``checkraise.Bot``, a policy file's bytes (a
      trainer's snapshot, no file written), or a weighted pool of these: a list of entries or
      of ``(entry, weight)`` pairs, or a dict entry -> weight. Each opponent seat of each env
      draws its bot from the pool at every new game. Assigning ``env.opponent`` (or
      ``set_attr("opponent", ...)``) changes the pool from the next ``reset``.
    - ``seat``: the learner's seat, a number (default 0) or ``"random"`` (drawn per game).
    - Spaces: ``single_observation_space`` is the single env's (float32 observation, or with
      ``observation_type="compact"`` the uint8 compact row), ``single_action_space``
      ``Discrete(num_distinct_actions)``; ``observation_space`` and ``action_space`` are their
      batched forms.
    - ``step(actions)`` takes one action id per env and returns rewards of shape
      ``(num_envs,)``: the learner's return gained from its action up to its next decision.
      An illegal action raises ``checkraise.IllegalActionError`` naming the env, and no env
      changes (mask your actions: ``info["action_mask"]`` or ``action_masks()``).
    - ``dict_observation=True``: observations are ``{"observation": tensor, "action_mask":
      int8 0/1}`` (a ``Dict`` space), as the single env's.
    - ``info``: ``"action_mask"`` (bool, ``(num_envs, num_distinct_actions)``; in
      next-step mode, for an env whose game just ended, the final state's: none after a
      game's end, its legal actions after a truncation; the next step ignores that env's
      action either way), ``"learner_seat"`` (the learner's
      seat in each env's current game) and ``"final_returns"`` (the learner's return over the
      game a step ended, 0 elsewhere). In same-step mode also ``"final_obs"`` and its mask
      ``"_final_obs"``.
    - ``autoreset_mode``: ``"next_step"`` (default) or ``"same_step"``, also as Gymnasium's
      ``AutoresetMode``; ``metadata["autoreset_mode"]`` says which.
    - ``max_episode_steps``: truncates a game after that many learner steps (``make_vec``
      passes the registered bound, which no game of default parameters reaches).
    - ``reset(seed=s)`` seeds env ``i`` with ``s + i``; ``seed=[s0, s1, ...]`` one per env
      (``None`` continues that env's stream). The first ``reset`` without a seed draws one from
      the OS, as Gymnasium's envs do. The same seeds give the same games, and a pickled copy
      continues exactly as the original.
    - The observation arrays are read-only views of the engine's buffers, overwritten by the
      next ``reset`` or ``step`` (no copy per step): keep a copy (``obs.copy()``) of what you
      keep, or make the env with ``copy=True``.
    """

    def __init__(
        self,
        game: str | Game,
        num_envs: int = 1,
        opponent: Any = "heuristic",
        seat: int | str = 0,
        render_mode: str | None = None,
        *,
        observation_type: str = "observation",
        dict_observation: bool = False,
        illegal_action: str = "raise",
        autoreset_mode: Any = "next_step",
        max_episode_steps: int | None = None,
        copy: bool = False,
        **params: int | bool | str,
    ) -> None:
        """Makes the batch; bad arguments raise errors naming them (``TypeError`` for a wrong
        type or an unknown keyword, ``checkraise.ParameterError`` and friends for values)."""
        self.game = _adapt.make_game(game, params)
        if observation_type not in ("observation", "compact"):
            raise ValueError(
                f"unknown observation_type {observation_type!r} for the vector env; supported: "
                "'observation', 'compact' (the single env also has 'information_state')"
            )
        self.observation_type = observation_type
        self.render_mode = _adapt.check_render_mode(render_mode)
        if illegal_action != "raise":
            raise ValueError(
                f"illegal_action={illegal_action!r} is not supported by the vector env, which "
                "raises IllegalActionError for an illegal action and changes no env; mask the "
                "actions (info['action_mask']), or use vectorization_mode='sync' for the single "
                "env's 'terminate'"
            )
        if not isinstance(dict_observation, (bool, np.bool_)):
            raise TypeError(
                f"dict_observation must be a bool, not {type(dict_observation).__name__}"
            )
        self.dict_observation = bool(dict_observation)
        self._settings = {
            "observation_encoding": "compact" if observation_type == "compact" else "float32",
            "autoreset_mode": autoreset_mode,
            "max_episode_steps": max_episode_steps,
            "copy": copy,
        }
        self._venv = VectorEnv(self.game, num_envs, opponent=opponent, seat=seat, **self._settings)
        self._opponent = opponent
        self._seat = seat
        self._pending_opponent: Any = None
        self._seeded = False
        self.num_envs = self._venv.num_envs
        mode = self._venv.autoreset_mode
        self.metadata = {
            "autoreset_mode": (
                gymnasium.vector.AutoresetMode.NEXT_STEP
                if mode == "next_step"
                else gymnasium.vector.AutoresetMode.SAME_STEP
            ),
            "render_modes": list(_adapt.RENDER_MODES),
            "render_fps": 1,
        }
        tensor_space = _adapt.observation_box(self.game, observation_type)
        num_actions = self.game.num_distinct_actions()
        self.single_observation_space: gymnasium.spaces.Space[Any] = (
            gymnasium.spaces.Dict(
                {
                    "observation": tensor_space,
                    "action_mask": gymnasium.spaces.Box(0, 1, (num_actions,), np.int8),
                }
            )
            if self.dict_observation
            else tensor_space
        )
        self.single_action_space = gymnasium.spaces.Discrete(self.game.num_distinct_actions())
        self.observation_space = gymnasium.vector.utils.batch_space(
            self.single_observation_space, self.num_envs
        )
        self.action_space = gymnasium.vector.utils.batch_space(
            self.single_action_space, self.num_envs
        )
        self._compact = observation_type == "compact"
        self._masks: np.ndarray | None = None

    # -- the opponents -----------------------------------------------------------------------

    @property
    def opponent(self) -> Any:
        """The opponent pool as given; assigning it takes effect at the next ``reset``."""
        return self._pending_opponent if self._pending_opponent is not None else self._opponent

    @opponent.setter
    def opponent(self, opponent: Any) -> None:
        # Checked now (a bad pool raises here, not at the next reset), used at the next reset.
        VectorEnv(self.game, 1, opponent=opponent, seat=self._seat)
        self._pending_opponent = opponent

    @property
    def autoreset_mode(self) -> gymnasium.vector.AutoresetMode:
        """The autoreset mode, as Gymnasium's own vector envs expose it (TorchRL reads it)."""
        return self.metadata["autoreset_mode"]

    @property
    def seat(self) -> int | str:
        """The learner's seat as given: a number or ``"random"``."""
        return self._seat

    @property
    def engine(self) -> VectorEnv:
        """The underlying :class:`checkraise.VectorEnv`."""
        return self._venv

    # -- Gymnasium API -----------------------------------------------------------------------

    def reset(
        self,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Starts a new game in every env and plays to each learner's first decision."""
        if options:
            raise ValueError(
                f"unknown reset options {sorted(options)}; this env takes none "
                "(every env starts a new game)"
            )
        if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            self._np_random, self._np_random_seed = gymnasium.utils.seeding.np_random(int(seed))
        elif seed is None and not self._seeded:
            # As Gymnasium's envs: unseeded, the first reset draws its seed from the OS.
            seed = _adapt.draw_seed(self.np_random)
        self._seeded = True
        if self._pending_opponent is not None:
            self._venv = VectorEnv(
                self.game,
                self.num_envs,
                opponent=self._pending_opponent,
                seat=self._seat,
                **self._settings,
            )
            self._opponent, self._pending_opponent = self._pending_opponent, None
            if seed is None:
                seed = _adapt.draw_seed(self.np_random)
        observations, info = self._venv.reset(seed)
        info = self._info(info)
        return self._observations(observations), info

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Plays each env's learner action, then the opponents and chance to its next
        decision."""
        observations, rewards, terminated, truncated, info = self._venv.step(actions)
        info = self._info(info)
        return self._observations(observations), rewards[:, 0], terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """Each env's legal actions for its learner, bool ``(num_envs, num_distinct_actions)``
        (the method sb3-contrib's ``MaskablePPO`` calls)."""
        if self._masks is None:
            raise RuntimeError("call reset() before action_masks()")
        return self._masks

    def render(self) -> tuple[Any, ...] | None:
        """Every env's table in ``render_mode`` (``"ansi"``: a tuple of texts,
        ``"rgb_array"``: a tuple of pictures, ``"human"``: printed, returns ``None``)."""
        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() called without a render_mode; make the env with "
                "render_mode='human', 'ansi' or 'rgb_array'"
            )
            return None
        frames = tuple(
            _adapt.render(self._venv.state(i), self.render_mode) for i in range(self.num_envs)
        )
        return None if self.render_mode == "human" else frames

    def close_extras(self, **kwargs: Any) -> None:
        """Closes the engine batch (``close()`` calls this once; also when the constructor
        refused its arguments before there was a batch)."""
        venv = getattr(self, "_venv", None)
        if venv is not None:
            venv.close()

    def get_attr(self, name: str) -> tuple[Any, ...]:
        """``name`` for every env, as Gymnasium's vector envs give it: ``"learner_seat"`` and
        ``"state"`` differ per env; anything else is this env's attribute, the same for all."""
        if name == "learner_seat":
            return tuple(int(s) for s in self._venv.learner_seats)
        if name == "state":
            return tuple(self._venv.state(i) for i in range(self.num_envs))
        value = getattr(self, name)
        return (value,) * self.num_envs

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """Calls method ``name`` (or reads attribute ``name``) once for every env, as
        Gymnasium's vector envs do; the envs share their methods, so each gets the same
        result (``"render"`` returns every env's picture)."""
        if name == "render":
            frames = self.render()
            return frames if frames is not None else (None,) * self.num_envs
        attribute = getattr(self, name)
        if callable(attribute):
            result = attribute(*args, **kwargs)
            return (result,) * self.num_envs
        return self.get_attr(name)

    def set_attr(self, name: str, values: Any) -> None:
        """Sets attribute ``name``: one value, or one per env, which must all be equal (the
        envs share their settings, e.g. ``set_attr("opponent", pool)``)."""
        if isinstance(values, (list, tuple)) and len(values) == self.num_envs:
            first = values[0]
            if any(v is not first and v != first for v in values[1:]):
                raise ValueError(
                    f"set_attr({name!r}): the envs of a checkraise vector env share their "
                    "settings; give one value, or the same value for every env"
                )
            values = first
        if name.startswith("_") or not hasattr(self, name):
            raise AttributeError(f"set_attr: this env has no setting {name!r}")
        setattr(self, name, values)

    def __repr__(self) -> str:
        return (
            f"CheckraiseVectorEnv({self.game}, num_envs={self.num_envs}, "
            f"opponent={self._opponent!r}, seat={self._seat!r})"
        )

    # -- plumbing ------------------------------------------------------------------------------

    def _observations(self, observations: np.ndarray) -> Any:
        if self.dict_observation:
            assert self._masks is not None
            return {"observation": observations, "action_mask": self._masks.view(np.int8)}
        return observations

    def _info(self, info: dict[str, Any]) -> dict[str, Any]:
        masks = info["action_mask"]
        if self._compact:
            masks = unpack_action_masks(self.game, masks)
        self._masks = masks
        out: dict[str, Any] = {
            "action_mask": masks,
            "learner_seat": self._venv.learner_seats,
            "final_returns": info["final_returns"][:, 0],
        }
        if "final_obs" in info:
            final = info["final_obs"]
            if self.dict_observation:
                # A final observation has no legal action: its mask is all zeros.
                final = {
                    "observation": final,
                    "action_mask": np.zeros((self.num_envs, masks.shape[1]), np.int8),
                }
            out["final_obs"] = final
            out["_final_obs"] = info["_final_obs"]
        return out


@_adapt.parameters_of(CheckraiseVectorEnv)
def vector_env(*args: Any, **kwargs: Any) -> CheckraiseVectorEnv:
    """A native Gymnasium vector env: ``num_envs`` games of ``game``, the learner at ``seat``
    against ``opponent`` (a bot spec, a policy's bytes, or a weighted pool) played inside the
    engine, e.g. ``vector_env("holdem_chess", 1024, opponent={"heuristic": 3, "random": 1},
    seat="random")``. The arguments are :class:`CheckraiseVectorEnv`'s, documented there."""
    return CheckraiseVectorEnv(*args, **kwargs)
