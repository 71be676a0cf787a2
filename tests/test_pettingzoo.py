"""checkraise.pettingzoo: AEC envs for every registered game, parallel envs for simultaneous ones.

Every test is driven by the registry (`cr.game_names()` / `cr.games()` facts), so a game
registered later is covered with no change here.
"""

import inspect
import re

import numpy as np
import pytest
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

import checkraise as cr
from checkraise import pettingzoo as cpz

FACTS = {entry["name"]: entry for entry in cr.games()}
GAMES = cr.game_names()
SIMULTANEOUS = [g for g in GAMES if FACTS[g]["dynamics"] == "simultaneous"]
SEQUENTIAL = [g for g in GAMES if FACTS[g]["dynamics"] == "sequential"]


def most_players(name):
    """Parameters seating the most players the game allows (empty if it has no `players`)."""
    if "players" in FACTS[name]["parameters"] and FACTS[name]["max_players"] > 2:
        return {"players": FACTS[name]["max_players"]}
    return {}


VARIANTS = [(g, {}) for g in GAMES] + [(g, most_players(g)) for g in GAMES if most_players(g)]
VARIANT_IDS = [
    f"{g}-{'-'.join(f'{k}={v}' for k, v in p.items()) or 'defaults'}" for g, p in VARIANTS
]


def masked_action(env, agent, observation):
    """A uniformly random legal action from the agent's own space (seeded by reset)."""
    return env.action_space(agent).sample(observation["action_mask"])


def check_against_engine(env, agent):
    """The agent's observation is exactly the engine's view of its seat, and nothing else."""
    seat = int(agent.split("_")[1])
    state = env.engine_state()
    obs = env.observe(agent)
    assert set(obs) == {"observation", "action_mask"}
    assert obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
    np.testing.assert_array_equal(obs["observation"], state.observation(seat))
    np.testing.assert_array_equal(obs["action_mask"], state.legal_actions_mask(seat))
    assert obs in env.observation_space(agent)


# ---------------------------------------------------------------------------------------------
# PettingZoo's own test suites


@pytest.mark.parametrize(("name", "params"), VARIANTS, ids=VARIANT_IDS)
def test_api_test(name, params):
    env = cpz.env(name, **params)
    assert isinstance(env, AECEnv)
    api_test(env, num_cycles=1000)


@pytest.mark.parametrize(("name", "params"), VARIANTS, ids=VARIANT_IDS)
def test_seed_test(name, params):
    seed_test(lambda: cpz.env(name, **params), num_cycles=500)


@pytest.mark.parametrize("name", SIMULTANEOUS)
def test_parallel_api_test(name):
    env = cpz.parallel_env(name)
    assert isinstance(env, ParallelEnv)
    parallel_api_test(env, num_cycles=1000)


@pytest.mark.parametrize("name", SIMULTANEOUS)
def test_parallel_seed_test(name):
    # parallel_seed_test samples unmasked actions (illegal almost always), which the default
    # "terminate" mode turns into a penalty; test_parallel_env_is_deterministic plays whole
    # games.
    parallel_seed_test(lambda: cpz.parallel_env(name))


# ---------------------------------------------------------------------------------------------
# Whole games against the engine


@pytest.mark.parametrize(("name", "params"), VARIANTS, ids=VARIANT_IDS)
def test_full_game_matches_the_engine(name, params):
    env = cpz.env(name, **params)
    env.reset(seed=7)
    game = env.game
    n = game.num_players()
    assert env.possible_agents == [f"player_{s}" for s in range(n)]
    for agent in env.possible_agents:
        space = env.observation_space(agent)
        assert space["observation"].shape == game.observation_shape()
        assert space["action_mask"].shape == (game.num_distinct_actions(),)
        assert env.action_space(agent).n == game.num_distinct_actions()
    totals = dict.fromkeys(env.possible_agents, 0.0)
    steps = 0
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        assert truncated is False
        state = env.engine_state()
        assert not state.is_chance_node()
        check_against_engine(env, agent)
        if terminated:
            assert state.is_terminal()
            assert not obs["action_mask"].any()
            env.step(None)
            continue
        seat = int(agent.split("_")[1])
        assert state.current_player() in (seat, -2)
        assert obs["action_mask"].any()
        env.step(masked_action(env, agent, obs))
        steps += 1
    assert env.agents == []
    final = env.engine_state()
    assert final.is_terminal()
    assert steps <= game.max_game_length()
    for seat, agent in enumerate(env.possible_agents):
        assert totals[agent] == pytest.approx(final.returns()[seat])


