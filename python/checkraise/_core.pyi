"""Typed stubs for ``checkraise._core``, the Rust engine's Python module."""

from collections.abc import Callable, Sequence
from typing import Any, Literal, TypeAlias, final

import numpy as np
import numpy.typing as npt

from checkraise.types import BotEntry, GameEntry, SearchResult

__version__: str
__all__ = [
    "ActionStringError",
    "ArenaReport",
    "Bot",
    "CheckraiseError",
    "DeserializationError",
    "Driver",
    "Env",
    "Game",
    "GameOverError",
    "GameTree",
    "IllegalActionError",
    "InvalidSeatError",
    "Match",
    "OutOfTurnError",
    "ParameterError",
    "PolicyFileError",
    "PolicyNet",
    "SolveError",
    "Solver",
    "State",
    "UnknownGameError",
    "UnknownParameterError",
    "VectorEnv",
    "__version__",
    "_parse_opponent_pool",
    "_restore_bot",
    "_restore_driver",
    "_restore_env",
    "_restore_match",
    "_restore_vector_env",
    "arena_run",
    "bot_action",
    "bots",
    "game_names",
    "games",
    "make",
    "read_safetensors",
    "safetensors_bytes",
    "shipped_policy",
]

class CheckraiseError(ValueError):
    """Base of every checkraise error (a ValueError); the message is the engine's."""

class UnknownGameError(CheckraiseError):
    """No game of that name is registered."""

class ParameterError(CheckraiseError):
    """A game parameter that does not exist or has a value that is not allowed."""

class UnknownParameterError(ParameterError, TypeError):
    """A keyword that names no parameter of the game or setting of the bot: a
    ParameterError and also a TypeError (as for an unexpected keyword argument)."""

class IllegalActionError(CheckraiseError):
    """An action that is not legal here; the state is unchanged."""

class OutOfTurnError(CheckraiseError):
    """Acting when it is another player's turn (or a single action at a simultaneous node)."""

class GameOverError(CheckraiseError):
    """Acting on a finished game."""

class InvalidSeatError(CheckraiseError):
    """A seat number outside the game."""

class ActionStringError(CheckraiseError):
    """A string that names no action for that player here."""

class DeserializationError(CheckraiseError):
    """A serialized state that cannot be read back."""

class SolveError(CheckraiseError):
    """A game too large (or of the wrong kind) to solve exactly, or a policy that does not fit
    the game it is measured on."""

class PolicyFileError(CheckraiseError):
    """A policy or safetensors file that cannot be read, or a policy that does not fit the
    game it is used for."""

def games() -> list[GameEntry]:
    """Every registered game: its facts and parameter schemas."""

def game_names() -> list[str]:
    """The registered game names."""

def make(name: str, **params: int | bool | str) -> Game:
    """Makes a game: ``make("pokeros", players=3)`` or ``make("pokeros(players=3)")``.

    Raises UnknownGameError or ParameterError (both ValueError) with the engine's message.
    """

@final
class Game:
    """A game with its parameters fixed: sizes, facts, and a factory for states."""

    @property
    def name(self) -> str:
        """The registry name, e.g. ``pokeros``."""
    @property
    def parameters(self) -> dict[str, int | bool | str]:
        """The validated parameters, defaults filled in."""
    @property
    def info(self) -> GameEntry:
        """The game's facts and parameter schemas, as one entry of ``games()``."""
    @property
    def observation_size(self) -> int:
        """Number of floats in an observation."""
    def num_players(self) -> int:
        """Number of seats."""
    def num_distinct_actions(self) -> int:
        """Size of the seats' action space."""
    def max_chance_outcomes(self) -> int:
        """Size of the chance outcome space."""
    def observation_shape(self) -> tuple[int, ...]:
        """Shape of ``State.observation_tensor(p)``."""
    def observation_bounds(self) -> tuple[float, float]:
        """``(low, high)``: every observation entry lies within them."""
    def action_features(self) -> int | None:
        """The first index of the observation's block of one entry per action (Pokeros with
        ``observation="placements"``), or ``None``."""
    def compact_layout(self) -> dict[str, Any]:
        """The compact encoding's layout: ``observation_size``, ``bit_bytes``,
        ``scalar_indices`` (the non-binary entries, as float32 after the bits), ``row_bytes``
        and ``mask_bytes``."""
    def observation_tensor_shape(self) -> list[int]:
        """``observation_shape()`` as a list (OpenSpiel's name)."""
    def observation_tensor_size(self) -> int:
        """Number of floats in an observation (OpenSpiel's name)."""
    def information_state_tensor_shape(self) -> list[int]:
        """Shape of ``State.information_state_tensor(p)`` (OpenSpiel's name)."""
    def information_state_tensor_size(self) -> int:
        """Number of floats in an information-state tensor (OpenSpiel's name)."""
    def min_utility(self) -> float:
        """Smallest possible return of a seat."""
    def max_utility(self) -> float:
        """Largest possible return of a seat."""
    def utility_sum(self) -> float | None:
        """The constant the returns always sum to, or None."""
    def max_game_length(self) -> int:
        """An upper bound on the number of actions (chance included) in one game."""
    def new_initial_state(self) -> State:
        """The state before anything happened; chance nodes stay explicit."""
    def deserialize_state(self, text: str) -> State:
        """Reads back a state written by ``State.serialize()``."""
    def __reduce__(self) -> tuple[Any, tuple[str]]: ...
    def __hash__(self) -> int: ...
    def __eq__(self, other: object, /) -> bool: ...

