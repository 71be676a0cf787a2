"""checkraise games registered with OpenSpiel (checkraise.openspiel), checked by OpenSpiel itself.

Every registered game is covered without game-specific code: `pyspiel.random_sim_test` runs on
each game's defaults and on one-parameter variants built from its schema, the pyspiel facts are
compared with `checkraise.games()`, and pyspiel states are walked side by side with the engine.
OpenSpiel's outcome-sampling MCCFR and IS-MCTS then run a few iterations on a small game.
"""

import pickle
import random
from pathlib import Path

import numpy as np
import pyspiel
import pytest
from open_spiel.python import observation, rl_environment
from open_spiel.python.algorithms import (
    evaluate_bots,
    ismcts,
    mcts,
    outcome_sampling_mccfr,
    tabular_qlearner,
)

import checkraise as cr
from checkraise import openspiel as co

ENTRIES = {entry["name"]: entry for entry in cr.games()}
GAMES = list(ENTRIES)


def one_parameter_variants():
    """(game, {parameter: value}) for each bound of every int and each other bool/choice value.

    Text parameters (FENs, grids, piece values) keep their defaults.
    """
    variants = []
    for name, entry in ENTRIES.items():
        for parameter, schema in entry["parameters"].items():
            if schema["kind"] == "int":
                values = [schema["min"], schema["max"]]
            elif schema["kind"] == "bool":
                values = [not schema["default"]]
            elif schema["kind"] == "choice":
                values = schema["options"]
            else:
                continue
            for value in values:
                if value != schema["default"]:
                    variants.append((name, {parameter: value}))
    return variants


def as_params(variants):
    """pytest params with readable ids: ``pokeros-players=4``."""
    return [
        pytest.param(name, params, id=name + "".join(f"-{k}={v}" for k, v in params.items()))
        for name, params in variants
    ]


def engine_accepts(name, params):
    """Whether the engine makes the game (some values clash with other defaults)."""
    try:
        cr.make(name, **params)
    except cr.ParameterError:
        return False
    return True


VARIANTS = one_parameter_variants()


def random_playout(state, rng, visit):
    """Plays pyspiel `state` to the end at random, calling `visit(state)` at every node."""
    num_players = state.num_players()
    while True:
        visit(state)
        if state.is_terminal():
            return state
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, probs)[0])
        elif state.is_simultaneous_node():
            state.apply_actions([rng.choice(state.legal_actions(p)) for p in range(num_players)])
        else:
            state.apply_action(rng.choice(state.legal_actions()))


def test_register_covers_every_game_and_is_idempotent():
    names = co.register()
    assert names == [f"checkraise_{name}" for name in cr.game_names()]
    assert co.register() == names
    registered = set(pyspiel.registered_names())
    assert set(names) <= registered
    # Nothing in the adapter names a game: new engine games join with no change here.
    source = Path(co.__file__).read_text()
    for name in cr.game_names():
        assert f'"{name}"' not in source and f"'{name}'" not in source


@pytest.mark.parametrize("name", GAMES)
def test_game_type_states_the_facts_of_games(name):
    entry = ENTRIES[name]
    game = pyspiel.load_game(f"checkraise_{name}")
    facts = game.get_type()
    assert facts.short_name == f"checkraise_{name}"
    assert facts.long_name == f"checkraise {entry['long_name']}"
    assert facts.dynamics.name == entry["dynamics"].upper()
    assert facts.chance_mode.name == entry["chance"].upper()
    assert facts.information.name == f"{entry['information'].upper()}_INFORMATION"
    assert facts.utility.name == entry["utility"].upper()
    assert facts.reward_model.name == entry["reward_model"].upper()
    assert facts.min_num_players == entry["min_players"]
    assert facts.max_num_players == entry["max_players"]
    assert facts.provides_information_state_string
    assert facts.provides_observation_string and facts.provides_observation_tensor
    assert facts.provides_information_state_tensor
    assert not facts.provides_factored_observation_string
    assert facts.default_loadable
    spec = facts.parameter_specification
    assert set(spec) == set(entry["parameters"])
    for parameter, schema in entry["parameters"].items():
        value = spec[parameter]
        assert value == schema["default"] and type(value) is type(schema["default"])