@pytest.mark.parametrize("name", GAMES)
def test_reset_seed_reproduces_the_game_and_unseeded_reset_continues_the_stream(name):
    def trajectory(env, seed):
        env.reset(seed=seed)
        seen = []
        for agent in env.agent_iter():
            obs, reward, terminated, _, _ = env.last()
            action = None if terminated else masked_action(env, agent, obs)
            seen.append((agent, reward, action))
            env.step(action)
        return seen, env.engine_state().serialize()

    env = cpz.env(name)
    first = trajectory(env, 11)
    assert trajectory(cpz.env(name), 11) == first
    env.reset()  # continues the seeded stream: a fresh game, still reproducible
    again = cpz.env(name)
    trajectory(again, 11)
    again.reset()
    assert env.engine_state().serialize() == again.engine_state().serialize()


@pytest.mark.parametrize("name", SIMULTANEOUS)
def test_parallel_env_plays_whole_games_against_the_engine(name):
    env = cpz.parallel_env(name)
    observations, infos = env.reset(seed=5)
    assert set(observations) == set(env.possible_agents) and set(infos) == set(env.possible_agents)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    while env.agents:
        state = env.engine_state()
        for seat, agent in enumerate(env.possible_agents):
            np.testing.assert_array_equal(
                observations[agent]["observation"], state.observation(seat)
            )
            np.testing.assert_array_equal(
                observations[agent]["action_mask"], state.legal_actions_mask(seat)
            )
        actions = {a: masked_action(env, a, observations[a]) for a in env.agents}
        observations, rewards, terminations, truncations, infos = env.step(actions)
        for agent, reward in rewards.items():
            totals[agent] += reward
        assert not any(truncations.values())
        assert len(set(terminations.values())) == 1
    final = env.engine_state()
    assert final.is_terminal()
    assert [totals[a] for a in env.possible_agents] == pytest.approx(final.returns())


@pytest.mark.parametrize("name", SIMULTANEOUS)
def test_parallel_env_is_deterministic_over_whole_games(name):
    def run(seed):
        env = cpz.parallel_env(name)
        observations, _ = env.reset(seed=seed)
        record = []
        while env.agents:
            actions = {a: int(masked_action(env, a, observations[a])) for a in env.agents}
            observations, rewards, *_ = env.step(actions)
            record.append((actions, rewards))
        return record, env.engine_state().serialize()

    assert run(3) == run(3)
    assert run(3) != run(4)


@pytest.mark.parametrize("name", SIMULTANEOUS)
def test_aec_and_parallel_envs_agree(name):
    """The same joint actions give the same game through either interface."""
    par = cpz.parallel_env(name)
    aec = cpz.env(name)
    observations, _ = par.reset(seed=2)
    aec.reset(seed=2)
    while par.agents:
        actions = {a: int(masked_action(par, a, observations[a])) for a in par.agents}
        for agent in aec.possible_agents:
            assert aec.agent_selection == agent
            np.testing.assert_array_equal(
                aec.observe(agent)["observation"], observations[agent]["observation"]
            )
            aec.step(actions[agent])
        observations, *_ = par.step(actions)
        assert aec.engine_state().serialize() == par.engine_state().serialize()
    assert all(aec.terminations.values())


# ---------------------------------------------------------------------------------------------
# Information hiding


@pytest.mark.parametrize("name", SIMULTANEOUS)
@pytest.mark.parametrize("warmup", [0, 2, 8])
def test_pending_simultaneous_choice_is_hidden_from_the_others(name, warmup):
    """After the first agent chooses at a simultaneous node, the next agent's observation is
    the same whatever that choice was, and the engine state holds no trace of it. `warmup`
    agent steps first reach different kinds of node (Prediction Chess: move, prediction)."""
    probe = cpz.env(name)
    probe.reset(seed=1)
    for _ in range(warmup):
        agent = probe.agent_selection
        probe.step(masked_action(probe, agent, probe.observe(agent)))
    assert probe.engine_state().is_simultaneous_node()
    first = probe.agent_selection
    choices = np.flatnonzero(probe.observe(first)["action_mask"])
    assert len(choices) >= 2
    seen = []
    for choice in choices[:5]:
        env = cpz.env(name)
        env.reset(seed=1)
        for _ in range(warmup):
            agent = env.agent_selection
            env.step(masked_action(env, agent, env.observe(agent)))
        before = env.engine_state().serialize()
        env.step(int(choice))
        assert env.engine_state().serialize() == before
        other = env.agent_selection
        assert other != first
        check_against_engine(env, other)
        seen.append(env.observe(other))
    for obs in seen[1:]:
        np.testing.assert_array_equal(obs["observation"], seen[0]["observation"])
        np.testing.assert_array_equal(obs["action_mask"], seen[0]["action_mask"])