@final
class State:
    """A position of a game; methods follow OpenSpiel's ``pyspiel.State``."""

    def current_player(self) -> int:
        """A seat, or -1 chance, -2 simultaneous, -4 terminal."""
    def num_players(self) -> int:
        """Number of seats."""
    def get_game(self) -> Game:
        """The game this state belongs to."""
    def is_terminal(self) -> bool:
        """Whether the game is over."""
    def is_chance_node(self) -> bool:
        """Whether nature acts now."""
    def is_simultaneous_node(self) -> bool:
        """Whether all seats choose at once now (use ``apply_actions``)."""
    def is_player_node(self) -> bool:
        """Whether a single seat acts now."""
    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The chance outcomes here and their probabilities."""
    def legal_actions(self, player: int | None = None) -> list[int]:
        """Legal actions of ``player`` (default: the current player), sorted."""
    def legal_actions_mask(self, player: int | None = None) -> npt.NDArray[np.bool_]:
        """Legal actions as a bool mask over the action (or chance outcome) space."""
    def action_mask(self, player: int | None = None) -> npt.NDArray[np.bool_]:
        """The same mask as ``legal_actions_mask`` (OpenSpiel's name), under the mask's one
        name in every face."""
    def apply_action(self, action: int, player: int | None = None) -> None:
        """Applies the current player's action; with ``player``, checks the turn first."""
    def apply_actions(self, actions: list[int]) -> None:
        """Applies a joint action (one per seat) at a simultaneous node."""
    def returns(self) -> list[float]:
        """Each seat's total return so far."""
    def player_return(self, player: int) -> float:
        """Seat ``player``'s return so far."""
    def rewards(self) -> list[float]:
        """Each seat's reward from the last action."""
    def history(self) -> list[int]:
        """Every action applied so far, chance included."""
    def full_history(self) -> list[tuple[int, int]]:
        """Every action applied so far as (player, action); chance is -1."""
    def move_number(self) -> int:
        """Number of actions applied so far, chance included."""
    def action_to_string(self, player_or_action: int, action: int | None = None, /) -> str:
        """``action_to_string(player, action)``, or ``action_to_string(action)`` for the
        current player: a readable, unique name for the action."""
    def string_to_action(self, player_or_text: int | str, text: str | None = None, /) -> int:
        """``string_to_action(player, text)``, or ``string_to_action(text)`` for the current
        player: the inverse of ``action_to_string``."""
    def observation_tensor(self, player: int | None = None) -> npt.NDArray[np.float32]:
        """Seat ``player``'s observation, float32 of ``game.observation_shape()``."""
    def observation(self, player: int | None = None) -> npt.NDArray[np.float32]:
        """The same as ``observation_tensor(player)``."""
    def observation_compact(self, player: int | None = None) -> npt.NDArray[np.uint8]:
        """Seat ``player``'s observation as a compact uint8 row (``unpack_observations``)."""
    def observation_string(self, player: int | None = None) -> str:
        """Seat ``player``'s current observation as text."""
    def information_state_string(self, player: int | None = None) -> str:
        """Seat ``player``'s information state as text."""
    def information_state_tensor(self, player: int | None = None) -> npt.NDArray[np.float32]:
        """Seat ``player``'s information state, float32 of
        ``game.information_state_tensor_shape()``: fixed size, perfect recall (the current
        observation, then a row per history entry: who acted and what this seat saw of it)."""
    def view(self, player: int | None = None) -> dict[str, Any]:
        """What seat ``player`` may know (None: a spectator) as a dict."""
    def everyone_view(self) -> dict[str, Any]:
        """Every seat's information together (every card a seat holds face up), as a finished
        match's replay shows it; for after the end."""
    def action_struct(self, action: int, player: int | None = None) -> dict[str, Any] | None:
        """Seat ``player``'s ``action`` (default: the current player's) as the game's action
        struct (``docs/actions/<game>.schema.json``); None for an id outside the seat's
        action space."""
    def action_from_struct(self, fields: dict[str, Any], player: int | None = None) -> int:
        """The legal action of seat ``player`` (default: the current player) whose action
        struct has every field of ``fields`` with the same value."""
    def resample_from_infostate(self, player: int, seed: int) -> State:
        """A state consistent with everything ``player`` knows, the rest resampled."""
    def sample_chance(self, seed: int) -> list[int]:
        """Applies sampled chance outcomes until a decision point; returns them."""
    def clone(self) -> State:
        """An independent copy."""
    def serialize(self) -> str:
        """The whole state as text; ``game.deserialize_state`` reads it back."""
    def _repr_svg_(self) -> str:
        """Jupyter's picture from the spectator's side (hidden cards face down)."""
    def _repr_html_(self) -> str:
        """The spectator's picture as an HTML fragment with a caption."""
    def __copy__(self) -> State: ...
    def __deepcopy__(self, memo: dict[int, Any]) -> State: ...
    def __reduce__(self) -> tuple[Any, tuple[str]]: ...

@final
class Bot:
    """An engine bot for one game from a bot spec (``random``, ``heuristic``, ``ismcts``,
    ``ismcts(iterations=2000,rollout=random)``, ``policy``, ``policy(path=FILE)``, the
    best-response search ``br(target=policy,iterations=2000)``, and for small games ``cfr`` /
    ``cfr(iterations=1000,algorithm=cfr+)``), with its own seeded generator. Keyword settings
    override the spec's; ``None`` leaves a setting as it is. A ``policy`` bot plays only the
    game (parameters included) it was trained on, a ``cfr`` bot the game it solved."""

    def __new__(
        cls,
        game: Game | str,
        # The literals are completions for editors; any bot spec string is accepted.
        kind: Literal["heuristic", "random", "ismcts", "policy", "cfr", "br"] | str = "heuristic",  # noqa: PYI051
        seed: int = 0,
        **settings: float | str | None,
    ) -> Bot: ...
    @property
    def kind(self) -> str:
        """``random``, ``heuristic``, ``ismcts``, ``policy``, ``cfr`` or ``br``."""
    @property
    def spec(self) -> str:
        """The canonical spec, every setting included; ``Bot(game, bot.spec)`` is the same bot."""
    def act(self, state: State, seat: int | None = None) -> int:
        """The bot's action for ``seat`` (default: the current player), decided on a state
        resampled from the seat's information state."""
    def search(self, state: State, seat: int | None = None) -> SearchResult:
        """An IS-MCTS (or ``br``) bot's search: the action, iterations, nodes, deals
        (determinizations searched) and root statistics."""

@final
class Driver:
    """The engine's one driver: plays chance and bot seats of a game until a seat played from
    Python must decide. ``bots[s]`` is a bot spec, or ``None`` for a seat played from Python.
    Every bot acts on a state resampled from its own seat's information."""

    def __new__(cls, game: Game | str, bots: Sequence[str | None], seed: int = 0) -> Driver: ...
    def advance(self, state: State) -> Literal["decide", "over"]:
        """Plays chance and bots until a Python seat must decide (``"decide"``) or the end."""
    def play(self, state: State, seat: int, action: int) -> None:
        """Plays ``seat``'s decision (held at a simultaneous node until every seat chose)."""
    def has_chosen(self, seat: int) -> bool:
        """Whether ``seat`` has chosen at the current simultaneous node."""

@final
class Match:
    """A game in play against the engine's bots, as every face plays one: its state, the
    driver that plays chance and the bot seats, a version counting the decision steps applied,
    each seat's latest decision and each seat's reward since it last took it. ``bots[s]`` is a
    bot spec, or ``None`` for a seat played from Python."""

    def __new__(cls, game: Game | str, bots: Sequence[str | None], seed: int = 0) -> Match: ...
    def start(self) -> Literal["decide", "over"]:
        """Deals and lets the bots play up to the first decision from Python, or the end."""
    def advance(self) -> Literal["decide", "over"]:
        """Lets chance and the bots act until a Python seat must decide, or the end."""
    def act(
        self, seat: int, action: int | str, expected_version: int | None = None
    ) -> Literal["applied", "already_applied"]:
        """Plays ``seat``'s action (id or text), then the bots; retry-safe with
        ``expected_version``."""
    def decide(self, seat: int, action: int) -> bool:
        """Plays ``seat``'s decision without the bots; whether the choice is held."""
    def take_reward(self, seat: int) -> float:
        """``seat``'s return since it last took its reward, and takes it."""
    def waiting(self) -> list[int]:
        """The seats played from Python that must decide now."""
    def has_chosen(self, seat: int) -> bool:
        """Whether ``seat`` has chosen at the current simultaneous node."""
    @property
    def version(self) -> int:
        """The number of decision steps applied."""
    def decision(self, seat: int) -> tuple[int, int, str] | None:
        """``seat``'s latest decision as ``(version, action, text)``."""
    @property
    def game(self) -> Game:
        """The game."""
    @property
    def bot_specs(self) -> list[str | None]:
        """The seats' bot specs as the engine writes them (``None``: played from Python)."""
    def state(self) -> State:
        """A copy of the state (every hidden card included)."""
    def is_terminal(self) -> bool:
        """Whether the game is over."""
    def returns(self) -> list[float]:
        """Each seat's return so far."""
    def observation(self, seat: int) -> npt.NDArray[np.float32]:
        """``seat``'s observation."""
    def action_mask(self, seat: int) -> npt.NDArray[np.bool_]:
        """``seat``'s legal actions as a bool mask."""
    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]: ...