@pytest.mark.parametrize(
    ("name", "params"),
    as_params([(name, {}) for name in GAMES] + [v for v in VARIANTS[::3] if engine_accepts(*v)]),
)
def test_game_info_matches_the_engine_game(name, params):
    game = co.load_game(name, **params)
    engine = cr.make(name, **params)
    assert game.engine_game == engine
    assert game.num_players() == engine.num_players()
    assert game.num_distinct_actions() == engine.num_distinct_actions()
    assert game.max_chance_outcomes() == engine.max_chance_outcomes()
    assert game.min_utility() == engine.min_utility()
    assert game.max_utility() == engine.max_utility()
    assert game.max_game_length() == engine.max_game_length()
    assert game.observation_tensor_shape() == list(engine.observation_shape())
    assert game.get_type().utility.name == engine.info["utility"].upper()
    if engine.utility_sum() is not None:
        assert game.utility_sum() == engine.utility_sum()


@pytest.mark.parametrize("name", GAMES)
def test_random_sim_test_on_defaults(name):
    game = pyspiel.load_game(f"checkraise_{name}")
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


@pytest.mark.parametrize(("name", "params"), as_params(VARIANTS))
def test_random_sim_test_on_one_parameter_variants(name, params):
    try:
        cr.make(name, **params)
    except cr.ParameterError as error:
        # A value valid alone but not with the other defaults: pyspiel must refuse it too.
        with pytest.raises(ValueError, match=f"checkraise_{name}") as refused:
            co.load_game(name, **params)
        assert str(error) in str(refused.value)
        return
    game = co.load_game(name, **params)
    # One game where a game can be thousands of moves long (Hold'em Poker Chess with
    # hands=1000): the serialization check at every state costs the square of its length.
    sims = 1 if game.max_game_length() > 10_000 else 2
    pyspiel.random_sim_test(game, num_sims=sims, serialize=True, verbose=False)


def test_parameters_as_a_dict_or_a_string():
    by_dict = pyspiel.load_game("checkraise_pokeros", {"players": 3, "deck": "stripped"})
    by_string = pyspiel.load_game("checkraise_pokeros(players=3,deck=stripped)")
    by_helper = co.load_game("pokeros", players=3, deck="stripped")
    assert str(by_dict) == str(by_string) == str(by_helper)
    assert str(by_dict) == "checkraise_pokeros(deck=stripped,players=3)"
    assert by_dict.num_players() == 3
    assert by_dict.engine_game == cr.make("pokeros", players=3, deck="stripped")
    assert by_dict.get_parameters() == {"deck": "stripped", "players": 3}
    assert pyspiel.load_game(str(by_dict)).engine_game == by_dict.engine_game
    chess = pyspiel.load_game("checkraise_prediction_chess(fifty_move=False,max_turns=7)")
    assert chess.engine_game.parameters["fifty_move"] is False
    assert chess.engine_game.parameters["max_turns"] == 7
    assert str(pyspiel.load_game("checkraise_pokeros")) == "checkraise_pokeros()"
    # Explicit defaults are dropped, as OpenSpiel's C++ games keep only what was given.
    assert str(co.load_game("pokeros", players=2)) == "checkraise_pokeros()"


def test_games_and_states_pickle_by_parameters_even_when_strings_cannot_carry_them():
    # OpenSpiel's game strings cannot quote "=", so this game's str() does not load back...
    game = co.load_game("poker_chess", piece_values="k=100 q=8")
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter"):
        pyspiel.load_game(str(game))
    # ...but pickling goes by name and parameters, not through that string.
    again = pickle.loads(pickle.dumps(game))
    assert type(again) is type(game) and again.engine_game == game.engine_game
    state = game.new_initial_state()
    random_playout_steps(state, 20, random.Random(2))
    restored = pickle.loads(pickle.dumps(state))
    assert restored.history() == state.history()
    assert restored.engine_state.serialize() == state.engine_state.serialize()
    assert restored.get_game().engine_game == game.engine_game


def test_bad_parameters_raise_clear_errors():
    with pytest.raises(ValueError, match=r"players.*cannot be '9'.*from 2 to 4"):
        pyspiel.load_game("checkraise_pokeros", {"players": 9})
    with pytest.raises(ValueError, match=r"deck.*cannot be 'weird'.*full, stripped"):
        pyspiel.load_game("checkraise_pokeros(deck=weird)")
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'colour'"):
        pyspiel.load_game("checkraise_pokeros", {"colour": "red"})
    with pytest.raises(pyspiel.SpielError, match="Wrong type for parameter players"):
        pyspiel.load_game("checkraise_pokeros", {"players": "three"})
    with pytest.raises(pyspiel.SpielError, match="Unknown game 'checkraise_nope'"):
        pyspiel.load_game("checkraise_nope")
    with pytest.raises(TypeError, match="abstract"):
        co.CheckraiseGame()


