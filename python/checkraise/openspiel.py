"""checkraise games as OpenSpiel (pyspiel) games, so OpenSpiel's algorithms run on them.

Importing this module registers every checkraise game with pyspiel under the name
``checkraise_<name>``; :func:`register` does it again safely (and picks up games registered in
the engine since)::

    import pyspiel
    import checkraise.openspiel  # registers the games

    game = pyspiel.load_game("checkraise_pokeros", {"players": 3})
    game = pyspiel.load_game("checkraise_pokeros(players=3)")   # the same, as one string
    state = game.new_initial_state()       # a pyspiel.State; chance nodes explicit

Everything is built from ``checkraise.games()`` (facts and parameter schemas) and from each
``checkraise.Game`` (sizes and utilities), with no per-game code. States wrap a
``checkraise.State``: pyspiel calls go straight to the engine.

What the adapter provides, per OpenSpiel's ``GameType``: information-state strings and
tensors, observation strings and tensors, all from the engine. The information-state tensor
has perfect recall and a fixed size: the seat's current observation, then one row per history
entry up to ``max_game_length()`` (who acted, and what this seat saw of it as a game-specific
code in bits). ``rl_environment.Environment(game)`` picks it by default because
``provides_information_state_tensor`` is true; pass
``observation_type=rl_environment.ObservationType.OBSERVATION`` for the smaller observation.

``rewards()`` follows OpenSpiel: a seat's rewards since the previous decision, chance outcomes
after it included, so rewards read at decision nodes add up to ``returns()``.

The engine's bots play as ``pyspiel.Bot`` objects: :func:`make_bot` takes a bot spec
(``"random"``, ``"heuristic"``, ``"ismcts(iterations=500)"``; see ``checkraise.Bot``) and
returns a :class:`CheckraiseBot` for one seat, usable with OpenSpiel's ``evaluate_bots``::

    from open_spiel.python.algorithms import evaluate_bots
    import numpy as np

    game = pyspiel.load_game("checkraise_pokeros")
    bots = [make_bot(game, "ismcts(iterations=200)", 0, seed=1), make_bot(game, "heuristic", 1)]
    evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random.default_rng(0))
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ._optional import requires

with requires("checkraise.openspiel", "openspiel"):
    import pyspiel

from . import _core
from .types import GameEntry, ParameterSchema

__all__ = [
    "PREFIX",
    "CheckraiseBot",
    "CheckraiseGame",
    "CheckraiseObserver",
    "CheckraiseState",
    "game_type",
    "load_game",
    "make_bot",
    "pyspiel_name",
    "register",
]

PREFIX = "checkraise_"
"""What pyspiel names start with: ``checkraise_pokeros`` is checkraise's ``pokeros``."""


def _words(enum: Any, *members: str, suffix: str = "") -> dict[str, Any]:
    """checkraise's fact words for members of a pyspiel enum: ``"zero_sum"`` for
    ``ZERO_SUM``, ``"perfect"`` for ``PERFECT_INFORMATION`` with ``suffix="_INFORMATION"``."""
    return {member.lower(): getattr(enum, member + suffix) for member in members}


_DYNAMICS = _words(pyspiel.GameType.Dynamics, "SEQUENTIAL", "SIMULTANEOUS")
_CHANCE = _words(
    pyspiel.GameType.ChanceMode, "DETERMINISTIC", "EXPLICIT_STOCHASTIC", "SAMPLED_STOCHASTIC"
)
_INFORMATION = _words(pyspiel.GameType.Information, "PERFECT", "IMPERFECT", suffix="_INFORMATION")
_UTILITY = _words(pyspiel.GameType.Utility, "ZERO_SUM", "CONSTANT_SUM", "GENERAL_SUM", "IDENTICAL")
_REWARD_MODEL = _words(pyspiel.GameType.RewardModel, "TERMINAL", "REWARDS")

# checkraise name -> its CheckraiseGame subclass, for every game registered in this process.
_registered: dict[str, type[CheckraiseGame]] = {}


def pyspiel_name(name: str) -> str:
    """The pyspiel name of checkraise game ``name``: ``checkraise_<name>``."""
    return PREFIX + name


