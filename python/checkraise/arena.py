"""The arena: rates bots on one game by playing them against each other.

::

    import checkraise as cr

    result = cr.arena.run("pokeros", ["random", "heuristic", "ismcts(iterations=200)"], deals=50)
    result                     # in Jupyter: the ratings and pairs as tables
    print(result)              # the same as markdown
    best = result.ratings[0]   # Rating(bot='heuristic', rating=512.3, ci=(455.0, 580.1), ...)
    result.to_pandas()         # ratings as a DataFrame; to_pandas("pairs") for the pairs

Every pair of bots plays ``deals`` deals; a deal is one chance seed played with every seating
of the pair (two seats: A–B and B–A; more: the two bots alternate around the table in every
distinct rotation), so the luck of the cards mostly cancels; every bot acts on a state
resampled from its own seat's information. The engine plays the games on every core
(``RAYON_NUM_THREADS`` to choose), without the GIL, and its results do not depend on the
number of threads: the same arguments give the same result.

Results (computed by the engine, ``checkraise_core::arena``):

- ``pairs``: for every ordered pair (bot, opponent), in bot order, the bot's mean return per
  seat with a 95% confidence interval (the deal is the unit) and its win rate (a game is a win
  when its seats' mean return beats the opponent's; a tie counts half) with a 95% Wilson
  interval.
- ``ratings``: Bradley–Terry ratings on the Elo scale, best first, anchored at ``random`` = 0
  (or at the first bot when ``random`` does not play), with 95% bootstrap intervals; where the
  engine reports it, also a rating on mean return (``return_rating``, ``return_ci``).

Bots are bot specs, as ``checkraise.Bot`` takes them (``"random"``, ``"heuristic"``,
``"ismcts(iterations=2000,rollout=random)"``), or ``checkraise.Bot`` objects (their ``spec``
is used; the arena seeds every bot itself). Bad arguments raise the engine's
``checkraise.ParameterError`` (a ``ValueError``) naming what is wrong: fewer than two bots, the
same spec twice, an unknown bot or setting, ``deals`` below 1; an unknown game raises
``checkraise.UnknownGameError``.

Progress: with ``progress=True`` (the default) and `tqdm <https://tqdm.github.io>`_ installed,
a progress bar counts the deals once a run has lasted half a second (``tqdm.auto``: a widget in
Jupyter, text elsewhere); without tqdm there is none. ``progress`` may also be a callable
``progress(done, total)``, called on the calling thread. Ctrl-C raises ``KeyboardInterrupt``
at once, but the engine cannot stop an arena midway: the deals already started go on in the
background until they are all done, and their result is dropped.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from . import _core

__all__ = ["ArenaResult", "PairResult", "Rating", "run"]


@dataclass(frozen=True)
class PairResult:
    """One ordered pair's results: ``bot`` measured against ``opponent``."""

    bot: str
    """The bot measured (its spec as given)."""
    opponent: str
    """Its opponent."""
    games: int
    """Games played: deals × seatings."""
    mean: float
    """The bot's mean return per seat."""
    mean_ci: tuple[float, float]
    """95% confidence interval of ``mean`` (normal, over deals)."""
    win_rate: float
    """The bot's wins (ties count half) over games."""
    win_ci: tuple[float, float]
    """95% Wilson interval of ``win_rate``."""


@dataclass(frozen=True)
class Rating:
    """One bot's rating."""

    bot: str
    """The bot spec, as given."""
    rating: float
    """Bradley–Terry rating on the Elo scale; the anchor bot is 0."""
    ci: tuple[float, float]
    """95% bootstrap interval."""
    return_rating: float | None = None
    """Least-squares rating on mean return per seat (the game's return units, the anchor at
    0), where the engine reports one; ``None`` otherwise."""
    return_ci: tuple[float, float] | None = None
    """95% bootstrap interval of ``return_rating`` (``None`` with it)."""


def _pair(values: Any) -> tuple[float, float]:
    return (values[0], values[1])


def _rating(r: dict[str, Any]) -> Rating:
    returns = r.get("return_rating")
    return Rating(
        bot=r["bot"],
        rating=r["rating"],
        ci=_pair(r["ci"]),
        return_rating=returns,
        return_ci=_pair(r["return_ci"]) if returns is not None else None,
    )


