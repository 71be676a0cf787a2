"""Typed shapes of the dicts checkraise returns (for type checkers and editors)."""

from typing import TypedDict


class ParameterSchema(TypedDict):
    """One game parameter: its type, allowed values, default and meaning."""

    name: str
    kind: str  # "int", "bool", "choice" or "text"
    min: int | None
    max: int | None
    options: list[str] | None
    default: int | bool | str
    description: str


class GameEntry(TypedDict):
    """A registered game: its facts and parameter schemas."""

    name: str
    long_name: str
    description: str
    min_players: int
    max_players: int
    chance: str  # "deterministic" or "explicit_stochastic"
    information: str  # "perfect" or "imperfect"
    dynamics: str  # "sequential" or "simultaneous"
    utility: str  # "zero_sum", "constant_sum" or "general_sum"
    reward_model: str  # "terminal" or "rewards"
    parameters: dict[str, ParameterSchema]


class BotSetting(TypedDict):
    """One setting of a bot kind: its allowed values, default (as text) and meaning."""

    name: str
    allowed: str
    default: str  # "none": not set
    description: str


class BotEntry(TypedDict):
    """A bot kind and its settings (``checkraise.bots()``)."""

    kind: str  # "random", "heuristic", "ismcts", "policy", "cfr" or "br"
    settings: list[BotSetting]


class SearchResult(TypedDict):
    """What one IS-MCTS search found (``checkraise.Bot.search``)."""

    action: int
    iterations: int
    nodes: int
    root: list[tuple[int, int, float]]  # (action, visits, mean return) per legal action