def _fact(table: Mapping[str, Any], entry: GameEntry, key: str) -> Any:
    """Looks up one of a game's facts in OpenSpiel's terms, failing loudly on a new value."""
    value = entry[key]  # type: ignore[literal-required]
    if value not in table:
        raise ValueError(
            f"game '{entry['name']}' has {key} '{value}', which the OpenSpiel adapter "
            f"cannot map; known values: {', '.join(table)}"
        )
    return table[value]


def _parameter_default(schema: ParameterSchema) -> int | bool | str:
    """A parameter's default as the Python type pyspiel stores (int, bool or str)."""
    default = schema["default"]
    kind = schema["kind"]
    if kind == "int":
        return int(default)
    if kind == "bool":
        return bool(default)
    return str(default)


def game_type(entry: GameEntry) -> pyspiel.GameType:
    """The pyspiel ``GameType`` stating the facts of one ``checkraise.games()`` entry."""
    return pyspiel.GameType(
        short_name=pyspiel_name(entry["name"]),
        long_name=f"checkraise {entry['long_name']}",
        dynamics=_fact(_DYNAMICS, entry, "dynamics"),
        chance_mode=_fact(_CHANCE, entry, "chance"),
        information=_fact(_INFORMATION, entry, "information"),
        utility=_fact(_UTILITY, entry, "utility"),
        reward_model=_fact(_REWARD_MODEL, entry, "reward_model"),
        max_num_players=entry["max_players"],
        min_num_players=entry["min_players"],
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={
            name: _parameter_default(schema) for name, schema in entry["parameters"].items()
        },
        default_loadable=True,
        provides_factored_observation_string=False,
    )


def _game_info(game: _core.Game) -> pyspiel.GameInfo:
    """The pyspiel ``GameInfo`` (sizes and utilities) of one parameterised checkraise game."""
    return pyspiel.GameInfo(
        num_distinct_actions=game.num_distinct_actions(),
        max_chance_outcomes=game.max_chance_outcomes(),
        num_players=game.num_players(),
        min_utility=game.min_utility(),
        max_utility=game.max_utility(),
        utility_sum=game.utility_sum(),
        max_game_length=game.max_game_length(),
    )


class CheckraiseGame(pyspiel.Game):
    """A checkraise game with its parameters fixed, seen as a ``pyspiel.Game``.

    pyspiel makes these from ``pyspiel.load_game("checkraise_<name>", params)``; parameters
    are validated by the engine, and a bad one raises ``ValueError`` with its message.
    """

    game_name: str = ""
    """The checkraise name; each registered game is a subclass that sets it."""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        """Makes the game with ``params`` (pyspiel fills in the defaults)."""
        name = self.game_name
        if not name:
            raise TypeError(
                "CheckraiseGame is abstract; load games with "
                "pyspiel.load_game('checkraise_<name>', params)"
            )
        params = dict(params or {})
        try:
            engine_game = _core.make(name, **params)
        except _core.CheckraiseError as error:
            raise ValueError(f"cannot load {pyspiel_name(name)}: {error}") from error
        entry = engine_game.info
        defaults = {key: _parameter_default(schema) for key, schema in entry["parameters"].items()}
        # Like OpenSpiel's C++ games, keep only the parameters that differ from the defaults,
        # so str(game) stays short and reloads with pyspiel.load_game.
        explicit = {
            key: value
            for key, value in engine_game.parameters.items()
            if key not in defaults or defaults[key] != value
        }
        super().__init__(game_type(entry), _game_info(engine_game), explicit)
        self.engine_game = engine_game
        """The wrapped ``checkraise.Game``."""

    def __reduce__(self) -> tuple[Any, tuple[str, dict[str, Any]]]:
        """Pickles as the name and the parameters (pyspiel's own pickling drops attributes)."""
        return (_load_pickled_game, (self.game_name, dict(self.get_parameters())))

    def new_initial_state(self) -> CheckraiseState:
        """The state before anything happened; chance nodes stay explicit."""
        return CheckraiseState(self, self.engine_game.new_initial_state())

    def make_py_observer(
        self,
        iig_obs_type: pyspiel.IIGObservationType | Mapping[str, Any] | None = None,
        params: Mapping[str, Any] | None = None,
    ) -> CheckraiseObserver:
        """An observer of the given kind (pyspiel's ``make_observation`` calls this).

        Supported: the default observation (``perfect_recall=False``) and the information
        state (``perfect_recall=True``), tensor and string from the engine, both with public
        information and the observing seat's private information.
        """
        if isinstance(iig_obs_type, Mapping):  # pyspiel may pass only the params
            iig_obs_type, params = None, iig_obs_type
        if params:
            raise ValueError(f"{self} observers take no parameters; got {dict(params)}")
        if iig_obs_type is None:
            iig_obs_type = pyspiel.IIGObservationType(perfect_recall=False)
        if (
            not iig_obs_type.public_info
            or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
        ):
            raise ValueError(
                f"{self} offers observations with public information and the observing "
                "seat's private information only (IIGObservationType(perfect_recall=...))"
            )
        return CheckraiseObserver(self.engine_game, iig_obs_type.perfect_recall)


