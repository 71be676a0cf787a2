"""Stable-Baselines3: the native vector env as an SB3 ``VecEnv``.

The Gymnasium env (``checkraise.gymnasium.env``) works in SB3 as it is, one Python env per
copy (SB3's ``DummyVecEnv``). :class:`CheckraiseVecEnv` instead puts the native vector env
(:class:`checkraise.gymnasium.CheckraiseVectorEnv`, every env and every opponent move stepped
by the engine in one call) behind SB3's ``VecEnv`` API, so SB3 and sb3-contrib algorithms
train on thousands of games with no Python work per game::

    from sb3_contrib import MaskablePPO
    import checkraise.sb3

    env = checkraise.sb3.vec_env("detective_poker", 64, opponent="random")
    model = MaskablePPO("MlpPolicy", env, n_steps=64).learn(20_000)

- SB3's conventions: ``reset()`` returns the observations only; ``step`` returns
  observations, rewards (float32), ``dones`` (terminated or truncated) and one info dict per
  env. A game that ends is replaced by a new one within the same step: the returned
  observation is the new game's, and the info has ``"terminal_observation"`` (the last
  observation of the game that ended), ``"final_return"`` (the learner's return over that
  game) and, in every info, ``"TimeLimit.truncated"`` (true where ``max_episode_steps`` cut
  a game short). So the vector env is made in Gymnasium's same-step autoreset mode.
- Masks: ``env_method("action_masks")`` gives each env's legal actions (bool, one array per
  env), which is how sb3-contrib's ``MaskablePPO`` reads them from a ``VecEnv``
  (``get_action_masks``); ``action_masks()`` gives them as one ``(num_envs, n)`` array. An
  illegal action raises ``checkraise.IllegalActionError`` naming the env, and no env changes.
- Observations are copied out of the engine's buffers (SB3 keeps the arrays it is given);
  with ``dict_observation=True`` they are dicts ``{"observation", "action_mask"}``
  (``MultiInputPolicy``).
- Seeds: ``seed(s)`` seeds env ``i`` with ``s + i`` at the next ``reset()``, as SB3's own
  vector envs do; without one the first ``reset()`` draws from the OS.
- Settings are shared by all the envs (one engine batch): ``get_attr`` gives each env's value
  (``"learner_seat"`` differs per env), ``set_attr`` takes one value for all of them (e.g.
  ``set_attr("opponent", pool)``, used from the next ``reset()``; SB3's ``learn`` resets only
  when it starts), and ``env_method`` calls the vector env's method once.
- ``render()`` in ``"rgb_array"`` mode tiles every table into one picture (SB3's way);
  ``get_images()`` gives them one by one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._optional import requires

with requires("checkraise.sb3", "sb3"):
    import gymnasium
    from stable_baselines3.common.vec_env.base_vec_env import (
        VecEnv,
        VecEnvIndices,
        VecEnvObs,
        VecEnvStepReturn,
    )
import numpy as np

from ._core import Game
from .gymnasium import CheckraiseVectorEnv
from .gymnasium import vector_env as _vector_env

__all__ = ["CheckraiseVecEnv", "vec_env"]


class CheckraiseVecEnv(VecEnv):
    """A :class:`checkraise.gymnasium.CheckraiseVectorEnv` as a Stable-Baselines3 ``VecEnv``
    (see the module docstring). The vector env must be in same-step autoreset mode
    (``autoreset_mode="same_step"``); :func:`vec_env` makes one."""

    def __init__(self, vector_env: CheckraiseVectorEnv) -> None:
        """Wraps ``vector_env``; one in next-step autoreset mode raises ``ValueError``."""
        if not isinstance(vector_env, CheckraiseVectorEnv):
            raise TypeError(
                "CheckraiseVecEnv wraps a checkraise.gymnasium.CheckraiseVectorEnv, not "
                f"{type(vector_env).__name__}"
            )
        if vector_env.metadata["autoreset_mode"] != gymnasium.vector.AutoresetMode.SAME_STEP:
            raise ValueError(
                "SB3 resets a finished game within the step that ends it: make the vector env "
                "with autoreset_mode='same_step' (or use checkraise.sb3.vec_env)"
            )
        self.vector_env = vector_env
        """The wrapped Gymnasium vector env."""
        self._actions: np.ndarray | None = None
        super().__init__(
            vector_env.num_envs,
            vector_env.single_observation_space,
            vector_env.single_action_space,
        )
        self._dict = vector_env.dict_observation
        self._num_actions = int(vector_env.single_action_space.n)

    @property
    def game(self) -> Game:
        """The engine's game."""
        return self.vector_env.game

    # -- SB3 VecEnv API ----------------------------------------------------------------------

    def reset(self) -> VecEnvObs:
        """Starts a new game in every env (seeded by the last ``seed()``, if any) and returns
        the observations."""
        if any(self._options):
            raise ValueError("checkraise envs take no reset options (every env starts a new game)")
        seeds = self._seeds
        seed = None if all(s is None for s in seeds) else list(seeds)
        observations, _ = self.vector_env.reset(seed=seed)
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        self._actions = None
        return self._copy(observations)

    def step_async(self, actions: np.ndarray) -> None:
        """Keeps the actions (one id per env) for :meth:`step_wait`."""
        self._actions = np.asarray(actions)

    def step_wait(self) -> VecEnvStepReturn:
        """Plays the actions; see the module docstring for what comes back."""
        if self._actions is None:
            raise RuntimeError("call step_async(actions) before step_wait()")
        actions, self._actions = self._actions, None
        observations, rewards, terminated, truncated, info = self.vector_env.step(actions)
        dones = terminated | truncated
        cut = truncated & ~terminated
        infos: list[dict[str, Any]] = [{"TimeLimit.truncated": bool(c)} for c in cut.tolist()]
        ended = np.flatnonzero(dones)
        if len(ended):
            final = info["final_obs"]
            final_returns = info["final_returns"]
            for i in ended.tolist():
                infos[i]["terminal_observation"] = (
                    {key: np.array(value[i]) for key, value in final.items()}
                    if self._dict
                    else np.array(final[i])
                )
                infos[i]["final_return"] = float(final_returns[i])
        return (
            self._copy(observations),
            np.array(rewards, dtype=np.float32),
            np.array(dones, dtype=bool),
            infos,
        )

    def close(self) -> None:
        """Closes the engine batch."""
        self.vector_env.close()

    def action_masks(self) -> np.ndarray:
        """Each env's legal actions, bool ``(num_envs, num_distinct_actions)`` (a copy)."""
        return np.array(self.vector_env.action_masks(), dtype=bool)

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """``attr_name`` of each env (of the vector env's ``get_attr``: ``"learner_seat"``
        differs per env, the settings are shared); a missing one raises ``AttributeError``."""
        values = self.vector_env.get_attr(attr_name)
        return [values[i] for i in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Sets a setting of every env (they share their settings, so ``indices`` must name
        all of them, or be ``None``)."""
        if indices is not None and sorted(set(self._get_indices(indices))) != list(
            range(self.num_envs)
        ):
            raise ValueError(
                f"set_attr({attr_name!r}): the envs of a checkraise vector env share their "
                "settings; set it for every env (indices=None)"
            )
        self.vector_env.set_attr(attr_name, value)

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: VecEnvIndices = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        """Calls the vector env's ``method_name`` once and gives each env its part:
        ``"action_masks"`` gives each env's own mask (what ``MaskablePPO`` reads)."""
        chosen = list(self._get_indices(indices))
        if method_name == "action_masks":
            return list(self.action_masks()[chosen])
        results = self.vector_env.call(method_name, *method_args, **method_kwargs)
        return [results[i] for i in chosen]

    def env_is_wrapped(
        self, wrapper_class: type[gymnasium.Wrapper], indices: VecEnvIndices = None
    ) -> list[bool]:
        """No env is behind a Gymnasium wrapper (they are games in one engine batch)."""
        return [False for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        """Every env's table as a picture (``render_mode="rgb_array"``)."""
        if self.render_mode != "rgb_array":
            gymnasium.logger.warn(
                f"get_images() needs render_mode='rgb_array', not {self.render_mode!r}"
            )
            return [None] * self.num_envs
        frames = self.vector_env.render()
        assert frames is not None
        return list(frames)

    def __repr__(self) -> str:
        return f"CheckraiseVecEnv({self.vector_env!r})"

    # -- plumbing ------------------------------------------------------------------------------

    def _copy(self, observations: Any) -> VecEnvObs:
        if isinstance(observations, dict):
            return {key: np.array(value) for key, value in observations.items()}
        return np.array(observations)


def vec_env(
    game: str | Game,
    num_envs: int = 1,
    opponent: Any = "heuristic",
    seat: int | str = 0,
    render_mode: str | None = None,
    *,
    observation_type: str = "observation",
    dict_observation: bool = False,
    max_episode_steps: int | None = None,
    **params: int | bool | str,
) -> CheckraiseVecEnv:
    """An SB3 ``VecEnv`` of ``num_envs`` games of ``game``, the learner at ``seat`` against
    ``opponent`` (a bot spec, a policy's bytes or a weighted pool, as for
    :func:`checkraise.gymnasium.vector_env`) played inside the engine, e.g.
    ``vec_env("holdem_chess", 256, opponent={"heuristic": 3, "random": 1}, seat="random")``.
    Other keyword arguments are the game's parameters."""
    return CheckraiseVecEnv(
        _vector_env(
            game,
            num_envs,
            opponent,
            seat,
            render_mode,
            observation_type=observation_type,
            dict_observation=dict_observation,
            autoreset_mode="same_step",
            max_episode_steps=max_episode_steps,
            **params,
        )
    )