@pytest.mark.parametrize("name", GAMES)
def test_pyspiel_state_mirrors_the_engine(name):
    game = pyspiel.load_game(f"checkraise_{name}")
    num_players = game.num_players()
    terminal_rewards_only = game.get_type().reward_model == pyspiel.GameType.RewardModel.TERMINAL
    sequential = game.get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    checked = {"nodes": 0}

    def visit(state):
        engine = state.engine_state
        checked["nodes"] += 1
        assert isinstance(state, co.CheckraiseState)
        assert state.current_player() == engine.current_player()
        assert state.history() == engine.history()
        if sequential:  # pyspiel counts a joint action as one move, the engine one per seat
            assert state.move_number() == engine.move_number()
        assert str(state) == str(engine)
        assert state.returns() == engine.returns()
        if terminal_rewards_only and not state.is_terminal():
            assert not any(state.rewards())
        for seat in range(num_players):
            assert state.information_state_string(seat) == engine.information_state_string(seat)
            assert state.observation_string(seat) == engine.observation_string(seat)
            np.testing.assert_array_equal(
                np.asarray(state.observation_tensor(seat), np.float32),
                engine.observation(seat).reshape(-1),
            )
            if state.is_simultaneous_node() or seat == state.current_player():
                assert state.legal_actions(seat) == engine.legal_actions(seat)
                for action in state.legal_actions(seat):
                    assert state.action_to_string(seat, action) == engine.action_to_string(
                        seat, action
                    )
        if state.is_chance_node():
            assert state.chance_outcomes() == engine.chance_outcomes()
        if checked["nodes"] % 7 == 1:
            copy = state.clone()
            assert isinstance(copy, co.CheckraiseState)
            assert copy.engine_state is not engine and str(copy) == str(state)
            unpickled = pickle.loads(pickle.dumps(state))
            assert unpickled.history() == state.history() and str(unpickled) == str(state)
            _, restored = pyspiel.deserialize_game_and_state(
                pyspiel.serialize_game_and_state(game, state)
            )
            assert restored.engine_state.serialize() == engine.serialize()
            if not state.is_terminal():
                before = engine.serialize()
                random_playout(copy, random.Random(1), lambda _: None)
                assert engine.serialize() == before  # the clone is independent

    final = random_playout(game.new_initial_state(), random.Random(7), visit)
    assert final.is_terminal() and final.current_player() == pyspiel.PlayerId.TERMINAL
    assert pickle.loads(pickle.dumps(game)).engine_game == game.engine_game


def test_rewards_add_up_to_returns_across_chance_nodes():
    game = co.load_game("pokeros", reward="points")
    state = game.new_initial_state()
    rng = random.Random(3)
    collected = np.zeros(game.num_players())
    seen_mid_game_reward = False
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, probs)[0])
            continue
        collected += state.rewards()
        seen_mid_game_reward |= any(state.rewards())
        np.testing.assert_allclose(collected, state.returns())
        state.apply_action(rng.choice(state.legal_actions()))
    collected += state.rewards()
    np.testing.assert_allclose(collected, state.returns())
    assert seen_mid_game_reward


def test_observers():
    game = pyspiel.load_game("checkraise_detective_poker")
    state = game.new_initial_state()
    random_playout_steps(state, 12, random.Random(0))
    default = observation.make_observation(game)
    assert default.tensor.shape == (game.engine_game.observation_tensor_size(),)
    assert list(default.dict) == ["observation"]
    for seat in range(game.num_players()):
        default.set_from(state, seat)
        np.testing.assert_array_equal(default.tensor, state.engine_state.observation(seat))
        assert default.string_from(state, seat) == state.engine_state.observation_string(seat)
    info = observation.make_observation(game, observation.INFO_STATE_OBS_TYPE)
    size = game.engine_game.information_state_tensor_size()
    assert info.tensor.shape == (size,)
    assert list(info.dict) == ["info_state"]
    assert game.information_state_tensor_shape() == [size]
    assert info.string_from(state, 1) == state.engine_state.information_state_string(1)
    for seat in range(game.num_players()):
        info.set_from(state, seat)
        expected = state.engine_state.information_state_tensor(seat)
        np.testing.assert_array_equal(info.tensor, expected)
        # pyspiel's own State.information_state_tensor goes through the same observer.
        np.testing.assert_array_equal(state.information_state_tensor(seat), expected)
    public_only = pyspiel.IIGObservationType(
        perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.NONE
    )
    with pytest.raises(ValueError, match="observing seat's private information only"):
        observation.make_observation(game, public_only)
    with pytest.raises(ValueError, match="take no parameters"):
        observation.make_observation(game, None, {"zoom": 2})


