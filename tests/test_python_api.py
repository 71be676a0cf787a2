"""The Python face of the engine (checkraise._core): catalog, games, states, bots, errors.

These tests drive Pokeros, the registered game, but only through the generic API; what they
check about errors and information hiding holds for every game.
"""

import copy
import pickle

import numpy as np
import pytest

import checkraise as cr


def play_to_decision(state, seed):
    """Resolves chance with the engine's seeded sampler (nothing if not a chance node)."""
    state.sample_chance(seed)
    return state


def mid_game(moves=6, seed=3, **params):
    """A Pokeros state after `moves` random placements, at a seat's decision."""
    game = cr.make("pokeros", **params)
    state = game.new_initial_state()
    bot = cr.Bot(game, "random", seed=seed)
    play_to_decision(state, seed)
    for i in range(moves):
        state.apply_action(bot.act(state))
        play_to_decision(state, seed * 1000 + i)
    assert state.current_player() >= 0
    return game, state


def snapshot(state):
    """Everything observable about a state, to check that a failed call changed nothing."""
    return (
        state.serialize(),
        str(state),
        state.history(),
        state.current_player(),
        state.legal_actions(),
        state.returns(),
    )


# ---------------------------------------------------------------------------------------------
# Catalog


def test_games_lists_pokeros_with_its_parameter_schema():
    entries = {g["name"]: g for g in cr.games()}
    assert "pokeros" in entries
    assert "pokeros" in cr.game_names()
    pokeros = entries["pokeros"]
    assert pokeros["long_name"] == "Pokeros"
    assert pokeros["min_players"] == 2 and pokeros["max_players"] == 4
    assert pokeros["chance"] == "explicit_stochastic"
    assert pokeros["information"] == "imperfect"
    assert pokeros["dynamics"] == "sequential"
    assert pokeros["utility"] == "zero_sum"
    assert pokeros["reward_model"] == "terminal"
    assert pokeros["description"]
    params = pokeros["parameters"]
    assert params["players"] == {
        "name": "players",
        "kind": "int",
        "min": 2,
        "max": 4,
        "options": None,
        "default": 2,
        "description": "number of seats",
    }
    assert params["deck"]["kind"] == "choice"
    assert params["deck"]["options"] == ["full", "stripped"]
    assert params["deck"]["default"] == "full"
    for name, schema in params.items():
        assert schema["name"] == name
        assert schema["kind"] in {"int", "bool", "choice", "text"}
        assert schema["description"]
    # Every default makes a game, and the game reports the defaults back.
    game = cr.make("pokeros")
    assert game.parameters == {name: s["default"] for name, s in params.items()}
    assert game.info == pokeros


def test_make_takes_ints_bools_and_strs_or_a_game_string():
    game = cr.make("pokeros", players=3, deck="stripped", hand_size=2)
    assert game.num_players() == 3
    assert game.parameters["deck"] == "stripped"
    again = cr.make(str(game))
    assert again == game and hash(again) == hash(game)
    assert cr.make("pokeros(players=4)").num_players() == 4
    assert pickle.loads(pickle.dumps(game)) == game


def test_game_sizes():
    game = cr.make("pokeros", board_size=9)
    assert game.name == "pokeros"
    assert game.num_distinct_actions() == 9 * 9 * 3
    assert game.max_chance_outcomes() > 0
    assert game.observation_size == int(np.prod(game.observation_shape()))
    assert game.observation_tensor_size() == game.observation_size
    assert list(game.observation_shape()) == game.observation_tensor_shape()
    assert game.min_utility() == -1.0 and game.max_utility() == 1.0
    assert game.utility_sum() == 0.0
    assert game.max_game_length() > 0
    assert "pokeros(" in repr(game)


# ---------------------------------------------------------------------------------------------
# A whole game


def play_greedy_vs_random(seed):
    game = cr.make("pokeros")
    state = game.new_initial_state()
    bots = [cr.Bot(game, "heuristic", seed=seed), cr.Bot(game, "random", seed=seed)]
    chance_seed = seed
    steps = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
            chance_seed += 1
            applied = state.sample_chance(chance_seed)
            assert applied and all(0 <= a < game.max_chance_outcomes() for a in applied)
            continue
        seat = state.current_player()
        legal = state.legal_actions()
        assert legal == sorted(legal) and legal
        mask = state.legal_actions_mask()
        assert mask.dtype == np.bool_ and mask.shape == (game.num_distinct_actions(),)
        assert np.flatnonzero(mask).tolist() == legal
        action = bots[seat].act(state)
        assert action in legal
        text = state.action_to_string(action)
        assert state.action_to_string(seat, action) == text
        assert state.string_to_action(text) == action
        assert state.string_to_action(seat, text) == action
        state.apply_action(action)
        steps += 1
        assert steps <= game.max_game_length()
    return state, steps


