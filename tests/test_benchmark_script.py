"""benchmarks/python_throughput.py keeps running: a quick checkraise-only run prints a row for
every registered game, and its vectorized sampler only ever draws legal actions."""

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import checkraise as cr
from run_util import run_python

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "python_throughput.py"


def load_script():
    spec = importlib.util.spec_from_file_location("python_throughput", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look the module up while building Result
    spec.loader.exec_module(module)
    return module


def run_script(*args):
    return run_python(SCRIPT, *args, timeout=120)


def test_quick_run_prints_a_row_for_every_game():
    proc = run_script("--quick", "--only-checkraise", "--envs", "1,3")
    assert proc.returncode == 0, proc.stderr
    rows = [line.split() for line in proc.stdout.splitlines() if line.startswith("checkraise ")]
    seen = {(cells[1], int(cells[2])) for cells in rows}
    for game in cr.game_names():
        for envs in (1, 3):
            assert (game, envs) in seen, f"no row for {game} at {envs} envs:\n{proc.stdout}"
    # steps/s, step() only, sampling only, steps/CPU-s (each a number, maybe with k or M),
    # cpu/wall, load.
    measured = re.compile(r"checkraise\s+\S+\s+\d+\s+(?:[0-9.]+(?: [kM])?\s+){4}[0-9.]+\s+[0-9.]+")
    for line in proc.stdout.splitlines():
        if line.startswith("checkraise "):
            assert measured.match(line), line
    assert "load average at start" in proc.stdout
    others = ("openspiel", "pettingzoo", "pgx")
    assert not [line for line in proc.stdout.splitlines() if line.startswith(others)]


def test_markdown_rows():
    proc = run_script(
        "--quick",
        "--only-checkraise",
        "--markdown",
        "--envs",
        "2",
        "--games",
        "detective_poker",
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    rows = [line for line in lines if line.startswith("| checkraise |")]
    assert len(rows) == 1
    header = next(line for line in lines if line.startswith("| library |"))
    separator = lines[lines.index(header) + 1]
    assert header.count("|") == separator.count("|") == rows[0].count("|")
    assert rows[0].split("|")[2:4] == [" detective_poker ", " 2 "]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--envs", "0"], "positive"),
        (["--envs", "1,x"], "comma-separated"),
        (["--libraries", "gym"], "unknown libraries"),
        (["--seconds", "-1"], "--seconds"),
    ],
)
def test_bad_arguments_are_refused(args, message):
    proc = run_script("--only-checkraise", *args)
    assert proc.returncode == 2
    assert message in proc.stderr


def test_unknown_game_is_an_error():
    proc = run_script("--quick", "--only-checkraise", "--games", "go")
    assert proc.returncode != 0
    assert "go" in proc.stderr


def test_sampler_draws_only_legal_actions_uniformly():
    sampler = load_script().LegalSampler(7)
    rng = np.random.default_rng(3)
    masks = rng.random((50, 3, 37)) < 0.1
    masks[0, 0] = False  # a row with no legal action gets 0
    masks[1, 2] = False
    masks[1, 2, 36] = True  # a single legal action, at the last column
    for _ in range(20):
        actions = sampler.sample(masks)
        assert actions.shape == (50, 3) and actions.dtype == np.int64
        legal = np.take_along_axis(masks, actions[..., None], axis=-1)[..., 0]
        assert np.all(legal | ~masks.any(axis=-1))
        assert actions[0, 0] == 0 and actions[1, 2] == 36
    # Every legal action of a row turns up when drawn often enough.
    row = np.zeros((2000, 10), bool)
    row[:, [1, 4, 9]] = True
    assert set(np.unique(sampler.sample(row))) == {1, 4, 9}
    # No legal action anywhere (a single env whose game just ended), or only in the last row.
    assert sampler.sample(np.zeros((1, 5), bool)).tolist() == [0]
    last = np.zeros((4, 5), bool)
    last[3, 4] = True
    assert sampler.sample(last).tolist() == [0, 0, 0, 4]
    with pytest.raises(ValueError, match="boolean"):
        sampler.sample(np.ones((2, 3), np.int8))


def test_sampler_on_a_real_vector_env():
    sampler = load_script().LegalSampler(0)
    venv = cr.VectorEnv("prediction_chess", num_envs=3, seed=1, observer="all")
    venv.reset()
    for _ in range(30):
        actions = sampler.sample(venv.action_masks)
        assert actions.shape == venv.action_shape
        venv.step(actions)  # an illegal action would raise IllegalActionError


def test_a_missing_library_is_reported_not_fatal(tmp_path):
    # Shadow jax with a package that fails to import, as on a machine where it does not install.
    (tmp_path / "jax").mkdir()
    (tmp_path / "jax" / "__init__.py").write_text("raise ImportError('no jaxlib wheel here')\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env.get("PYTHONPATH", "")])
    proc = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "--quick",
            "--libraries",
            "checkraise,pgx",
            "--games",
            "detective_poker",
            "--envs",
            "2",
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    rows = [line for line in proc.stdout.splitlines() if line.startswith("pgx ")]
    assert len(rows) == 1
    assert "not installable: ImportError: no jaxlib wheel here" in rows[0]
    assert any(line.startswith("checkraise ") for line in proc.stdout.splitlines())
