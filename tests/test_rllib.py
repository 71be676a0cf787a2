"""checkraise.rllib: RLlib's PPO trains on the games as shipped.

The multi-agent env on every game (spaces hold every observation, masks are the engine's legal
actions, only the acting agents observe, rewards sum to the returns, seeded runs repeat, RLlib's
own checker passes), the single-agent and vector envs, the errors, and PPO with RLlib's
action-masking module trained for a few iterations with two env runners on a local Ray cluster
(a sequential and a simultaneous game), plus docs/python.md's RLlib section run as written.
"""

import importlib
import itertools
import math
import re
import sys
import textwrap
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pytest
import ray
from ray.rllib.utils.pre_checks.env import check_multiagent_environments

import checkraise as cr
import checkraise.rllib as crl

ROOT = Path(__file__).resolve().parent.parent
FACTS = {entry["name"]: entry for entry in cr.games()}
GAMES = cr.game_names()
SIMULTANEOUS = [g for g in GAMES if FACTS[g]["dynamics"] == "simultaneous"]
SEQUENTIAL = [g for g in GAMES if FACTS[g]["dynamics"] == "sequential"]


def acting_seats(state):
    if state.is_terminal():
        return []
    if state.is_simultaneous_node():
        return list(range(state.num_players()))
    return [state.current_player()]


def play(env, seed, rng):
    """One episode of masked random actions, checked step by step against the engine; returns
    every agent's summed reward, the final infos and the observations seen."""
    obs, infos = env.reset(seed=seed)
    assert set(infos) == set(obs)
    total = dict.fromkeys(env.possible_agents, 0.0)
    seen = []
    while True:
        state = env.engine_state()
        assert sorted(obs) == [f"player_{s}" for s in acting_seats(state)]
        for agent, o in obs.items():
            assert env.observation_spaces[agent].contains(o), agent
            assert o["action_mask"].dtype == np.float32
            seat = int(agent.split("_")[1])
            np.testing.assert_array_equal(o["action_mask"], state.legal_actions_mask(seat))
            np.testing.assert_array_equal(o["observations"], state.observation(seat))
            seen.append(o["observations"])
        actions = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()}
        obs, rewards, terminateds, truncateds, infos = env.step(actions)
        assert set(rewards) == set(env.possible_agents)
        for agent, reward in rewards.items():
            assert isinstance(reward, float)
            total[agent] += reward
        assert truncateds["__all__"] is False
        if terminateds["__all__"]:
            break
        assert terminateds == {"__all__": False} and truncateds == {"__all__": False}
    # The end: every agent observes once more, its mask all zeros.
    assert sorted(obs) == sorted(env.possible_agents)
    assert all(terminateds[a] for a in env.possible_agents)
    for agent, o in obs.items():
        assert env.observation_spaces[agent].contains(o)
        assert not o["action_mask"].any()
    with pytest.raises(cr.GameOverError):
        env.step({})
    return total, infos, seen


@pytest.mark.parametrize("name", GAMES)
def test_masked_random_episodes_match_the_engine(name):
    env = crl.multi_agent_env(name)
    game = cr.make(name)
    n = game.num_players()
    assert env.possible_agents == env.agents == [f"player_{s}" for s in range(n)]
    for agent in env.possible_agents:
        space = env.observation_spaces[agent]
        assert set(space.spaces) == {"observations", "action_mask"}
        assert space["observations"].shape == tuple(game.observation_shape())
        assert space["action_mask"] == gymnasium.spaces.Box(
            0, 1, (game.num_distinct_actions(),), np.float32
        )
        assert env.action_spaces[agent] == gymnasium.spaces.Discrete(game.num_distinct_actions())
    rng = np.random.default_rng(0)
    for seed in range(3):
        total, infos, _ = play(env, seed, rng)
        returns = env.engine_state().returns()
        for agent, seat in zip(env.possible_agents, range(n), strict=True):
            assert math.isclose(total[agent], returns[seat], abs_tol=1e-4), (seed, agent)
            assert infos[agent]["returns"] == pytest.approx(list(returns))


@pytest.mark.parametrize("name", GAMES)
def test_rllibs_checker_passes(name):
    check_multiagent_environments(crl.multi_agent_env(name))