def random_playout_steps(state, steps, rng):
    """Applies `steps` random actions or chance outcomes (fewer if the game ends)."""
    for _ in range(steps):
        if state.is_terminal():
            return
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, probs)[0])
        elif state.is_simultaneous_node():
            state.apply_actions(
                [rng.choice(state.legal_actions(p)) for p in range(state.num_players())]
            )
        else:
            state.apply_action(rng.choice(state.legal_actions()))


@pytest.mark.parametrize("name", GAMES)
def test_resample_from_infostate_keeps_what_the_seat_knows(name):
    game = pyspiel.load_game(f"checkraise_{name}")
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    differences = {"count": 0, "checked": 0}

    def visit(state):
        if state.is_chance_node() or state.is_terminal() or state.move_number() % 3:
            return
        for seat in range(game.num_players()):
            sample = state.resample_from_infostate(seat, sampler)
            differences["checked"] += 1
            assert isinstance(sample, co.CheckraiseState)
            assert sample.history() == sample.engine_state.history()
            assert len(sample.history()) == len(state.history())
            assert sample.information_state_string(seat) == state.information_state_string(seat)
            np.testing.assert_array_equal(
                sample.information_state_tensor(seat), state.information_state_tensor(seat)
            )
            assert sample.observation_string(seat) == state.observation_string(seat)
            assert sample.current_player() == state.current_player()
            if state.is_simultaneous_node() or seat == state.current_player():
                assert sample.legal_actions(seat) == state.legal_actions(seat)
            differences["count"] += sample.history() != state.history()

    random_playout(game.new_initial_state(), random.Random(11), visit)
    assert differences["checked"] > 0
    if ENTRIES[name]["information"] == "imperfect":
        assert differences["count"] > 0, "resampling never changed a hidden choice"


SMALL_GAME = ("detective_poker", {"players": 2, "rounds": 1})


def test_outcome_sampling_mccfr_learns_a_valid_policy():
    game = co.load_game(SMALL_GAME[0], **SMALL_GAME[1])
    visited = []

    class RecordingSolver(outcome_sampling_mccfr.OutcomeSamplingSolver):
        """Remembers every decision state the solver walks through."""

        def _episode(self, state, *args, **kwargs):
            if not state.is_terminal() and not state.is_chance_node():
                visited.append(state.clone())
            return super()._episode(state, *args, **kwargs)

    np.random.seed(0)  # the solver samples with numpy's global generator
    solver = RecordingSolver(game)
    for _ in range(30):
        solver.iteration()
    assert visited
    table = solver._infostates  # information-state string -> [regrets, average strategy]
    policy = solver.average_policy()
    moved = 0
    for state in visited:
        legal = state.legal_actions()
        regrets, strategy = table[state.information_state_string()]
        assert len(regrets) == len(strategy) == len(legal)
        moved += not np.allclose(regrets, regrets[0])
        probabilities = policy.action_probabilities(state)
        assert sorted(probabilities) == legal
        values = np.array(list(probabilities.values()))
        assert (values >= 0).all() and values.sum() == pytest.approx(1.0)
    assert moved > 0, "no regret ever moved: the solver saw no returns"


def test_ismcts_bot_plays_a_whole_game_legally():
    game = co.load_game(SMALL_GAME[0], **SMALL_GAME[1])
    random_state = np.random.RandomState(0)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=random_state)
    bot = ismcts.ISMCTSBot(
        game, evaluator, uct_c=2.0, max_simulations=10, random_state=random_state
    )
    state = game.new_initial_state()
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(random_state.choice(outcomes, p=probs)))
            continue
        policy, action = bot.step_with_policy(state)
        legal = state.legal_actions()
        assert action in legal
        assert {a for a, _ in policy} == set(legal)
        assert sum(p for _, p in policy) == pytest.approx(1.0)
        state.apply_action(action)
        decisions += 1
    assert decisions > 0
    returns = state.returns()
    assert all(game.min_utility() <= r <= game.max_utility() for r in returns)
    assert sum(returns) == pytest.approx(game.utility_sum())