class CheckraiseState(pyspiel.State):
    """A position of a checkraise game, seen as a ``pyspiel.State``.

    Chance nodes are explicit; simultaneous nodes (prediction chess) take joint actions
    (``apply_actions``). ``clone``, ``serialize`` and pickling work as for OpenSpiel's Python
    games (the attributes are the wrapped engine state and the pending rewards).
    """

    def __init__(self, game: CheckraiseGame, engine_state: _core.State) -> None:
        """Wraps ``engine_state``, a fresh state of ``game`` (use ``new_initial_state``)."""
        super().__init__(game)
        self.engine_state = engine_state
        """The wrapped ``checkraise.State``."""
        self.pending_rewards = [0.0] * engine_state.num_players()
        """Each seat's rewards since the last decision (its action and the chance after it)."""

    def current_player(self) -> int:
        """A seat, or -1 chance, -2 simultaneous, -4 terminal (pyspiel.PlayerId)."""
        return self.engine_state.current_player()

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self.engine_state.is_terminal()

    def _legal_actions(self, player: int) -> list[int]:
        """Seat ``player``'s legal actions, sorted (pyspiel calls this for seats only)."""
        return self.engine_state.legal_actions(player)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The chance outcomes here and their probabilities."""
        return self.engine_state.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        """Applies the current player's action or a chance outcome."""
        after_chance = self.engine_state.is_chance_node()
        self.engine_state.apply_action(action)
        rewards = self.engine_state.rewards()
        if after_chance:
            self.pending_rewards = [
                pending + reward
                for pending, reward in zip(self.pending_rewards, rewards, strict=True)
            ]
        else:
            self.pending_rewards = rewards

    def _apply_actions(self, actions: list[int]) -> None:
        """Applies a joint action (one per seat) at a simultaneous node."""
        self.engine_state.apply_actions(list(actions))
        self.pending_rewards = self.engine_state.rewards()

    def _action_to_string(self, player: int, action: int) -> str:
        """The engine's name of ``action`` for ``player`` (-1: chance)."""
        return self.engine_state.action_to_string(player, action)

    def returns(self) -> list[float]:
        """Each seat's total return so far."""
        return self.engine_state.returns()

    def rewards(self) -> list[float]:
        """Each seat's rewards since the previous decision, as OpenSpiel counts them.

        That is the last player action (or joint action) and every chance outcome applied
        after it, so summing ``rewards()`` at decision nodes and at the end gives
        ``returns()`` (what ``rl_environment`` and ``random_sim_test`` rely on). The engine's
        own ``State.rewards()`` covers the last action only.
        """
        return list(self.pending_rewards)

    def resample_from_infostate(self, player: int, probability_sampler: Any) -> CheckraiseState:
        """A state consistent with everything seat ``player`` knows, the rest resampled.

        ``probability_sampler`` is pyspiel's: a callable returning floats in [0, 1) (e.g.
        ``pyspiel.UniformProbabilitySampler(0., 1.)``); it seeds the engine's resampler. The
        result is replayed from the initial state, so its pyspiel history matches the engine's.
        """
        seed = 0
        for _ in range(2):
            seed = (seed << 32) | (int(probability_sampler() * 2**32) & 0xFFFFFFFF)
        engine_sample = self.engine_state.resample_from_infostate(player, seed)
        game = self.get_game()
        sample = game.new_initial_state()
        num_players = game.num_players()
        pending: list[int] = []
        for actor, action in engine_sample.full_history():
            if actor >= 0 and sample.is_simultaneous_node():
                pending.append(action)
                if len(pending) == num_players:
                    sample.apply_actions(pending)
                    pending = []
            else:
                sample.apply_action(action)
        if pending or sample.engine_state.serialize() != engine_sample.serialize():
            raise RuntimeError(
                f"replaying the engine's resampled history of {game} did not reproduce it"
            )
        return sample

    def __reduce__(self) -> tuple[Any, tuple[CheckraiseGame, str]]:
        """Pickles as the game and ``serialize()`` (the game by name and parameters)."""
        return (_load_pickled_state, (self.get_game(), self.serialize()))

    def __str__(self) -> str:
        """The board and hands as text (the engine's ``str(state)``)."""
        return str(self.engine_state)


