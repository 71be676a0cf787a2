"""The RL ecosystem's own checkers pass unchanged, with default arguments, on every game.

Gymnasium's ``check_env`` and PettingZoo's ``api_test``, ``seed_test``, ``render_test``,
``parallel_api_test`` and ``parallel_seed_test``; the ids registered with Gymnasium; masks
where each library looks for them; the observation options; ``render_mode="human"`` and
``"rgb_array"``; the one error a missing optional dependency raises; the extras that install
them; and the Python snippets of docs/python.md's PettingZoo and Gymnasium sections.

Driven by the registry (``cr.game_names()`` / ``cr.games()`` facts): a game registered later
is covered with no change here.
"""

import importlib
import re
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import (
    api_test,
    parallel_api_test,
    parallel_seed_test,
    render_test,
    seed_test,
)
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

import checkraise as cr
from checkraise import _optional
from checkraise import gymnasium as cg
from checkraise import pettingzoo as cpz

ROOT = Path(__file__).resolve().parent.parent
FACTS = {entry["name"]: entry for entry in cr.games()}
GAMES = cr.game_names()
SIMULTANEOUS = [g for g in GAMES if FACTS[g]["dynamics"] == "simultaneous"]

# What check_env may warn about: for an env made without gymnasium.make, that it has no spec to
# remake it from. (The observation Box has real bounds, so no warning about infinity.)
ALLOWED_CHECK_ENV_WARNINGS = re.compile(r"not having a spec")