@dataclass(frozen=True)
class ArenaResult:
    """An arena run's results (see the module docstring): ``pairs`` and ``ratings``, and the
    run's ``game``, ``bots``, ``deals``, ``seatings`` (per deal), ``seed`` and ``anchor`` (the
    bot rated 0).

    Shows as tables in Jupyter (``_repr_html_``, ``_repr_markdown_``); ``str()`` is the
    markdown. ``to_markdown``, ``to_csv`` and ``to_json`` are the engine's; ``to_dict`` is the
    JSON as a dict; ``to_pandas`` needs pandas.
    """

    game: str
    bots: list[str]
    deals: int
    seatings: int
    seed: int
    anchor: str
    pairs: list[PairResult]
    ratings: list[Rating]
    _report: _core.ArenaReport = field(repr=False, compare=False)

    @classmethod
    def _from_report(cls, report: _core.ArenaReport) -> ArenaResult:
        data = report.to_dict()
        return cls(
            game=data["game"],
            bots=list(data["bots"]),
            deals=data["deals"],
            seatings=data["seatings"],
            seed=data["seed"],
            anchor=data["anchor"],
            pairs=[
                PairResult(
                    bot=p["bot"],
                    opponent=p["opponent"],
                    games=p["games"],
                    mean=p["mean"],
                    mean_ci=_pair(p["mean_ci"]),
                    win_rate=p["win_rate"],
                    win_ci=_pair(p["win_ci"]),
                )
                for p in data["pairs"]
            ],
            ratings=[_rating(r) for r in data["ratings"]],
            _report=report,
        )

    def rating(self, bot: str) -> Rating:
        """The rating of ``bot`` (a spec as given to ``run``); ``KeyError`` if it did not play."""
        for r in self.ratings:
            if r.bot == bot:
                return r
        raise KeyError(f"{bot!r} did not play; the bots are {self.bots}")

    def to_markdown(self) -> str:
        """The ratings and the pairs as markdown tables, under a line naming the run."""
        return self._report.to_markdown()

    def to_csv(self) -> str:
        """Pairs and ratings as one CSV table; column ``table`` is ``pair`` or ``rating``."""
        return self._report.to_csv()

    def to_json(self) -> str:
        """The whole result as JSON (intervals as 2-element arrays)."""
        return self._report.to_json()

    def to_dict(self) -> dict[str, Any]:
        """The whole result as plain Python data: ``json.loads(self.to_json())``."""
        result: dict[str, Any] = self._report.to_dict()
        return result

    def to_pandas(self, table: Literal["ratings", "pairs"] = "ratings") -> Any:
        """``table`` as a ``pandas.DataFrame``, intervals in ``_lo`` / ``_hi`` columns:
        ratings (``bot``, ``rating``, ``rating_lo``, ``rating_hi``) or pairs (``bot``,
        ``opponent``, ``games``, ``mean``, ``mean_lo``, ``mean_hi``, ``win_rate``,
        ``win_lo``, ``win_hi``). Raises ``ImportError`` without pandas."""
        try:
            import pandas as pd  # type: ignore[import-untyped, import-not-found, unused-ignore]
        except ImportError as error:
            raise ImportError("ArenaResult.to_pandas needs pandas: pip install pandas") from error
        if table == "ratings":
            rows = []
            for r in self.ratings:
                row = {"bot": r.bot, "rating": r.rating, "rating_lo": r.ci[0], "rating_hi": r.ci[1]}
                if r.return_rating is not None and r.return_ci is not None:
                    row.update(
                        return_rating=r.return_rating,
                        return_lo=r.return_ci[0],
                        return_hi=r.return_ci[1],
                    )
                rows.append(row)
            columns = list(rows[0]) if rows else ["bot", "rating", "rating_lo", "rating_hi"]
        elif table == "pairs":
            rows = [
                {
                    "bot": p.bot,
                    "opponent": p.opponent,
                    "games": p.games,
                    "mean": p.mean,
                    "mean_lo": p.mean_ci[0],
                    "mean_hi": p.mean_ci[1],
                    "win_rate": p.win_rate,
                    "win_lo": p.win_ci[0],
                    "win_hi": p.win_ci[1],
                }
                for p in self.pairs
            ]
            columns = list(rows[0]) if rows else []
        else:
            raise ValueError(f"unknown table {table!r}; one of: 'ratings', 'pairs'")
        return pd.DataFrame(rows, columns=columns)

    def __str__(self) -> str:
        return self.to_markdown()

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def _repr_html_(self) -> str:
        def cells(tag: str, values: Sequence[str], right: Sequence[int] = ()) -> str:
            return (
                "<tr>"
                + "".join(
                    f'<{tag} style="text-align: {"right" if i in right else "left"}">'
                    f"{value}</{tag}>"
                    for i, value in enumerate(values)
                )
                + "</tr>"
            )

        def code(spec: str) -> str:
            return f"<code>{html.escape(spec)}</code>"

        head = html.escape(
            f"{self.game}: {self.deals} deals per pair × {self.seatings} seatings, seed {self.seed}"
        )
        with_returns = any(r.return_rating is not None for r in self.ratings)

        def rating_cells(r: Rating) -> list[str]:
            out = [code(r.bot), f"{r.rating:.0f}", f"{r.ci[0]:.0f} to {r.ci[1]:.0f}"]
            if with_returns:
                lo, hi = r.return_ci or (float("nan"), float("nan"))
                out += [f"{r.return_rating or 0:+.3f}", f"{lo:+.3f} to {hi:+.3f}"]
            return out

        ratings = "".join(cells("td", rating_cells(r), (1, 3)) for r in self.ratings)
        pairs = "".join(
            cells(
                "td",
                [
                    code(p.bot),
                    code(p.opponent),
                    str(p.games),
                    f"{p.mean:+.3f}",
                    f"{p.mean_ci[0]:+.3f} to {p.mean_ci[1]:+.3f}",
                    f"{p.win_rate:.3f}",
                    f"{p.win_ci[0]:.3f} to {p.win_ci[1]:.3f}",
                ],
                (2, 3, 5),
            )
            for p in self.pairs
        )
        rating_names = ["bot", "rating (Elo)", "95% interval"]
        if with_returns:
            rating_names += ["return rating", "95% interval"]
        rating_head = cells("th", rating_names, (1, 3))
        pair_head = cells(
            "th",
            [
                "bot",
                "opponent",
                "games",
                "mean return",
                "95% interval",
                "win rate",
                "95% interval",
            ],
            (2, 3, 5),
        )
        return (
            f"<div><p>{head}</p>"
            f"<table><thead>{rating_head}</thead><tbody>{ratings}</tbody></table>"
            f"<table><thead>{pair_head}</thead><tbody>{pairs}</tbody></table></div>"
        )


