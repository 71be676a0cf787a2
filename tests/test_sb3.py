"""Stable-Baselines3 and sb3-contrib work on the Gymnasium envs with no wrapper of ours, and on
the native vector env through ``checkraise.sb3``.

SB3's own ``check_env`` passes on every game with default arguments, and sb3-contrib's
``MaskablePPO`` (which reads ``env.action_masks()``) learns to beat a uniformly random masked
policy against the env's random opponent in a few seconds of training on CPU. The native
vector env as an SB3 ``VecEnv`` (``checkraise.sb3.vec_env``) follows SB3's conventions (copied
observations, same-step resets with the terminal observation in the info, seeds, masks per
env), and ``MaskablePPO`` trains on it with only legal actions.
"""

import importlib
import math
import sys
import warnings

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")
pytest.importorskip("sb3_contrib")
torch = pytest.importorskip("torch")

from sb3_contrib import MaskablePPO  # noqa: E402
from stable_baselines3.common.callbacks import BaseCallback  # noqa: E402
from stable_baselines3.common.env_checker import check_env  # noqa: E402
from stable_baselines3.common.vec_env import VecEnv, VecMonitor  # noqa: E402

import checkraise as cr  # noqa: E402
import checkraise.sb3 as cs  # noqa: E402
from checkraise import gymnasium as cg  # noqa: E402


@pytest.mark.parametrize("name", cr.game_names())
def test_sb3_check_env_with_defaults(name):
    with warnings.catch_warnings():
        # SB3 advises on the unbounded Box (the engine publishes no per-entry bounds).
        warnings.simplefilter("ignore", UserWarning)
        check_env(cg.env(name))


# A heads-up, one-round Detective Poker with the points reward (paid as each hand is scored):
# short episodes (8 decisions) and a dense reward, so MaskablePPO learns in a few seconds.
GAME = "detective_poker"
PARAMS = {"players": 2, "rounds": 1, "reward": "points"}
TRAIN_STEPS = 8192
EVAL_EPISODES = 200
EVAL_SEED = 10_000
# Measured over training seeds 0..7 (8192 steps, the evaluation below): the random masked
# policy averages 0.04, the trained one 0.44..0.54, a margin of 0.39..0.50.
MARGIN = 0.2


class LossRecorder(BaseCallback):
    """Every PPO update's losses, read when the next rollout starts (before SB3 logs them)."""

    KEYS = ("train/loss", "train/policy_gradient_loss", "train/value_loss", "train/entropy_loss")

    def __init__(self):
        super().__init__()
        self.losses = []

    def record(self):
        values = self.model.logger.name_to_value
        if "train/loss" in values:
            self.losses.append({key: values[key] for key in self.KEYS})

    def _on_rollout_start(self):
        self.record()

    def _on_step(self):
        return True


def mean_return(choose):
    """The mean return over the fixed evaluation episodes of a policy ``choose(obs, mask,
    rng)`` against the random opponent."""
    env = cg.env(GAME, opponent="random", **PARAMS)
    rng = np.random.default_rng(EVAL_SEED)
    total = 0.0
    for episode in range(EVAL_EPISODES):
        obs, _ = env.reset(seed=EVAL_SEED + episode)
        done = False
        while not done:
            obs, reward, done, truncated, _ = env.step(choose(obs, env.action_masks(), rng))
            assert not truncated
            total += reward
    return total / EVAL_EPISODES


