"""checkraise.gymnasium: one seat of every registered game against the engine's bots.

Driven by the registry (`cr.game_names()` / `cr.games()` facts): a game registered later is
covered with no change here.
"""

import inspect
import re
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import checkraise as cr
from checkraise import gymnasium as cg

FACTS = {entry["name"]: entry for entry in cr.games()}
GAMES = cr.game_names()
SIMULTANEOUS = [g for g in GAMES if FACTS[g]["dynamics"] == "simultaneous"]
OPPONENTS = ["heuristic", "random", "ismcts(iterations=20)"]


def play_episode(env, seed, check=None):
    """Plays one episode with random legal actions; returns (rewards, last info)."""
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    rewards = []
    terminated = False
    while not terminated:
        if check:
            check(env, obs, info)
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(action)
        assert truncated is False
        rewards.append(reward)
    if check:
        check(env, obs, info)
    return rewards, info


def check_against_engine(env, obs, info):
    """The agent sees exactly its seat's engine observation and mask."""
    state = env.engine_state()
    assert not state.is_chance_node()
    assert obs.dtype == np.float32 and obs in env.observation_space
    np.testing.assert_array_equal(obs, state.observation(env.seat))
    assert info["action_mask"].dtype == np.int8
    np.testing.assert_array_equal(info["action_mask"], state.legal_actions_mask(env.seat))
    if not state.is_terminal():
        assert state.current_player() in (env.seat, -2)
        assert info["action_mask"].any()


# ---------------------------------------------------------------------------------------------
# Gymnasium's checker


# check_env with default arguments (and every render mode) is in tests/test_ecosystem.py.


@pytest.mark.parametrize("name", GAMES)
def test_check_env_with_the_ansi_render_mode(name):
    with warnings.catch_warnings():
        # Unbounded Box (the engine publishes no per-entry bounds) and no registry spec.
        warnings.filterwarnings("ignore", message=".*infinity")
        warnings.filterwarnings("ignore", message=".*spec")
        check_env(cg.env(name, render_mode="ansi"))


def test_check_env_in_the_raise_mode_refuses_exactly_the_illegal_samples():
    """check_env steps with unmasked samples. In the "raise" mode a step raises
    IllegalActionError exactly when the sample is illegal (as documented), which fails the
    checker in games where most actions are illegal at most decisions (hence the "terminate"
    default). Seeding the action space first makes each checker run deterministic."""
    refused = []
    for name in GAMES:
        env = cg.env(name, illegal_action="raise")
        env.action_space.seed(0)
        tried = []
        step = env.step

        def recording_step(action, env=env, tried=tried, step=step):
            legal = bool(env.engine_state().legal_actions_mask(env.seat)[int(action)])
            tried.append(legal)
            return step(action)

        env.step = recording_step
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                check_env(env)
            except cr.IllegalActionError:
                assert tried[-1] is False and all(tried[:-1])
                refused.append(name)
            else:
                assert all(tried)
    assert refused, "no game refused an unmasked sample"


# ---------------------------------------------------------------------------------------------
# Episodes


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("opponent", OPPONENTS)
def test_episode_against_each_opponent(name, opponent):
    n = cr.make(name).num_players()
    for seat in (0, n - 1):
        env = cg.env(name, opponent=opponent, seat=seat)
        assert env.observation_space.shape == env.game.observation_shape()
        assert env.action_space.n == env.game.num_distinct_actions()
        rewards, info = play_episode(env, seed=seat + 10, check=check_against_engine)
        final = env.engine_state()
        assert final.is_terminal()
        assert info["returns"] == pytest.approx(final.returns())
        assert sum(rewards) == pytest.approx(final.returns()[seat])
        assert not info["action_mask"].any()
        with pytest.raises(cr.GameOverError, match="reset"):
            env.step(0)