@pytest.mark.parametrize("name", GAMES)
def test_observations_are_the_seats_own_views(name):
    """Each agent sees exactly its seat's engine observation; seats are told apart."""
    env = cpz.env(name)
    env.reset(seed=4)
    for agent in env.possible_agents:
        check_against_engine(env, agent)
    views = [env.observe(a)["observation"] for a in env.possible_agents]
    assert any(not np.array_equal(views[0], v) for v in views[1:])


# ---------------------------------------------------------------------------------------------
# Illegal actions and misuse


def first_illegal(env, agent):
    """The smallest action id the agent may not play now."""
    return int(np.flatnonzero(env.observe(agent)["action_mask"] == 0)[0])


def reset_to_a_choice_with_illegal_actions(env, seed=0):
    """Resets and plays legal moves until the agent to act has an illegal action (some games,
    e.g. Detective Poker's first bet, allow every action). A game where every action is legal
    at every decision of five episodes (Kuhn poker: pass or bet) has none to try: the test is
    skipped, saying so."""
    for episode in range(seed, seed + 5):
        env.reset(seed=episode)
        while env.agents:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                break
            if not env.observe(agent)["action_mask"].all():
                return agent
            env.step(masked_action(env, agent, env.observe(agent)))
    pytest.skip(f"{env.game.name}: every action was legal at every decision of 5 episodes")


@pytest.mark.parametrize("name", GAMES)
def test_illegal_action_raises_naming_agent_and_action_and_changes_nothing(name):
    env = cpz.env(name, illegal_action="raise")
    agent = reset_to_a_choice_with_illegal_actions(env)
    bad = first_illegal(env, agent)
    before = env.engine_state().serialize()
    with pytest.raises(
        cr.IllegalActionError, match=rf"{agent} \(seat \d\): illegal action {bad}\b"
    ):
        env.step(bad)
    with pytest.raises(cr.IllegalActionError, match=rf"{agent}.*out of range"):
        env.step(env.game.num_distinct_actions())
    with pytest.raises(cr.IllegalActionError, match="out of range"):
        env.step(-1)
    with pytest.raises(TypeError, match=agent):
        env.step(1.5)
    with pytest.raises(ValueError, match="None"):
        env.step(None)
    assert env.agent_selection == agent
    assert env.engine_state().serialize() == before
    env.step(masked_action(env, agent, env.observe(agent)))  # still playable


@pytest.mark.parametrize("name", GAMES)
def test_terminate_mode_ends_the_game_and_penalises_the_offender(name):
    # The default mode; raw_env, so that a step after the end raises (env()'s
    # OrderEnforcingWrapper only warns).
    env = cpz.raw_env(name, illegal_reward=-5.0)
    agent = reset_to_a_choice_with_illegal_actions(env)
    bad = first_illegal(env, agent)
    env.step(bad)
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.rewards == {a: (-5.0 if a == agent else 0.0) for a in env.possible_agents}
    assert set(env.infos[agent]) == {"illegal_action", "illegal_action_message"}
    assert env.infos[agent]["illegal_action"] == bad
    assert re.match(
        rf"{agent} \(seat \d\): illegal action {bad}\b.*legal actions",
        env.infos[agent]["illegal_action_message"],
    )
    assert all(env.infos[a] == {} for a in env.possible_agents if a != agent)
    left = []
    for a in env.agent_iter():
        _, reward, terminated, _, _ = env.last()
        assert terminated
        assert reward == (-5.0 if a == agent else 0.0)
        with pytest.raises(ValueError, match="None"):
            env.step(0)
        env.step(None)
        left.append(a)
    assert sorted(left) == env.possible_agents
    with pytest.raises(cr.GameOverError, match="reset"):
        env.step(None)


@pytest.mark.parametrize("name", GAMES)
def test_actions_outside_the_space_raise_in_either_mode(name):
    """An action outside the action space is a bug, not a move (PettingZoo's
    AssertOutOfBoundsWrapper's rule): it raises in the "terminate" mode too."""
    env = cpz.env(name)
    env.reset(seed=0)
    agent = env.agent_selection
    before = env.engine_state().serialize()
    with pytest.raises(cr.IllegalActionError, match=rf"{agent}.*out of range"):
        env.step(env.game.num_distinct_actions())
    with pytest.raises(TypeError, match=agent):
        env.step("e2e4")
    assert env.engine_state().serialize() == before
    assert not any(env.terminations.values())