def test_full_game_greedy_vs_random():
    state, steps = play_greedy_vs_random(seed=11)
    assert state.is_terminal() and state.current_player() == -4
    # Two players with three-card hands place all 51 cards after the centre card.
    assert steps == 51
    assert len(state.view()["board"]) == 52
    returns = state.returns()
    assert len(returns) == 2 and sum(returns) == 0.0
    assert all(r in (-1.0, 0.0, 1.0) for r in returns)
    assert state.player_return(0) == returns[0]
    assert state.legal_actions() == [] and not state.legal_actions_mask().any()
    # Same seed, same game.
    again, _ = play_greedy_vs_random(seed=11)
    assert again.history() == state.history()
    assert again.returns() == returns
    assert len(state.full_history()) == len(state.history())
    assert {p for p, _ in state.full_history()} == {-1, 0, 1}


def test_greedy_bot_scores_more_than_random_over_a_few_games():
    wins = 0
    for seed in range(6):
        state, _ = play_greedy_vs_random(seed)
        wins += state.returns()[0] > 0
    assert wins >= 4


# ---------------------------------------------------------------------------------------------
# Bad inputs: the engine's message, and nothing changes


def test_bad_game_name():
    with pytest.raises(
        cr.UnknownGameError,
        match=r"unknown game 'pokerus'; registered games: .*pokeros",
    ):
        cr.make("pokerus")
    with pytest.raises(ValueError):
        cr.make("pokerus")


def test_unknown_parameter():
    with pytest.raises(
        cr.ParameterError,
        match=r"game 'pokeros' has no parameter 'colour'; its parameters are: .*players",
    ):
        cr.make("pokeros", colour="red")


def test_out_of_range_parameter():
    with pytest.raises(
        cr.ParameterError,
        match=r"parameter 'players' of game 'pokeros' cannot be '9': an integer from 2 to 4",
    ):
        cr.make("pokeros", players=9)
    with pytest.raises(
        cr.ParameterError,
        match=r"parameter 'deck' of game 'pokeros' cannot be 'tiny': one of: full, stripped",
    ):
        cr.make("pokeros", deck="tiny")
    with pytest.raises(
        ValueError, match=r"parameter 'players' must be an int, bool or str, not float"
    ):
        cr.make("pokeros", players=2.5)
    with pytest.raises(ValueError, match="either in the game string"):
        cr.make("pokeros(players=3)", players=2)


def test_illegal_action_id_leaves_state_unchanged():
    game, state = mid_game()
    before = snapshot(state)
    for action in (game.num_distinct_actions(), 10**6, -1, 2**40):
        with pytest.raises(cr.IllegalActionError, match=rf"illegal action {action}"):
            state.apply_action(action)
        assert snapshot(state) == before
    # In range but not legal (action 0: a corner cell, next to no card).
    illegal = min(set(range(game.num_distinct_actions())) - set(state.legal_actions()))
    with pytest.raises(
        cr.IllegalActionError,
        match=rf"illegal action {illegal} \(.*\) for seat \d at move \d+",
    ):
        state.apply_action(illegal)
    assert snapshot(state) == before


def test_illegal_chance_outcome_leaves_state_unchanged():
    state = cr.make("pokeros").new_initial_state()
    state.apply_action(5)  # the centre card
    before = snapshot(state)
    with pytest.raises(cr.IllegalActionError, match=r"card id 5 is not in the deck"):
        state.apply_action(5)
    assert snapshot(state) == before


def test_action_out_of_turn():
    _, state = mid_game()
    seat = state.current_player()
    other = 1 - seat
    action = state.legal_actions()[0]
    before = snapshot(state)
    with pytest.raises(
        cr.OutOfTurnError,
        match=rf"out of turn: seat {other} tried to act at .*seat {seat} is to act",
    ):
        state.apply_action(action, player=other)
    assert snapshot(state) == before
    # A joint action at a sequential node is out of turn too.
    with pytest.raises(cr.OutOfTurnError, match=r"out of turn: simultaneous tried to act"):
        state.apply_actions([action, action])
    assert snapshot(state) == before
    # So is a bot asked to play for the seat that is not to act.
    with pytest.raises(cr.OutOfTurnError):
        cr.bot_action(state, other)
    # The seat to act may name itself.
    state.apply_action(action, player=seat)


