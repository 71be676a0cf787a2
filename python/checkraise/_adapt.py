"""Shared plumbing of the PettingZoo and Gymnasium adapters (private).

Nothing here knows a game: it translates the engine's generic API (masks, observations,
chance sampling, returns) into what the adapters need, so every registered game works
unchanged.
"""

from __future__ import annotations

import inspect
import operator
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

import numpy as np

from ._core import CheckraiseError, Game, IllegalActionError, State, make
from ._optional import MissingDependencyError

#: Render modes both adapters support: ``human`` prints the text, ``ansi`` returns it,
#: ``rgb_array`` returns a picture.
RENDER_MODES: tuple[str, ...] = ("human", "ansi", "rgb_array")

#: What an adapter may do with an illegal action; the first is the default.
ILLEGAL_ACTION_MODES: tuple[str, ...] = ("terminate", "raise")

#: What an agent's observation tensor may be: the engine's observation of its seat, its
#: perfect-recall information-state tensor, or its observation as a compact uint8 row
#: (``checkraise.unpack_observations`` gives the float32 observation back exactly).
OBSERVATION_TYPES: tuple[str, ...] = ("observation", "information_state", "compact")

#: Seeds handed to the engine (its generator takes a u64; stay inside i64 for numpy).
_SEED_BOUND = 2**63 - 1

_P = ParamSpec("_P")
_R = TypeVar("_R")


def parameters_of(
    constructor: Callable[_P, object],
) -> Callable[[Callable[..., _R]], Callable[_P, _R]]:
    """A decorator giving a factory (``env``, ``raw_env``, ``vector_env``) the parameters of
    the env class it makes, which it passes on as they come: each env's arguments, their
    defaults and types are declared once, on its class (and documented where its docstring
    says). Type checkers check a call to the factory against them (the ``ParamSpec``), and
    ``inspect.signature`` and ``help`` show them (the factory's ``__signature__``, with the
    factory's own return type). A wrong argument is the class's ``TypeError``: an unknown
    keyword reaches the game's parameters, whose check names the game's (``pokeros has no
    parameter 'frameskip'``)."""

    def decorate(factory: Callable[..., _R]) -> Callable[_P, _R]:
        returns = inspect.signature(factory).return_annotation
        signature = inspect.signature(constructor).replace(return_annotation=returns)
        factory.__signature__ = signature  # type: ignore[attr-defined]
        return factory

    return decorate


class EngineHolder:
    """An env's engine state and its lifecycle, shared by the PettingZoo and Gymnasium envs:
    nothing before ``reset()``, nothing after ``close()``."""

    _state: State | None = None
    _closed = False
    render_mode: str | None

    def _check_open(self) -> None:
        if self._closed:
            raise CheckraiseError("this env was closed; make a new one")

    def _live_state(self) -> State:
        self._check_open()
        if self._state is None:
            raise RuntimeError("call reset() before using the env")
        return self._state

    def engine_state(self) -> State:
        """A copy of the engine's state (everything, hidden cards included: for tests and
        spectators, not for agents)."""
        return self._live_state().clone()

    def close(self) -> None:
        """Ends the env: later calls that use the game (``reset``, ``step``, observing,
        rendering) raise ``CheckraiseError``. Closing twice is fine."""
        self._closed = True
        self._state = None

    def render(self) -> str | np.ndarray | None:
        """The current table in ``render_mode`` (see the adapter's module docstring;
        ``"human"`` prints it and returns ``None``); ``None`` (with a warning) when the env was
        made without a render mode."""
        import gymnasium

        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() called without a render_mode; make the env with "
                "render_mode='human', 'ansi' or 'rgb_array'"
            )
            return None
        return render(self._live_state(), self.render_mode)

    def _render_human(self) -> None:
        """Prints the table after a reset or a step in ``"human"`` mode."""
        if self.render_mode == "human":
            self.render()