def test_terminate_mode_default_penalty_is_the_worst_result():
    env = cpz.env(GAMES[0])
    agent = reset_to_a_choice_with_illegal_actions(env)
    env.step(first_illegal(env, agent))
    assert env.rewards[agent] == env.game.min_utility()


@pytest.mark.parametrize("name", SIMULTANEOUS)
def test_parallel_illegal_actions(name):
    env = cpz.parallel_env(name, illegal_action="raise")
    observations, _ = env.reset(seed=0)
    good = {a: int(masked_action(env, a, observations[a])) for a in env.agents}
    bad_agent = env.agents[-1]
    bad = int(np.flatnonzero(observations[bad_agent]["action_mask"] == 0)[0])
    before = env.engine_state().serialize()
    with pytest.raises(
        cr.IllegalActionError, match=rf"{bad_agent} \(seat \d\): illegal action {bad}\b"
    ):
        env.step({**good, bad_agent: bad})
    with pytest.raises(ValueError, match="no action for"):
        env.step({env.agents[0]: good[env.agents[0]]})
    with pytest.raises(ValueError, match="not playing"):
        env.step({**good, "player_9": 0})
    assert env.engine_state().serialize() == before
    env.step(good)

    env = cpz.parallel_env(name)  # the default "terminate" mode
    observations, _ = env.reset(seed=0)
    with pytest.raises(cr.IllegalActionError, match="out of range"):
        env.step({**good, bad_agent: env.game.num_distinct_actions()})
    _, rewards, terminations, _, infos = env.step({**good, bad_agent: bad})
    assert all(terminations.values()) and env.agents == []
    assert rewards[bad_agent] == env.game.min_utility()
    assert infos[bad_agent]["illegal_action"] == bad
    assert infos[bad_agent]["illegal_action_message"].startswith(f"{bad_agent} (seat")
    with pytest.raises(cr.GameOverError):
        env.step(good)


@pytest.mark.parametrize("name", SEQUENTIAL)
def test_parallel_env_refuses_sequential_games(name):
    with pytest.raises(
        ValueError, match=rf"{name} is a sequential game.*pettingzoo.env\('{name}'\)"
    ):
        cpz.parallel_env(name)


def test_bad_arguments():
    with pytest.raises(cr.UnknownGameError):
        cpz.env("no_such_game")
    with pytest.raises(cr.ParameterError):
        cpz.env(GAMES[0], no_such_parameter=1)
    with pytest.raises(ValueError, match="render_mode 'rgb'"):
        cpz.env(GAMES[0], render_mode="rgb")
    with pytest.raises(ValueError, match="illegal_action 'ignore'"):
        cpz.env(GAMES[0], illegal_action="ignore")
    with pytest.raises(ValueError, match="observation_type 'infostate'"):
        cpz.env(GAMES[0], observation_type="infostate")
    with pytest.raises(ValueError, match="observation_type 'infostate'"):
        cpz.parallel_env("prediction_chess", observation_type="infostate")
    env = cpz.raw_env(GAMES[0])
    with pytest.raises(RuntimeError, match="reset"):
        env.observe("player_0")
    # env() is wrapped in PettingZoo's OrderEnforcingWrapper, which refuses it first.
    with pytest.raises(AssertionError, match="reset"):
        cpz.env(GAMES[0]).observe("player_0")


def test_the_factories_take_their_classes_parameters():
    # Declared once, on the envs' shared __init__: help() and inspect.signature show them on
    # every factory, and they bind as the class's do (positionally too).
    for factory, cls in (
        (cpz.raw_env, cpz.RawEnv),
        (cpz.env, cpz.RawEnv),
        (cpz.parallel_env, cpz.ParallelRawEnv),
    ):
        assert inspect.signature(factory).parameters == inspect.signature(cls).parameters
    assert list(inspect.signature(cpz.env).parameters) == [
        "game",
        "render_mode",
        "illegal_action",
        "illegal_reward",
        "observation_type",
        "params",
    ]
    raw = cpz.raw_env(GAMES[0], "ansi", "raise", -5.0)
    assert (raw.render_mode, raw.illegal_action, raw.illegal_reward) == ("ansi", "raise", -5.0)
    parallel = cpz.parallel_env("prediction_chess", "ansi", "raise")
    assert (parallel.render_mode, parallel.illegal_action) == ("ansi", "raise")


