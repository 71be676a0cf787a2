"""Every registered game through the Python face, with no game-specific code.

New games appear here as soon as they are registered in the engine: each is played at random
through `State` (chance, sequential and simultaneous nodes alike) and through `VectorEnv`,
checking the conventions the bindings promise.
"""

import itertools

import numpy as np
import pytest

import checkraise as cr

GAMES = cr.game_names()


def random_joint_action(state, bots):
    return [bots[seat].act(state, seat) for seat in range(state.num_players())]


@pytest.mark.parametrize("name", GAMES)
def test_random_play_through_state(name):
    game = cr.make(name)
    entry = game.info
    assert entry["name"] == name and game.name == name
    n = game.num_players()
    assert entry["min_players"] <= n <= entry["max_players"]
    for seed in range(3):
        state = game.new_initial_state()
        bots = [cr.Bot(game, "random", seed=seed * 10 + s) for s in range(n)]
        moves = 0
        while not state.is_terminal():
            player = state.current_player()
            assert player in (-1, -2) or 0 <= player < n
            if state.is_chance_node():
                assert abs(sum(p for _, p in state.chance_outcomes()) - 1.0) < 1e-9
                state.sample_chance(seed * 1000 + moves)
            elif state.is_simultaneous_node():
                for seat in range(n):
                    legal = state.legal_actions(seat)
                    assert legal and legal == sorted(legal)
                state.apply_actions(random_joint_action(state, bots))
            else:
                legal = state.legal_actions()
                assert legal and legal == sorted(legal)
                assert np.flatnonzero(state.legal_actions_mask()).tolist() == legal
                for action in legal:
                    assert state.string_to_action(state.action_to_string(action)) == action
                state.apply_action(bots[player].act(state))
            moves += 1
            assert moves <= game.max_game_length()
            for seat in range(n):
                obs = state.observation(seat)
                assert obs.dtype == np.float32 and obs.shape == game.observation_shape()
                assert np.isfinite(obs).all()
            copy = game.deserialize_state(state.serialize())
            assert copy.serialize() == state.serialize()
            assert str(copy) == str(state)
        returns = state.returns()
        assert len(returns) == n
        assert all(game.min_utility() <= r <= game.max_utility() for r in returns)
        if game.utility_sum() is not None:
            assert abs(sum(returns) - game.utility_sum()) < 1e-9
        with pytest.raises(cr.GameOverError):
            state.apply_action(0)


@pytest.mark.parametrize("name", GAMES)
def test_vector_env_with_every_seat_observed(name):
    game = cr.make(name)
    n = game.num_players()
    num_envs = 4
    venv = cr.VectorEnv(game, num_envs, seed=1, observer="all")
    obs, info = venv.reset()
    assert obs.shape == (num_envs, n, *game.observation_shape())
    rng = np.random.default_rng(0)
    joint = venv.action_shape == (num_envs, n)
    assert joint or venv.action_shape == (num_envs,)
    for _ in range(30):
        choice = np.zeros((num_envs, n), dtype=np.int64)
        for i in range(num_envs):
            for seat in range(n):
                legal = np.flatnonzero(info["action_mask"][i, seat])
                if legal.size:
                    choice[i, seat] = rng.choice(legal)
        if joint:
            actions = choice
        else:
            seats = np.maximum(info["current_player"], 0)
            actions = choice[np.arange(num_envs), seats]
        obs, rewards, terminated, truncated, info = venv.step(actions)
        assert rewards.shape == (num_envs, n)
        assert not (terminated & truncated).any()
        assert np.isfinite(obs).all()
        for i in range(num_envs):
            state = venv.state(i)
            assert info["current_player"][i] == state.current_player()
            for seat in range(n):
                np.testing.assert_array_equal(obs[i, seat], state.observation(seat))


def test_detective_poker_view_counts_burns_but_never_shows_them():
    game = cr.make("detective_poker")
    env = cr.Env(game, seed=5)
    seen = [env.state().view(None)["burns"]]
    while not env.is_terminal():
        env.step(env.legal_actions()[0])
        seen.append(env.state().view(None)["burns"])
    assert seen[0] == 0
    assert all(0 <= b <= 3 for b in seen)
    assert 3 in seen  # every street after the first is preceded by a burn
    # Grows within a hand and starts again at 0 with the next one.
    assert all(nxt >= prev or nxt == 0 for prev, nxt in itertools.pairwise(seen))


def test_holdem_chess_view_numbers_hands_from_one():
    game = cr.make("holdem_chess", hands=3)
    env = cr.Env(game, seed=2)
    assert env.state().view(0)["hand_number"] == 1
    numbers = {env.state().view(0)["hand_number"]}
    while not env.is_terminal():
        env.step(env.legal_actions()[0])
        numbers.add(env.state().view(0)["hand_number"])
    final = env.state().view(0)
    assert final["hand_number"] == len(final["results"]) == max(numbers)
    assert [r["hand_number"] for r in final["results"]] == list(range(1, max(numbers) + 1))
    assert numbers == set(range(1, max(numbers) + 1))
