"""A CleanRL-style PPO loop in torch trains on ``gymnasium.make_vec`` of a checkraise id (the
native vector env, its default vectorization mode) with invalid-action masking, and
docs/python.md's "Gymnasium vector env" section runs as written.

The loop is CleanRL's single-file PPO cut to its core: masked logits (illegal actions at
-1e8), GAE, clipped surrogate, value and entropy terms, minibatch epochs. Next-step autoreset
is handled as Gymnasium defines it: the step after a game ends only starts the next game (its
action is ignored and its reward is 0), so that transition is left out of the loss.
"""

import math
import re
import textwrap
import warnings
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from gymnasium.wrappers.vector import RecordEpisodeStatistics  # noqa: E402
from torch import nn  # noqa: E402
from torch.distributions import Categorical  # noqa: E402

import checkraise as cr  # noqa: E402
from checkraise.gymnasium import CheckraiseVectorEnv, env_id  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
# Heads-up, one-round Detective Poker with the points reward: games of 8 decisions.
GAME = "detective_poker"
PARAMS = {"players": 2, "rounds": 1, "reward": "points"}
NUM_ENVS, NUM_STEPS, UPDATES, EPOCHS, MINIBATCHES = 64, 16, 4, 2, 4
GAMMA, LAMBDA, CLIP, ENT_COEF, VF_COEF = 0.99, 0.95, 0.2, 0.01, 0.5


class Agent(nn.Module):
    def __init__(self, obs_size, num_actions):
        super().__init__()
        self.critic = nn.Sequential(nn.Linear(obs_size, 64), nn.Tanh(), nn.Linear(64, 1))
        self.actor = nn.Sequential(nn.Linear(obs_size, 64), nn.Tanh(), nn.Linear(64, num_actions))

    def value(self, x):
        return self.critic(x).squeeze(-1)

    def act(self, x, mask, action=None):
        logits = self.actor(x).masked_fill(~mask, -1e8)
        dist = Categorical(logits=logits)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.value(x)


def train(envs, agent, optimizer):
    """CleanRL's PPO loop; returns each update's losses and the (mask, action, valid) of every
    rollout step."""
    n, steps = envs.num_envs, NUM_STEPS
    obs_buf = torch.zeros((steps, n, *envs.single_observation_space.shape))
    mask_buf = torch.zeros((steps, n, envs.single_action_space.n), dtype=torch.bool)
    act_buf = torch.zeros((steps, n), dtype=torch.long)
    logp_buf, rew_buf, done_buf, val_buf = (torch.zeros((steps, n)) for _ in range(4))
    valid_buf = torch.zeros((steps, n), dtype=torch.bool)
    obs, info = envs.reset(seed=0)
    autoreset = np.zeros(n, dtype=bool)
    losses, taken = [], []
    for _ in range(UPDATES):
        for step in range(steps):
            obs_buf[step] = torch.tensor(obs)  # a copy: the env rewrites its buffer
            mask_buf[step] = torch.tensor(info["action_mask"])
            valid_buf[step] = torch.tensor(~autoreset)
            with torch.no_grad():
                action, logp, _, value = agent.act(obs_buf[step], mask_buf[step])
            act_buf[step], logp_buf[step], val_buf[step] = action, logp, value
            obs, reward, terminated, truncated, info = envs.step(action.numpy())
            rew_buf[step] = torch.tensor(reward)
            autoreset = terminated | truncated
            done_buf[step] = torch.tensor(autoreset, dtype=torch.float32)
        taken.append((mask_buf.clone(), act_buf.clone(), valid_buf.clone()))
        # GAE; a game's end cuts the chain, so the ignored step after it feeds nothing back.
        with torch.no_grad():
            next_value = agent.value(torch.tensor(obs))
        advantages = torch.zeros_like(rew_buf)
        last = torch.zeros(n)
        for t in reversed(range(steps)):
            following = next_value if t == steps - 1 else val_buf[t + 1]
            alive = 1.0 - done_buf[t]
            delta = rew_buf[t] + GAMMA * following * alive - val_buf[t]
            advantages[t] = last = delta + GAMMA * LAMBDA * alive * last
        returns = advantages + val_buf
        keep = valid_buf.reshape(-1)
        b_obs = obs_buf.reshape(-1, obs_buf.shape[-1])[keep]
        b_mask = mask_buf.reshape(-1, mask_buf.shape[-1])[keep]
        b_act, b_logp = act_buf.reshape(-1)[keep], logp_buf.reshape(-1)[keep]
        b_adv, b_ret = advantages.reshape(-1)[keep], returns.reshape(-1)[keep]
        size = len(b_act)
        for _ in range(EPOCHS):
            order = torch.randperm(size)
            for mb in order.chunk(MINIBATCHES):
                _, logp, entropy, value = agent.act(b_obs[mb], b_mask[mb], b_act[mb])
                ratio = (logp - b_logp[mb]).exp()
                adv = (b_adv[mb] - b_adv[mb].mean()) / (b_adv[mb].std() + 1e-8)
                pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - CLIP, 1 + CLIP)).mean()
                v_loss = 0.5 * ((value - b_ret[mb]) ** 2).mean()
                loss = pg_loss - ENT_COEF * entropy.mean() + VF_COEF * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                optimizer.step()
                losses.append((loss.item(), pg_loss.item(), v_loss.item()))
    return losses, taken


@pytest.fixture
def one_torch_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def test_cleanrl_style_masked_ppo_on_make_vec(one_torch_thread):
    torch.manual_seed(0)
    envs = RecordEpisodeStatistics(
        gym.make_vec(env_id(GAME), num_envs=NUM_ENVS, opponent="random", **PARAMS)
    )
    assert isinstance(envs.unwrapped, CheckraiseVectorEnv)
    agent = Agent(envs.single_observation_space.shape[0], envs.single_action_space.n)
    optimizer = torch.optim.Adam(agent.parameters(), lr=2.5e-4, eps=1e-5)
    losses, taken = train(envs, agent, optimizer)
    assert len(losses) == UPDATES * EPOCHS * MINIBATCHES
    assert all(math.isfinite(v) for step in losses for v in step)
    # Every action the env played was legal (an illegal one would have raised, too).
    for mask, action, valid in taken:
        legal = mask.gather(-1, action.unsqueeze(-1)).squeeze(-1)
        assert legal[valid].all()
        assert not mask[~valid].any()  # the games' last observations: no legal action
    # Whole games ended: each env's games take 8 decisions, and a step starting the next.
    assert envs.episode_count == NUM_ENVS * ((UPDATES * NUM_STEPS + 1) // 9)
    assert set(envs.length_queue) == {8}
    assert all(math.isfinite(r) for r in envs.return_queue)
    envs.close()


def python_snippets(section):
    """The ```python blocks of a `## section` of docs/python.md."""
    text = (ROOT / "docs" / "python.md").read_text()
    start = text.index(f"\n## {section}\n")
    end = text.find("\n## ", start + 1)
    body = text[start : end if end != -1 else len(text)]
    blocks = re.findall(r"^( *)```python\n(.*?)^\1```", body, flags=re.DOTALL | re.MULTILINE)
    return [textwrap.dedent(code) for _, code in blocks]


def test_docs_snippets_run(capsys):
    snippets = python_snippets("Gymnasium vector env")
    assert len(snippets) >= 2
    namespace: dict = {"cr": cr, "np": np}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the loop copies what it keeps: no warning expected
        for code in snippets:
            exec(compile(code, "docs/python.md (Gymnasium vector env)", "exec"), namespace)
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "100 8"
