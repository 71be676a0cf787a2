"""TorchRL's wrappers take the Gymnasium and PettingZoo envs unchanged, for every game.

``check_env_specs`` through ``GymWrapper`` (Gymnasium env) and ``PettingZooWrapper`` (AEC env,
and the parallel env of the simultaneous games), and seeded rollouts through
``PettingZooWrapper(..., use_mask=True)``, both TorchRL's own masked random actions and a masked
random policy reading each group's ``action_mask``. ``GymEnv`` by id (``checkraise/<game>-v0``),
with masked rollouts through TorchRL's ``ActionMask``; and what stops ``GymWrapper`` from
taking the native vector env.
"""

import logging

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchrl")

from torchrl.envs import GymEnv, GymWrapper, PettingZooWrapper, TransformedEnv  # noqa: E402
from torchrl.envs.transforms import ActionMask  # noqa: E402
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


# ---------------------------------------------------------------------------------------------
# GymEnv by id


def test_an_unknown_keyword_reads_as_pythons_own():
    """TorchRL's ``GymEnv`` passes ``frameskip=`` to ``gymnasium.make`` and retries without it
    only on a ``TypeError`` whose message contains "unexpected keyword argument 'frameskip'"."""
    with pytest.raises(TypeError, match="unexpected keyword argument 'frameskip'"):
        cg.env("pokeros", frameskip=1)


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("categorical", [False, True])
def test_gym_env_by_id_check_env_specs(name, categorical):
    env = GymEnv(cg.env_id(name), categorical_action_encoding=categorical)
    n = cr.make(name).num_distinct_actions()
    assert env.action_spec.shape == (() if categorical else (n,))
    for seed in range(2):
        env.set_seed(seed)
        check_env_specs(env)


@pytest.mark.parametrize("name", GAMES)
def test_gym_env_by_id_masked_rollouts(name):
    # The mask in the observation (dict_observation=True) drives TorchRL's ActionMask, and
    # illegal_action="raise" makes any unmasked action fail the rollout.
    env = TransformedEnv(
        GymEnv(
            cg.env_id(name),
            categorical_action_encoding=True,
            opponent="random",
            dict_observation=True,
            illegal_action="raise",
        ),
        ActionMask(),
    )
    for seed in rollout_seeds(name):
        env.set_seed(seed)
        torch.manual_seed(seed)
        rollout = env.rollout(MAX_STEPS, break_when_any_done=False)
        assert rollout.shape == (MAX_STEPS,)
        legal = rollout["action_mask"].gather(-1, rollout["action"].unsqueeze(-1))
        assert legal.all()
        if name == "holdem_chess":
            assert rollout["next", "done"].sum() >= 2


# ---------------------------------------------------------------------------------------------
# GymWrapper and the native vector env
#
# Measured with torchrl 0.14.1 and the same-step vector env (TorchRL refuses next-step mode):
#
# 1. GymWrapper reads ``env.autoreset_mode``, an attribute of Gymnasium's own vector envs;
#    CheckraiseVectorEnv has the mode only in ``metadata["autoreset_mode"]``, so the wrapper's
#    constructor raises AttributeError.
# 2. With that attribute set, the constructor registers an info reader for the final
#    observations and, to learn the info's specs, steps the env with unmasked random actions
#    (``set_info_dict_reader`` -> ``rand_step()``, then ``check_env_specs`` in
#    ``auto_register_info_dict``). An illegal action makes the vector env raise
#    IllegalActionError (it has no "terminate" mode), so the constructor fails there.
# 3. With both worked around (legal actions substituted in a test double), 40-step rollouts
#    with ActionMask on 4 envs of Hold'em Chess ran, the final observations swapped in as
#    TorchRL does. One TorchRL limitation remains, for every same-step Gymnasium vector env
#    (its own SyncVectorEnv included): ``env.reset()`` after a step in which some but not all
#    envs ended returns the observations saved from before the reset (VecGymEnvTransform puts
#    them back), so the first step of a new rollout may act on stale masks.


@pytest.mark.xfail(
    raises=(AttributeError, cr.IllegalActionError),
    strict=True,
    reason="GymWrapper reads env.autoreset_mode and steps unmasked random actions when made",
)
def test_gym_wrapper_takes_the_native_vector_env():
    venv = cg.vector_env("holdem_chess", 4, opponent="random", autoreset_mode="same_step")
    env = TransformedEnv(GymWrapper(venv, categorical_action_encoding=True), ActionMask())
    env.set_seed(0)
    rollout = env.rollout(MAX_STEPS, break_when_any_done=False)
    assert rollout.shape == (4, MAX_STEPS)
    assert rollout["next", "done"].sum() >= 4
