"""Ray RLlib for every checkraise game: a multi-agent env, a single-agent env against engine
bots, and ready PPO configs with RLlib's action-masking module.

RLlib's ``ActionMaskingTorchRLModule`` (new API stack) reads an agent's observation as a dict
with the keys ``"observations"`` (the tensor its network sees) and ``"action_mask"`` (a float
0/1 vector of ``num_distinct_actions``; the logits of actions at 0 are pushed to the lowest
float). Every env here gives exactly that, so PPO trains on any registered game as shipped::

    import checkraise.rllib

    algo = checkraise.rllib.ppo_config("pokeros").build_algo()
    result = algo.train()

- :class:`MultiAgentCheckraiseEnv` (or :func:`multi_agent_env`): an RLlib ``MultiAgentEnv``
  of one game, every seat an agent (``"player_0"`` .. ``"player_{n-1}"``, the PettingZoo env's
  names). Turn-based: ``reset`` and ``step`` return observations only for the agents that must
  act next (at a simultaneous node, as in Prediction Chess, every seat, and ``step`` then takes
  an action from each of them). Each agent's observation space is
  ``Dict({"observations": Box, "action_mask": Box(0, 1, (n,), float32)})``; its action space
  ``Discrete(num_distinct_actions)``. The tensor is ``state.observation(seat)`` (the engine's
  view of the seat, only what it may know), or with ``observation_type="information_state"``
  the seat's perfect-recall ``state.information_state_tensor(seat)``.
- Chance is resolved inside the env by the engine's sampler, with seeds drawn from a numpy
  generator that ``reset(seed=...)`` seeds (it seeds the agents' spaces too, ``seed + i`` for
  agent i); ``reset()`` without a seed continues the stream, so a seeded run is reproducible.
- Rewards: every step gives every agent the change of its return (``state.returns()``) over
  the step and the chance events after it, so an agent's rewards over an episode sum to its
  seat's return. RLlib credits a reward that arrives while an agent waits for its turn to
  that agent's last action.
- The end: when the game ends every agent gets a last observation (its mask all zeros),
  ``terminateds`` has every agent and ``"__all__"`` true, and each agent's info has
  ``"returns"`` (every seat's final return). ``truncateds`` is never true: every game ends by
  its own rules within ``game.max_game_length()`` actions. Until the end ``terminateds`` and
  ``truncateds`` are ``{"__all__": False}``.
- Illegal actions (the masking module never picks one): with ``illegal_action="terminate"``
  (default) the game ends at once, the offender rewarded ``illegal_reward`` (default
  ``game.min_utility()``) and the others 0, and the offender's info has ``"illegal_action"``
  and ``"illegal_action_message"``; with ``"raise"``, ``step`` raises
  ``checkraise.IllegalActionError`` and nothing changes. An action for an agent that is not to
  act, a missing one, or one outside the action space raises in either mode.
- Single agent: :func:`single_agent_env` is ``checkraise.gymnasium.env(...,
  dict_observation=True)`` (one seat against engine bots) behind :class:`MaskedObservations`,
  which renames the dict's keys to RLlib's and makes the mask float32. :func:`vector_env` is
  the native vector env (``checkraise.gymnasium.vector_env(..., dict_observation=True)``:
  every game and every bot move stepped by the engine in one call) behind
  :class:`MaskedVectorObservations`, the same renaming for a whole batch; RLlib's env runners
  make it in their ``gym_env_vectorize_mode="vector_entry_point"`` mode, which
  :func:`ppo_config` sets.
- Configuration: RLlib makes envs from a config dict (``env_config``); the dict's ``"game"``
  names the game, and its other keys are the env's options (above) or the game's parameters
  (``{"game": "pokeros", "players": 3}``). A key that is neither raises ``TypeError`` naming
  both; an unknown game or a bad parameter value raises the engine's ``UnknownGameError`` /
  ``ParameterError``. :func:`register_envs` registers the two creators with RLlib as
  :data:`MULTI_AGENT_ENV` and :data:`SINGLE_AGENT_ENV`, and :func:`ppo_config` returns a
  ``PPOConfig`` using them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._optional import requires

with requires("checkraise.rllib", "rllib"):
    import gymnasium
    import torch  # noqa: F401  (RLlib's masking module is torch's: fail here, naming the extra)
    from gymnasium.utils import seeding
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )
    from ray.tune.registry import register_env
import numpy as np

from . import _adapt
from ._core import Game, GameOverError, IllegalActionError, State, games, make
from .gymnasium import CheckraiseVectorEnv

__all__ = [
    "ACTION_MASK",
    "MULTI_AGENT_ENV",
    "OBSERVATIONS",
    "SHARED_MODULE",
    "SINGLE_AGENT_ENV",
    "ActionMaskingTorchRLModule",
    "MaskedObservations",
    "MaskedVectorObservations",
    "MultiAgentCheckraiseEnv",
    "multi_agent_env",
    "ppo_config",
    "register_envs",
    "single_agent_env",
    "vector_env",
]

#: The observation dict's keys that RLlib's ``ActionMaskingTorchRLModule`` reads.
OBSERVATIONS = "observations"
ACTION_MASK = "action_mask"

#: The names :func:`register_envs` registers with RLlib (``config.environment(name, ...)``).
MULTI_AGENT_ENV = "checkraise_multi_agent"
SINGLE_AGENT_ENV = "checkraise_single_agent"

#: The options of each env besides the game and its parameters.
_MULTI_AGENT_OPTIONS = ("observation_type", "illegal_action", "illegal_reward", "render_mode")
_SINGLE_AGENT_OPTIONS = ("opponent", "seat", *_MULTI_AGENT_OPTIONS)

#: The module id of the one policy every seat shares (``ppo_config(shared_policy=True)``).
SHARED_MODULE = "shared"

#: A small network for the default configs; pass ``model_config`` to change it.
_DEFAULT_MODEL_CONFIG: dict[str, Any] = {"fcnet_hiddens": [256, 256]}


def _agent_name(seat: int) -> str:
    return f"player_{seat}"


def _split_config(
    config: Mapping[str, Any] | None, options: tuple[str, ...], who: str
) -> tuple[Game, dict[str, Any]]:
    """The game made from ``config`` (its ``"game"`` and parameters) and the env's options.

    A key that is neither an option nor one of the game's parameters raises ``TypeError``;
    an unknown game or a bad value raises the engine's error."""
    if config is None:
        config = {}
    if not isinstance(config, Mapping):
        raise TypeError(f"{who}: config must be a mapping, not {type(config).__name__}")
    rest = dict(config)
    if "game" not in rest:
        raise TypeError(f"{who}: the config has no 'game' (a game's name or a checkraise.Game)")
    game = rest.pop("game")
    if isinstance(game, str):
        make(game)  # an unknown name raises UnknownGameError, naming the games
        parameters = next(entry["parameters"] for entry in games() if entry["name"] == game)
    else:
        parameters = {}
    unknown = sorted(k for k in rest if k not in options and k not in parameters)
    if unknown:
        raise TypeError(
            f"{who}: unknown keyword(s) {', '.join(map(repr, unknown))}; the env's options are "
            f"{', '.join(options)}"
            + (f", and {game}'s parameters are {', '.join(parameters)}" if parameters else "")
        )
    params = {k: v for k, v in rest.items() if k not in options}
    made = _adapt.make_game(game, params)
    return made, {k: v for k, v in rest.items() if k in options}


