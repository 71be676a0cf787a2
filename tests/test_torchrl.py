"""TorchRL's wrappers take the Gymnasium and PettingZoo envs unchanged, for every game.

``check_env_specs`` through ``GymWrapper`` (Gymnasium env) and ``PettingZooWrapper`` (AEC env,
and the parallel env of the simultaneous games), and seeded rollouts through
``PettingZooWrapper(..., use_mask=True)``, both TorchRL's own masked random actions and a masked
random policy reading each group's ``action_mask``.
"""

import logging

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchrl")

from torchrl.envs import GymWrapper, PettingZooWrapper  # noqa: E402
from torchrl.envs.utils import check_env_specs  # noqa: E402
from torchrl.modules import MaskedCategorical  # noqa: E402

import checkraise as cr  # noqa: E402
from checkraise import gymnasium as cg  # noqa: E402
from checkraise import pettingzoo as cpz  # noqa: E402

FACTS = {entry["name"]: entry for entry in cr.games()}
GAMES = cr.game_names()
SIMULTANEOUS = [g for g in GAMES if FACTS[g]["dynamics"] == "simultaneous"]
MAX_STEPS = 60


def rollout_seeds(name):
    """Ten seeds for Hold'em Chess, whose games often end within a few steps (so a rollout
    crosses many game ends and resets); three for the others."""
    return range(10 if name == "holdem_chess" else 3)


# check_env_specs logs one INFO line per success.
logging.getLogger("torchrl").setLevel(logging.WARNING)


@pytest.mark.parametrize("name", GAMES)
def test_gym_wrapper_check_env_specs(name):
    for seed in range(3):
        env = GymWrapper(cg.env(name))
        env.set_seed(seed)
        check_env_specs(env)


# TorchRL limitation, not ours: PettingZooWrapper copies the mask of ``agent_selection`` into
# its action spec. After a game ends that agent is terminated and, by PettingZoo's convention
# (the classic card games do the same), its mask is all zeros, so sampling from the spec before
# the next reset raises "invalid multinomial distribution". check_env_specs samples once after
# its 3-step rollout, so it fails whenever a game ends within those 3 steps: in Hold'em Chess a
# random all-in and call, or a raise and a fold, does it in most seeds. Rollouts are unaffected
# (TorchRL resets before sampling again), see the rollout tests below.
ENDS_WITHIN_THREE_STEPS = pytest.mark.xfail(
    raises=RuntimeError,
    strict=False,
    reason="TorchRL samples the terminated agent_selection's all-zero mask after a quick end",
)


@pytest.mark.parametrize(
    "name",
    [pytest.param(g, marks=ENDS_WITHIN_THREE_STEPS) if g == "holdem_chess" else g for g in GAMES],
)
def test_pettingzoo_wrapper_check_env_specs(name):
    for seed in range(5):
        check_env_specs(PettingZooWrapper(cpz.env(name), use_mask=True, seed=seed))


@pytest.mark.parametrize("name", SIMULTANEOUS)
@pytest.mark.parametrize("use_mask", [False, True])
def test_pettingzoo_wrapper_check_env_specs_parallel(name, use_mask):
    for seed in range(3):
        check_env_specs(PettingZooWrapper(cpz.parallel_env(name), use_mask=use_mask, seed=seed))


def groups(env):
    return list(env.group_map)


def masked_random_policy(env, generator):
    """Uniform over each group's ``action_mask`` (TorchRL keeps every action available for
    agents that are not acting, so every row has one)."""

    def policy(td):
        for group in groups(env):
            mask = td[group, "action_mask"]
            assert mask.any(-1).all(), (group, mask)
            logits = torch.rand(mask.shape, generator=generator)
            td[group, "action"] = MaskedCategorical(logits=logits, mask=mask).sample()
        return td

    return policy


def check_rollout(env, rollout):
    """Every acting agent chose a legal action."""
    for group in groups(env):
        acting = rollout[group, "mask"]
        mask = rollout[group, "action_mask"]
        action = rollout[group, "action"]
        legal = mask.gather(-1, action.long().unsqueeze(-1)).squeeze(-1)
        assert legal[acting].all()
    assert rollout.shape == (MAX_STEPS,)


@pytest.mark.parametrize("name", GAMES)
def test_pettingzoo_wrapper_masked_random_rollouts(name):
    for seed in rollout_seeds(name):
        env = PettingZooWrapper(cpz.env(name), use_mask=True, seed=seed)
        torch.manual_seed(seed)
        # TorchRL's own random actions (sampled from the action spec's mask).
        check_rollout(env, env.rollout(MAX_STEPS, break_when_any_done=False))
        # A random policy over the action masks in the tensordict.
        generator = torch.Generator().manual_seed(seed)
        policy = masked_random_policy(env, generator)
        rollout = env.rollout(MAX_STEPS, policy, break_when_any_done=False)
        check_rollout(env, rollout)
        if name == "holdem_chess":  # the case that matters: sampling after games end
            assert rollout["next", "done"].sum() >= 2
        # Stopping at the end of the first game (if it ends in MAX_STEPS), then going on.
        first = env.rollout(MAX_STEPS, policy)
        assert len(first) == MAX_STEPS or first[-1]["next", "done"].item()
        check_rollout(env, env.rollout(MAX_STEPS, policy, break_when_any_done=False))


@pytest.mark.parametrize("name", SIMULTANEOUS)
def test_pettingzoo_wrapper_parallel_rollouts(name):
    for seed in range(3):
        env = PettingZooWrapper(cpz.parallel_env(name), use_mask=True, seed=seed)
        torch.manual_seed(seed)
        check_rollout(env, env.rollout(MAX_STEPS, break_when_any_done=False))
