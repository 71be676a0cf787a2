"""PettingZoo environments for every checkraise game.

``env(game, **params)`` is an AEC env (agents act one at a time) for every registered game,
in the style of PettingZoo's classic envs: ``raw_env(game, **params)`` wrapped in PettingZoo's
``OrderEnforcingWrapper``. ``parallel_env(game, **params)`` is a parallel env for games whose
dynamics are simultaneous (Prediction Chess). All are generic over the engine's registry: a game
registered later works with no change here.

- Agents are ``"player_0"`` .. ``"player_{n-1}"``, seat order.
- Observations are dicts ``{"observation": float32 tensor, "action_mask": int8 0/1 array of
  num_distinct_actions}``, built from the engine's view of the agent's seat: only what that
  seat may know. The tensor is ``state.observation(seat)`` (``game.observation_shape()``) with
  ``observation_type="observation"`` (default), or the seat's perfect-recall
  ``state.information_state_tensor(seat)`` (``game.information_state_tensor_shape()``) with
  ``observation_type="information_state"``, or the compact uint8 row
  (``state.observation_compact(seat)``, ``checkraise.unpack_observations`` unpacks it exactly)
  with ``observation_type="compact"``. The mask is ``state.action_mask(seat)``,
  all zeros when the agent may not act (and at the end).
- Chance is resolved inside the env by the engine's sampler with seeds drawn from a numpy
  generator seeded by ``reset(seed=...)``; a seeded reset also seeds every agent's spaces
  (``seed + i`` for agent i), so a seeded run is reproducible.
- Rewards are the engine's: an agent's reward for a step is the change of its return
  (``state.returns()``) over the step and the chance events after it, i.e. the sum of the
  engine's per-step ``state.rewards()``. ``last()`` gives the reward accumulated since the
  agent last acted (``_cumulative_rewards``).
- Terminations: every agent when the game ends. Truncations: never (every game ends by its own
  rules within ``game.max_game_length()`` actions).
- Simultaneous nodes in the AEC env: the agents choose one after the other in seat order; the
  choices stay pending in the env (never in the engine state, so no observation can show
  another agent's pending choice) and are applied together with ``state.apply_actions`` once
  every agent has chosen.
- Illegal actions: with ``illegal_action="terminate"`` (the default; PettingZoo's classic envs
  do the same with their ``TerminateIllegalWrapper``) an illegal action ends the game at once:
  the offender is rewarded ``illegal_reward`` (default ``game.min_utility()``, the worst result
  the game allows), every other agent 0, all agents are terminated, and the offender's info has
  ``"illegal_action"`` (the action id) and ``"illegal_action_message"`` (what ``"raise"`` would
  raise: the agent, the action's name, the legal actions). With ``illegal_action="raise"``
  ``step`` raises ``checkraise.IllegalActionError`` (a ``ValueError``) with that message, and
  nothing changes. An action outside the action space is a bug, not a move, and raises in
  either mode (what PettingZoo's ``AssertOutOfBoundsWrapper`` does for classic envs):
  ``TypeError`` for a non-integer, ``IllegalActionError`` for an id out of range.
- A terminated agent must be stepped with ``None`` (PettingZoo's rule); anything else raises
  ``ValueError``.
- Render modes: ``"human"`` prints the ``"ansi"`` text after ``reset`` and every step (as
  PettingZoo's classic text envs do; ``render()`` prints it and returns ``None``); ``"ansi"``
  returns ``str(state)``, the whole table as text (every hand shown, like PettingZoo's classic
  card envs: a spectator's picture, not an agent's observation); ``"rgb_array"`` returns
  ``checkraise.render.rgb_array(state)``, an (H, W, 3) uint8 array. An unknown mode raises
  ``ValueError`` at construction.
- Engine bots as agents: ``bot_policy(env, spec, seed)`` returns a callable ``policy(agent)``
  giving that agent's action from the env's current state, chosen by the engine's bot of
  ``spec`` (``"heuristic"``, ``"random"``, ``"ismcts(iterations=200)"``; see
  ``checkraise.Bot``) on a state resampled from the agent's information state (so it sees only
  what its seat may know). It returns ``None`` for an agent that must pass ``None`` (a
  terminated or truncated agent of the AEC env) or that has nothing to choose (an agent that is
  not to act at a parallel env's sequential node), so ``env.step(policy(agent))`` always works::

      env = checkraise.pettingzoo.env("pokeros")
      env.reset(seed=0)
      policies = {"player_0": bot_policy(env, "ismcts(iterations=100)", seed=1),
                  "player_1": bot_policy(env, "heuristic", seed=2)}
      for agent in env.agent_iter():
          env.step(policies[agent](agent))
"""