@pytest.mark.parametrize("name", ["pokeros", *SIMULTANEOUS])
def test_seeded_episodes_repeat(name):
    def run(seed):
        return play(crl.multi_agent_env(name), seed, np.random.default_rng(7))

    first, second, other = run(11), run(11), run(12)
    assert first[0] == second[0]
    assert len(first[2]) == len(second[2])
    for a, b in zip(first[2], second[2], strict=True):
        np.testing.assert_array_equal(a, b)
    if FACTS[name]["chance"] != "deterministic":
        assert len(first[2]) != len(other[2]) or any(
            not np.array_equal(a, b) for a, b in zip(first[2], other[2], strict=False)
        )


def test_game_parameters_and_options_pass_through():
    env = crl.multi_agent_env("pokeros", players=3)
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    assert env.game.num_players() == 3
    info = crl.multi_agent_env("detective_poker", observation_type="information_state")
    game = cr.make("detective_poker")
    space = info.observation_spaces["player_0"]["observations"]
    assert space.shape == tuple(game.information_state_tensor_shape())
    obs, _ = info.reset(seed=0)
    for agent, o in obs.items():
        assert space.contains(o["observations"]), agent
    # RLlib's own form: the env_config dict (an EnvContext is a dict).
    env = crl.MultiAgentCheckraiseEnv({"game": "holdem_chess", "players": 3})
    assert len(env.possible_agents) == 3
    assert crl.MultiAgentCheckraiseEnv({"game": cr.make("pokeros")}).game.name == "pokeros"


def test_bad_arguments_raise():
    with pytest.raises(TypeError, match=r"unknown keyword.*'bogus'.*players"):
        crl.multi_agent_env("pokeros", bogus=1)
    with pytest.raises(TypeError, match="opponent"):
        crl.multi_agent_env("pokeros", opponent="random")  # the single-agent env's option
    with pytest.raises(TypeError, match="no 'game'"):
        crl.MultiAgentCheckraiseEnv({"players": 2})
    with pytest.raises(cr.UnknownGameError):
        crl.multi_agent_env("no_such_game")
    with pytest.raises(cr.ParameterError):
        crl.multi_agent_env("pokeros", players=9)
    with pytest.raises(ValueError, match="compact"):
        crl.multi_agent_env("pokeros", observation_type="compact")
    with pytest.raises(ValueError, match="illegal_action"):
        crl.multi_agent_env("pokeros", illegal_action="ignore")
    with pytest.raises(TypeError, match=r"unknown keyword.*'bogus'"):
        crl.single_agent_env("pokeros", bogus=1)
    with pytest.raises(cr.ParameterError):
        crl.single_agent_env("pokeros", opponent="no_such_bot")
    with pytest.raises(TypeError, match=r"unknown keyword.*'bogus'"):
        crl.ppo_config("pokeros", bogus=1)
    with pytest.raises(TypeError, match=r"unknown keyword.*'bogus'"):
        crl.ppo_config("pokeros", opponent="random", bogus=1)
    with pytest.raises(cr.ParameterError):
        crl.ppo_config("pokeros", players=9)
    with pytest.raises(TypeError, match="opponent"):
        crl.ppo_config("pokeros", seat=1)


def test_steps_out_of_turn_and_illegal_actions():
    env = crl.multi_agent_env("pokeros")
    obs, _ = env.reset(seed=0)
    (agent,) = obs
    other = next(a for a in env.possible_agents if a != agent)
    with pytest.raises(ValueError, match="not to act"):
        env.step({other: 0})
    with pytest.raises(ValueError, match="no action"):
        env.step({})
    illegal = int(np.flatnonzero(obs[agent]["action_mask"] == 0)[0])
    strict = crl.multi_agent_env("pokeros", illegal_action="raise")
    strict_obs, _ = strict.reset(seed=0)
    with pytest.raises(cr.IllegalActionError):
        strict.step({agent: illegal})
    strict.step({agent: int(np.flatnonzero(strict_obs[agent]["action_mask"])[0])})  # unchanged
    with pytest.raises(cr.IllegalActionError, match="out of range"):
        env.step({agent: 10**6})
    obs, rewards, terminateds, _, infos = env.step({agent: illegal})
    assert terminateds["__all__"]
    assert rewards[agent] == env.game.min_utility() and rewards[other] == 0.0
    assert infos[agent]["illegal_action"] == illegal