def run_check_env(env):
    """Gymnasium's check_env; fails on any warning but the allowed ones."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env)
    # A ResourceWarning is the garbage collector reporting another test's leftovers while
    # check_env runs, not something check_env says about the env.
    unexpected = [
        str(w.message)
        for w in caught
        if not issubclass(w.category, ResourceWarning)
        and not ALLOWED_CHECK_ENV_WARNINGS.search(str(w.message))
    ]
    assert not unexpected, unexpected


# ---------------------------------------------------------------------------------------------
# The checkers, default arguments


@pytest.mark.parametrize("name", GAMES)
def test_gymnasium_check_env_with_defaults(name, capsys):
    run_check_env(cg.env(name))
    # Through the registered id, check_env also makes and renders every render mode ("human"
    # prints) and checks close.
    run_check_env(gymnasium.make(cg.env_id(name)).unwrapped)
    assert capsys.readouterr().out


@pytest.mark.parametrize("name", GAMES)
def test_pettingzoo_checkers_with_defaults(name, capsys):
    env = cpz.env(name)
    assert isinstance(env, OrderEnforcingWrapper)
    api_test(env, num_cycles=1000)
    seed_test(lambda: cpz.env(name))
    render_test(lambda render_mode=None: cpz.env(name, render_mode=render_mode))
    api_test(cpz.raw_env(name), num_cycles=1000)
    assert capsys.readouterr().out  # render_test's "human" mode printed the table


@pytest.mark.parametrize("name", SIMULTANEOUS)
def test_pettingzoo_parallel_checkers_with_defaults(name):
    parallel_api_test(cpz.parallel_env(name), num_cycles=1000)
    # It samples unmasked actions: the default "terminate" mode makes them a penalty.
    parallel_seed_test(lambda: cpz.parallel_env(name))


def test_the_default_illegal_action_mode_is_terminate():
    assert cg.env(GAMES[0]).illegal_action == "terminate"
    assert cpz.raw_env(GAMES[0]).illegal_action == "terminate"
    assert cpz.env(GAMES[0]).unwrapped.illegal_action == "terminate"
    for name in SIMULTANEOUS:
        assert cpz.parallel_env(name).illegal_action == "terminate"


# ---------------------------------------------------------------------------------------------
# Registration with Gymnasium


def test_import_checkraise_registers_every_game_with_gymnasium():
    """In a fresh interpreter, `import checkraise` is enough for gymnasium.make."""
    code = textwrap.dedent(
        """
        import checkraise
        import gymnasium

        for name in checkraise.game_names():
            env = gymnasium.make(f"checkraise/{name}-v0")
            obs, info = env.reset(seed=0)
            assert obs in env.observation_space
        print("ok")
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_import_checkraise_works_without_gymnasium():
    code = textwrap.dedent(
        """
        import sys
        sys.modules["gymnasium"] = None
        import checkraise as cr
        cr.make("pokeros")
        try:
            cr.gymnasium
        except cr.MissingDependencyError as error:
            print(error)
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert "pip install 'checkraise[gymnasium]'" in result.stdout


@pytest.mark.parametrize("name", GAMES)
def test_registered_ids(name):
    spec = gymnasium.spec(f"checkraise/{name}-v0")
    game = cr.make(name)
    assert spec.max_episode_steps == game.max_game_length()
    assert spec.kwargs == {"game": name}
    env = gymnasium.make(f"checkraise/{name}-v0", opponent="random")
    assert isinstance(env.unwrapped, cg.CheckraiseEnv)
    assert env.unwrapped.game == game and env.unwrapped.opponent_spec == "random"
    assert env.spec.max_episode_steps == game.max_game_length()
    # The bound is on every action of a game, so no game of the agent's is ever truncated.
    for seed in range(3):
        _, info = env.reset(seed=seed)
        steps, terminated, truncated = 0, False, False
        while not terminated:
            _, _, terminated, truncated, info = env.step(
                env.action_space.sample(info["action_mask"])
            )
            steps += 1
            assert not truncated
        assert steps < spec.max_episode_steps


def test_registered_ids_take_the_envs_arguments_and_game_parameters():
    env = gymnasium.make(
        "checkraise/pokeros-v0",
        opponent="ismcts(iterations=5)",
        seat=2,
        players=3,
        observation_type="information_state",
        max_episode_steps=cr.make("pokeros", players=3).max_game_length(),
    )
    raw = env.unwrapped
    assert raw.seat == 2 and raw.game == cr.make("pokeros", players=3)
    assert raw.opponent_spec.startswith("ismcts(iterations=5,")
    obs, _ = env.reset(seed=1)
    np.testing.assert_array_equal(obs, raw.engine_state().information_state_tensor(2))
    assert env.spec.max_episode_steps == cr.make("pokeros", players=3).max_game_length()


def test_register_envs_is_idempotent():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "overriding environment" warning
        ids = cg.register_envs()
    assert ids == [f"checkraise/{name}-v0" for name in GAMES]
    assert all(i in gymnasium.registry for i in ids)


def test_gymnasium_vector_env_from_an_id():
    envs = gymnasium.make_vec("checkraise/poker_chess-v0", num_envs=2, vectorization_mode="sync")
    _, infos = envs.reset(seed=0)
    for _ in range(5):
        actions = np.array([envs.single_action_space.sample(mask) for mask in infos["action_mask"]])
        _, rewards, _, truncated, infos = envs.step(actions)
        assert rewards.shape == (2,) and not truncated.any()
    envs.close()


# ---------------------------------------------------------------------------------------------
# Masks where each library looks


@pytest.mark.parametrize("name", GAMES)
def test_action_masks_for_maskable_ppo(name):
    """sb3-contrib's MaskablePPO calls env.action_masks() (through wrappers, with
    get_wrapper_attr): a bool array of num_distinct_actions, the legal actions."""
    env = gymnasium.make(cg.env_id(name))
    _, info = env.reset(seed=0)
    action_masks = env.get_wrapper_attr("action_masks")
    terminated = False
    while not terminated:
        mask = action_masks()
        assert mask.dtype == np.bool_ and mask.shape == (env.action_space.n,)
        np.testing.assert_array_equal(mask, info["action_mask"].astype(bool))
        np.testing.assert_array_equal(
            mask, env.unwrapped.engine_state().legal_actions_mask(env.unwrapped.seat)
        )
        assert mask.any()
        _, _, terminated, _, info = env.step(int(np.flatnonzero(mask)[0]))
    assert not action_masks().any()


@pytest.mark.parametrize("name", GAMES)
def test_gymnasium_dict_observation(name):
    env = cg.env(name, dict_observation=True)
    space = env.observation_space
    assert isinstance(space, gymnasium.spaces.Dict) and set(space) == {
        "observation",
        "action_mask",
    }
    assert space["observation"].shape == env.game.observation_shape()
    assert space["action_mask"].shape == (env.game.num_distinct_actions(),)
    assert space["action_mask"].dtype == np.int8
    run_check_env(env)
    obs, info = env.reset(seed=3)
    terminated = False
    while not terminated:
        assert obs in space
        state = env.engine_state()
        np.testing.assert_array_equal(obs["observation"], state.observation(env.seat))
        np.testing.assert_array_equal(obs["action_mask"], info["action_mask"])
        obs, _, terminated, _, info = env.step(env.action_space.sample(obs["action_mask"]))
    assert obs in space and not obs["action_mask"].any()
    # An illegal action ends the episode with an all-zero mask too.
    obs, _ = env.reset(seed=3)
    if not obs["action_mask"].all():
        illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
        obs, _, terminated, _, info = env.step(illegal)
        assert terminated and not obs["action_mask"].any()
        assert info["illegal_action"] == illegal


@pytest.mark.parametrize("name", GAMES)
def test_gymnasium_information_state_observation(name):
    env = cg.env(name, observation_type="information_state", opponent="random", seat=1)
    shape = tuple(env.game.information_state_tensor_shape())
    assert env.observation_space.shape == shape
    run_check_env(env)
    obs, info = env.reset(seed=5)
    terminated = False
    while not terminated:
        assert obs.dtype == np.float32 and obs in env.observation_space
        np.testing.assert_array_equal(obs, env.engine_state().information_state_tensor(1))
        obs, _, terminated, _, info = env.step(env.action_space.sample(info["action_mask"]))
    both = cg.env(name, observation_type="information_state", dict_observation=True)
    obs, _ = both.reset(seed=0)
    assert obs["observation"].shape == shape and obs in both.observation_space


@pytest.mark.parametrize("name", GAMES)
def test_pettingzoo_information_state_observation(name):
    env = cpz.env(name, observation_type="information_state")
    shape = tuple(env.game.information_state_tensor_shape())
    for agent in env.possible_agents:
        assert env.observation_space(agent)["observation"].shape == shape
    api_test(env, num_cycles=1000)
    env.reset(seed=2)
    for _ in range(10):
        state = env.engine_state()
        if state.is_terminal():
            break
        for seat, agent in enumerate(env.possible_agents):
            obs = env.observe(agent)
            np.testing.assert_array_equal(obs["observation"], state.information_state_tensor(seat))
            np.testing.assert_array_equal(obs["action_mask"], state.legal_actions_mask(seat))
        agent = env.agent_selection
        env.step(env.action_space(agent).sample(env.observe(agent)["action_mask"]))


@pytest.mark.parametrize("name", SIMULTANEOUS)
def test_pettingzoo_parallel_information_state_observation(name):
    env = cpz.parallel_env(name, observation_type="information_state")
    parallel_api_test(env, num_cycles=1000)
    observations, _ = env.reset(seed=0)
    state = env.engine_state()
    for seat, agent in enumerate(env.possible_agents):
        np.testing.assert_array_equal(
            observations[agent]["observation"], state.information_state_tensor(seat)
        )


# ---------------------------------------------------------------------------------------------
# render_mode="human"


def gymnasium_step(env, reset):
    _, info = reset
    env.step(env.action_space.sample(info["action_mask"]))


def aec_step(env, _reset):
    agent = env.agent_selection
    env.step(env.action_space(agent).sample(env.observe(agent)["action_mask"]))


def parallel_step(env, reset):
    observations, _ = reset
    env.step({a: env.action_space(a).sample(observations[a]["action_mask"]) for a in env.agents})


# Each kind of env: how to make it, and one step with random legal actions after a reset (given
# what reset returned).
ENV_KINDS = {
    "gymnasium": (cg.env, gymnasium_step),
    "pettingzoo": (cpz.env, aec_step),
    "pettingzoo_parallel": (cpz.parallel_env, parallel_step),
}


@pytest.mark.parametrize(
    ("kind", "name"),
    [("gymnasium", g) for g in GAMES]
    + [("pettingzoo", g) for g in GAMES]
    + [("pettingzoo_parallel", g) for g in SIMULTANEOUS],
)
def test_human_rendering_prints_the_table(kind, name, capsys):
    """The env prints its table after a reset, after a step, and on `render()` (which returns
    None)."""
    make, step = ENV_KINDS[kind]
    env = make(name, render_mode="human")
    reset = env.reset(seed=0)
    assert capsys.readouterr().out == f"{env.engine_state()}\n"
    step(env, reset)
    assert capsys.readouterr().out == f"{env.engine_state()}\n"
    assert env.render() is None
    assert capsys.readouterr().out == f"{env.engine_state()}\n"


@pytest.mark.parametrize(
    ("kind", "name"), [("gymnasium", g) for g in GAMES] + [("pettingzoo", g) for g in GAMES]
)
def test_rgb_array_rendering_returns_a_picture(kind, name):
    make, _ = ENV_KINDS[kind]
    env = make(name, render_mode="rgb_array")
    env.reset(seed=0)
    picture = env.render()
    assert isinstance(picture, np.ndarray) and picture.dtype == np.uint8
    assert picture.ndim == 3 and picture.shape[2] == 3


def test_render_modes_in_the_metadata():
    modes = ["human", "ansi", "rgb_array"]
    assert cg.env(GAMES[0]).metadata["render_modes"] == modes
    assert cpz.env(GAMES[0]).metadata["render_modes"] == modes
    assert cpz.parallel_env(SIMULTANEOUS[0]).metadata["render_modes"] == modes


# ---------------------------------------------------------------------------------------------
# Optional dependencies: one error, naming the extra


@pytest.mark.parametrize(
    ("module", "missing", "extra"),
    [
        ("checkraise.gymnasium", "gymnasium", "gymnasium"),
        ("checkraise.pettingzoo", "pettingzoo", "pettingzoo"),
        ("checkraise.pettingzoo", "gymnasium", "pettingzoo"),
        ("checkraise.openspiel", "pyspiel", "openspiel"),
    ],
)
def test_a_missing_dependency_names_the_extra(monkeypatch, module, missing, extra):
    importlib.import_module(module)  # imported once for real first
    monkeypatch.delitem(sys.modules, module)
    monkeypatch.setitem(sys.modules, missing, None)
    with pytest.raises(cr.MissingDependencyError) as caught:
        importlib.import_module(module)
    error = caught.value
    assert isinstance(error, ImportError)
    assert error.extra == extra and error.feature == module
    assert f"pip install 'checkraise[{extra}]'" in str(error)
    assert missing in str(error)
    assert isinstance(error.__cause__, ImportError)


def test_importing_the_client_module_without_grpc_names_the_extra(monkeypatch):
    monkeypatch.delitem(sys.modules, "checkraise.client", raising=False)
    monkeypatch.setitem(sys.modules, "grpc", None)
    with pytest.raises(cr.MissingDependencyError, match=r"pip install 'checkraise\[grpc\]'"):
        from checkraise.client import Client  # noqa: F401


def test_a_missing_grpc_names_the_extra(monkeypatch):
    monkeypatch.delattr(cr, "client", raising=False)
    monkeypatch.delitem(sys.modules, "checkraise.client", raising=False)
    monkeypatch.setitem(sys.modules, "grpc", None)
    with pytest.raises(cr.MissingDependencyError, match=r"pip install 'checkraise\[grpc\]'"):
        cr.client  # noqa: B018


def test_a_missing_pillow_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)
    envs = [
        cg.env(GAMES[0], render_mode="rgb_array"),
        cpz.env(GAMES[0], render_mode="rgb_array"),
    ]
    for env in envs:
        env.reset(seed=0)
        with pytest.raises(cr.MissingDependencyError, match=r"'checkraise\[render\]'"):
            env.render()


def test_missing_dependency_error_is_one_class():
    assert cr.MissingDependencyError is _optional.MissingDependencyError
    assert issubclass(cr.MissingDependencyError, ImportError)
    with pytest.raises(ValueError, match="unknown extra"):
        cr.MissingDependencyError("x", "no_such_extra")


def test_the_extras_in_pyproject():
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    assert {"gymnasium", "pettingzoo", "openspiel", "grpc", "render", "all"} <= set(extras)
    # The errors name exactly the extras there are.
    assert set(_optional.EXTRAS) == set(extras) - {"all"}
    everything = {r for name, reqs in extras.items() if name != "all" for r in reqs}
    assert set(extras["all"]) == everything

    # The development requirements install every extra, so the suite tests them all.
    def names(requirements):
        return {re.split(r"[<>=!~\[ ;]", r.strip(), maxsplit=1)[0].lower() for r in requirements}

    dev = (ROOT / "requirements-dev.txt").read_text().splitlines()
    dev = [line for line in dev if line.strip() and not line.startswith("#")]
    assert names(extras["all"]) <= names(dev)


def test_the_readme_installs_every_extra():
    readme = (ROOT / "README.md").read_text()
    assert "pip install '.[all]'" in readme


# ---------------------------------------------------------------------------------------------
# docs/python.md's PettingZoo, Gymnasium, pickling, Stable-Baselines3 and TorchRL sections run as
# written


def python_snippets(section):
    """The ```python blocks of a `## section` of docs/python.md, dedented (some sit in lists)."""
    text = (ROOT / "docs" / "python.md").read_text()
    start = text.index(f"\n## {section}\n")
    end = text.find("\n## ", start + 1)
    body = text[start : end if end != -1 else len(text)]
    blocks = re.findall(r"^( *)```python\n(.*?)^\1```", body, flags=re.DOTALL | re.MULTILINE)
    return [textwrap.dedent(code) for _, code in blocks]


