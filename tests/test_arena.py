"""checkraise.arena: rating bots by playing every pair with duplicate deals.

Tiny runs (two deals, searches of tens of iterations): the checks are about the shape and the
invariants of the result, its reproducibility and its exports, not about which bot is best.
"""

import csv
import io
import json
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import checkraise as cr
from checkraise import arena

GAMES = cr.game_names()
BOTS = ["random", "heuristic", "ismcts(iterations=20)"]


@pytest.fixture(scope="module")
def result():
    return arena.run("pokeros", BOTS, deals=2, seed=7, progress=False)


def test_pairs_and_ratings_hold_their_invariants(result):
    assert isinstance(result, arena.ArenaResult)
    assert result.game == "pokeros" and result.bots == BOTS
    assert result.deals == 2 and result.seed == 7 and result.seatings == 2
    assert result.anchor == "random"
    # Every ordered pair, in bot order.
    assert [(p.bot, p.opponent) for p in result.pairs] == [
        (a, b) for a in BOTS for b in BOTS if a != b
    ]
    by_pair = {(p.bot, p.opponent): p for p in result.pairs}
    for p in result.pairs:
        assert isinstance(p, arena.PairResult)
        assert p.games == result.deals * result.seatings
        assert p.mean_ci[0] <= p.mean <= p.mean_ci[1]
        assert 0 <= p.win_ci[0] <= p.win_rate <= p.win_ci[1] <= 1
        # Zero-sum, two seats: the reverse pair mirrors this one.
        back = by_pair[(p.opponent, p.bot)]
        assert back.mean == pytest.approx(-p.mean)
        assert back.win_rate == pytest.approx(1 - p.win_rate)
    # Every bot rated, best first, the anchor at 0.
    assert sorted(r.bot for r in result.ratings) == sorted(BOTS)
    ratings = [r.rating for r in result.ratings]
    assert ratings == sorted(ratings, reverse=True)
    assert result.rating("random").rating == 0
    assert result.rating("random").ci == (0, 0)
    for r in result.ratings:
        assert isinstance(r, arena.Rating)
        assert r.ci[0] <= r.rating + 1e-9 and r.rating - 1e-9 <= r.ci[1]
        # The engine's rating on returns, where it reports one.
        assert (r.return_rating is None) == (r.return_ci is None)
    with pytest.raises(KeyError, match="did not play"):
        result.rating("ismcts")


def test_the_same_seed_gives_the_same_result(result):
    again = arena.run("pokeros", BOTS, deals=2, seed=7, progress=False)
    assert again == result
    assert again.to_json() == result.to_json()


def test_exports_parse(result):
    markdown = result.to_markdown()
    assert markdown.startswith("pokeros: 2 deals per pair × 2 seatings, seed 7")
    assert all(f"`{bot}`" in markdown for bot in BOTS)
    assert str(result) == markdown == result._repr_markdown_()
    page = result._repr_html_()
    assert page.count("<table>") == 2 and "<code>ismcts(iterations=20)</code>" in page

    rows = list(csv.DictReader(io.StringIO(result.to_csv())))
    assert [r["table"] for r in rows] == ["pair"] * 6 + ["rating"] * 3
    assert {r["game"] for r in rows} == {"pokeros"}
    assert float(rows[0]["mean"]) == pytest.approx(result.pairs[0].mean)
    assert {r["bot"]: float(r["rating"]) for r in rows[6:]} == pytest.approx(
        {r.bot: r.rating for r in result.ratings}
    )

    data = json.loads(result.to_json())
    assert data == result.to_dict()
    assert data["bots"] == BOTS and data["anchor"] == "random"
    assert len(data["pairs"]) == 6 and len(data["ratings"]) == 3
    assert data["pairs"][0]["mean_ci"] == list(result.pairs[0].mean_ci)


def test_to_pandas(result):
    import pandas as pd

    ratings = result.to_pandas()
    assert isinstance(ratings, pd.DataFrame)
    assert list(ratings.columns[:4]) == ["bot", "rating", "rating_lo", "rating_hi"]
    if result.ratings[0].return_rating is not None:
        assert list(ratings.columns[4:]) == ["return_rating", "return_lo", "return_hi"]
    assert list(ratings["bot"]) == [r.bot for r in result.ratings]
    pairs = result.to_pandas("pairs")
    assert len(pairs) == 6 and list(pairs.columns[:3]) == ["bot", "opponent", "games"]
    with pytest.raises(ValueError, match="unknown table"):
        result.to_pandas("games")


def test_to_pandas_without_pandas_says_what_to_install(result, monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match="pip install pandas"):
        result.to_pandas()