def test_single_agent_env_has_rllibs_keys():
    env = crl.single_agent_env("poker_chess", opponent="random", seat=1)
    assert isinstance(env, crl.MaskedObservations)
    assert set(env.observation_space.spaces) == {"observations", "action_mask"}
    assert env.observation_space["action_mask"].dtype == np.float32
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    total = 0.0
    while True:
        assert env.observation_space.contains(obs)
        np.testing.assert_array_equal(obs["action_mask"], info["action_mask"])
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(action)
        total += reward
        if terminated or truncated:
            break
    assert total == pytest.approx(info["returns"][1])
    with pytest.raises(TypeError, match="dict_observation=True"):
        crl.MaskedObservations(cr.gymnasium.env("pokeros"))


def test_vector_env_for_rllibs_vector_entry_point():
    # RLlib's "vector_entry_point" mode calls the creator with num_envs added to env_config.
    venv = crl._make_single_agent({"game": "pokeros", "opponent": "random", "num_envs": 3})
    assert isinstance(venv, crl.MaskedVectorObservations) and venv.num_envs == 3
    assert isinstance(venv.unwrapped, cr.gymnasium.CheckraiseVectorEnv)  # the native one
    space = venv.single_observation_space
    assert set(space.spaces) == {"observations", "action_mask"}
    assert space["action_mask"] == gymnasium.spaces.Box(0, 1, (675,), np.float32)
    assert venv.observation_space == gymnasium.vector.utils.batch_space(space, 3)
    obs, info = venv.reset(seed=0)
    assert obs["observations"].shape[0] == 3 and obs["action_mask"].dtype == np.float32
    assert venv.observation_space.contains(obs)
    np.testing.assert_array_equal(obs["action_mask"], info["action_mask"])
    rng = np.random.default_rng(0)
    kept = []
    for _ in range(40):
        kept.append(obs["observations"])
        actions = [int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in obs["action_mask"]]
        obs, _, _, _, info = venv.step(np.array(actions))
        assert venv.observation_space.contains(obs)
    # RLlib keeps each step's observations: they are copies, not the engine's buffer.
    assert not any(np.shares_memory(a, b) for a, b in itertools.pairwise(kept))
    # Pools, policy bytes and a random seat, as the native vector env takes them.
    pool = crl.vector_env(2, "holdem_chess", opponent={"heuristic": 3, "random": 1}, seat="random")
    assert pool.unwrapped.engine.opponent_pool == [("heuristic", 3.0), ("random", 1.0)]
    with pytest.raises(ValueError, match="num_envs"):
        crl.vector_env(0, "pokeros")
    with pytest.raises(ValueError, match="illegal_action"):
        crl.vector_env(2, "pokeros", illegal_action="terminate")
    with pytest.raises(ValueError, match="compact"):
        crl.vector_env(2, "pokeros", observation_type="compact")
    with pytest.raises(TypeError, match=r"unknown keyword.*'bogus'"):
        crl.vector_env(2, "pokeros", bogus=1)
    with pytest.raises(TypeError, match="dict_observation=True"):
        crl.MaskedVectorObservations(cr.gymnasium.vector_env("pokeros", 2))


def test_ppo_config_builds_the_modules():
    shared = crl.ppo_config("pokeros", players=3)
    assert shared.env == crl.MULTI_AGENT_ENV
    assert shared.env_config == {"game": "pokeros", "players": 3}
    assert set(shared.policies) == {crl.SHARED_MODULE}
    spec = shared.rl_module_spec.rl_module_specs[crl.SHARED_MODULE]
    assert spec.module_class is crl.ActionMaskingTorchRLModule
    own = crl.ppo_config("detective_poker", shared_policy=False)
    assert set(own.policies) == {"player_0", "player_1", "player_2"}
    assert own.policy_mapping_fn("player_2", None) == "player_2"
    single = crl.ppo_config("holdem_chess", opponent="heuristic", seat=1)
    assert single.env == crl.SINGLE_AGENT_ENV
    assert single.env_config == {"game": "holdem_chess", "opponent": "heuristic", "seat": 1}
    assert single.rl_module_spec.module_class is crl.ActionMaskingTorchRLModule
    assert single.gym_env_vectorize_mode == "vector_entry_point"
    pool = crl.ppo_config("pokeros", opponent={"heuristic": 1, "random": 1}, seat="random")
    assert pool.env_config["opponent"] == {"heuristic": 1, "random": 1}
    with pytest.raises(cr.ParameterError):
        crl.ppo_config("pokeros", opponent={"nobody": 1})


