"""Leduc poker (the `leduc_poker` feature) against OpenSpiel's own `leduc_poker`, node by node.

Both whole game trees are walked in lockstep from the initial state: at every node the same
kind of node (chance, a seat to act, terminal), the same chance outcomes with the same
probabilities, the same legal actions, the same observation tensor for both seats and, at the
end, the same returns. Then each seat's information-state strings are compared with
OpenSpiel's as partitions of the 9,457 histories: the same information sets wherever a seat
acts, and everywhere before the end but at the one node documented below; at the end, ours
also name the other seat's card after a showdown (the showdown shows it), and nothing else.

The game is compiled only with its feature: the test command's step for the games behind a
feature builds a module with it and runs these tests (selected by `-k leduc_poker`), after
checking that the module has the game. A module built without it skips this file, saying why.
"""

from collections import defaultdict
from functools import cache

import numpy as np
import pyspiel
import pytest

import checkraise as cr

if "leduc_poker" not in cr.game_names():
    pytest.skip(
        "this checkraise module was built without the leduc_poker feature (the test command "
        "runs this file in its step for the games behind a feature)",
        allow_module_level=True,
    )

CHANCE = "chance"
DECISION = "decision"
TERMINAL = "terminal"


@cache
def walk_both():
    """Walks our tree and OpenSpiel's together, checking each node; returns per seat a list of
    (our key, OpenSpiel's key, node kind, the other seat's card if a showdown showed it)."""
    ours_game = cr.make("leduc_poker")
    theirs_game = pyspiel.load_game("leduc_poker")
    keys = [[], []]
    counts = defaultdict(int)

    def visit(ours, theirs):
        history = theirs.history()
        where = f"history {history}"
        assert ours.history() == history, where
        if theirs.is_terminal():
            kind = TERMINAL
            assert ours.is_terminal(), where
            assert ours.current_player() == -4, where
            assert ours.returns() == pytest.approx(theirs.returns(), abs=1e-12), where
        elif theirs.is_chance_node():
            kind = CHANCE
            assert ours.is_chance_node(), where
            mine, theirs_outcomes = ours.chance_outcomes(), theirs.chance_outcomes()
            assert [a for a, _ in mine] == [a for a, _ in theirs_outcomes], where
            for (_, p), (_, q) in zip(mine, theirs_outcomes, strict=True):
                assert abs(p - q) < 1e-12, where
        else:
            kind = DECISION
            assert ours.current_player() == theirs.current_player(), where
            assert ours.legal_actions() == theirs.legal_actions(), where
        counts[kind] += 1
        showdown = kind == TERMINAL and ours.view(None)["result"]["showdown"]
        for seat in range(2):
            assert np.array_equal(
                ours.observation_tensor(seat), np.asarray(theirs.observation_tensor(seat))
            ), f"{where}, seat {seat}"
            shown = history[1 - seat] if showdown else None
            keys[seat].append(
                (
                    ours.information_state_string(seat),
                    theirs.information_state_string(seat),
                    kind,
                    shown,
                    ours.information_state_tensor(seat).tobytes(),
                    seat == theirs.current_player(),
                )
            )
        if kind == TERMINAL:
            return
        actions = (
            [a for a, _ in theirs.chance_outcomes()] if kind == CHANCE else theirs.legal_actions()
        )
        for action in actions:
            child = ours.clone()
            child.apply_action(action)
            visit(child, theirs.child(action))

    visit(ours_game.new_initial_state(), theirs_game.new_initial_state())
    return keys, dict(counts)


def classes(pairs):
    """For (a, b) pairs: each a's set of b."""
    out = defaultdict(set)
    for a, b in pairs:
        out[a].add(b)
    return out


def assert_bijection(pairs, what):
    """The pairs induce the same partition: each key of one side goes with one of the other."""
    for forward, side in (
        (classes(pairs), "ours"),
        (classes((b, a) for a, b in pairs), "OpenSpiel's"),
    ):
        split = {k: v for k, v in forward.items() if len(v) > 1}
        example = next(iter(split.items()), None)
        assert not split, f"{what}: {len(split)} of {side} keys go with several, e.g. {example}"


def test_leduc_poker_facts_match_openspiel():
    ours, theirs = cr.make("leduc_poker"), pyspiel.load_game("leduc_poker")
    assert ours.num_players() == theirs.num_players() == 2
    assert ours.num_distinct_actions() == theirs.num_distinct_actions() == 3
    assert ours.max_chance_outcomes() == theirs.max_chance_outcomes() == 6
    assert ours.max_utility() == theirs.max_utility() == 13
    assert ours.min_utility() == theirs.min_utility() == -13
    assert list(ours.observation_shape()) == theirs.observation_tensor_shape() == [16]
    # OpenSpiel counts the seats' actions only (2 rounds of 4); ours the 3 deals too.
    assert ours.max_game_length() == theirs.max_game_length() + 3
    assert cr.make("leduc_poker", players=2).num_players() == 2


def test_leduc_poker_tree_matches_openspiel_node_by_node():
    _, counts = walk_both()
    # Every node was compared: 157 chance nodes, 1,890 decisions of each seat, 5,520 ends.
    assert counts == {CHANCE: 157, DECISION: 3780, TERMINAL: 5520}


@pytest.mark.parametrize("seat", [0, 1])
def test_leduc_poker_information_states_partition_histories_as_openspiel(seat):
    keys, _ = walk_both()
    rows = keys[seat]
    # Where the seat acts: exactly OpenSpiel's information sets, 468 of them.
    own = [(k, t) for k, t, kind, _, _, acts in rows if acts]
    assert_bijection(own, f"seat {seat}'s decisions")
    assert len({k for k, _ in own}) == len({t for _, t in own}) == 468
    # Wherever a seat acts, either seat's information sets (what a best response reads).
    decisions = [(k, t) for k, t, kind, _, _, _ in rows if kind == DECISION]
    assert_bijection(decisions, f"seat {seat} at every decision")
    # Before the end, chance nodes included: OpenSpiel's partition, but for seat 1's two nodes
    # before its card is dealt (the first deal, then seat 0's card dealt), which OpenSpiel's
    # strings do not tell apart and ours do (the engine's information-state tensor has a row
    # per history entry, so the two differ in it).
    before_end = [(k, t) for k, t, kind, _, _, _ in rows if kind != TERMINAL]
    ours_to_theirs = classes(before_end)
    assert all(len(v) == 1 for v in ours_to_theirs.values()), "ours refine OpenSpiel's"
    theirs_to_ours = classes((t, k) for k, t in before_end)
    split = {t: v for t, v in theirs_to_ours.items() if len(v) > 1}
    if seat == 0:
        assert not split
    else:
        assert list(split.values()) == [{"s1 cards: bets:", "s1 cards:?? bets:"}]
    expected = {0: 973, 1: 967}[seat]
    assert len(theirs_to_ours) == expected
    assert len(ours_to_theirs) == expected + seat
    # At the end: ours are OpenSpiel's and the other seat's card after a showdown.
    ends = [(k, (t, shown)) for k, t, kind, shown, _, _ in rows if kind == TERMINAL]
    assert_bijection(ends, f"seat {seat} at the end")
    assert all(len(v) == 1 for v in classes((k, t) for k, (t, _) in ends).values())


@pytest.mark.parametrize("seat", [0, 1])
def test_leduc_poker_information_state_tensor_and_string_determine_each_other(seat):
    keys, _ = walk_both()
    assert_bijection([(k, tensor) for k, _, _, _, tensor, _ in keys[seat]], f"seat {seat}")