@pytest.mark.parametrize(
    ("section", "at_least"),
    [
        ("PettingZoo", 5),
        ("Gymnasium", 5),
        ("Pickling, copies and threads", 1),
        ("Stable-Baselines3", 1),
        ("TorchRL", 1),
    ],
)
def test_docs_snippets_run(section, at_least, capsys):
    snippets = python_snippets(section)
    assert len(snippets) >= at_least
    # Later sections' snippets use the package as the earlier ones imported it.
    import checkraise.gymnasium
    import checkraise.pettingzoo

    namespace: dict = {"checkraise": checkraise}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the checkers' advisory warnings
        for code in snippets:
            exec(compile(code, f"docs/python.md ({section})", "exec"), namespace)


@pytest.mark.parametrize("name", GAMES)
def test_observation_spaces_have_the_games_real_bounds(name):
    game = cr.make(name)
    low, high = game.observation_bounds()
    assert np.isfinite([low, high]).all() and low <= 0 < 1 <= high
    env = cg.env(name, opponent="random")
    assert env.observation_space.low.min() == low and env.observation_space.high.max() == high
    info_env = cg.env(name, opponent="random", observation_type="information_state")
    assert np.isfinite(info_env.observation_space.high).all()
    pz = cpz.env(name)
    space = pz.observation_space(pz.possible_agents[0])["observation"]
    assert space.low.min() == low and space.high.max() == high
    # Observations of random play lie inside (the conformance gate checks this in Rust too).
    for seed in range(3):
        obs, info = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while True:
            assert env.observation_space.contains(obs)
            obs, _, terminated, truncated, info = env.step(
                int(rng.choice(np.flatnonzero(info["action_mask"])))
            )
            if terminated or truncated:
                break
