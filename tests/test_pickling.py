"""Every engine object and both adapters pickle and deep-copy, their seeds and random streams
included, so a copy continues exactly as the original would (for Ray actors, spawned
subprocesses and checkpoints); and a VectorEnv shared between threads fails clearly."""

import copy
import pickle
import threading

import numpy as np
import pytest

import checkraise as cr
from checkraise import gymnasium as cg
from checkraise import pettingzoo as cp

GAMES = cr.game_names()


def roundtrips(obj):
    """The object through pickle and through deepcopy."""
    return [pickle.loads(pickle.dumps(obj)), copy.deepcopy(obj)]


@pytest.mark.parametrize("name", GAMES)
def test_env_copies_continue_identically(name):
    env = cr.Env(name, seed=3)
    rng = np.random.default_rng(0)
    for _ in range(5):
        if env.is_terminal():
            break
        acting = env.current_player()
        if acting == -2:
            env.step_joint(
                [rng.choice(env.legal_actions(s)) for s in range(env.game.num_players())]
            )
        else:
            env.step(int(rng.choice(env.legal_actions())))
    for other in roundtrips(env):
        assert other.state().serialize() == env.state().serialize()
    # The copies and the original take the same chance draws from here on.
    copies = roundtrips(env)
    rng = np.random.default_rng(1)
    while not env.is_terminal():
        if env.current_player() == -2:
            joint = [int(rng.choice(env.legal_actions(s))) for s in range(env.game.num_players())]
            rewards = env.step_joint(joint)
            assert all(c.step_joint(joint) == rewards for c in copies)
        else:
            action = int(rng.choice(env.legal_actions()))
            rewards = env.step(action)
            assert all(c.step(action) == rewards for c in copies)
        assert all(c.state().serialize() == env.state().serialize() for c in copies)


@pytest.mark.parametrize("name", GAMES)
def test_vector_env_copies_continue_identically(name):
    venv = cr.VectorEnv(name, 4, seed=5, max_episode_steps=30)
    venv.reset()
    for _ in range(12):
        venv.step(venv.sample_actions())
    copies = roundtrips(venv)
    for other in copies:
        assert other.observer == venv.observer and other.num_envs == 4
        np.testing.assert_array_equal(other.observations, venv.observations)
        np.testing.assert_array_equal(other.action_masks, venv.action_masks)
        np.testing.assert_array_equal(other.current_players, venv.current_players)
        np.testing.assert_array_equal(other.rewards, venv.rewards)
        np.testing.assert_array_equal(other.terminated, venv.terminated)
    for _ in range(40):
        actions = venv.sample_actions()
        expected = venv.step(actions)
        for other in copies:
            np.testing.assert_array_equal(other.sample_actions(), actions)
            got = other.step(actions)
            for a, b in zip(got[:4], expected[:4], strict=True):
                np.testing.assert_array_equal(a, b)


def test_a_closed_vector_env_does_not_pickle():
    venv = cr.VectorEnv("pokeros", 2)
    venv.close()
    with pytest.raises(cr.CheckraiseError, match="closed"):
        pickle.dumps(venv)


@pytest.mark.parametrize("spec", ["random", "heuristic", "ismcts(iterations=20)"])
def test_bot_copies_decide_identically(spec):
    game = cr.make("poker_chess")
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    bot = cr.Bot(game, spec, seed=4)
    bot.act(state)
    copies = roundtrips(bot)
    assert all(c.spec == bot.spec for c in copies)
    expected = [bot.act(state) for _ in range(5)]
    for other in copies:
        assert [other.act(state) for _ in range(5)] == expected


def test_game_and_state_pickle():
    game = cr.make("holdem_chess", players=3)
    state = game.new_initial_state()
    state.apply_action(state.legal_actions()[0])
    for other in roundtrips(game):
        assert other == game
    for other in roundtrips(state):
        assert other.serialize() == state.serialize()


def test_driver_copies_continue_identically():
    game = cr.make("prediction_chess")
    driver = cr.Driver(game, [None, "heuristic"], seed=2)
    state = game.new_initial_state()
    assert driver.advance(state) == "decide" and driver.has_chosen(1)
    for other in roundtrips(driver):
        assert other.has_chosen(1) and not other.has_chosen(0)
        mine, theirs = state.clone(), state.clone()
        action = state.legal_actions(0)[0]
        driver_copy = copy.deepcopy(driver)
        driver_copy.play(mine, 0, action)
        other.play(theirs, 0, action)
        assert mine.serialize() == theirs.serialize()


@pytest.mark.parametrize("name", GAMES)
def test_the_gymnasium_env_pickles_after_reset_and_continues(name):
    env = cg.env(name, opponent="random")
    _, info = env.reset(seed=7)
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    copies = roundtrips(env)
    rng = np.random.default_rng(3)
    for _ in range(20):
        if env._over:
            break
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        expected = env.step(action)
        for other in copies:
            got = other.step(action)
            np.testing.assert_array_equal(got[0], expected[0])
            assert got[1:4] == expected[1:4]


@pytest.mark.parametrize("name", GAMES)
def test_the_pettingzoo_env_pickles_after_reset_and_continues(name):
    env = cp.env(name)
    env.reset(seed=7)
    copies = roundtrips(env)
    rng = np.random.default_rng(3)
    for _ in range(20):
        agent = env.agent_selection
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            break
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
        for other in copies:
            assert other.agent_selection == agent
            other.step(action)
            np.testing.assert_array_equal(
                other.last()[0]["observation"], env.last()[0]["observation"]
            )


def test_a_vector_env_shared_between_threads_fails_clearly():
    venv = cr.VectorEnv("holdem_chess", 2048, seed=0)
    venv.reset()
    errors = []
    started = threading.Barrier(2)

    def worker():
        started.wait()
        try:
            for _ in range(30):
                venv.step(venv.sample_actions())
        except cr.CheckraiseError as e:
            errors.append(str(e))

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # Two threads stepping one batch collide at least once; each collision is a clear error.
    assert errors, "no collision observed"
    assert all("in use by another thread" in e for e in errors)