def test_action_on_terminal_state():
    state, _ = play_greedy_vs_random(seed=2)
    before = snapshot(state)
    with pytest.raises(
        cr.GameOverError,
        match=r"the game is over \(move \d+ \(terminal to act\)\); no action can be applied",
    ):
        state.apply_action(0)
    with pytest.raises(cr.GameOverError):
        cr.Bot(state.get_game(), "random").act(state)
    assert snapshot(state) == before


def test_wrong_length_joint_action():
    _, state = mid_game()
    before = snapshot(state)
    with pytest.raises(cr.CheckraiseError, match=r"joint action buffer has length 1, expected 2"):
        state.apply_actions([0])
    with pytest.raises(ValueError, match=r"length 3, expected 2"):
        state.apply_actions([0, 1, 2])
    assert snapshot(state) == before


@pytest.mark.parametrize("seat", [2, 7, -3, -5, 10**12])
def test_bad_seat(seat):
    _, state = mid_game()
    before = snapshot(state)
    message = rf"seat {seat} does not exist; this game has seats 0 to 1"
    calls = [
        lambda: state.observation(seat),
        lambda: state.observation_tensor(seat),
        lambda: state.observation_string(seat),
        lambda: state.information_state_string(seat),
        lambda: state.information_state_tensor(seat),
        lambda: state.resample_from_infostate(seat, 0),
        lambda: state.view(seat),
        lambda: state.legal_actions(seat),
        lambda: state.legal_actions_mask(seat),
        lambda: state.action_to_string(seat, 0),
        lambda: state.string_to_action(seat, "As@0,1"),
        lambda: state.player_return(seat),
        lambda: cr.bot_action(state, seat),
    ]
    for call in calls:
        with pytest.raises(cr.InvalidSeatError, match=message):
            call()
    assert snapshot(state) == before


def test_observer_defaults_to_current_player_and_needs_a_seat():
    _, state = mid_game()
    seat = state.current_player()
    np.testing.assert_array_equal(state.observation(), state.observation(seat))
    assert state.observation_string() == state.observation_string(seat)
    chance = cr.make("pokeros").new_initial_state()
    with pytest.raises(cr.InvalidSeatError, match=r"seat -1 does not exist"):
        chance.observation()


def test_bad_strings_and_serializations():
    game, state = mid_game()
    before = snapshot(state)
    with pytest.raises(cr.ActionStringError, match=r"'nonsense' is not an action for seat \d here"):
        state.string_to_action("nonsense")
    with pytest.raises(cr.DeserializationError, match=r"cannot deserialize state"):
        game.deserialize_state("{not json")
    other = cr.make("pokeros", players=3).new_initial_state()
    with pytest.raises(cr.DeserializationError, match=r"parameters"):
        game.deserialize_state(other.serialize())
    with pytest.raises(cr.ParameterError, match=r"unknown bot 'genius'; bots: random, heuristic"):
        cr.Bot(game, "genius")
    assert snapshot(state) == before


# ---------------------------------------------------------------------------------------------
# Observations, copies, serialization, rendering


@pytest.mark.parametrize("params", [{}, {"board_size": 7, "players": 3}, {"hand_size": 0}])
def test_observation_dtype_and_shape(params):
    game, state = mid_game(**params)
    for seat in range(game.num_players()):
        obs = state.observation_tensor(seat)
        assert obs.dtype == np.float32
        assert obs.shape == game.observation_shape()
        assert np.isfinite(obs).all()
        np.testing.assert_array_equal(state.observation(seat), obs)
        assert isinstance(state.observation_string(seat), str)
        assert state.information_state_string(seat).startswith(f"seat {seat}")


def test_serialize_round_trip_and_pickle():
    game, state = mid_game(moves=9)
    text = state.serialize()
    for copy_ in (
        game.deserialize_state(text),
        pickle.loads(pickle.dumps(state)),
        cr.make(str(game)).deserialize_state(text),
    ):
        assert copy_.serialize() == text
        assert snapshot(copy_) == snapshot(state)
        for seat in range(2):
            np.testing.assert_array_equal(copy_.observation(seat), state.observation(seat))
            assert copy_.information_state_string(seat) == state.information_state_string(seat)


def test_clone_is_independent():
    _, state = mid_game()
    before = snapshot(state)
    for other in (state.clone(), copy.copy(state), copy.deepcopy(state)):
        assert snapshot(other) == before
        other.apply_action(other.legal_actions()[-1])
        assert snapshot(other) != before
        assert snapshot(state) == before


