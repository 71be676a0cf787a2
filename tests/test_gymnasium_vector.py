"""The native Gymnasium vector env (checkraise.gymnasium.CheckraiseVectorEnv): what
``gymnasium.make_vec`` returns for every game, with opponents played inside the engine.

Gymnasium has no checker for vector envs, so these tests check what one would: spaces hold
every observation, masks are the learner's legal actions, rewards add up to the learner's
returns, seeds reproduce, pickled copies continue alike, wrappers work, and bad arguments are
refused by name."""

import gc
import pickle
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import checkraise as cr
from checkraise.gymnasium import CheckraiseVectorEnv, env_id, vector_env
from checkraise.policy import Policy, write_safetensors
from run_util import run_python

GAMES = cr.game_names()


def masked_actions(masks, rng):
    """A uniformly random legal action per env (0 where an env has none)."""
    return np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])


@pytest.mark.parametrize("name", GAMES)
def test_make_vec_gives_the_native_vector_env(name):
    envs = gym.make_vec(env_id(name), num_envs=3, opponent="random", seat="random")
    assert isinstance(envs, CheckraiseVectorEnv)
    assert isinstance(envs, gym.vector.VectorEnv)
    game = cr.make(name)
    assert envs.num_envs == 3
    assert envs.metadata["autoreset_mode"] == gym.vector.AutoresetMode.NEXT_STEP
    assert envs.single_action_space == gym.spaces.Discrete(game.num_distinct_actions())
    assert envs.action_space == gym.spaces.MultiDiscrete([game.num_distinct_actions()] * 3)
    assert envs.single_observation_space.shape == tuple(game.observation_shape())
    assert envs.observation_space.shape == (3, *game.observation_shape())
    assert envs.spec is not None and envs.spec.id == env_id(name)
    envs.close()


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("mode", ["next_step", "same_step"])
def test_rewards_add_up_to_the_learners_returns_and_masks_are_its_legal_actions(name, mode):
    n = 4
    envs = vector_env(name, n, opponent="heuristic", seat="random", autoreset_mode=mode)
    rng = np.random.default_rng(1)
    obs, info = envs.reset(seed=11)
    totals = np.zeros(n)
    done_before = np.zeros(n, dtype=bool)
    games = 0
    for _ in range(400):
        assert envs.observation_space.contains(np.asarray(obs))
        seats = envs.get_attr("learner_seat")
        states = envs.get_attr("state")
        for i in range(n):
            if done_before[i] and mode == "next_step":
                # The step after an end starts the next game: no legal action this step.
                assert not info["action_mask"][i].any()
                continue
            assert seats[i] == info["learner_seat"][i]
            legal = states[i].legal_actions_mask(seats[i])
            assert np.array_equal(info["action_mask"][i], np.asarray(legal, dtype=bool))
        assert np.array_equal(envs.action_masks(), info["action_mask"])
        obs, rewards, terminated, truncated, info = envs.step(
            masked_actions(info["action_mask"], rng)
        )
        assert rewards.shape == (n,) and rewards.dtype == np.float32
        assert not truncated.any()
        totals += np.where(done_before & (mode == "next_step"), 0.0, rewards)
        for i in np.flatnonzero(terminated):
            assert totals[i] == pytest.approx(info["final_returns"][i], abs=1e-5)
            totals[i] = 0.0
            games += 1
        if mode == "same_step":
            assert np.array_equal(info["_final_obs"], terminated | truncated)
        done_before = terminated | truncated
    assert games >= n
    envs.close()


def test_same_seeds_same_games_and_pickled_copies_continue_alike():
    def run(envs, seed, steps):
        rng = np.random.default_rng(0)
        obs, info = envs.reset(seed=seed)
        trail = [obs.copy()]
        for _ in range(steps):
            obs, rewards, terminated, _, info = envs.step(masked_actions(info["action_mask"], rng))
            trail.append((obs.copy(), rewards.copy(), terminated.copy()))
        return trail

    def same(a, b):
        for x, y in zip(a, b, strict=True):
            for u, v in zip(
                x if isinstance(x, tuple) else (x,),
                y if isinstance(y, tuple) else (y,),
                strict=True,
            ):
                assert np.array_equal(u, v)

    make = lambda: vector_env("holdem_chess", 5, opponent=["heuristic", "random"], seat="random")  # noqa: E731
    same(run(make(), 4, 60), run(make(), 4, 60))
    # A list of seeds: env i from seeds[i]; env 2 of seed 6 is env 0 of [8, ...] when 8 = 6 + 2.
    a, b = make(), make()
    obs_a, _ = a.reset(seed=6)
    obs_b, _ = b.reset(seed=[8, 9, 10, 11, 12])
    assert np.array_equal(obs_a[2], obs_b[0])
    # A pickled copy continues exactly as the original.
    envs = make()
    rng = np.random.default_rng(3)
    _, info = envs.reset(seed=2)
    for _ in range(17):
        _, _, _, _, info = envs.step(masked_actions(info["action_mask"], rng))
    copy = pickle.loads(pickle.dumps(envs))
    for _ in range(40):
        actions = masked_actions(info["action_mask"], rng)
        out, copied = envs.step(actions), copy.step(actions)
        for x, y in zip(out[:4], copied[:4], strict=True):
            assert np.array_equal(x, y)
        info = out[4]


