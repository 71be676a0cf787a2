"""Bots from bot specs in Python: `cr.Bot(game, "ismcts", iterations=...)`, spec strings,
`Bot.search`, `cr.bot_action` and the `cr.bots()` catalog.

Driven by the registry: every registered game is played by every bot kind, so a game added
later is covered with no change here. Searches stay small (tens of iterations).
"""

import threading
import time

import numpy as np
import pytest

import checkraise as cr

GAMES = cr.game_names()
SPECS = [
    "random",
    "heuristic",
    "ismcts(iterations=20)",
    "ismcts(iterations=10,rollout=random)",
    "policy",
    "policy(play=sample)",
]


def play(game, bots, seed):
    """Plays one game with `bots[seat]` at every seat (joint actions at simultaneous nodes);
    returns the history. Every action is checked against the seat's legal actions."""
    state = game.new_initial_state()
    step = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.sample_chance(seed * 1000 + step)
        elif state.is_simultaneous_node():
            joint = []
            for seat, bot in enumerate(bots):
                legal = state.legal_actions(seat)
                action = bot.act(state, seat) if legal else 0
                assert not legal or action in legal
                joint.append(action)
            state.apply_actions(joint)
        else:
            seat = state.current_player()
            action = bots[seat].act(state)
            assert action in state.legal_actions(seat)
            state.apply_action(action)
        step += 1
    return state.history()


def decision_state(name, seed=0):
    """A state of game `name` at its first seat decision (chance resolved)."""
    state = cr.make(name).new_initial_state()
    state.sample_chance(seed)
    return state


def acting_seat(state):
    """A seat that may act here (the current player, or the first with a choice)."""
    if state.is_simultaneous_node():
        return next(s for s in range(state.num_players()) if state.legal_actions(s))
    return state.current_player()


# ---------------------------------------------------------------------------------------------
# Specs and keyword settings


def test_bots_lists_the_kinds_and_their_settings():
    entries = {entry["kind"]: entry for entry in cr.bots()}
    assert list(entries) == ["random", "heuristic", "ismcts", "policy", "cfr", "br"]
    assert [s["name"] for s in entries["br"]["settings"]] == [
        "target",
        "iterations",
        "max_ms",
        "c",
        "rollout",
        "seed",
        "path",
    ]
    assert [s["name"] for s in entries["cfr"]["settings"]] == ["iterations", "algorithm", "seed"]
    assert [s["name"] for s in entries["policy"]["settings"]] == ["path", "play"]
    assert entries["random"]["settings"] == [] == entries["heuristic"]["settings"]
    settings = {s["name"]: s for s in entries["ismcts"]["settings"]}
    assert list(settings) == ["iterations", "max_ms", "c", "rollout", "seed", "belief", "path"]
    assert settings["iterations"]["default"] == "1000"
    assert settings["rollout"]["allowed"] == "one of: random, heuristic"
    assert all(s["description"] for s in settings.values())


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("spec", SPECS)
def test_every_spec_plays_every_game_legally_and_reproducibly(name, spec):
    game = cr.make(name)
    n = game.num_players()
    histories = [
        play(game, [cr.Bot(game, spec, seed=10 + s) for s in range(n)], seed=2) for _ in range(2)
    ]
    assert histories[0] == histories[1]


def test_keyword_settings_build_the_same_bot_as_the_spec_string():
    game = cr.make("pokeros")
    by_string = cr.Bot(game, "ismcts(iterations=30,rollout=random,c=1.5)", seed=4)
    by_keywords = cr.Bot(game, "ismcts", seed=4, iterations=30, rollout="random", c=1.5)
    assert by_string.spec == by_keywords.spec == "ismcts(iterations=30,c=1.5,rollout=random)"
    assert by_string.kind == by_keywords.kind == "ismcts"
    assert play(game, [by_string, by_string], 1) == play(game, [by_keywords, by_keywords], 1)
    # Keywords override the string; None leaves a setting alone; numpy scalars are numbers.
    assert cr.Bot(game, "ismcts(iterations=5)", iterations=7).spec.startswith(
        "ismcts(iterations=7,"
    )
    assert cr.Bot(game, "ismcts(iterations=5)", iterations=None).spec.startswith(
        "ismcts(iterations=5,"
    )
    bot = cr.Bot(game, "ismcts", iterations=np.int64(9), c=np.float32(0.5), max_ms=100)
    assert bot.spec == "ismcts(iterations=9,max_ms=100,c=0.5,rollout=heuristic)"
    # The canonical spec makes the same bot again.
    assert cr.Bot(game, bot.spec).spec == bot.spec
    assert cr.Bot(game).spec == "heuristic" and cr.Bot(game, "random").kind == "random"
    assert repr(bot) == f"<checkraise.Bot {bot.spec} for pokeros>"