def bot_action(
    state: State,
    seat: int | None = None,
    kind: str = "heuristic",
    seed: int = 0,
    **settings: float | str | None,
) -> int:
    """The action a bot of ``kind`` (a bot spec) seeded with ``seed`` takes for ``seat`` at
    ``state``."""

def shipped_policy(name: str) -> bytes:
    """The bytes of the policy file shipped for game ``name`` (the bot spec ``policy``)."""

@final
class PolicyNet:
    """A policy network read from a policy file's bytes (the format ``checkraise.policy``
    describes), run by the engine: the same reader and forward pass as the bot spec
    ``policy``. ``checkraise.policy.Policy`` wraps it."""

    def __new__(cls, data: bytes) -> PolicyNet:
        """Reads a policy file's bytes; :class:`PolicyFileError` says what is wrong."""
    @staticmethod
    def shipped(name: str) -> PolicyNet:
        """The policy shipped for game ``name`` (the bot spec ``policy``)."""
    @property
    def game(self) -> str:
        """The game string it was trained on, parameters included."""
    @property
    def metadata(self) -> dict[str, str]:
        """The file's metadata."""
    @property
    def observation_size(self) -> int:
        """Entries of the observation it reads."""
    @property
    def num_actions(self) -> int:
        """Logits it writes (the game's distinct actions)."""
    def layers(self) -> list[tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]]:
        """The hidden layers' ``(weight, bias)`` (weights ``[inputs, outputs]``), copies."""
    def head(self) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """The logits layer's ``(weight, bias)``, copies."""
    @property
    def action_features(self) -> tuple[int, float] | None:
        """The action-features link ``(offset, weight)``: ``weight * observation[offset + a]``
        is added to action ``a``'s logit; ``None`` for a plain network."""
    def check_game(self, game: Game | str) -> None:
        """Raises :class:`PolicyFileError` unless it was trained on ``game`` (the same game
        string) and fits its observation and action sizes."""
    def observation(self, state: State, seat: int) -> npt.NDArray[np.float32]:
        """The observation row it reads for ``seat`` at ``state``: the seat's own, or for a
        policy trained with another ``observation`` parameter the seat's observation of the
        same history in that variant."""
    def logits(self, observations: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """The logits of each row of ``observations`` (``[rows, observation_size]``,
        float32)."""
    def actions(
        self, observations: npt.NDArray[np.float32], masks: npt.NDArray[np.bool_]
    ) -> npt.NDArray[np.int64]:
        """The legal action (``masks[i]``, bool, one entry per action) of highest logit for
        each row, ties to the lowest action; a row with no legal action is an error."""

def read_safetensors(data: bytes) -> tuple[dict[str, npt.NDArray[Any]], dict[str, str]]:
    """The tensors (numpy arrays: float32, float64 or int64) and string metadata of a
    safetensors file's bytes; a malformed file raises :class:`PolicyFileError`."""

def safetensors_bytes(
    tensors: dict[str, npt.NDArray[Any]], metadata: dict[str, str] | None = None
) -> bytes:
    """The bytes of a safetensors file holding ``tensors`` (name to a float32, float64 or
    int64 array) and string ``metadata``."""

def bots() -> list[BotEntry]:
    """The bot kinds and their settings."""

@final
class ArenaReport:
    """An arena run's results, computed by the engine (``checkraise.arena.run`` wraps it)."""

    def to_json(self) -> str:
        """The whole result as JSON text."""
    def to_markdown(self) -> str:
        """The ratings and pairs as markdown tables."""
    def to_csv(self) -> str:
        """Pairs and ratings as one CSV table."""
    def to_dict(self) -> dict[str, Any]:
        """The whole result as a dict."""

def arena_run(
    game: Game | str,
    bots: Sequence[str],
    deals: int = 100,
    seed: int = 0,
    bootstrap: int = 200,
    progress: Callable[[int, int], object] | None = None,
) -> ArenaReport:
    """Plays every pair of ``bots`` at ``game`` and rates them (``checkraise.arena.run``)."""

_SolvePolicy: TypeAlias = dict[str, dict[int, float]]

@final
class GameTree:
    """A game's whole tree, enumerated once, and exact measures of tabular policies on it
    (``checkraise.solve``)."""

    def __new__(cls, game: Game | str, *, max_nodes: int = 10_000_000) -> GameTree: ...
    @property
    def game(self) -> str:
        """The game string."""
    @property
    def num_players(self) -> int:
        """Seats."""
    @property
    def num_nodes(self) -> int:
        """Nodes (histories, chance and terminal included)."""
    @property
    def num_terminals(self) -> int:
        """Terminal histories."""
    def infosets(self) -> list[tuple[str, int, list[int]]]:
        """Every information state as ``(key, seat, legal actions)``."""
    def uniform_policy(self) -> _SolvePolicy:
        """The uniform policy on every information state."""
    def policy_values(self, policy: _SolvePolicy) -> list[float]:
        """Every seat's expected return when every seat plays ``policy``."""
    def best_response(self, policy: _SolvePolicy, seat: int) -> tuple[float, _SolvePolicy]:
        """``(value, response)`` of ``seat``'s best response to the others' parts of ``policy``."""
    def nash_conv(self, policy: _SolvePolicy) -> float:
        """NashConv of ``policy``."""
    def exploitability(self, policy: _SolvePolicy) -> float:
        """Exploitability of ``policy`` (constant-sum games)."""

@final
class Solver:
    """A CFR-family solver of one game (``checkraise.solve``)."""

    def __new__(
        cls,
        game: Game | str,
        algorithm: str = "cfr+",
        *,
        seed: int = 0,
        alpha: float = 1.5,
        beta: float = 0.0,
        gamma: float = 2.0,
        max_nodes: int = 10_000_000,
    ) -> Solver: ...
    def run(self, iterations: int) -> None:
        """Runs ``iterations`` more iterations."""
    @property
    def iterations(self) -> int:
        """Iterations run so far."""
    @property
    def algorithm(self) -> str:
        """The algorithm's name."""
    @property
    def game(self) -> str:
        """The game string."""
    def average_policy(self) -> _SolvePolicy:
        """The average policy."""
    def current_policy(self) -> _SolvePolicy:
        """The current policy."""
    def nash_conv(self) -> float:
        """NashConv of the average policy."""
    def exploitability(self) -> float:
        """Exploitability of the average policy."""

@final
class Env:
    """One game from a seed, chance resolved, so callers see only decision points."""

    def __new__(cls, game: Game | str, seed: int = 0, **params: int | bool | str) -> Env: ...
    @property
    def game(self) -> Game:
        """The game."""
    def reset(self, seed: int | None = None) -> None:
        """Starts a new game (continuing the stream, or from ``seed``)."""
    def step(self, action: int) -> list[float]:
        """Applies the current seat's action, resolves chance; returns each seat's reward."""
    def step_joint(self, actions: list[int]) -> list[float]:
        """Applies a joint action at a simultaneous node; returns each seat's reward."""
    def state(self) -> State:
        """A copy of the current state."""
    def current_player(self) -> int:
        """A seat, -2 simultaneous or -4 terminal (never chance)."""
    def is_terminal(self) -> bool:
        """Whether the game is over."""
    def legal_actions(self, player: int | None = None) -> list[int]:
        """Legal actions of ``player`` (default: the current player), sorted."""
    def action_mask(self, player: int | None = None) -> npt.NDArray[np.bool_]:
        """The legal actions of ``player`` (default: the current player) as a bool mask."""
    def observation(self, player: int | None = None) -> npt.NDArray[np.float32]:
        """Seat ``player``'s observation."""
    def observation_compact(self, player: int | None = None) -> npt.NDArray[np.uint8]:
        """Seat ``player``'s observation as a compact uint8 row (``unpack_observations``)."""
    def returns(self) -> list[float]:
        """Each seat's total return so far."""

#: One opponent: a bot spec, a ``Bot`` or a policy file's bytes.
_OpponentEntry: TypeAlias = str | Bot | bytes | bytearray | memoryview
#: ``VectorEnv``'s ``opponent``: one entry, a list of entries or ``(entry, weight)`` pairs, or a
#: dict entry -> weight.
_OpponentPool: TypeAlias = (
    _OpponentEntry
    | Sequence[_OpponentEntry | tuple[_OpponentEntry, float]]
    | dict[str | bytes, float]
)

@final
class VectorEnv:
    """Many envs of one game stepped together across threads, Gymnasium-style.

    Env ``i`` is seeded with ``seed + i``. ``step`` returns read-only views of the env's own
    arrays, overwritten by every ``reset`` and ``step``: copy what you keep (or pass
    ``copy=True`` for fresh, writable arrays). Auto-reset is Gymnasium's next-step mode, or
    same-step with ``autoreset_mode="same_step"`` (final observations in ``info["final_obs"]``);
    ``info["final_returns"]`` holds the returns of the games a step ended, in both modes.

    With ``opponent=`` the engine plays every seat but the learner's ``seat`` (a number, or
    ``"random"`` for a seat drawn every game) from a weighted pool of bot specs, ``Bot`` objects and
    policy files' bytes; each env then stops only at its learner's decisions, with one row,
    one action and one reward per env.
    """

    def __new__(
        cls,
        game: Game | str,
        num_envs: int,
        seed: int | None = None,
        *,
        observer: Literal["current", "all"] | int | None = None,
        max_episode_steps: int | None = None,
        autoreset_mode: Literal["next_step", "same_step", "NextStep", "SameStep"]
        | Any
        | None = None,
        copy: bool = False,
        observation_encoding: Literal["float32", "compact"] = "float32",
        opponent: _OpponentPool | None = None,
        seat: int | Literal["random"] | None = None,
        **params: int | bool | str,
    ) -> VectorEnv:
        """``observer`` defaults to ``"current"`` (sequential games) or ``"all"`` (games with
        simultaneous moves); ``autoreset_mode`` to ``"next_step"`` (also accepted: Gymnasium's
        ``AutoresetMode.NEXT_STEP``/``SAME_STEP``). ``observation_encoding="compact"`` writes
        uint8 compact observation rows and packed masks (``checkraise.unpack_observations``,
        ``checkraise.unpack_action_masks``)."""
    def reset(
        self, seed: int | Sequence[int | None] | None = None
    ) -> tuple[npt.NDArray[Any], dict[str, npt.NDArray[Any]]]:
        """Starts new games (env ``i`` from ``seed + i``, or from ``seed[i]`` given one seed
        per env); returns ``(observations, info)``."""
    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[
        npt.NDArray[Any],
        npt.NDArray[np.float32],
        npt.NDArray[np.bool_],
        npt.NDArray[np.bool_],
        dict[str, npt.NDArray[Any]],
    ]:
        """Steps every env; returns ``(observations, rewards, terminated, truncated, info)``."""
    def close(self) -> None:
        """Ends the env: later ``reset``/``step``/``sample_actions``/``state`` raise."""
    @property
    def closed(self) -> bool:
        """Whether ``close()`` was called."""
    @property
    def has_opponents(self) -> bool:
        """Whether the engine plays every seat but the learner's."""
    @property
    def opponent_pool(self) -> list[tuple[str | bytes, float]] | None:
        """The pool as ``[(spec or policy bytes, weight)]``; ``None`` without opponents."""
    @property
    def seat(self) -> int | Literal["random"] | None:
        """The learner's seat as given; ``None`` without opponents."""
    @property
    def learner_seats(self) -> npt.NDArray[np.int64]:
        """Each env's learner seat in its current game (-1 without opponents)."""
    @property
    def opponent_indices(self) -> npt.NDArray[np.int64]:
        """The pool entry playing each seat of each env (-1 for the learner's seat)."""
    @property
    def skipped_games(self) -> int:
        """Games that ended before the learner's first decision, skipped."""
    def __enter__(self) -> VectorEnv: ...
    def __exit__(self, kind: object, value: object, traceback: object) -> bool: ...
    def sample_actions(self) -> npt.NDArray[np.int64]:
        """Uniformly random legal actions for the next ``step``, shaped ``action_shape``.

        Drawn in Rust, env ``i`` from its own stream seeded from ``seed + i``; 0 where a seat
        has no legal action and for envs that just ended (``step`` ignores those)."""
    def state(self, index: int) -> State:
        """A copy of env ``index``'s state."""
    @property
    def game(self) -> Game:
        """The game."""
    @property
    def num_envs(self) -> int:
        """Number of envs."""
    @property
    def num_players(self) -> int:
        """Number of seats."""
    @property
    def observer(self) -> str | int:
        """``"current"``, ``"all"`` or a seat number."""
    @property
    def action_shape(self) -> tuple[int, ...]:
        """``(num_envs,)``, or ``(num_envs, num_players)`` for simultaneous games."""
    @property
    def observations(self) -> npt.NDArray[Any]:
        """Observations, float32 ``(num_envs, [num_players,] *observation_shape)``; compact:
        uint8 ``(num_envs, [num_players,] row_bytes)``."""
    @property
    def action_masks(self) -> npt.NDArray[Any]:
        """Action masks, bool ``(num_envs, [num_players,] num_distinct_actions)``; compact:
        packed bits, uint8 ``(..., ceil(num_distinct_actions / 8))``."""
    @property
    def observation_encoding(self) -> Literal["float32", "compact"]:
        """How observations and masks are written."""
    @property
    def current_players(self) -> npt.NDArray[np.int32]:
        """Who acts in each env: a seat, -2 simultaneous, -4 terminal."""
    @property
    def rewards(self) -> npt.NDArray[np.float32]:
        """Each seat's reward from the last step, ``(num_envs, num_players)``."""
    @property
    def terminated(self) -> npt.NDArray[np.bool_]:
        """Whether the last step ended each env's game."""
    @property
    def truncated(self) -> npt.NDArray[np.bool_]:
        """Whether the last step hit ``max_episode_steps``."""
    @property
    def final_returns(self) -> npt.NDArray[np.float32]:
        """Returns of the games the last step ended, ``(num_envs, num_players)``; else 0."""
    @property
    def final_observations(self) -> npt.NDArray[Any] | None:
        """Same-step mode: final observations of the games the last step ended (zeros
        elsewhere); ``None`` in next-step mode."""
    @property
    def autoreset_mode(self) -> Literal["next_step", "same_step"]:
        """When an env whose game ended starts the next one."""
    def __len__(self) -> int: ...

# Unpickling helpers: ``__reduce__`` of Env, VectorEnv, Bot and Driver names them.
def _restore_env(game: Game | str, snapshot: str) -> Env: ...
def _restore_vector_env(
    game: Game | str,
    snapshot: str,
    copy: bool,
    last: tuple[Any, ...],
    opponent: _OpponentPool | None = None,
    seat: int | Literal["random"] | None = None,
) -> VectorEnv: ...
def _parse_opponent_pool(opponent: _OpponentPool) -> list[tuple[str | bytes, float]]:
    """``opponent`` read as ``VectorEnv`` reads it: ``[(spec or policy bytes, weight)]``."""

def _restore_bot(game: str, spec: str, rng: str) -> Bot: ...
def _restore_driver(game: Game | str, bots: Sequence[str | None], state: str) -> Driver: ...
def _restore_match(
    game: Game | str, bots: Sequence[str | None], state: str, progress: str, started: bool
) -> Match: ...