def test_unseeded_first_reset_draws_a_seed_like_gymnasium_envs():
    a, b = vector_env("pokeros", 4, opponent="random"), vector_env("pokeros", 4, opponent="random")
    a.reset()
    b.reset()
    # Two unseeded batches deal different games (as two unseeded Gymnasium envs would).
    deals_a = [s.serialize() for s in a.get_attr("state")]
    deals_b = [s.serialize() for s in b.get_attr("state")]
    assert deals_a != deals_b


def test_gymnasium_vector_wrappers_work_on_it():
    envs = gym.make_vec(env_id("detective_poker"), num_envs=6, opponent="heuristic", seat="random")
    wrapped = gym.wrappers.vector.RecordEpisodeStatistics(envs)
    wrapped = gym.wrappers.vector.NormalizeObservation(wrapped)
    wrapped = gym.wrappers.vector.NormalizeReward(wrapped)
    rng = np.random.default_rng(5)
    obs, info = wrapped.reset(seed=1)
    episodes = []
    for _ in range(300):
        obs, _, terminated, _, info = wrapped.step(masked_actions(envs.action_masks(), rng))
        assert obs.dtype == np.float32 and np.isfinite(obs).all()
        if "episode" in info:
            ended = info["_episode"]
            assert np.array_equal(ended, terminated)
            # The episode's return is the learner's return in the game.
            assert np.allclose(info["episode"]["r"][ended], info["final_returns"][ended])
            episodes.extend(info["episode"]["r"][ended])
    assert len(episodes) > 6


def test_max_episode_steps_truncates_the_learners_steps():
    envs = vector_env("prediction_chess", 3, opponent="random", max_episode_steps=4)
    rng = np.random.default_rng(0)
    _, info = envs.reset(seed=0)
    for step in range(1, 6):
        _, _, terminated, truncated, info = envs.step(masked_actions(info["action_mask"], rng))
        assert not terminated.any()
        # The fourth learner step truncates every game; the next starts new ones.
        assert truncated.all() == (step == 4)
    # make_vec passes the registered bound, which no default game reaches.
    assert gym.make_vec(env_id("pokeros"), num_envs=1).engine is not None


def test_compact_and_dict_observations():
    game = cr.make("poker_chess")
    compact = vector_env(game, 4, opponent="random", observation_type="compact")
    plain = vector_env(game, 4, opponent="random")
    obs_c, info_c = compact.reset(seed=3)
    obs_p, info_p = plain.reset(seed=3)
    assert obs_c.dtype == np.uint8 and compact.observation_space.contains(obs_c)
    assert np.array_equal(cr.unpack_observations(game, obs_c), obs_p)
    assert np.array_equal(info_c["action_mask"], info_p["action_mask"])
    as_dict = vector_env(game, 4, opponent="random", dict_observation=True)
    obs_d, _ = as_dict.reset(seed=3)
    assert as_dict.observation_space.contains(obs_d)
    assert np.array_equal(obs_d["observation"], obs_p)
    assert np.array_equal(obs_d["action_mask"], info_p["action_mask"].astype(np.int8))


def test_opponent_pools_policy_bytes_and_set_attr(tmp_path):
    game = "detective_poker"
    policy = Policy.shipped(game)
    path = tmp_path / "p.safetensors"
    tensors = {}
    for i, (w, b) in enumerate(policy.layers):
        tensors[f"layer{i}.weight"], tensors[f"layer{i}.bias"] = w, b
    tensors["policy.weight"], tensors["policy.bias"] = policy.head
    write_safetensors(path, tensors, policy.metadata)
    data = path.read_bytes()
    # A policy's bytes play as the same policy read from its file.
    rng = np.random.default_rng(2)
    by_bytes = vector_env(game, 6, opponent=data, seat="random")
    by_file = vector_env(game, 6, opponent=f"policy(path={path})", seat="random")
    _, info = by_bytes.reset(seed=9)
    by_file.reset(seed=9)
    for _ in range(40):
        actions = masked_actions(info["action_mask"], rng)
        a, b = by_bytes.step(actions), by_file.step(actions)
        for x, y in zip(a[:4], b[:4], strict=True):
            assert np.array_equal(x, y)
        info = a[4]
    # A weighted pool: each opponent seat draws an entry per game.
    envs = vector_env(game, 64, opponent={"heuristic": 3.0, data: 1.0}, seat=1)
    envs.reset(seed=0)
    assert envs.engine.opponent_pool == [("heuristic", 3.0), (data, 1.0)]
    drawn = envs.engine.opponent_indices[:, 0]
    assert set(drawn) == {0, 1} and (envs.engine.opponent_indices[:, 1] == -1).all()
    # set_attr changes the pool from the next reset; per-env different values are refused.
    envs.set_attr("opponent", "random")
    assert envs.engine.opponent_pool == [("heuristic", 3.0), (data, 1.0)]
    envs.reset(seed=1)
    assert envs.engine.opponent_pool == [("random", 1.0)]
    with pytest.raises(ValueError, match="share their settings"):
        envs.set_attr("opponent", ["random"] * 63 + ["heuristic"])
    with pytest.raises(cr.ParameterError, match="unknown bot 'nobody'"):
        envs.set_attr("opponent", "nobody")
    assert envs.get_attr("seat") == (1,) * 64