@pytest.mark.parametrize("name", GAMES)
def test_seeded_reset_fixes_the_episode(name):
    def run(seed):
        env = cg.env(name, opponent="random", seat=1)
        rewards, _ = play_episode(env, seed)
        return rewards, env.engine_state().serialize()

    assert run(21) == run(21)
    env = cg.env(name)
    env.reset(seed=21)
    first = env.engine_state().serialize()
    env.reset()  # continues the seeded stream
    assert env.engine_state().serialize() != first or env.engine_state().history() == []


@pytest.mark.parametrize("name", GAMES)
def test_opponents_differ(name):
    """The opponent argument really chooses the bot: the heuristic and the random bot play
    differently over a few seeded episodes (same agent actions, same seeds)."""

    def history(opponent, seed):
        env = cg.env(name, opponent=opponent, seat=0)
        play_episode(env, seed)
        return env.engine_state().history()

    # A short game (Kuhn poker) may need more than a few episodes to tell them apart.
    assert any(history("heuristic", seed) != history("random", seed) for seed in range(30))


@pytest.mark.parametrize("name", GAMES)
def test_opponent_specs_with_settings(name):
    """Any bot spec plays the other seats; a seeded reset fixes searching bots' moves too."""

    def run(seed):
        env = cg.env(name, opponent="ismcts(iterations=15,rollout=random)", seat=0)
        rewards, _ = play_episode(env, seed, check=check_against_engine)
        return rewards, env.engine_state().serialize()

    assert run(4) == run(4)
    env = cg.env(name, opponent="ismcts(rollout=random, iterations=15)")
    assert env.opponent == "ismcts(rollout=random, iterations=15)"
    assert env.opponent_spec == "ismcts(iterations=15,c=0.7,rollout=random)"


@pytest.mark.parametrize(
    ("opponent", "message"),
    [
        ("ismcts(iterations=0)", r"setting 'iterations' of bot 'ismcts' cannot be '0'"),
        ("ismcts(depth=2)", r"bot 'ismcts' has no setting 'depth'"),
        ("random(c=1)", r"bot 'random' has no setting 'c'"),
        ("ismcts(rollout=smart)", r"setting 'rollout' .*one of: random, heuristic"),
    ],
)
def test_bad_opponent_specs_name_the_setting(opponent, message):
    with pytest.raises(cr.ParameterError, match=rf"bad opponent .*{message}"):
        cg.env(GAMES[0], opponent=opponent)


def test_a_game_over_before_the_agent_acts_is_skipped_and_reported():
    """Generic: find, for some game and seat, a seed where the game ended before the agent's
    first decision; reset must still hand the agent a decision and report the skipped game."""
    for name in GAMES:
        n = cr.make(name).num_players()
        for seat in range(1, n):
            env = cg.env(name, opponent="random", seat=seat)
            for seed in range(60):
                _, info = env.reset(seed=seed)
                if "skipped_returns" in info:
                    assert not env.engine_state().is_terminal()
                    assert info["action_mask"].any()
                    assert all(isinstance(r, float) for r in info["skipped_returns"])
                    return
    pytest.skip("no registered game ends before a later seat's first decision in 60 seeds")


# ---------------------------------------------------------------------------------------------
# Simultaneous nodes


