"""checkraise: a fast, exact engine for five poker/chess hybrid games.

The engine is Rust (``checkraise._core``); this package re-exports it with OpenSpiel's
conventions::

    import checkraise as cr
    cr.games()                              # names, facts, parameter schemas
    game = cr.make("pokeros", players=2)    # bad parameters raise ValueError saying why
    state = game.new_initial_state()        # chance nodes explicit, as in OpenSpiel
    state.sample_chance(seed=0)             # or resolve them yourself
    state.legal_actions(); state.apply_action(a); state.observation(0)  # numpy float32

Every error is a :class:`CheckraiseError` (a ``ValueError``) carrying the engine's message.

Bots come from bot specs: ``cr.Bot(game, "ismcts", iterations=2000)`` or
``cr.Bot(game, "ismcts(iterations=2000,rollout=random)")``; ``cr.bots()`` lists the kinds and
their settings. ``cr.arena.run(game, ["random", "heuristic", "ismcts"])`` rates bots against
each other.

Adapters load on first use, so their optional dependencies are needed only when used:
``cr.pettingzoo`` (PettingZoo AEC and parallel envs), ``cr.gymnasium`` (single-agent envs
against bots, and a native Gymnasium vector env with the bots played inside the engine),
``cr.rllib`` (Ray RLlib: a multi-agent env, a single-agent env against bots and ready PPO
configs), ``cr.sb3`` (Stable-Baselines3: the native vector env as an SB3 ``VecEnv``),
``cr.openspiel`` (pyspiel registration), ``cr.render`` (SVG and RGB pictures),
``cr.client`` (a gRPC client for a remote checkraise-server) and ``cr.arena`` (bot ratings;
a progress bar with tqdm if installed, tables with pandas if installed). Each dependency comes
with an extra of the package (``pip install 'checkraise[gymnasium]'``; ``checkraise[all]`` for
every one); an adapter whose dependency is missing raises :class:`MissingDependencyError` (an
``ImportError``) naming the extra.

When Gymnasium is installed, ``import checkraise`` registers every game with it as
``checkraise/<game>-v0``, so ``gymnasium.make("checkraise/pokeros-v0")`` works.
"""

import contextlib as _contextlib
import importlib as _importlib
import importlib.util as _importlib_util

from ._compact import unpack_action_masks, unpack_observations
from ._core import (
    ActionStringError,
    Bot,
    CheckraiseError,
    DeserializationError,
    Driver,
    Env,
    Game,
    GameOverError,
    IllegalActionError,
    InvalidSeatError,
    Match,
    OutOfTurnError,
    ParameterError,
    SolveError,
    State,
    UnknownGameError,
    UnknownParameterError,
    VectorEnv,
    __version__,
    bot_action,
    bots,
    game_names,
    games,
    make,
)
from ._optional import MissingDependencyError

__all__ = [
    "ActionStringError",
    "Bot",
    "CheckraiseError",
    "DeserializationError",
    "Driver",
    "Env",
    "Game",
    "GameOverError",
    "IllegalActionError",
    "InvalidSeatError",
    "Match",
    "MissingDependencyError",
    "OutOfTurnError",
    "ParameterError",
    "SolveError",
    "State",
    "UnknownGameError",
    "UnknownParameterError",
    "VectorEnv",
    "__version__",
    "bot_action",
    "bots",
    "game_names",
    "games",
    "make",
    "unpack_action_masks",
    "unpack_observations",
]

_SUBMODULES = (
    "pettingzoo",
    "gymnasium",
    "openspiel",
    "render",
    "client",
    "arena",
    "rllib",
    "sb3",
    "solve",
    "datasets",
)

# The extra each submodule's imports need (the others need none, or say so themselves).
_SUBMODULE_EXTRAS = {"client": "grpc"}


def __getattr__(name: str):
    """Imports an adapter submodule (``cr.pettingzoo`` and the like) on first access; a
    missing optional dependency raises :class:`MissingDependencyError` naming the extra."""
    if name in _SUBMODULES:
        try:
            return _importlib.import_module(f"{__name__}.{name}")
        except MissingDependencyError:
            raise
        except ImportError as error:
            if name not in _SUBMODULE_EXTRAS:
                raise
            raise MissingDependencyError(
                f"{__name__}.{name}", _SUBMODULE_EXTRAS[name], error
            ) from error
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _register_with_gymnasium() -> None:
    """Registers the games with Gymnasium (``checkraise/<game>-v0``) if it is installed."""
    try:
        installed = _importlib_util.find_spec("gymnasium") is not None
    except (ImportError, ValueError):
        installed = False
    if installed:
        # A broken Gymnasium is left alone here: cr.gymnasium raises MissingDependencyError
        # when used.
        with _contextlib.suppress(ImportError):
            _importlib.import_module(f"{__name__}.gymnasium")


_register_with_gymnasium()