def test_a_refused_construction_leaves_nothing_failing_at_collection():
    """A vector env whose arguments were refused is collected without an error in ``__del__``
    (gymnasium's closes it, and there was no engine batch yet)."""
    raised = []
    hook = sys.unraisablehook
    sys.unraisablehook = raised.append
    try:
        with pytest.raises(cr.ParameterError):
            vector_env("pokeros", 2, opponent="nobody")
        gc.collect()
    finally:
        sys.unraisablehook = hook
    assert [r.exc_value for r in raised] == []


def test_bad_arguments_are_refused_by_name():
    with pytest.raises(TypeError, match="has no parameter 'frameskip'"):
        gym.make_vec(env_id("pokeros"), num_envs=2, frameskip=4)
    with pytest.raises(cr.ParameterError, match="'opponent 0' cannot be 'nobody'"):
        vector_env("pokeros", 2, opponent="nobody")
    with pytest.raises(cr.ParameterError, match="weight of opponent 1"):
        vector_env("pokeros", 2, opponent=[("heuristic", 1.0), ("random", 0.0)])
    with pytest.raises(TypeError, match="weight of opponent entry 0 must be a number"):
        vector_env("pokeros", 2, opponent=[("heuristic", "heavy")])
    with pytest.raises(TypeError, match="opponent entry 0 must be a bot spec"):
        vector_env("pokeros", 2, opponent=[3])
    with pytest.raises(cr.ParameterError, match="policy"):
        vector_env("pokeros", 2, opponent=b"not a policy file")
    with pytest.raises(
        cr.InvalidSeatError, match="seat 2 does not exist; this game has seats 0 to 1"
    ):
        vector_env("pokeros", 2, seat=2)
    with pytest.raises(ValueError, match="seat must be a seat number or 'random'"):
        vector_env("pokeros", 2, seat="left")
    with pytest.raises(cr.ParameterError, match="num_envs must be an integer from 1"):
        vector_env("pokeros", -1)
    with pytest.raises(TypeError, match="num_envs must be an integer, not float"):
        vector_env("pokeros", 2.0)
    with pytest.raises(ValueError, match="illegal_action='terminate' is not supported"):
        vector_env("pokeros", 2, illegal_action="terminate")
    with pytest.raises(ValueError, match="unknown observation_type"):
        vector_env("pokeros", 2, observation_type="information_state")
    envs = vector_env("pokeros", 2, opponent="random")
    with pytest.raises(RuntimeError, match="call reset"):
        envs.action_masks()
    _, info = envs.reset(seed=np.int64(4))
    with pytest.raises(ValueError, match="unknown reset options"):
        envs.reset(options={"partial": True})
    with pytest.raises(cr.CheckraiseError, match="one seed per env: 2 seeds, not 3"):
        envs.reset(seed=[1, 2, 3])
    illegal = np.array([np.flatnonzero(~m)[0] for m in info["action_mask"]])
    with pytest.raises(cr.IllegalActionError, match="env 0"):
        envs.step(illegal)
    # numpy integers are accepted wherever Python ones are.
    envs = vector_env("pokeros", np.int64(2), seat=np.int32(1), players=np.int64(3))
    assert envs.num_envs == 2 and envs.game.num_players() == 3


def test_render_gives_every_envs_table():
    envs = vector_env("pokeros", 2, opponent="random", render_mode="ansi")
    envs.reset(seed=0)
    frames = envs.render()
    assert isinstance(frames, tuple) and len(frames) == 2
    assert all(isinstance(f, str) and f for f in frames)
    assert envs.call("render") == frames


def test_the_benchmark_script_runs_every_game_and_opponent():
    script = Path(__file__).resolve().parent.parent / "benchmarks" / "vector_opponents.py"
    proc = run_python(script, "--quick", timeout=300)
    assert proc.returncode == 0, proc.stderr
    rows = [line.split("|")[1:-1] for line in proc.stdout.splitlines() if line.startswith("| ")]
    seen = {(cells[0].strip(), cells[1].strip()) for cells in rows[1:]}
    assert seen == {(g, o) for g in GAMES for o in ("heuristic", "policy", "random")}