def test_rl_environment_trains_on_information_state_tensors():
    """OpenSpiel's rl_environment picks the information-state tensor (the game provides one),
    and a tabular Q-learner keyed on it plays and learns for a few episodes."""
    game = pyspiel.load_game("checkraise_detective_poker", {"players": 2, "rounds": 1})
    env = rl_environment.Environment(game, seed=0)
    size = game.engine_game.information_state_tensor_size()
    assert env.observation_spec()["info_state"] == (size,)
    num_actions = env.action_spec()["num_actions"]
    agents = [tabular_qlearner.QLearner(player_id=seat, num_actions=num_actions) for seat in (0, 1)]
    returns = np.zeros(2)
    for _ in range(20):
        step = env.reset()
        while not step.last():
            seat = step.observations["current_player"]
            expected = env.get_state.information_state_tensor(seat)
            np.testing.assert_array_equal(step.observations["info_state"][seat], expected)
            step = env.step([agents[seat].step(step).action])
        for agent in agents:
            agent.step(step)
        returns += step.rewards
    assert returns.sum() == pytest.approx(0.0)
    # Every decision of 20 games went through the learners' tables, keyed on tensors.
    assert all(len(agent._q_values) > 0 for agent in agents)


# ---------------------------------------------------------------------------------------------
# The engine's bots as pyspiel bots


ENGINE_BOT_SPECS = ["ismcts(iterations=20)", "heuristic", "random"]


def engine_bots(game, seed):
    """One engine bot per seat, the specs in turn, each with its own seed."""
    return [
        co.make_bot(game, ENGINE_BOT_SPECS[seat % len(ENGINE_BOT_SPECS)], seat, seed + seat)
        for seat in range(game.num_players())
    ]


@pytest.mark.parametrize("name", GAMES)
def test_engine_bots_play_through_evaluate_bots(name):
    game = co.load_game(name)
    returns = evaluate_bots.evaluate_bots(
        game.new_initial_state(), engine_bots(game, 3), np.random.default_rng(0)
    )
    assert len(returns) == game.num_players()
    assert all(game.min_utility() <= r <= game.max_utility() for r in returns)
    again = evaluate_bots.evaluate_bots(
        game.new_initial_state(), engine_bots(game, 3), np.random.default_rng(0)
    )
    assert again == returns


def test_engine_bots_step_like_pyspiel_bots():
    game = co.load_game("pokeros")
    bot = co.make_bot(game, "ismcts", 1, seed=2, iterations=25, rollout="random")
    assert isinstance(bot, pyspiel.Bot) and isinstance(bot, co.CheckraiseBot)
    assert bot.player_id() == 1 and not bot.provides_policy()
    assert bot.engine_bot.spec == "ismcts(iterations=25,c=0.7,rollout=random)"
    assert "seat 1 of checkraise_pokeros" in repr(bot)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    mover = state.current_player()
    acting = co.make_bot(game, "heuristic", mover)
    assert acting.step(state) in state.legal_actions()
    idle = co.make_bot(game, "heuristic", 1 - mover)
    assert idle.step(state) == pyspiel.INVALID_ACTION
    acting.restart_at(state)
    acting.inform_action(state, mover, state.legal_actions()[0])


def test_make_bot_errors():
    game = co.load_game("pokeros")
    with pytest.raises(cr.ParameterError, match=r"setting 'iterations' of bot 'ismcts'"):
        co.make_bot(game, "ismcts(iterations=0)")
    with pytest.raises(cr.ParameterError, match=r"bot 'ismcts' has no setting 'depth'"):
        co.make_bot(game, "ismcts", depth=2)
    with pytest.raises(cr.InvalidSeatError, match="seat 2 does not exist"):
        co.make_bot(game, "random", 2)
    with pytest.raises(TypeError, match="checkraise pyspiel game"):
        co.make_bot(pyspiel.load_game("kuhn_poker"), "random")
    with pytest.raises(TypeError, match="checkraise pyspiel states"):
        co.make_bot(game, "random").step(pyspiel.load_game("kuhn_poker").new_initial_state())