@pytest.fixture
def one_torch_thread():
    """Torch on one thread (small nets: more threads only contend), restored afterwards."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def test_maskable_ppo_beats_a_random_masked_policy(one_torch_thread):
    env = cg.env(GAME, opponent="random", **PARAMS)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=512,
        batch_size=128,
        n_epochs=4,
        learning_rate=1e-3,
        gamma=1.0,
        policy_kwargs={"net_arch": [64, 64]},
        seed=0,
        device="cpu",
    )
    recorder = LossRecorder()
    model.learn(TRAIN_STEPS, callback=recorder)
    recorder.record()  # the last update's
    assert len(recorder.losses) == TRAIN_STEPS // 512
    assert all(math.isfinite(v) for losses in recorder.losses for v in losses.values())

    random_return = mean_return(lambda obs, mask, rng: rng.choice(np.flatnonzero(mask)))
    trained_return = mean_return(
        lambda obs, mask, rng: int(model.predict(obs, action_masks=mask, deterministic=True)[0])
    )
    assert trained_return > random_return + MARGIN, (trained_return, random_return)


# ---------------------------------------------------------------------------------------------
# The native vector env as an SB3 VecEnv


def masked_random_actions(masks, rng):
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks])


def test_vec_env_follows_sb3s_conventions():
    env = cs.vec_env(GAME, 8, opponent="random", **PARAMS)
    assert isinstance(env, VecEnv) and env.num_envs == 8
    assert env.observation_space == env.vector_env.single_observation_space
    assert env.action_space == env.vector_env.single_action_space
    env.seed(3)
    obs = env.reset()
    # A copy SB3 may keep: writable, not the engine's buffer.
    assert obs.flags.writeable and obs.shape == (8, *env.observation_space.shape)
    first = obs.copy()
    env.seed(3)
    np.testing.assert_array_equal(env.reset(), first)
    masks = np.stack(env.env_method("action_masks"))
    assert masks.dtype == bool and masks.shape == (8, env.action_space.n)
    np.testing.assert_array_equal(masks, env.vector_env.action_masks())
    assert [m.shape for m in env.env_method("action_masks", indices=[1, 5])] == [masks[0].shape] * 2
    assert env.has_attr("action_masks") and not env.has_attr("no_such_thing")
    rng = np.random.default_rng(0)
    totals = np.zeros(8)
    ended = 0
    for _ in range(60):
        before = obs
        obs, rewards, dones, infos = env.step(masked_random_actions(env.action_masks(), rng))
        assert rewards.dtype == np.float32 and dones.dtype == bool and len(infos) == 8
        assert not np.shares_memory(before, obs)
        totals += rewards
        for i in np.flatnonzero(dones):
            info = infos[i]
            assert info["TimeLimit.truncated"] is False
            assert info["terminal_observation"].shape == env.observation_space.shape
            assert info["final_return"] == pytest.approx(totals[i], abs=1e-5)
            totals[i] = 0.0
            ended += 1
        assert all("terminal_observation" not in infos[i] for i in np.flatnonzero(~dones))
    assert ended >= 8
    # The envs share their settings: one value for all of them.
    assert env.get_attr("opponent", indices=[0, 1]) == ["random", "random"]
    env.set_attr("opponent", "heuristic")
    with pytest.raises(ValueError, match="share their settings"):
        env.set_attr("opponent", "random", indices=[0])
    assert env.env_is_wrapped(VecMonitor) == [False] * 8
    env.close()


def test_vec_env_truncation_dict_observations_and_errors():
    # max_episode_steps=2 cuts every game of 8 decisions short.
    env = cs.vec_env(GAME, 4, opponent="random", max_episode_steps=2, **PARAMS)
    env.reset()
    rng = np.random.default_rng(1)
    env.step(masked_random_actions(env.action_masks(), rng))
    _, _, dones, infos = env.step(masked_random_actions(env.action_masks(), rng))
    assert dones.all() and all(info["TimeLimit.truncated"] for info in infos)

    env = cs.vec_env("holdem_chess", 4, opponent="random", dict_observation=True)
    obs = env.reset()
    assert set(obs) == {"observation", "action_mask"} and env.observation_space.contains(
        {k: v[0] for k, v in obs.items()}
    )
    np.testing.assert_array_equal(obs["action_mask"].astype(bool), env.action_masks())
    ended = 0
    for _ in range(50):
        _, _, dones, infos = env.step(masked_random_actions(env.action_masks(), rng))
        ended += int(dones.sum())
        for i in np.flatnonzero(dones):
            last = infos[i]["terminal_observation"]
            assert set(last) == {"observation", "action_mask"} and not last["action_mask"].any()
    assert ended >= 1
    masks = env.action_masks()
    actions = masked_random_actions(masks, rng)
    actions[2] = np.flatnonzero(~masks[2])[0]
    with pytest.raises(cr.IllegalActionError, match="env 2"):
        env.step(actions)

    with pytest.raises(ValueError, match="same_step"):
        cs.CheckraiseVecEnv(cg.vector_env(GAME, 2))
    with pytest.raises(TypeError, match="CheckraiseVectorEnv"):
        cs.CheckraiseVecEnv(cg.env(GAME))
    env.set_options({"x": 1})
    with pytest.raises(ValueError, match="no reset options"):
        env.reset()


class LegalActions(BaseCallback):
    """Checks every rollout step's actions against the masks MaskablePPO read before it."""

    def __init__(self):
        super().__init__()
        self.steps = 0

    def _on_step(self):
        masks, actions = self.locals["action_masks"], self.locals["actions"]
        assert masks[np.arange(len(actions)), actions.reshape(-1)].all()
        self.steps += 1
        return True


def test_maskable_ppo_trains_on_the_native_vector_env(one_torch_thread):
    env = VecMonitor(cs.vec_env(GAME, 16, opponent="random", **PARAMS))
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=128,
        batch_size=256,
        n_epochs=2,
        policy_kwargs={"net_arch": [32]},
        seed=0,
        device="cpu",
    )
    recorder, legal = LossRecorder(), LegalActions()
    model.learn(4096, callback=[recorder, legal])
    recorder.record()
    assert model.num_timesteps == 4096 and legal.steps == 4096 // 16
    assert len(recorder.losses) == 2
    assert all(math.isfinite(v) for losses in recorder.losses for v in losses.values())
    # VecMonitor saw whole games end (8 decisions each).
    assert len(model.ep_info_buffer) >= 100
    assert all(info["l"] == 8 for info in model.ep_info_buffer)
    obs = env.reset()
    masks = np.stack(env.env_method("action_masks"))
    actions, _ = model.predict(obs, action_masks=masks, deterministic=True)
    assert masks[np.arange(16), actions].all()


@pytest.mark.parametrize("missing", ["stable_baselines3.common.vec_env.base_vec_env", "gymnasium"])
def test_a_missing_dependency_names_the_extra(monkeypatch, missing):
    module = "checkraise.sb3"
    monkeypatch.delitem(sys.modules, module)
    monkeypatch.setitem(sys.modules, missing, None)
    with pytest.raises(cr.MissingDependencyError) as caught:
        importlib.import_module(module)
    assert caught.value.extra == "sb3" and caught.value.feature == module
    assert "pip install 'checkraise[sb3]'" in str(caught.value)