@pytest.mark.parametrize("name", SIMULTANEOUS)
@pytest.mark.parametrize("opponent", OPPONENTS)
def test_bots_do_not_see_the_agents_pending_choice(name, opponent):
    """At a simultaneous node a bot decides from its own seat's information: states that differ
    only in the agent's earlier choice, which the bot's seat has not seen (its information
    state is the same), get the same bot choice from the same seeds, through the driver the
    env plays with and through ``Bot.act``."""
    env = cg.env(name, opponent=opponent, seat=0)
    env.reset(seed=0)
    game = env.game
    bot_seat = 1
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    checked = 0
    while not state.is_terminal() and checked < 5:
        assert state.is_simultaneous_node()
        reply = int(rng.choice(state.legal_actions(bot_seat)))
        variants = {}
        for choice in state.legal_actions(0):
            after = state.clone()
            after.apply_actions([choice, reply] + [0] * (game.num_players() - 2))
            if after.is_simultaneous_node():
                variants.setdefault(after.information_state_string(bot_seat), []).append(after)
        hidden = max(variants.values(), key=len)
        if len(hidden) >= 2:
            picks, direct = set(), set()
            for variant in hidden[:6]:
                # The env's driver (the engine's one driver) with the env's opponent.
                driver = cr.Driver(game, [None, opponent], seed=5)
                probe = variant.clone()
                assert driver.advance(probe) == "decide"
                assert driver.has_chosen(bot_seat)
                before = len(probe.history())
                driver.play(probe, 0, probe.legal_actions(0)[0])
                picks.add(probe.history()[before + bot_seat])
                # A Bot used directly follows the same rule.
                direct.add(cr.Bot(game, opponent, seed=5).act(variant, bot_seat))
            assert len(picks) == 1, (
                f"the bot's choice depends on the agent's hidden choice: {picks}"
            )
            assert len(direct) == 1, f"Bot.act depends on the hidden choice: {direct}"
            checked += 1
        state.apply_actions(
            [int(rng.choice(state.legal_actions(s))) for s in range(game.num_players())]
        )
    assert checked > 0


# ---------------------------------------------------------------------------------------------
# Illegal actions and bad arguments


def reset_to_a_choice_with_illegal_actions(env, seed=0):
    """Resets and plays legal moves until the agent has an illegal action to try. A game where
    every action is legal at every decision of five episodes (Kuhn poker: pass or bet) has
    none: the test is skipped, saying so."""
    for episode in range(seed, seed + 5):
        _, info = env.reset(seed=episode)
        rng = np.random.default_rng(episode)
        terminated = truncated = False
        while not (terminated or truncated):
            if not info["action_mask"].all():
                return info
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            _, _, terminated, truncated, info = env.step(action)
    pytest.skip(f"{env.game.name}: every action was legal at every decision of 5 episodes")


@pytest.mark.parametrize("name", GAMES)
def test_raise_mode_raises_and_changes_nothing(name):
    env = cg.env(name, illegal_action="raise")
    info = reset_to_a_choice_with_illegal_actions(env)
    bad = int(np.flatnonzero(info["action_mask"] == 0)[0])
    before = env.engine_state().serialize()
    with pytest.raises(cr.IllegalActionError, match=rf"seat 0: illegal action {bad}\b"):
        env.step(bad)
    with pytest.raises(cr.IllegalActionError, match="out of range"):
        env.step(env.action_space.n)
    with pytest.raises(TypeError, match="integer"):
        env.step("e2e4")
    assert env.engine_state().serialize() == before
    env.step(np.int64(np.flatnonzero(info["action_mask"])[0]))  # numpy ints are fine


@pytest.mark.parametrize("name", GAMES)
def test_default_terminate_mode_ends_the_episode_with_the_penalty(name):
    env = cg.env(name)
    assert env.illegal_action == "terminate"
    info = reset_to_a_choice_with_illegal_actions(env)
    bad = int(np.flatnonzero(info["action_mask"] == 0)[0])
    before = env.engine_state().serialize()
    _, reward, terminated, truncated, info = env.step(bad)
    assert terminated and not truncated
    assert reward == env.game.min_utility()
    assert info["illegal_action"] == bad and not info["action_mask"].any()
    assert re.match(
        rf"seat 0: illegal action {bad}\b.*legal actions", info["illegal_action_message"]
    )
    assert "returns" not in info  # the game is abandoned, not scored
    assert env.engine_state().serialize() == before
    assert not env.action_masks().any()
    with pytest.raises(cr.GameOverError):
        env.step(0)
    env = cg.env(name, illegal_reward=-3.5)
    info = reset_to_a_choice_with_illegal_actions(env)
    assert env.step(int(np.flatnonzero(info["action_mask"] == 0)[0]))[1] == -3.5