def test_a_seed_setting_fixes_the_search_whatever_the_generator():
    """`seed=` of Bot seeds its generator; the spec's `seed` setting fixes every search."""
    state = decision_state("pokeros", 5)
    fixed = {cr.Bot("pokeros", "ismcts(iterations=40,seed=3)", seed=s).act(state) for s in range(6)}
    assert len(fixed) == 1
    free = [cr.Bot("pokeros", "ismcts(iterations=40)", seed=s).act(state) for s in range(6)]
    again = [cr.Bot("pokeros", "ismcts(iterations=40)", seed=s).act(state) for s in range(6)]
    assert free == again


@pytest.mark.parametrize(
    ("kind", "settings", "message"),
    [
        ("alphazero", {}, r"unknown bot 'alphazero'; bots: random, heuristic, ismcts"),
        (
            "ismcts",
            {"iterations": 0},
            r"setting 'iterations' of bot 'ismcts' cannot be '0': an integer from 1 to 1000000",
        ),
        ("ismcts(iterations=0)", {}, r"setting 'iterations' of bot 'ismcts' cannot be '0'"),
        ("ismcts", {"c": -1}, r"setting 'c' of bot 'ismcts' cannot be '-1': a number above 0"),
        ("ismcts", {"rollout": "smart"}, r"setting 'rollout' .*one of: random, heuristic"),
        ("ismcts", {"max_ms": 0}, r"setting 'max_ms'"),
        ("ismcts(seed=-3)", {}, r"setting 'seed' of bot 'ismcts' cannot be '-3'"),
        (
            "ismcts",
            {"depth": 3},
            (
                r"bot 'ismcts' has no setting 'depth'; its settings are: iterations, max_ms, c, "
                r"rollout, seed, belief, path"
            ),
        ),
        ("heuristic", {"iterations": 3}, r"bot 'heuristic' has no setting 'iterations'"),
        ("ismcts(iterations=3", {}, r"kind\(name=value"),
        (
            "ismcts",
            {"c": [1]},
            r"setting 'c' of bot 'ismcts' must be an int, float or str, not list",
        ),
        ("ismcts", {"iterations": True}, r"setting 'iterations' .*must be .*not bool"),
    ],
)
def test_bad_specs_raise_parameter_errors_naming_the_setting(kind, settings, message):
    with pytest.raises(cr.ParameterError, match=message):
        cr.Bot("pokeros", kind, **settings)
    state = decision_state("pokeros")
    with pytest.raises(cr.ParameterError, match=message):
        cr.bot_action(state, kind=kind, **settings)


def test_bot_action_takes_specs_and_settings():
    for name in GAMES:
        state = decision_state(name, 1)
        seat = acting_seat(state)
        expected = cr.Bot(name, "ismcts(iterations=25)", seed=7).act(state, seat)
        assert cr.bot_action(state, seat, "ismcts(iterations=25)", 7) == expected
        assert cr.bot_action(state, seat, kind="ismcts", seed=7, iterations=25) == expected


# ---------------------------------------------------------------------------------------------
# Search