def test_str_shows_the_board():
    _, state = mid_game(moves=5)
    text = str(state)
    board = state.view()["board"]
    assert len(board) == 6
    for placed in board:
        assert placed["card"] in text
    assert "to act: seat" in text
    assert repr(state).startswith("<checkraise.State pokeros: move ")


def test_view_is_a_dict_of_what_the_seat_may_know():
    _, state = mid_game()
    mine = state.view(0)
    assert mine["viewer"] == 0
    # A seat's cards: one entry each, its text when the viewer may see it, None face down.
    own, other = mine["seats"][0], mine["seats"][1]
    assert own["cards"] and all(isinstance(card, str) for card in own["cards"])
    hand_line = next(
        line for line in state.observation_string(0).splitlines() if line.startswith("hand:")
    )
    assert own["cards"] == hand_line.split()[1:] and own["count"] == len(own["cards"])
    assert other["cards"] == [None] * other["count"] and other["count"] > 0
    spectator = state.view()
    assert spectator["viewer"] is None
    assert all(card is None for seat in spectator["seats"] for card in seat["cards"])


def test_information_hiding():
    game, state = mid_game(moves=8)
    changed = False
    for seat in range(game.num_players()):
        for seed in range(5):
            other = state.resample_from_infostate(seat, seed)
            np.testing.assert_array_equal(other.observation(seat), state.observation(seat))
            assert other.observation_string(seat) == state.observation_string(seat)
            assert other.information_state_string(seat) == state.information_state_string(seat)
            np.testing.assert_array_equal(
                other.information_state_tensor(seat), state.information_state_tensor(seat)
            )
            assert other.legal_actions(seat) == state.legal_actions(seat)
            np.testing.assert_array_equal(
                other.legal_actions_mask(seat), state.legal_actions_mask(seat)
            )
            changed |= other.information_state_string(1 - seat) != state.information_state_string(
                1 - seat
            )
    # The hidden cards really were resampled.
    assert changed


def test_information_state_tensor():
    game, state = mid_game(moves=8)
    size = game.information_state_tensor_size()
    assert game.information_state_tensor_shape() == [size]
    tensor = state.information_state_tensor(0)
    assert tensor.dtype == np.float32 and tensor.shape == (size,)
    # The current player by default; the seat's observation comes first.
    seat = state.current_player()
    np.testing.assert_array_equal(
        state.information_state_tensor(), state.information_state_tensor(seat)
    )
    observation = state.observation(0)
    np.testing.assert_array_equal(tensor[: observation.size], observation)
    # Perfect recall: the seats saw different deals, so their tensors differ; and one more
    # move changes both.
    assert not np.array_equal(tensor, state.information_state_tensor(1))
    later = state.clone()
    later.apply_action(later.legal_actions()[0])
    while later.is_chance_node():
        later.sample_chance(1)
    for seat in (0, 1):
        assert not np.array_equal(
            later.information_state_tensor(seat), state.information_state_tensor(seat)
        )


def test_sample_chance_is_seeded():
    game = cr.make("pokeros")
    a, b = game.new_initial_state(), game.new_initial_state()
    assert a.sample_chance(42) == b.sample_chance(42)
    assert a.history() == b.history() and len(a.history()) == 7
    assert a.sample_chance(1) == []  # not a chance node


# ---------------------------------------------------------------------------------------------
# Env


def test_env_is_seeded_and_rejects_illegal_actions():
    def trajectory(seed):
        env = cr.Env("pokeros", seed=seed)
        bot = cr.Bot(env.game, "random", seed=seed)
        rewards = []
        while not env.is_terminal():
            assert env.current_player() in (0, 1)
            rewards.append(env.step(bot.act(env.state())))
        return env.state().history(), rewards, env.returns()

    first = trajectory(5)
    assert trajectory(5) == first
    assert trajectory(6)[0] != first[0]
    assert sum(first[2]) == 0.0

    env = cr.Env(cr.make("pokeros", players=3), seed=1)
    before = env.state().serialize()
    with pytest.raises(cr.IllegalActionError):
        env.step(10**7)
    assert env.state().serialize() == before
    obs = env.observation()
    assert obs.dtype == np.float32 and obs.shape == env.game.observation_shape()
    assert np.flatnonzero(env.action_mask()).tolist() == env.legal_actions()
    env.reset(seed=1)
    assert env.state().serialize() == before
    with pytest.raises(cr.ParameterError):
        cr.Env("pokeros", players=1)


@pytest.mark.parametrize("name", ["pokeros", "poker_chess", "detective_poker"])
def test_reward_model_follows_the_reward_parameter(name):
    assert cr.make(name).info["reward_model"] == "terminal"
    assert cr.make(name, reward="points").info["reward_model"] == "rewards"