@pytest.mark.parametrize("missing", ["torch", "ray.rllib.algorithms.ppo"])
def test_a_missing_dependency_names_the_extra(monkeypatch, missing):
    module = "checkraise.rllib"
    monkeypatch.delitem(sys.modules, module)
    monkeypatch.setitem(sys.modules, missing, None)
    with pytest.raises(cr.MissingDependencyError) as caught:
        importlib.import_module(module)
    assert caught.value.extra == "rllib" and caught.value.feature == module
    assert "pip install 'checkraise[rllib]'" in str(caught.value)


# ---------------------------------------------------------------------------------------------
# PPO on a local Ray cluster


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


TINY_MODEL = {"fcnet_hiddens": [16], "head_fcnet_hiddens": [16]}


@pytest.mark.parametrize(
    ("name", "params", "runners"),
    [
        # Two remote env runners (each its own process: the env is pickled to them).
        ("pokeros", {}, 2),
        # A simultaneous game (short games: episodes end) on the local runner: the remote path
        # is the one above, and each remote runner costs the test command its process start.
        ("prediction_chess", {"max_turns": 20}, 0),
    ],
)
def test_ppo_trains_on_env_runners(local_ray, name, params, runners):
    config = (
        crl.ppo_config(name, model_config=TINY_MODEL, **params)
        .env_runners(num_env_runners=runners, num_cpus_per_env_runner=1, rollout_fragment_length=64)
        .training(train_batch_size_per_learner=128, minibatch_size=64, num_epochs=1)
        .debugging(seed=0)
    )
    algo = config.build_algo()
    try:
        for _ in range(2):
            result = algo.train()
    finally:
        algo.stop()
    runners = result["env_runners"]
    assert runners["num_env_steps_sampled_lifetime"] >= 2 * 128
    assert runners["num_episodes_lifetime"] >= 1
    assert set(runners["agent_episode_returns_mean"]) == {"player_0", "player_1"}
    losses = result["learners"][crl.SHARED_MODULE]
    for key in ("total_loss", "policy_loss", "vf_loss"):
        assert math.isfinite(losses[key]), key


def test_ppo_against_bots_in_rllibs_vector_entry_point_mode(local_ray):
    """ppo_config's env runners step the native vector env (RLlib's vector_entry_point mode)."""
    config = (
        crl.ppo_config("pokeros", opponent="random", model_config=TINY_MODEL)
        .env_runners(num_env_runners=0, num_envs_per_env_runner=8, rollout_fragment_length=8)
        .training(train_batch_size_per_learner=64, minibatch_size=32, num_epochs=1)
    )
    algo = config.build_algo()
    try:
        env = algo.env_runner.env
        assert isinstance(env.env, crl.MaskedVectorObservations)  # inside RLlib's DictInfoToList
        venv = env.unwrapped
        assert isinstance(venv, cr.gymnasium.CheckraiseVectorEnv) and venv.num_envs == 8
        assert venv.engine.opponent_pool == [("random", 1.0)]
        result = algo.train()
    finally:
        algo.stop()
    assert result["env_runners"]["num_env_steps_sampled_lifetime"] >= 64
    assert math.isfinite(result["learners"]["default_policy"]["total_loss"])


def python_snippets(section):
    """The ```python blocks of a `## section` of docs/python.md."""
    text = (ROOT / "docs" / "python.md").read_text()
    start = text.index(f"\n## {section}\n")
    end = text.find("\n## ", start + 1)
    body = text[start : end if end != -1 else len(text)]
    blocks = re.findall(r"^( *)```python\n(.*?)^\1```", body, flags=re.DOTALL | re.MULTILINE)
    return [textwrap.dedent(code) for _, code in blocks]


def test_docs_snippets_run(local_ray, capsys):
    snippets = python_snippets("RLlib")
    assert len(snippets) >= 2
    namespace: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for code in snippets:
            exec(compile(code, "docs/python.md (RLlib)", "exec"), namespace)
    assert "player_0" in capsys.readouterr().out