def test_a_belief_weighted_search_reads_the_bets_and_reports_its_deals():
    """Later in a Detective Poker hand the other seats' bets weigh the deals: a belief search
    reports the deals it searched and, on the same seed, searches otherwise than plain IS-MCTS
    (whose every iteration is a new uniform deal)."""
    game = cr.make("detective_poker")
    state = game.new_initial_state()
    rng = np.random.default_rng(3)
    decisions = 0
    while decisions < 6:  # the first round of bets and half of the next
        if state.is_chance_node():
            state.sample_chance(int(rng.integers(2**31)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
            decisions += 1
    while state.is_chance_node():
        state.sample_chance(int(rng.integers(2**31)))
    seat = state.current_player()
    plain = cr.Bot(game, "ismcts", iterations=200, rollout="random", seed=1).search(state, seat)
    assert plain["deals"] == 200
    for belief in ("heuristic", "policy"):
        bot = cr.Bot(game, "ismcts", iterations=200, rollout="random", belief=belief, seed=1)
        assert bot.spec.endswith(f"belief={belief})")
        result = bot.search(state, seat)
        assert result["action"] in state.legal_actions(seat)
        assert 1 <= result["deals"] <= 200, result["deals"]
        assert result["root"] != plain["root"], belief
    with pytest.raises(cr.CheckraiseError, match="one of: none, heuristic, policy"):
        cr.Bot(game, "ismcts", belief="psychic")


@pytest.mark.parametrize("name", GAMES)
def test_search_reports_the_root_and_agrees_with_act(name):
    state = decision_state(name, 3)
    seat = acting_seat(state)
    legal = state.legal_actions(seat)
    result = cr.Bot(name, "ismcts", seed=2, iterations=30).search(state, seat)
    assert set(result) == {"action", "iterations", "nodes", "deals", "root"}
    assert result["action"] in legal
    assert [a for a, _, _ in result["root"]] == legal
    assert all(isinstance(v, int) and isinstance(m, float) for _, v, m in result["root"])
    if len(legal) > 1:
        assert result["iterations"] == 30
        assert sum(v for _, v, _ in result["root"]) == 30
        assert 1 < result["nodes"] <= 31
        assert result["deals"] == 30  # plain search: a fresh deal every iteration
        best = max(result["root"], key=lambda r: r[1])
        assert {a: v for a, v, _ in result["root"]}[result["action"]] == best[1]
    else:
        assert result["iterations"] == 0
    # The same draws as act: search's action is act's.
    assert result["action"] == cr.Bot(name, "ismcts", seed=2, iterations=30).act(state, seat)


def test_search_errors():
    state = decision_state("pokeros")
    with pytest.raises(cr.CheckraiseError, match=r"search\(\) needs an IS-MCTS bot.*'heuristic'"):
        cr.Bot("pokeros", "heuristic").search(state)
    bot = cr.Bot("pokeros", "ismcts(iterations=10)")
    other = 1 - state.current_player()
    with pytest.raises(cr.OutOfTurnError):
        bot.search(state, other)
    with pytest.raises(cr.InvalidSeatError):
        bot.search(state, 9)
    with pytest.raises(cr.OutOfTurnError):
        bot.search(cr.make("pokeros").new_initial_state())  # a chance node
    with pytest.raises(cr.CheckraiseError, match="this bot plays pokeros"):
        bot.search(decision_state("poker_chess"))
    over = decision_state("pokeros")
    while not over.is_terminal():
        if over.is_chance_node():
            over.sample_chance(0)
        else:
            over.apply_action(over.legal_actions()[0])
    with pytest.raises(cr.GameOverError):
        bot.search(over, 0)


def test_max_ms_bounds_a_search():
    state = decision_state("pokeros")
    start = time.perf_counter()
    result = cr.Bot("pokeros", "ismcts", iterations=1_000_000, max_ms=50).search(state)
    assert result["iterations"] < 1_000_000
    assert time.perf_counter() - start < 10


def test_search_releases_the_gil():
    """Another Python thread runs while a search is under way."""
    state = decision_state("pokeros")
    bot = cr.Bot("pokeros", "ismcts", iterations=1_000_000, max_ms=300)
    worker = threading.Thread(target=bot.search, args=(state,))
    ticks = 0
    worker.start()
    while worker.is_alive():
        ticks += 1
        time.sleep(0.001)
    worker.join()
    assert ticks > 20


def test_the_best_response_search_plays_its_targets_games():
    """``br``: IS-MCTS that plays its target at the other seats (docs/solve.md)."""
    bot = cr.Bot("pokeros", "br(target=heuristic,iterations=30)", seed=1)
    assert bot.kind == "br"
    assert bot.spec == "br(target=heuristic,iterations=30,c=0.7,rollout=heuristic)"
    state = cr.Env("pokeros", seed=2).state()
    result = bot.search(state)
    assert result["action"] in state.legal_actions() and result["iterations"] == 30
    with pytest.raises(cr.ParameterError, match="one of: random, heuristic, policy"):
        cr.Bot("pokeros", "br(target=ismcts)")
    with pytest.raises(cr.ParameterError, match="has no setting 'belief'"):
        cr.Bot("pokeros", "br(belief=policy)")