class CheckraiseObserver:
    """pyspiel's PyObserver protocol over the engine's per-seat views.

    ``perfect_recall=False``: ``tensor`` is the engine's observation tensor (``dict`` holds it
    reshaped to the game's observation shape as ``"observation"``), strings are
    ``observation_string``. ``perfect_recall=True``: ``tensor`` is the engine's
    information-state tensor (``dict["info_state"]``), strings are
    ``information_state_string``.
    """

    def __init__(self, game: _core.Game, perfect_recall: bool) -> None:
        """An observer for ``game`` of the observation or information-state kind."""
        self.perfect_recall = perfect_recall
        if perfect_recall:
            self.tensor = np.zeros(game.information_state_tensor_size(), np.float32)
            shape = game.information_state_tensor_shape()
            self.dict = {"info_state": self.tensor.reshape(shape)}
        else:
            self.tensor = np.zeros(game.observation_tensor_size(), np.float32)
            self.dict = {"observation": self.tensor.reshape(game.observation_shape())}

    def set_from(self, state: CheckraiseState, player: int) -> None:
        """Writes seat ``player``'s observation (or information state) of ``state`` into
        ``tensor``."""
        engine = state.engine_state
        if self.perfect_recall:
            self.tensor[:] = engine.information_state_tensor(player).reshape(-1)
        else:
            self.tensor[:] = engine.observation(player).reshape(-1)

    def string_from(self, state: CheckraiseState, player: int) -> str:
        """Seat ``player``'s observation (or information state) of ``state`` as text."""
        if self.perfect_recall:
            return state.engine_state.information_state_string(player)
        return state.engine_state.observation_string(player)


class CheckraiseBot(pyspiel.Bot):
    """One of the engine's bots (``checkraise.Bot``) as a ``pyspiel.Bot`` playing one seat of a
    checkraise pyspiel game; :func:`make_bot` makes them.

    ``step(state)`` returns the bot's action for its seat (``pyspiel.INVALID_ACTION`` when the
    seat has none, as OpenSpiel's bots do); the engine's bot decides on a state resampled from
    the seat's information state (as every face plays bots), so it sees only what its seat may
    know. The
    bot keeps no memory of the game: ``restart``, ``restart_at`` and ``inform_action`` do
    nothing. Seeded: the same seed and moves give the same actions.
    """

    def __init__(
        self,
        game: CheckraiseGame,
        spec: str = "heuristic",
        player_id: int = 0,
        seed: int = 0,
        **settings: float | str,
    ) -> None:
        """A bot of ``spec`` (keyword settings override the spec's) for seat ``player_id``."""
        pyspiel.Bot.__init__(self)
        if not isinstance(game, CheckraiseGame):
            raise TypeError(
                "make_bot needs a checkraise pyspiel game "
                f"(pyspiel.load_game('checkraise_<name>')), not {type(game).__name__}"
            )
        num_players = game.num_players()
        if isinstance(player_id, bool) or not 0 <= int(player_id) < num_players:
            raise _core.InvalidSeatError(
                f"seat {player_id} does not exist; {game} has seats 0 to {num_players - 1}"
            )
        self.engine_bot = _core.Bot(game.engine_game, spec, seed, **settings)
        """The wrapped ``checkraise.Bot``; its ``spec`` is the canonical spec."""
        self._player_id = int(player_id)
        self._game_name = game.game_name

    def player_id(self) -> int:
        """The seat the bot plays."""
        return self._player_id

    def restart(self) -> None:
        """Nothing to forget: the bot decides from the state alone."""

    def restart_at(self, state: pyspiel.State) -> None:
        """Nothing to forget: the bot decides from the state alone."""

    def inform_action(self, state: pyspiel.State, player_id: int, action: int) -> None:
        """Ignored: the bot reads everything it may know from the state it is given."""

    def provides_policy(self) -> bool:
        """No: the engine's bots give an action, not a policy."""
        return False

    def step(self, state: pyspiel.State) -> int:
        """The bot's action for its seat at ``state`` (a checkraise pyspiel state)."""
        if not isinstance(state, CheckraiseState):
            raise TypeError(
                f"a CheckraiseBot plays checkraise pyspiel states, not {type(state).__name__}"
            )
        engine = state.engine_state
        seat = self._player_id
        if not engine.legal_actions(seat):
            return pyspiel.INVALID_ACTION
        # The engine's bots act on a state resampled from the seat's information.
        return self.engine_bot.act(engine, seat)

    def __repr__(self) -> str:
        return (
            f"<CheckraiseBot {self.engine_bot.spec} for seat {self._player_id} of "
            f"{pyspiel_name(self._game_name)}>"
        )