def test_spaces_are_seeded_by_reset_and_distinct_per_agent():
    env = cpz.env(GAMES[0])
    assert env.action_space("player_0") is env.action_space("player_0")
    assert env.observation_space("player_0") is not env.observation_space("player_1")
    env.reset(seed=3)
    draws = [env.action_space(a).sample() for a in env.possible_agents]
    env.reset(seed=3)
    assert [env.action_space(a).sample() for a in env.possible_agents] == draws


# ---------------------------------------------------------------------------------------------
# Rendering


@pytest.mark.parametrize("name", GAMES)
def test_render_ansi_is_the_whole_table(name):
    env = cpz.env(name, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and text == str(env.engine_state())


def test_render_without_mode_returns_none():
    env = cpz.env(GAMES[0])
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode"):
        assert env.render() is None


def test_a_closed_env_refuses_every_call():
    aec = cpz.raw_env("pokeros")
    aec.reset(seed=0)
    aec.close()
    aec.close()  # twice is fine
    for call in (lambda: aec.reset(seed=1), lambda: aec.step(0), lambda: aec.observe("player_0")):
        with pytest.raises(cr.CheckraiseError, match="closed"):
            call()
    par = cpz.parallel_env("prediction_chess")
    par.reset(seed=0)
    par.close()
    for call in (lambda: par.reset(seed=1), lambda: par.step({"player_0": 0, "player_1": 0})):
        with pytest.raises(cr.CheckraiseError, match="closed"):
            call()


# ---------------------------------------------------------------------------------------------
# Engine bots as agents: bot_policy


POLICY_SPECS = ["ismcts(iterations=20)", "heuristic", "random"]


def play_with_policies(env, seed):
    """One AEC game with an engine bot per agent; returns the engine history and returns."""
    env.reset(seed=seed)
    policies = {
        agent: cpz.bot_policy(env, POLICY_SPECS[i % len(POLICY_SPECS)], seed=seed + i)
        for i, agent in enumerate(env.possible_agents)
    }
    for agent in env.agent_iter():
        _, _, terminated, truncated, _ = env.last()
        action = policies[agent](agent)
        if terminated or truncated:
            assert action is None
        else:
            assert env.observe(agent)["action_mask"][action] == 1
        env.step(action)
    state = env.engine_state()
    assert state.is_terminal()
    return state.history(), state.returns()


# Every game at its defaults, and one table of three (the largest tables take seconds).
POLICY_VARIANTS = [(g, {}) for g in GAMES] + [("pokeros", {"players": 3})]


@pytest.mark.parametrize(("name", "params"), POLICY_VARIANTS)
def test_bot_policies_play_aec_games(name, params):
    env = cpz.env(name, **params)
    assert play_with_policies(env, 5) == play_with_policies(env, 5)


@pytest.mark.parametrize("name", SIMULTANEOUS)
def test_bot_policies_play_parallel_games(name):
    def play(seed):
        par = cpz.parallel_env(name)
        observations, _ = par.reset(seed=seed)
        policies = {
            agent: cpz.bot_policy(par, "ismcts", seed=seed + i, iterations=15)
            for i, agent in enumerate(par.possible_agents)
        }
        while par.agents:
            actions = {agent: policies[agent](agent) for agent in par.agents}
            for agent, action in actions.items():
                mask = observations[agent]["action_mask"]
                assert (action is None) == (not mask.any())
                assert action is None or mask[action] == 1
            observations, *_ = par.step(actions)
        return par.engine_state().history()

    assert play(2) == play(2)


def test_bot_policy_errors():
    env = cpz.env(GAMES[0])
    with pytest.raises(cr.ParameterError, match=r"setting 'iterations' of bot 'ismcts'"):
        cpz.bot_policy(env, "ismcts(iterations=0)")
    with pytest.raises(cr.ParameterError, match=r"bot 'ismcts' has no setting 'depth'"):
        cpz.bot_policy(env, "ismcts", depth=2)
    with pytest.raises(TypeError, match="checkraise PettingZoo env"):
        cpz.bot_policy(object(), "random")
    policy = cpz.bot_policy(env, "heuristic")
    assert policy.bot.spec == "heuristic" and "heuristic" in repr(policy)
    with pytest.raises(RuntimeError, match="reset"):
        policy("player_0")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="unknown agent 'player_9'"):
        policy("player_9")