@pytest.mark.parametrize("name", GAMES)
def test_actions_outside_the_space_raise_in_either_mode(name):
    """An action outside the action space is a bug, not a move: it raises in the "terminate"
    mode too, and nothing changes."""
    env = cg.env(name)
    _, info = env.reset(seed=0)
    before = env.engine_state().serialize()
    with pytest.raises(cr.IllegalActionError, match="out of range"):
        env.step(env.action_space.n)
    with pytest.raises(cr.IllegalActionError, match="out of range"):
        env.step(-1)
    with pytest.raises(TypeError, match="integer"):
        env.step(1.5)
    assert env.engine_state().serialize() == before
    env.step(int(np.flatnonzero(info["action_mask"])[0]))


def test_bad_arguments():
    name = GAMES[0]
    n = cr.make(name).num_players()
    with pytest.raises(cr.ParameterError, match="bad opponent 'perfect': unknown bot 'perfect'"):
        cg.env(name, opponent="perfect")
    with pytest.raises(TypeError, match="opponent must be a bot spec"):
        cg.env(name, opponent=None)
    with pytest.raises(cr.InvalidSeatError, match=rf"seat {n} does not exist"):
        cg.env(name, seat=n)
    with pytest.raises(cr.InvalidSeatError, match="seat -1"):
        cg.env(name, seat=-1)
    with pytest.raises(TypeError, match="seat"):
        cg.env(name, seat="0")
    with pytest.raises(cr.UnknownGameError):
        cg.env("no_such_game")
    with pytest.raises(cr.ParameterError):
        cg.env(name, no_such_parameter=1)
    with pytest.raises(ValueError, match=r"render_mode 'rgb'.*'human', 'ansi', 'rgb_array'"):
        cg.env(name, render_mode="rgb")
    with pytest.raises(ValueError, match="illegal_action"):
        cg.env(name, illegal_action="ignore")
    with pytest.raises(ValueError, match="observation_type 'infostate'"):
        cg.env(name, observation_type="infostate")
    with pytest.raises(TypeError, match="dict_observation"):
        cg.env(name, dict_observation="yes")
    with pytest.raises(RuntimeError, match="reset"):
        cg.env(name).step(0)


def test_the_factories_take_their_classes_parameters():
    # Declared once, on each class: help() and inspect.signature show them on the factory, and
    # they bind as the class's do (positionally too).
    for factory, cls in ((cg.env, cg.CheckraiseEnv), (cg.vector_env, cg.CheckraiseVectorEnv)):
        assert inspect.signature(factory).parameters == inspect.signature(cls).parameters
        assert inspect.signature(factory).return_annotation == cls.__name__
    assert list(inspect.signature(cg.env).parameters)[:3] == ["game", "opponent", "seat"]
    env = cg.env(GAMES[0], "random", 1, None, "raise")
    assert (env.opponent, env.seat, env.illegal_action) == ("random", 1, "raise")
    with pytest.raises(TypeError, match="positional"):
        cg.env(GAMES[0], "random", 1, None, "raise", None, "observation")


def test_is_a_gymnasium_env_and_accepts_a_made_game():
    game = cr.make(GAMES[0])
    env = cg.env(game, opponent="random")
    assert isinstance(env, gymnasium.Env) and env.game == game
    with pytest.raises(ValueError, match="already made game"):
        cg.env(game, players=2)


# ---------------------------------------------------------------------------------------------
# Rendering


@pytest.mark.parametrize("name", GAMES)
def test_render_ansi(name):
    env = cg.env(name, render_mode="ansi")
    env.reset(seed=0)
    assert env.render() == str(env.engine_state())


def test_a_closed_env_refuses_every_call():
    env = cg.env("detective_poker")
    env.reset(seed=0)
    env.close()
    env.close()  # twice is fine
    for call in (lambda: env.reset(seed=1), lambda: env.step(0)):
        with pytest.raises(cr.CheckraiseError, match="closed"):
            call()