def _bot_spec(bot: Any) -> str:
    if isinstance(bot, _core.Bot):
        return bot.spec
    if isinstance(bot, str):
        return bot
    raise TypeError(f"a bot must be a bot spec (str) or a checkraise.Bot, not {type(bot).__name__}")


def _tqdm_progress(game: str) -> tuple[Callable[[int, int], None], Callable[[], None]] | None:
    """A progress callback updating a tqdm bar (made on the first report) and its closer, or
    ``None`` without tqdm."""
    try:
        from tqdm.auto import tqdm  # type: ignore[import-untyped, import-not-found, unused-ignore]
    except ImportError:
        return None
    bar: Any = None

    def update(done: int, total: int) -> None:
        nonlocal bar
        if bar is None:
            # Shown only once the run has lasted half a second: no bar flashes by on short
            # runs or on arguments the engine refuses.
            bar = tqdm(total=total, desc=f"arena {game}", unit="deal", delay=0.5)
        bar.update(done - bar.n)

    def close() -> None:
        if bar is not None:
            bar.close()

    return update, close


def run(
    game: str | _core.Game,
    bots: Sequence[str | _core.Bot],
    deals: int = 100,
    seed: int = 0,
    bootstrap: int = 200,
    progress: bool | Callable[[int, int], object] = True,
) -> ArenaResult:
    """Plays every pair of ``bots`` on ``game`` for ``deals`` deals each and rates them.

    ``game``: a name, a game string (``"holdem_chess(players=3)"``) or a ``checkraise.Game``.
    ``bots``: two or more distinct bot specs (or ``checkraise.Bot`` objects). ``seed`` fixes
    every deal, bot generator and bootstrap resample: the same arguments give the same result.
    ``bootstrap``: resamples for the rating intervals (0: none; the intervals are then the
    points). ``progress``: ``True`` for a tqdm bar when tqdm is installed, ``False`` for none,
    or a callable ``progress(done, total)`` called as deals finish. See the module docstring.
    """
    if isinstance(bots, str) or not isinstance(bots, Sequence):
        raise TypeError(
            "bots must be a list of bot specs, such as ['random', 'heuristic'], not "
            f"{type(bots).__name__}"
        )
    specs = [_bot_spec(bot) for bot in bots]
    close: Callable[[], None] | None = None
    callback: Callable[[int, int], object] | None
    if callable(progress):
        callback = progress
    elif progress:
        made = _tqdm_progress(game if isinstance(game, str) else game.name)
        callback, close = made if made is not None else (None, None)
    else:
        callback = None
    try:
        report = _core.arena_run(game, specs, deals, seed, bootstrap, callback)
    finally:
        if close is not None:
            close()
    return ArenaResult._from_report(report)