from __future__ import annotations

from typing import Any

from ._optional import requires

with requires("checkraise.pettingzoo", "pettingzoo"):
    import gymnasium
    from gymnasium.utils import seeding
    from pettingzoo import AECEnv, ParallelEnv  # type: ignore[import-untyped]
    from pettingzoo.utils.wrappers import OrderEnforcingWrapper  # type: ignore[import-untyped]
import numpy as np

from . import _adapt
from ._core import Bot, Game, GameOverError, IllegalActionError, State

__all__ = [
    "BotPolicy",
    "ParallelRawEnv",
    "RawEnv",
    "bot_policy",
    "env",
    "parallel_env",
    "raw_env",
]


def _agent_name(seat: int) -> str:
    return f"player_{seat}"


class _Table(_adapt.EngineHolder):
    """What the AEC and parallel envs share: the game, spaces, seeding and rendering."""

    game: Game
    possible_agents: list[str]
    observation_spaces: dict[str, gymnasium.spaces.Dict]
    action_spaces: dict[str, gymnasium.spaces.Discrete]
    render_mode: str | None

    #: Whether the game's dynamics must be simultaneous (the parallel env's).
    _simultaneous_only = False

    def __init__(
        self,
        game: str | Game,
        render_mode: str | None = None,
        illegal_action: str = "terminate",
        illegal_reward: float | None = None,
        *,
        observation_type: str = "observation",
        **params: int | bool | str,
    ) -> None:
        """Makes the game (``checkraise.make(game, **params)``; bad names or parameters raise
        ``ValueError``) and checks the arguments (:func:`env` documents them); call ``reset``
        before playing. The parallel env refuses a game whose dynamics are sequential
        (``ValueError``)."""
        super().__init__()
        self.game = _adapt.make_game(game, params)
        self.render_mode = _adapt.check_render_mode(render_mode)
        self.observation_type = _adapt.check_observation_type(observation_type)
        self.illegal_action = _adapt.check_illegal_action_mode(illegal_action)
        self.illegal_reward = (
            float(self.game.min_utility()) if illegal_reward is None else float(illegal_reward)
        )
        n = self.game.num_players()
        self.possible_agents = [_agent_name(s) for s in range(n)]
        self._seats = {agent: s for s, agent in enumerate(self.possible_agents)}
        num_actions = self.game.num_distinct_actions()
        # The box has the game's published bounds (game.observation_bounds()). Each agent gets
        # its own space objects, so seeding one agent's spaces leaves the others' alone.
        self.observation_spaces = {
            agent: gymnasium.spaces.Dict(
                {
                    "observation": _adapt.observation_box(self.game, observation_type),
                    "action_mask": gymnasium.spaces.Box(0, 1, (num_actions,), np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {
            agent: gymnasium.spaces.Discrete(num_actions) for agent in self.possible_agents
        }
        self.metadata = {
            "name": f"checkraise_{self.game.name}_v0",
            "render_modes": list(_adapt.RENDER_MODES),
            "render_fps": 1,
            "is_parallelizable": self.game.info["dynamics"] == "simultaneous",
        }
        self._np_random: np.random.Generator | None = None
        self._state: State | None = None
        if self._simultaneous_only and self.game.info["dynamics"] != "simultaneous":
            raise ValueError(
                f"{self.game.name} is a sequential game (dynamics "
                f"{self.game.info['dynamics']!r}); the parallel env is for simultaneous games: "
                f"use checkraise.pettingzoo.env({self.game.name!r}) for the AEC env"
            )
        self.agents: list[str] = []
        self._no_episode()

    def _no_episode(self) -> None:
        """The env's state before its first ``reset``."""

    def observation_space(self, agent: str) -> gymnasium.spaces.Dict:
        """The agent's observation space (the same object every call)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Discrete:
        """The agent's action space, ``Discrete(num_distinct_actions)`` (the same object)."""
        return self.action_spaces[agent]

    def _reseed(self, seed: int | None) -> None:
        """Seeds the chance generator (and the spaces) from ``seed``; without a seed, keeps
        the generator running (a fresh one from entropy on the very first reset)."""
        if seed is not None:
            self._np_random, _ = seeding.np_random(seed)
            for i, agent in enumerate(self.possible_agents):
                self.action_spaces[agent].seed(seed + i)
                self.observation_spaces[agent].seed(seed + i)
        elif self._np_random is None:
            self._np_random, _ = seeding.np_random()

    @property
    def np_random(self) -> np.random.Generator:
        """The generator the env draws chance seeds from."""
        if self._np_random is None:
            self._np_random, _ = seeding.np_random()
        return self._np_random

    def _observe_seat(self, seat: int) -> dict[str, np.ndarray]:
        state = self._live_state()
        return {
            "observation": _adapt.observation(state, seat, self.observation_type),
            "action_mask": _adapt.action_mask(state, seat),
        }

    def _returns(self) -> list[float]:
        return [float(r) for r in self._live_state().returns()]


class RawEnv(_Table, AECEnv[str, dict[str, np.ndarray], int]):
    """The AEC env of one checkraise game (see the module docstring for the conventions)."""

    def _no_episode(self) -> None:
        self.rewards: dict[str, float] = {}
        self._cumulative_rewards: dict[str, float] = {}
        self.terminations: dict[str, bool] = {}
        self.truncations: dict[str, bool] = {}
        self.infos: dict[str, dict[str, Any]] = {}
        self._pending: dict[int, int] = {}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Starts a new game; ``seed`` makes it (chance, spaces) reproducible."""
        self._check_open()
        self._reseed(seed)
        self._state = self.game.new_initial_state()
        _adapt.resolve_chance(self._state, self.np_random)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self._pending = {}
        self._skip_agent_selection = None
        # No registered game ends before its first decision, but a game that did would start
        # with every agent terminated.
        if self._state.is_terminal():
            self.terminations = dict.fromkeys(self.agents, True)
        self._select_next(after=None)
        self._render_human()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The agent's observation and action mask: only what its seat may know (pending
        simultaneous choices of others are never in it)."""
        return self._observe_seat(self._seats[agent])

    def _select_next(self, after: int | None) -> None:
        """Points ``agent_selection`` at the next agent to act (the next in seat order after
        ``after`` once the game is over)."""
        state = self._live_state()
        player = state.current_player()
        if player >= 0:
            self.agent_selection = _agent_name(player)
        elif state.is_simultaneous_node():
            waiting = [s for s in _adapt.simultaneous_seats(state) if s not in self._pending]
            self.agent_selection = _agent_name(waiting[0])
        elif state.is_terminal():
            self._select_after_end(0 if after is None else after)
        else:  # chance is always resolved before we get here
            raise RuntimeError(f"unexpected node {player} after resolving chance")

    def step(self, action: Any) -> None:
        """Acts for ``agent_selection``: a terminated agent must pass ``None``; a live one a
        legal action id (see the module docstring for illegal actions)."""
        self._check_open()
        if not self.agents:
            raise GameOverError("the game is over and every agent has left; call reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is alive and must act; None is only for a finished agent")
        state = self._live_state()
        seat = self._seats[agent]
        who = f"{agent} (seat {seat})"
        # Raised before anything changes: a refused step leaves the env as it was.
        action_id = _adapt.check_in_space(state, action, who)
        message = _adapt.illegal_action_message(state, seat, action_id, who)
        if message is not None and self.illegal_action == "raise":
            raise IllegalActionError(message)
        self._cumulative_rewards[agent] = 0.0
        if message is not None:
            self._end_for_illegal_action(agent, action_id, message)
            self._render_human()
            return
        before = self._returns()
        if state.is_simultaneous_node():
            self._pending[seat] = action_id
            if len(self._pending) < state.num_players():
                self.rewards = dict.fromkeys(self.agents, 0.0)
                self._select_next(after=seat)
                self._render_human()
                return
            state.apply_actions([self._pending[s] for s in range(state.num_players())])
            self._pending = {}
        else:
            state.apply_action(action_id)
        _adapt.resolve_chance(state, self.np_random)
        after = self._returns()
        self.rewards = {a: after[self._seats[a]] - before[self._seats[a]] for a in self.agents}
        self._accumulate_rewards()
        if state.is_terminal():
            for a in self.agents:
                self.terminations[a] = True
        self._select_next(after=seat)
        self._render_human()

    def _end_for_illegal_action(self, agent: str, action: int, message: str) -> None:
        self._pending = {}
        self.rewards = {a: (self.illegal_reward if a == agent else 0.0) for a in self.agents}
        self._accumulate_rewards()
        self.infos[agent] = _adapt.illegal_action_info(action, message)
        for a in self.agents:
            self.terminations[a] = True
        self._select_after_end(self._seats[agent])

    def _select_after_end(self, seat: int) -> None:
        """After the end every agent is terminated; they leave (stepping None) in seat order,
        starting after ``seat``."""
        self.agent_selection = _agent_name((seat + 1) % len(self.possible_agents))


class ParallelRawEnv(_Table, ParallelEnv[str, dict[str, np.ndarray], int]):
    """The parallel env of a game whose dynamics are simultaneous (Prediction Chess).

    Every live agent passes an action each step. At a simultaneous node they are applied
    together; at a sequential node (if such a game has one) only the acting agent's action is
    read and the others' (their masks are all zeros) are ignored.
    """

    _simultaneous_only = True

    def _observations(self, agents: list[str]) -> dict[str, dict[str, np.ndarray]]:
        return {agent: self._observe_seat(self._seats[agent]) for agent in agents}

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, dict[str, np.ndarray]], dict[str, dict[str, Any]]]:
        """Starts a new game; returns every agent's observation and an empty info."""
        self._check_open()
        self._reseed(seed)
        self._state = self.game.new_initial_state()
        _adapt.resolve_chance(self._state, self.np_random)
        self.agents = list(self.possible_agents)
        self._render_human()
        return self._observations(self.agents), {agent: {} for agent in self.agents}

    def step(
        self, actions: dict[str, Any]
    ) -> tuple[
        dict[str, dict[str, np.ndarray]],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        """Applies one action per live agent; returns observations, rewards, terminations,
        truncations and infos of the agents that were live."""
        self._check_open()
        if not self.agents:
            raise GameOverError("the game is over; call reset()")
        state = self._live_state()
        unknown = sorted(set(actions) - set(self.agents))
        if unknown:
            raise ValueError(f"actions for agents that are not playing: {unknown}")
        if state.is_simultaneous_node():
            seats = _adapt.simultaneous_seats(state)
        else:
            seats = [state.current_player()]
        missing = [_agent_name(s) for s in seats if _agent_name(s) not in actions]
        if missing:
            raise ValueError(f"no action for {missing}; every live agent must act")
        chosen: dict[int, int] = {}
        offenders: dict[str, tuple[int, str]] = {}
        for seat in seats:
            agent = _agent_name(seat)
            who = f"{agent} (seat {seat})"
            action_id = _adapt.check_in_space(state, actions[agent], who)
            message = _adapt.illegal_action_message(state, seat, action_id, who)
            if message is not None:
                if self.illegal_action == "raise":
                    raise IllegalActionError(message)
                offenders[agent] = (action_id, message)
            chosen[seat] = action_id
        live = list(self.agents)
        infos: dict[str, dict[str, Any]] = {agent: {} for agent in live}
        if offenders:
            rewards = {a: (self.illegal_reward if a in offenders else 0.0) for a in live}
            for agent, (action_id, message) in offenders.items():
                infos[agent] = _adapt.illegal_action_info(action_id, message)
            terminated = True
        else:
            before = self._returns()
            if state.is_simultaneous_node():
                state.apply_actions([chosen[s] for s in range(state.num_players())])
            else:
                state.apply_action(chosen[seats[0]])
            _adapt.resolve_chance(state, self.np_random)
            after = self._returns()
            rewards = {a: after[self._seats[a]] - before[self._seats[a]] for a in live}
            terminated = state.is_terminal()
        observations = self._observations(live)
        terminations = dict.fromkeys(live, terminated)
        truncations = dict.fromkeys(live, False)
        if terminated:
            self.agents = []
        self._render_human()
        return observations, rewards, terminations, truncations, infos


@_adapt.parameters_of(RawEnv)
def raw_env(*args: Any, **kwargs: Any) -> RawEnv:
    """The AEC env of ``game`` without PettingZoo's wrappers (PettingZoo's ``raw_env``): every
    attribute of :class:`RawEnv` at hand, misuse raised as checkraise's own errors (stepping a
    finished game raises ``checkraise.GameOverError``). Arguments as for :func:`env`."""
    return RawEnv(*args, **kwargs)


@_adapt.parameters_of(RawEnv)
def env(*args: Any, **kwargs: Any) -> AECEnv[str, dict[str, np.ndarray], int]:
    """The AEC env of any registered game, e.g. ``env("pokeros", players=3)``: ``raw_env``
    wrapped in PettingZoo's ``OrderEnforcingWrapper``, as PettingZoo's classic envs are (it
    refuses use before ``reset`` and warns on a step after the end). ``env.unwrapped`` is the
    :class:`RawEnv`; public attributes (``game``, ``engine_state()``) reach it through the
    wrapper.

    ``render_mode``: ``None``, ``"human"``, ``"ansi"`` or ``"rgb_array"``. ``illegal_action``:
    ``"terminate"`` (default) or ``"raise"``; ``illegal_reward`` is the offender's reward in the
    former (default ``game.min_utility()``). ``observation_type``: ``"observation"`` (default)
    or ``"information_state"``. Other keyword arguments are the game's parameters.

    PettingZoo's other classic wrappers are not needed: the raw env ends the game on an illegal
    action itself (``TerminateIllegalWrapper``'s job, and it says which action in ``info``)
    and refuses actions outside the action space with errors naming the agent
    (``AssertOutOfBoundsWrapper``'s job).
    """
    return OrderEnforcingWrapper(RawEnv(*args, **kwargs))


@_adapt.parameters_of(ParallelRawEnv)
def parallel_env(*args: Any, **kwargs: Any) -> ParallelRawEnv:
    """The parallel env of a simultaneous game, e.g. ``parallel_env("prediction_chess")``.

    Sequential games raise ``ValueError`` (use ``env``). Arguments as for ``env``.
    """
    return ParallelRawEnv(*args, **kwargs)


class BotPolicy:
    """An engine bot choosing agents' actions in one checkraise PettingZoo env (AEC or
    parallel); :func:`bot_policy` makes them. Call it with an agent's name for its action."""

    def __init__(
        self,
        env: AECEnv | ParallelEnv,
        spec: str = "heuristic",
        seed: int = 0,
        **settings: float | str,
    ) -> None:
        """A policy playing ``spec`` (keyword settings override the spec's) in ``env`` (a
        checkraise env, or PettingZoo wrappers around one)."""
        raw = getattr(env, "unwrapped", env)
        if not isinstance(raw, (RawEnv, ParallelRawEnv)):
            raise TypeError(
                "bot_policy needs a checkraise PettingZoo env (checkraise.pettingzoo.env or "
                f"parallel_env), not {type(env).__name__}"
            )
        self.env: RawEnv | ParallelRawEnv = raw
        """The (unwrapped) env whose state the policy reads."""
        self.bot = Bot(raw.game, spec, seed, **settings)
        """The ``checkraise.Bot`` that chooses; its ``spec`` is the canonical spec."""

    def __call__(self, agent: str) -> int | None:
        """``agent``'s action now: the bot's choice, or ``None`` when the agent must pass
        ``None`` (terminated or truncated) or has nothing to choose."""
        env = self.env
        if agent not in env._seats:
            raise ValueError(f"unknown agent {agent!r}; the agents are {env.possible_agents}")
        if isinstance(env, RawEnv) and (env.terminations.get(agent) or env.truncations.get(agent)):
            return None
        state = env._live_state()
        seat = env._seats[agent]
        if state.is_terminal() or not state.legal_actions(seat):
            return None
        # The engine's bot decides on a state drawn from what the seat knows.
        return self.bot.act(state, seat)

    def __repr__(self) -> str:
        return f"<BotPolicy {self.bot.spec} in {self.env.game.name}>"


def bot_policy(
    env: AECEnv | ParallelEnv,
    spec: str = "heuristic",
    seed: int = 0,
    **settings: float | str,
) -> BotPolicy:
    """A callable ``policy(agent)`` giving ``agent``'s action in ``env`` as the engine's bot of
    ``spec`` would play it (``None`` where the agent must pass ``None``); see the module
    docstring. Keyword ``settings`` override the spec's (``bot_policy(env, "ismcts",
    iterations=200)``); a bad spec raises ``checkraise.ParameterError`` naming the setting.
    The same seed and the same game give the same actions.
    """
    return BotPolicy(env, spec, seed, **settings)