def make_game(game: str | Game, params: dict[str, Any]) -> Game:
    """The engine's game for a name (or an already made game and no parameters).

    Unknown games and bad parameters raise the engine's ``UnknownGameError`` /
    ``ParameterError`` (both ``ValueError``), which name what was wrong.
    """
    if isinstance(game, Game):
        if params:
            raise ValueError(
                f"parameters {sorted(params)} given with an already made game {game}; "
                "pass the game's name instead"
            )
        return game
    if not isinstance(game, str):
        raise TypeError(
            f"game must be a name (str) or a checkraise.Game, not {type(game).__name__}"
        )
    return make(game, **params)


def check_render_mode(render_mode: str | None) -> str | None:
    """Returns ``render_mode`` if supported; raises ``ValueError`` naming the modes otherwise."""
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(
            f"unknown render_mode {render_mode!r}; supported: None, "
            + ", ".join(repr(m) for m in RENDER_MODES)
        )
    return render_mode


def check_illegal_action_mode(mode: str) -> str:
    """Returns ``mode`` if it is in ``ILLEGAL_ACTION_MODES``; raises ``ValueError`` otherwise."""
    if mode not in ILLEGAL_ACTION_MODES:
        raise ValueError(
            f"unknown illegal_action {mode!r}; supported: "
            + ", ".join(repr(m) for m in ILLEGAL_ACTION_MODES)
        )
    return mode


def check_observation_type(observation_type: str) -> str:
    """Returns ``observation_type`` if it is in ``OBSERVATION_TYPES``; raises ``ValueError``
    naming them otherwise."""
    if observation_type not in OBSERVATION_TYPES:
        raise ValueError(
            f"unknown observation_type {observation_type!r}; supported: "
            + ", ".join(repr(t) for t in OBSERVATION_TYPES)
        )
    return observation_type


def observation_box(game: Game, observation_type: str) -> Any:
    """The ``Box`` of ``observation_type``'s tensors: the game's shape and its published bounds
    (``game.observation_bounds()``; an information state's history rows are 0/1, inside them)."""
    import gymnasium

    if observation_type == "compact":
        return gymnasium.spaces.Box(0, 255, observation_shape(game, observation_type), np.uint8)
    low, high = game.observation_bounds()
    return gymnasium.spaces.Box(
        min(low, 0.0), max(high, 1.0), observation_shape(game, observation_type), np.float32
    )


def observation_shape(game: Game, observation_type: str) -> tuple[int, ...]:
    """The shape of an agent's observation tensor of ``observation_type``."""
    if observation_type == "information_state":
        return tuple(game.information_state_tensor_shape())
    if observation_type == "compact":
        return (game.compact_layout()["row_bytes"],)
    return tuple(game.observation_shape())


def render(state: State, render_mode: str) -> str | np.ndarray | None:
    """The picture of ``state`` for a supported render mode.

    ``ansi`` is ``str(state)``: the whole board and every hand, like PettingZoo's classic card
    envs (a picture for a spectator who sees everything, not an observation). ``human``
    prints that text and returns ``None``. ``rgb_array`` is
    ``checkraise.render.rgb_array(state)``, imported only when used; without Pillow it raises
    ``MissingDependencyError`` naming the ``render`` extra.
    """
    if render_mode == "ansi":
        return str(state)
    if render_mode == "human":
        print(state, flush=True)
        return None
    if render_mode == "rgb_array":
        # Imported here: the renderer and its dependencies are needed only for pictures.
        from . import render as _render

        try:
            return _render.rgb_array(state)
        except MissingDependencyError:
            raise
        except ImportError as error:
            raise MissingDependencyError("render_mode='rgb_array'", "render", error) from error
    raise ValueError(f"unknown render_mode {render_mode!r}")


def draw_seed(rng: np.random.Generator) -> int:
    """A seed for the engine's generator, drawn from the adapter's seeded numpy generator."""
    return int(rng.integers(0, _SEED_BOUND, dtype=np.int64))


def resolve_chance(state: State, rng: np.random.Generator) -> None:
    """Applies chance outcomes (the engine's seeded sampler) until a decision or the end."""
    while state.is_chance_node():
        state.sample_chance(draw_seed(rng))