def make_bot(
    game: CheckraiseGame,
    spec: str = "heuristic",
    player_id: int = 0,
    seed: int = 0,
    **settings: float | str,
) -> CheckraiseBot:
    """The engine's bot of ``spec`` as a ``pyspiel.Bot`` for seat ``player_id`` of ``game``.

    ``spec`` is a bot spec (``"random"``, ``"heuristic"``, ``"ismcts"``,
    ``"ismcts(iterations=500,rollout=random)"``); keyword ``settings`` override the spec's
    (``make_bot(game, "ismcts", 0, iterations=500)``). A bad spec raises the engine's
    ``checkraise.ParameterError`` naming the setting. Give each seat's bot its own ``seed``.
    """
    return CheckraiseBot(game, spec, player_id, seed, **settings)


def _load_pickled_game(name: str, params: dict[str, Any]) -> CheckraiseGame:
    """Loads a pickled game back through pyspiel (the inverse of ``CheckraiseGame.__reduce__``)."""
    register()
    return pyspiel.load_game(pyspiel_name(name), params)


def _load_pickled_state(game: CheckraiseGame, text: str) -> CheckraiseState:
    """Reads a pickled state back (the inverse of ``CheckraiseState.__reduce__``)."""
    return game.deserialize_state(text)


def _game_class(name: str) -> type[CheckraiseGame]:
    """The ``CheckraiseGame`` subclass for checkraise game ``name``, a module attribute.

    pyspiel holds the factory it is given until after the interpreter has shut down and
    releases it then without the GIL, which crashes the process if that was the last
    reference. A class stays referenced (by this module and its own reference cycles), a
    closure would not; and pickle finds a module-level class by name.
    """
    class_name = "CheckraiseGame_" + name
    game_class = type(
        class_name,
        (CheckraiseGame,),
        {
            "game_name": name,
            "__module__": __name__,
            "__qualname__": class_name,
            "__doc__": f"checkraise's {name} as the pyspiel game {pyspiel_name(name)}.",
        },
    )
    globals()[class_name] = game_class
    return game_class


def register() -> list[str]:
    """Registers every checkraise game with pyspiel; returns their pyspiel names.

    Idempotent: games already registered (by this module, in this process) are skipped, so
    calling it again only adds games that the engine has gained since.
    """
    known = set(pyspiel.registered_names())
    for entry in _core.games():
        name = entry["name"]
        if name in _registered:
            continue
        game_class = _game_class(name)
        if pyspiel_name(name) not in known:
            pyspiel.register_game(game_type(entry), game_class)
        _registered[name] = game_class
    return [pyspiel_name(name) for name in _registered]


def load_game(name: str, **params: int | bool | str) -> CheckraiseGame:
    """``pyspiel.load_game`` of checkraise game ``name`` (with or without the prefix)."""
    register()
    if not name.startswith(PREFIX):
        name = pyspiel_name(name)
    return pyspiel.load_game(name, params)


register()
