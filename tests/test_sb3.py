"""Stable-Baselines3 and sb3-contrib work on the Gymnasium envs with no wrapper of ours.

SB3's own ``check_env`` passes on every game with default arguments, and sb3-contrib's
``MaskablePPO`` (which reads ``env.action_masks()``) learns to beat a uniformly random masked
policy against the env's random opponent in a few seconds of training on CPU.
"""

import math
import warnings

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")
pytest.importorskip("sb3_contrib")
torch = pytest.importorskip("torch")

from sb3_contrib import MaskablePPO  # noqa: E402
from stable_baselines3.common.callbacks import BaseCallback  # noqa: E402
from stable_baselines3.common.env_checker import check_env  # noqa: E402

import checkraise as cr  # noqa: E402
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