@pytest.mark.parametrize("name", GAMES)
def test_every_game_runs(name):
    result = arena.run(name, ["random", "ismcts(iterations=10)"], deals=1, progress=False)
    assert len(result.pairs) == 2 and len(result.ratings) == 2
    assert result.pairs[0].games == result.seatings


def test_more_than_two_seats_and_made_games_and_bots():
    game = cr.make("pokeros", players=3)
    bots = [cr.Bot(game, "random"), cr.Bot(game, "ismcts", iterations=10)]
    result = arena.run(game, bots, deals=1, progress=False)
    assert result.game == str(game)
    assert result.bots == ["random", bots[1].spec]
    assert result.seatings > 2
    assert result.pairs[0].games == result.seatings
    by_string = arena.run("pokeros(players=3)", ["random", "heuristic"], deals=1, progress=False)
    assert by_string.game == "pokeros(players=3)"


def test_progress_reports_every_deal():
    calls = []
    arena.run(
        "pokeros",
        ["random", "heuristic"],
        deals=3,
        progress=lambda done, total: calls.append((done, total)),
    )
    assert calls[0] == (0, 3) and calls[-1] == (3, 3)
    assert [d for d, _ in calls] == sorted({d for d, _ in calls})
    assert {t for _, t in calls} == {3}


def test_progress_bar_with_and_without_tqdm(monkeypatch):
    # Without tqdm: no bar, no error.
    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    assert arena.run("pokeros", ["random", "heuristic"], deals=1, progress=True).pairs
    monkeypatch.undo()
    import tqdm  # noqa: F401  (a dev requirement: the bar must be tested)

    assert arena.run("pokeros", ["random", "heuristic"], deals=1, progress=True).pairs


def test_a_failing_progress_callback_stops_the_wait():
    def fail(done, total):
        raise RuntimeError("stop")

    with pytest.raises(RuntimeError, match="stop"):
        arena.run("pokeros", ["random", "heuristic"], deals=1, progress=fail)


@pytest.mark.parametrize(
    ("game", "bots", "settings", "error", "message"),
    [
        ("pokeros", ["random"], {}, cr.ParameterError, r"'bots' .*two or more bot specs"),
        ("pokeros", ["random", "random"], {}, cr.ParameterError, r"distinct bots"),
        ("pokeros", ["random", "smart"], {}, cr.ParameterError, r"unknown bot 'smart'"),
        (
            "pokeros",
            ["random", "ismcts(iterations=0)"],
            {},
            cr.ParameterError,
            r"setting 'iterations' of bot 'ismcts' cannot be '0'",
        ),
        (
            "pokeros",
            ["random", "heuristic"],
            {"deals": 0},
            cr.ParameterError,
            r"'deals' cannot be '0': an integer of at least 1",
        ),
        (
            "pokeros",
            ["random", "heuristic"],
            {"bootstrap": -1},
            cr.ParameterError,
            r"'bootstrap' cannot be '-1'",
        ),
        ("chess", ["random", "heuristic"], {}, cr.UnknownGameError, r"chess"),
        ("pokeros(players=9)", ["random", "heuristic"], {}, cr.ParameterError, r"players"),
        ("pokeros", "random heuristic", {}, TypeError, r"list of bot specs"),
        ("pokeros", ["random", 3], {}, TypeError, r"bot spec \(str\) or a checkraise.Bot"),
    ],
)
def test_bad_arguments_raise_the_engines_errors(game, bots, settings, error, message):
    with pytest.raises(error, match=message):
        arena.run(game, bots, progress=False, **settings)
    assert issubclass(cr.ParameterError, ValueError)


def test_cr_arena_is_the_module():
    assert cr.arena is arena and cr.arena.run is arena.run


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_stops_the_wait():
    """SIGINT during a long run raises KeyboardInterrupt at once (the engine's threads are
    left to finish, and end with the process)."""
    script = textwrap.dedent(
        """
        import signal
        import checkraise as cr

        # A shell may start background jobs with SIGINT ignored: take Python's handler back.
        signal.signal(signal.SIGINT, signal.default_int_handler)

        def started(done, total):
            if done == 0:
                print("started", flush=True)

        try:
            cr.arena.run("pokeros", ["random", "ismcts(iterations=5000)"], deals=500,
                         progress=started)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
        """
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout.readline().strip() == "started"
        time.sleep(0.3)
        child.send_signal(signal.SIGINT)
        out, _ = child.communicate(timeout=20)
    finally:
        child.kill()
    assert out.strip() == "interrupted"
    assert child.returncode == 0