def _check_observation_type(observation_type: str) -> str:
    _adapt.check_observation_type(observation_type)
    if observation_type == "compact":
        raise ValueError(
            "observation_type 'compact' packs the observation into bytes, which RLlib's "
            "networks cannot read; use 'observation' or 'information_state'"
        )
    return observation_type


class MultiAgentCheckraiseEnv(_adapt.EngineHolder, MultiAgentEnv):
    """Every seat of one checkraise game as an RLlib agent (see the module docstring).

    ``config`` is RLlib's ``env_config``: ``{"game": name, **options, **game parameters}``;
    keyword arguments are merged into it (``MultiAgentCheckraiseEnv(game="pokeros")``).
    """

    def __init__(self, config: Mapping[str, Any] | None = None, **kwargs: Any) -> None:
        """Makes the game and checks the options; call ``reset`` before stepping."""
        merged = {**(config or {}), **kwargs}
        game, options = _split_config(merged, _MULTI_AGENT_OPTIONS, type(self).__name__)
        super().__init__()
        self.game = game
        """The engine's game."""
        self.observation_type = _check_observation_type(
            options.get("observation_type", "observation")
        )
        self.illegal_action = _adapt.check_illegal_action_mode(
            options.get("illegal_action", "terminate")
        )
        illegal_reward = options.get("illegal_reward")
        self.illegal_reward = (
            float(game.min_utility()) if illegal_reward is None else float(illegal_reward)
        )
        self.render_mode = _adapt.check_render_mode(options.get("render_mode"))
        n = game.num_players()
        self.possible_agents = [_agent_name(s) for s in range(n)]
        # Agents stay in the env for the whole episode (RLlib checks rewards against them).
        self.agents = list(self.possible_agents)
        self._agent_ids = set(self.possible_agents)
        self._seats = {agent: s for s, agent in enumerate(self.possible_agents)}
        num_actions = game.num_distinct_actions()
        # Each agent has its own space objects, so seeding one leaves the others alone.
        self.observation_spaces = {
            agent: gymnasium.spaces.Dict(
                {
                    OBSERVATIONS: _adapt.observation_box(game, self.observation_type),
                    ACTION_MASK: gymnasium.spaces.Box(0.0, 1.0, (num_actions,), np.float32),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {
            agent: gymnasium.spaces.Discrete(num_actions) for agent in self.possible_agents
        }
        self.metadata = {"render_modes": list(_adapt.RENDER_MODES), "render_fps": 1}
        self._np_random: np.random.Generator | None = None
        self._state: State | None = None
        self._acting: list[int] = []
        self._over = True

    # -- helpers -----------------------------------------------------------------------------

    @property
    def np_random(self) -> np.random.Generator:
        """The generator the env draws chance seeds from."""
        if self._np_random is None:
            self._np_random, _ = seeding.np_random()
        return self._np_random

    def _acting_seats(self, state: State) -> list[int]:
        if state.is_terminal():
            return []
        if state.is_simultaneous_node():
            return _adapt.simultaneous_seats(state)
        return [state.current_player()]

    def _observe(self, state: State, seat: int) -> dict[str, np.ndarray]:
        mask = (
            np.zeros(self.game.num_distinct_actions(), dtype=np.float32)
            if self._over
            else state.action_mask(seat).astype(np.float32)
        )
        return {
            OBSERVATIONS: _adapt.observation(state, seat, self.observation_type),
            ACTION_MASK: mask,
        }

    def _observations(self, state: State, seats: list[int]) -> dict[str, dict[str, np.ndarray]]:
        return {_agent_name(s): self._observe(state, s) for s in seats}

    def _returns(self, state: State) -> list[float]:
        return [float(r) for r in state.returns()]

    # -- RLlib API ---------------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, dict[str, np.ndarray]], dict[str, dict[str, Any]]]:
        """Starts a new game; returns the observations of the agents to act first."""
        self._check_open()
        if seed is not None:
            self._np_random, _ = seeding.np_random(seed)
            for i, agent in enumerate(self.possible_agents):
                self.action_spaces[agent].seed(seed + i)
                self.observation_spaces[agent].seed(seed + i)
        state = self.game.new_initial_state()
        _adapt.resolve_chance(state, self.np_random)
        self._state = state
        self._over = False
        self._acting = self._acting_seats(state)
        if not self._acting:
            raise RuntimeError(f"a game of {self.game} ended before its first decision")
        self._render_human()
        observations = self._observations(state, self._acting)
        return observations, {agent: {} for agent in observations}

    def step(
        self, action_dict: Mapping[str, Any]
    ) -> tuple[
        dict[str, dict[str, np.ndarray]],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        """Applies the acting agents' actions (one from each agent given an observation last);
        returns observations of the agents to act next, every agent's reward, the done flags
        and infos."""
        state = self._live_state()
        if self._over:
            raise GameOverError("the episode is over; call reset()")
        acting = {_agent_name(s): s for s in self._acting}
        unknown = sorted(set(action_dict) - set(acting))
        if unknown:
            raise ValueError(
                f"actions for agents that are not to act: {unknown}; acting: {sorted(acting)}"
            )
        missing = sorted(set(acting) - set(action_dict))
        if missing:
            raise ValueError(f"no action for {missing}; every agent given an observation acts")
        chosen: dict[int, int] = {}
        offenders: dict[str, tuple[int, str]] = {}
        for agent, seat in acting.items():
            who = f"{agent} (seat {seat})"
            action_id = _adapt.check_in_space(state, action_dict[agent], who)
            message = _adapt.illegal_action_message(state, seat, action_id, who)
            if message is not None:
                if self.illegal_action == "raise":
                    raise IllegalActionError(message)
                offenders[agent] = (action_id, message)
            chosen[seat] = action_id
        infos: dict[str, dict[str, Any]] = {}
        if offenders:
            rewards = {
                a: (self.illegal_reward if a in offenders else 0.0) for a in self.possible_agents
            }
            for agent, (action_id, message) in offenders.items():
                infos[agent] = _adapt.illegal_action_info(action_id, message)
            self._over = True
        else:
            before = self._returns(state)
            if state.is_simultaneous_node():
                state.apply_actions([chosen[s] for s in range(state.num_players())])
            else:
                state.apply_action(chosen[self._acting[0]])
            _adapt.resolve_chance(state, self.np_random)
            after = self._returns(state)
            rewards = {a: after[s] - before[s] for a, s in self._seats.items()}
            self._over = state.is_terminal()
        self._render_human()
        if self._over:
            self._acting = []
            observations = self._observations(state, list(range(len(self.possible_agents))))
            returns = self._returns(state)
            for agent in self.possible_agents:
                infos.setdefault(agent, {})["returns"] = returns
            done = dict.fromkeys(self.possible_agents, True)
            return (
                observations,
                rewards,
                {**done, "__all__": True},
                {**dict.fromkeys(self.possible_agents, False), "__all__": False},
                infos,
            )
        self._acting = self._acting_seats(state)
        observations = self._observations(state, self._acting)
        return (
            observations,
            rewards,
            {"__all__": False},
            {"__all__": False},
            {agent: {} for agent in observations},
        )


def multi_agent_env(game: str | Game, **options: Any) -> MultiAgentCheckraiseEnv:
    """The multi-agent env of ``game``, e.g. ``multi_agent_env("pokeros", players=3)``: keyword
    arguments are the env's options (``observation_type``, ``illegal_action``,
    ``illegal_reward``, ``render_mode``) and the game's parameters."""
    return MultiAgentCheckraiseEnv({"game": game, **options})


# -- single agent ----------------------------------------------------------------------------


class MaskedObservations(gymnasium.ObservationWrapper):
    """A checkraise Gymnasium env made with ``dict_observation=True`` with RLlib's keys: its
    ``{"observation", "action_mask" (int8)}`` becomes ``{"observations", "action_mask"
    (float32)}``; everything else (rewards, infos, the engine's bots) is the env's."""

    def __init__(self, env: gymnasium.Env) -> None:
        """Wraps ``env``; one whose observation is not the checkraise dict raises ``TypeError``."""
        super().__init__(env)
        space = env.observation_space
        if not (
            isinstance(space, gymnasium.spaces.Dict)
            and set(space.spaces) == {"observation", "action_mask"}
        ):
            raise TypeError(
                "MaskedObservations wraps a checkraise Gymnasium env made with "
                f"dict_observation=True, not one observing {space}"
            )
        mask = space["action_mask"]
        self.observation_space = gymnasium.spaces.Dict(
            {
                OBSERVATIONS: space["observation"],
                ACTION_MASK: gymnasium.spaces.Box(0.0, 1.0, mask.shape, np.float32),
            }
        )

    def observation(self, observation: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The env's observation dict under RLlib's keys, the mask as float32."""
        return {
            OBSERVATIONS: observation["observation"],
            ACTION_MASK: observation["action_mask"].astype(np.float32),
        }


def _single_agent(game: Game, options: dict[str, Any]) -> MaskedObservations:
    from . import gymnasium as _gymnasium

    options = dict(options)
    _check_observation_type(options.get("observation_type", "observation"))
    return MaskedObservations(_gymnasium.env(game, dict_observation=True, **options))


def single_agent_env(
    game: str | Game, opponent: str = "heuristic", seat: int = 0, **options: Any
) -> MaskedObservations:
    """Seat ``seat`` of ``game`` against ``opponent`` engine bots (any ``checkraise.Bot``
    spec) with RLlib's observation keys: ``checkraise.gymnasium.env(game, opponent, seat,
    dict_observation=True, ...)`` behind :class:`MaskedObservations`. Other keyword arguments
    are ``observation_type``, ``illegal_action``, ``illegal_reward``, ``render_mode`` and the
    game's parameters."""
    made, rest = _split_config({"game": game, **options}, _SINGLE_AGENT_OPTIONS, "single_agent_env")
    return _single_agent(made, {"opponent": opponent, "seat": seat, **rest})


class MaskedVectorObservations(gymnasium.vector.VectorObservationWrapper):
    """A checkraise native vector env made with ``dict_observation=True``
    (:class:`checkraise.gymnasium.CheckraiseVectorEnv`) with RLlib's keys: its batched
    ``{"observation", "action_mask" (int8)}`` becomes ``{"observations", "action_mask"
    (float32)}``, in the observations and in both observation spaces; rewards, infos and the
    engine's bots are the vector env's."""

    def __init__(self, env: gymnasium.vector.VectorEnv) -> None:
        """Wraps ``env`` (in next-step autoreset mode, as RLlib steps it); one whose
        observation is not the checkraise dict raises ``TypeError``."""
        super().__init__(env)
        space = env.single_observation_space
        if not (
            isinstance(space, gymnasium.spaces.Dict)
            and set(space.spaces) == {"observation", "action_mask"}
        ):
            raise TypeError(
                "MaskedVectorObservations wraps a checkraise vector env made with "
                f"dict_observation=True, not one observing {space}"
            )
        self.single_observation_space = gymnasium.spaces.Dict(
            {
                OBSERVATIONS: space["observation"],
                ACTION_MASK: gymnasium.spaces.Box(0.0, 1.0, space["action_mask"].shape, np.float32),
            }
        )
        self.observation_space = gymnasium.vector.utils.batch_space(
            self.single_observation_space, env.num_envs
        )

    def observations(self, observations: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The batch's observation dict under RLlib's keys, the masks as float32."""
        return {
            OBSERVATIONS: observations["observation"],
            ACTION_MASK: observations["action_mask"].astype(np.float32),
        }


def vector_env(
    num_envs: int,
    game: str | Game,
    opponent: Any = "heuristic",
    seat: int | str = 0,
    **options: Any,
) -> MaskedVectorObservations:
    """``num_envs`` games of ``game``, the learner at ``seat`` (a number or ``"random"``)
    against ``opponent`` played inside the engine, with RLlib's observation keys:
    ``checkraise.gymnasium.vector_env(game, num_envs, opponent, seat, dict_observation=True,
    copy=True, ...)`` behind :class:`MaskedVectorObservations`. ``opponent`` is a bot spec,
    a policy file's bytes or a weighted pool of them (see
    :class:`checkraise.gymnasium.CheckraiseVectorEnv`). RLlib asks for it with
    ``gym_env_vectorize_mode="vector_entry_point"``. Seeds as Gymnasium's vector envs take them
    (``reset(seed=s)`` seeds env i with ``s + i``).

    Other keyword arguments are ``render_mode`` and the game's parameters;
    ``observation_type`` can only be ``"observation"`` here, and an illegal action always
    raises ``checkraise.IllegalActionError`` (the masking module never picks one), so
    ``illegal_action`` can only be ``"raise"`` and ``illegal_reward`` is refused."""
    if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
        raise ValueError(f"num_envs must be a positive int, not {num_envs!r}")
    made, rest = _split_config({"game": game, **options}, _SINGLE_AGENT_OPTIONS, "vector_env")
    _check_observation_type(rest.get("observation_type", "observation"))
    if rest.get("illegal_action", "raise") != "raise":
        raise ValueError(
            f"illegal_action={rest['illegal_action']!r}: the vector env raises "
            "IllegalActionError for an illegal action (RLlib's masking module never picks "
            "one); leave illegal_action out, or use the single-agent env"
        )
    if rest.pop("illegal_reward", None) is not None:
        raise ValueError("illegal_reward: the vector env ends no game for an illegal action")
    rest.pop("illegal_action", None)
    # Copied out of the engine's buffers: RLlib keeps each step's observations in episodes.
    return MaskedVectorObservations(
        CheckraiseVectorEnv(
            made, num_envs, opponent, seat, dict_observation=True, copy=True, **rest
        )
    )


# -- RLlib registration and configs ----------------------------------------------------------


def _make_multi_agent(config: Mapping[str, Any]) -> MultiAgentCheckraiseEnv:
    return MultiAgentCheckraiseEnv(config)


def _make_single_agent(
    config: Mapping[str, Any],
) -> MaskedObservations | MaskedVectorObservations:
    """RLlib's creator of the single-agent env; with ``"num_envs"`` in the config (RLlib's
    ``vector_entry_point`` mode, which :func:`ppo_config` sets) the native vector env of that
    many."""
    config = dict(config)
    num_envs = config.pop("num_envs", None)
    if num_envs is not None:
        return vector_env(num_envs, **config)
    made, options = _split_config(config, _SINGLE_AGENT_OPTIONS, SINGLE_AGENT_ENV)
    return _single_agent(made, options)


def register_envs() -> tuple[str, str]:
    """Registers the env creators with RLlib (``ray.tune.registry.register_env``) as
    :data:`MULTI_AGENT_ENV` and :data:`SINGLE_AGENT_ENV` and returns the names; each takes an
    ``env_config`` with the ``"game"``, the env's options and the game's parameters.
    Registering again is harmless."""
    register_env(MULTI_AGENT_ENV, _make_multi_agent)
    register_env(SINGLE_AGENT_ENV, _make_single_agent)
    return MULTI_AGENT_ENV, SINGLE_AGENT_ENV


def _shared_module(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    return SHARED_MODULE


def _own_module(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    return agent_id


def ppo_config(
    game: str | Game,
    *,
    opponent: Any = None,
    seat: int | str = 0,
    shared_policy: bool = True,
    model_config: Mapping[str, Any] | None = None,
    **options: Any,
) -> PPOConfig:
    """A ``PPOConfig`` (RLlib's new API stack, torch) that trains on ``game`` as it is:
    ``ppo_config("pokeros").build_algo().train()``.

    Without ``opponent`` every seat is an agent of :data:`MULTI_AGENT_ENV` (self-play): one
    policy, :data:`SHARED_MODULE`, plays every seat (``shared_policy=True``), or each seat has
    its own, named after its agent (``shared_policy=False``). With ``opponent`` (a bot spec:
    ``"heuristic"``, ``"random"``, ``"ismcts(iterations=200)"``; a policy file's bytes; or a
    weighted pool of them) one policy plays ``seat`` (a number or ``"random"``) of
    :data:`SINGLE_AGENT_ENV` against engine bots, each env runner stepping one native vector
    env of ``num_envs_per_env_runner`` games (:func:`vector_env`; the config's
    ``gym_env_vectorize_mode`` is ``"vector_entry_point"``). Every policy is RLlib's
    ``ActionMaskingTorchRLModule``, its network given by ``model_config`` (RLlib's
    ``DefaultModelConfig`` keys; default two hidden layers of 256). Other keyword arguments
    are the env's options and the game's parameters (``players=3``), checked here: an unknown
    keyword raises ``TypeError``, a bad game or value the engine's error.

    Everything else is PPO's defaults (two env runners; ``train_batch_size_per_learner``
    4000); change them on the returned config (``.env_runners(...)``, ``.training(...)``).
    """
    register_envs()
    module_config = dict(_DEFAULT_MODEL_CONFIG if model_config is None else model_config)
    config = {"game": game, **options}
    if opponent is not None:
        config.update(opponent=opponent, seat=seat)
        # Made once here, so a bad keyword or value raises now rather than in an env runner.
        vector_env(1, **config).close()
        return (
            PPOConfig()
            .environment(SINGLE_AGENT_ENV, env_config=config)
            .env_runners(gym_env_vectorize_mode="vector_entry_point")
            .rl_module(
                rl_module_spec=RLModuleSpec(
                    module_class=ActionMaskingTorchRLModule, model_config=module_config
                )
            )
        )
    if seat != 0:
        raise TypeError("seat is the learner's seat against bots; it needs an opponent")
    probe = MultiAgentCheckraiseEnv(config)
    probe.close()
    modules = [SHARED_MODULE] if shared_policy else list(probe.possible_agents)
    return (
        PPOConfig()
        .environment(MULTI_AGENT_ENV, env_config=config)
        .multi_agent(
            policies=set(modules),
            policy_mapping_fn=_shared_module if shared_policy else _own_module,
        )
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={
                    module: RLModuleSpec(
                        module_class=ActionMaskingTorchRLModule, model_config=module_config
                    )
                    for module in modules
                }
            )
        )
    )
