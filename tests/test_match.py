"""checkraise.Match: the engine's game in play from Python (the one the gRPC matches, the
dm_env_rpc worlds, the arena, the Gymnasium env and the trainer play through): versions,
retry-safe acts, per-seat rewards, who must decide, pickling, and its errors."""

import copy
import pickle

import numpy as np
import pytest

import checkraise as cr


def test_rewards_taken_after_each_decision_sum_to_the_return():
    game = cr.make("holdem_chess")
    for seed in range(3):
        match = cr.Match(game, [None, "random"], seed=seed)
        assert match.start() == "decide"
        start = match.returns()[0]
        assert match.take_reward(0) == 0.0
        total = 0.0
        while not match.is_terminal():
            assert match.waiting() == [0]
            action = int(np.flatnonzero(match.action_mask(0))[0])
            assert match.act(0, action) == "applied"
            total += match.take_reward(0)
        assert match.waiting() == []
        assert start + total == pytest.approx(match.returns()[0])
        assert match.take_reward(0) == 0.0


def test_the_same_seed_plays_the_same_game_as_the_driver():
    game = cr.make("poker_chess")
    match = cr.Match(game, [None, "heuristic"], seed=4)
    driver = cr.Driver(game, [None, "heuristic"], seed=4)
    state = game.new_initial_state()
    match.start()
    driver.advance(state)
    while not state.is_terminal():
        assert match.state().serialize() == state.serialize()
        action = state.legal_actions(0)[-1]
        match.act(0, action)
        driver.play(state, 0, action)
        driver.advance(state)
    assert match.state().serialize() == state.serialize()


def test_a_retry_at_the_expected_version_is_recognised_not_applied_twice():
    match = cr.Match("pokeros", [None, "heuristic"], seed=1)
    match.start()
    at = match.version
    state = match.state()
    action = state.legal_actions(0)[0]
    text = state.action_to_string(0, action)
    assert match.act(0, text, expected_version=at) == "applied"
    assert match.decision(0) == (at, action, text)
    after = match.version
    assert after > at
    for again in (action, text):
        assert match.act(0, again, expected_version=at) == "already_applied"
    assert match.version == after
    other = state.legal_actions(0)[1]
    with pytest.raises(cr.CheckraiseError, match="already acted at version"):
        match.act(0, other, expected_version=at)
    # Once the seat has acted again, a request chosen on the old view is refused as moved on.
    assert match.act(0, match.state().legal_actions(0)[0], expected_version=after) == "applied"
    with pytest.raises(cr.CheckraiseError, match=f"not {at} as expected"):
        match.act(0, match.state().legal_actions(0)[0], expected_version=at)


def test_at_a_simultaneous_node_each_outside_seat_waits_until_it_chose():
    match = cr.Match("prediction_chess", [None, None], seed=2)
    assert match.start() == "decide"
    assert match.waiting() == [0, 1]
    state = match.state()
    assert match.decide(0, state.legal_actions(0)[0]) is True, "held until seat 1 chooses"
    assert match.has_chosen(0) and match.waiting() == [1]
    with pytest.raises(cr.CheckraiseError, match="already"):
        match.decide(0, state.legal_actions(0)[0])
    before = match.version
    assert match.decide(1, state.legal_actions(1)[0]) is False
    assert match.version == before + 1
    assert match.advance() == "decide"
    # A bot seat is the engine's to play: only the outside seat waits.
    with_bot = cr.Match("prediction_chess", [None, "heuristic"], seed=2)
    with_bot.start()
    assert with_bot.waiting() == [0] and with_bot.has_chosen(1)


@pytest.mark.parametrize("copier", [copy.deepcopy, lambda m: pickle.loads(pickle.dumps(m))])
def test_a_pickled_match_continues_exactly(copier):
    match = cr.Match("prediction_chess", [None, "heuristic"], seed=5)
    match.start()
    match.act(0, match.state().legal_actions(0)[0])
    match.take_reward(0)
    other = copier(match)
    assert other.version == match.version and other.bot_specs == match.bot_specs
    assert other.decision(0) == match.decision(0)
    while not match.is_terminal():
        action = match.state().legal_actions(0)[-1]
        match.act(0, action)
        other.act(0, action)
        assert other.state().serialize() == match.state().serialize()
        assert other.take_reward(0) == match.take_reward(0)


def test_bad_use_is_a_clear_error():
    with pytest.raises(cr.CheckraiseError, match="bots has 1 entries; pokeros has 2 seats"):
        cr.Match("pokeros", [None])
    with pytest.raises(cr.CheckraiseError, match="unknown bot"):
        cr.Match("pokeros", [None, "nope"])
    match = cr.Match("pokeros", [None, "random"])
    assert match.waiting() == []
    with pytest.raises(cr.CheckraiseError, match="call start"):
        match.act(0, 0)
    match.start()
    with pytest.raises(cr.CheckraiseError, match="started already"):
        match.start()
    with pytest.raises(cr.InvalidSeatError, match="seat 2 is out of range"):
        match.act(2, 0)
    with pytest.raises(cr.IllegalActionError):
        match.act(0, int(np.flatnonzero(~match.action_mask(0))[0]))
    with pytest.raises(cr.ActionStringError):
        match.act(0, "no such action")
    with pytest.raises(cr.OutOfTurnError):
        match.act(1, match.state().legal_actions(0)[0])
    assert "Match of pokeros" in repr(match)