def as_action(action: Any, who: str) -> int:
    """``action`` as a Python int; anything but an integer (int, numpy integer, 0-d integer
    array) raises ``TypeError`` naming ``who``."""
    if isinstance(action, (bool, np.bool_)):
        raise TypeError(f"{who}: action must be an integer action id, not a bool ({action!r})")
    if isinstance(action, np.ndarray):
        if action.shape != () or not np.issubdtype(action.dtype, np.integer):
            raise TypeError(
                f"{who}: action must be an integer action id, not an array of shape "
                f"{action.shape} and dtype {action.dtype}"
            )
        return int(action)
    try:
        return operator.index(action)
    except TypeError:
        raise TypeError(
            f"{who}: action must be an integer action id, not {type(action).__name__} ({action!r})"
        ) from None


def check_in_space(state: State, action: Any, who: str) -> int:
    """``action`` as an int if it is in the action space; anything else is a caller's bug, not
    a move, and raises whatever the illegal-action mode (what PettingZoo's
    ``AssertOutOfBoundsWrapper`` does): ``TypeError`` for a non-integer,
    ``IllegalActionError`` for an id out of range."""
    action_id = as_action(action, who)
    num_actions = state.get_game().num_distinct_actions()
    if not 0 <= action_id < num_actions:
        raise IllegalActionError(
            f"{who}: action {action_id} is out of range; action ids are 0 to {num_actions - 1}"
        )
    return action_id


def illegal_action_message(state: State, seat: int, action: int, who: str) -> str | None:
    """Why ``action`` is not legal for ``seat`` here, naming ``who``; ``None`` if it is legal."""
    num_actions = state.get_game().num_distinct_actions()
    if not 0 <= action < num_actions:
        return f"{who}: action {action} is out of range; action ids are 0 to {num_actions - 1}"
    mask = state.action_mask(seat)
    if mask[action]:
        return None
    try:
        name = f" ({state.action_to_string(seat, action)})"
    except ValueError:
        name = ""
    legal = np.flatnonzero(mask)
    shown = ", ".join(str(a) for a in legal[:12]) + (", ..." if len(legal) > 12 else "")
    return (
        f"{who}: illegal action {action}{name} at move {state.move_number()}; "
        f"legal actions ({len(legal)}): {shown}"
    )


def check_action(state: State, seat: int, action: Any, who: str) -> int:
    """``action`` as an int if legal for ``seat``; raises ``IllegalActionError`` otherwise."""
    action_id = as_action(action, who)
    message = illegal_action_message(state, seat, action_id, who)
    if message is not None:
        raise IllegalActionError(message)
    return action_id


def simultaneous_seats(state: State) -> list[int]:
    """The seats that choose at a simultaneous node (every seat: the engine gives each at least
    one legal action there, a pass if nothing else)."""
    seats = list(range(state.num_players()))
    idle = [s for s in seats if not state.legal_actions(s)]
    if idle:
        raise RuntimeError(
            f"seats {idle} have no legal action at a simultaneous node (move "
            f"{state.move_number()}); the engine promises every seat one"
        )
    return seats


def illegal_action_info(action: int, message: str) -> dict[str, Any]:
    """What the offender's ``info`` says after an illegal action ended the game: the action id
    and the message the ``"raise"`` mode would have raised (the action's name, the legal
    ones)."""
    return {"illegal_action": action, "illegal_action_message": message}


def observation(state: State, seat: int, observation_type: str = "observation") -> np.ndarray:
    """Seat ``seat``'s observation tensor of ``observation_type``: the engine's observation
    or its information-state tensor (float32), or the compact row (uint8)."""
    if observation_type == "information_state":
        return np.asarray(state.information_state_tensor(seat), dtype=np.float32)
    if observation_type == "compact":
        return state.observation_compact(seat)
    return np.asarray(state.observation(seat), dtype=np.float32)


def action_mask(state: State, seat: int) -> np.ndarray:
    """Seat ``seat``'s legal actions as an int8 0/1 mask (all zeros when it may not act)."""
    return state.action_mask(seat).astype(np.int8)
