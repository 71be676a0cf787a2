"""The training recipe (`checkraise.train`, the `train` extra: jax, optax, matplotlib): a
few-second PPO run per kind of game (sequential, simultaneous, more than two seats), its files,
its evaluation, and the policy it writes played by the engine.

These check that training runs and writes what the docs say, not how well it learns (that is
measured in docs/training.md, and the shipped policies' strength in tests/test_policy.py).
"""

from __future__ import annotations

import csv
import json
import math
import subprocess
import sys

import numpy as np
import pytest

import checkraise as cr
from checkraise.policy import ACTION_FEATURES, ACTION_FEATURES_OFFSET, Policy, read_safetensors
from checkraise.train import Config, _forward, evaluate, main, train

SMALL = {
    "num_envs": 8,
    "rollout": 16,
    "minibatch": 64,
    "epochs": 2,
    "hidden": (16,),
    "eval_games": 6,
    "final_eval_games": 8,
    "eval_every_s": 1e9,
    "minutes": 5.0,
    "snapshot_every": 2,
}


def _states(game, count, seed=5):
    """(state, seat) at the first `count` decisions of random play (fixed seed)."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    out = []
    while len(out) < count:
        if state.is_terminal():
            state = game.new_initial_state()
        elif state.is_chance_node():
            state.sample_chance(int(rng.integers(2**31)))
        elif state.is_simultaneous_node():
            seats = [s for s in range(game.num_players()) if state.legal_actions(s)]
            out += [(state.clone(), s) for s in seats]
            state.apply_actions(
                [int(rng.choice(state.legal_actions(s) or [0])) for s in range(game.num_players())]
            )
        else:
            seat = state.current_player()
            out.append((state.clone(), seat))
            state.apply_action(int(rng.choice(state.legal_actions(seat))))
    return out[:count]


@pytest.mark.parametrize(
    ("game", "steps"),
    [("prediction_chess", 600), ("detective_poker", 600), ("pokeros(board_size=7)", 400)],
)
def test_a_short_run_writes_curves_and_a_policy_the_engine_plays(tmp_path, game, steps):
    out = tmp_path / "run"
    summary = train(Config(game=game, out=str(out), max_steps=steps, seed=3, **SMALL), log=str)
    assert summary["env_steps"] >= steps
    assert summary["updates"] >= 1
    for name in ("train.csv", "eval.csv", "curves.png", "policy.safetensors", "config.json"):
        assert (out / name).stat().st_size > 0, name
    with open(out / "train.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == summary["updates"]
    for row in rows:
        for key in ("policy_loss", "value_loss", "entropy", "approx_kl"):
            assert math.isfinite(float(row[key])), (key, row)
        assert float(row["steps_per_second"]) > 0
    with open(out / "eval.csv") as f:
        evals = list(csv.DictReader(f))
    # One evaluation at the start and the final one, against random and heuristic each.
    assert [r["opponent"] for r in evals] == ["random", "heuristic"] * 2
    for row in evals:
        assert float(row["ci_low"]) <= float(row["mean_return"]) <= float(row["ci_high"])
        assert 0 <= float(row["win_rate"]) <= 1
    assert json.loads((out / "config.json").read_text())["game"] == game
    # The policy file: read by the engine, checked against the game, played by the engine.
    g = cr.make(game)
    policy = Policy.load(out / "policy.safetensors")
    policy.check_game(g)
    # The export is the network the trainer trained: the engine's logits are the trainer's
    # (jax) forward pass of the same parameters, on observations of real states.
    tensors, _ = read_safetensors((out / "policy.safetensors").read_bytes())
    obs = np.stack([st.observation(seat) for st, seat in _states(g, 12)])
    want, _ = _forward(tensors, obs, len(policy.layers))
    np.testing.assert_allclose(policy.logits(obs), np.asarray(want), rtol=1e-4, atol=1e-4)
    assert policy.metadata["env_steps"] == str(summary["env_steps"])
    spec = f"policy(path={out / 'policy.safetensors'})"
    state = g.new_initial_state()
    assert cr.Driver(g, [spec] * g.num_players(), seed=0).advance(state) == "over"
    # The final evaluation in the summary is the last rows of eval.csv.
    final = {e["opponent"]: e for e in summary["final"]}
    assert float(evals[-1]["mean_return"]) == pytest.approx(final["heuristic"]["mean"])


def test_evaluation_is_reproducible_and_rotates_seats():
    policy = Policy.shipped("detective_poker")
    game = cr.make(policy.game)  # the game it was trained on (observation=odds)
    a = evaluate(policy, game, "random", games=30, seed=7)
    b = evaluate(policy, game, "random", games=30, seed=7)
    assert a == b
    assert a.games == 30  # whole deals: 10 deals x 3 seats
    # Against itself (the same greedy policy in every seat) a zero-sum game averages 0 over
    # each deal's seatings only if play is seat-symmetric; the mean must at least be finite
    # and inside the game's utility range.
    assert game.min_utility() <= a.mean <= game.max_utility()
    with pytest.raises(cr.CheckraiseError):
        evaluate(policy, game, "alphazero", games=3, seed=0)


def test_the_command_line(tmp_path):
    out = tmp_path / "cli"
    code = main(
        [
            "detective_poker",
            "--out",
            str(out),
            "--max-steps",
            "200",
            "--num-envs",
            "4",
            "--rollout",
            "8",
            "--minibatch",
            "16",
            "--hidden",
            "8",
            "--eval-games",
            "6",
            "--final-eval-games",
            "6",
            "--opponent",
            "heuristic:2",
            "--opponent",
            "self:1",
        ]
    )
    assert code == 0
    assert (out / "policy.safetensors").exists()
    config = json.loads((out / "config.json").read_text())
    assert config["pool"] == [["heuristic", 2.0], ["self", 1.0]]
    # Bad input: one line, exit status 2, before any training.
    bad = subprocess.run(
        [sys.executable, "-m", "checkraise.train", "chess", "--out", str(tmp_path / "x")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2
    assert "unknown game" in bad.stderr.lower()
    bad = subprocess.run(
        [sys.executable, "-m", "checkraise.train", "pokeros", "--opponent", "heuristic:-1"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2
    assert "above 0" in bad.stderr
    bad = subprocess.run(
        [
            sys.executable,
            "-m",
            "checkraise.train",
            "pokeros",
            "--opponent",
            "alphazero:1",
            "--out",
            str(tmp_path / "y"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2
    assert "unknown bot 'alphazero'" in bad.stderr


def test_gae_on_a_terminal_reward():
    from checkraise.train import _gae

    rewards = np.array([[0.0], [0.0], [1.0]], np.float32)
    dones = np.array([[False], [False], [True]])
    values = np.zeros((3, 1), np.float32)
    adv = _gae(rewards, dones, values, np.array([5.0], np.float32), gamma=1.0, lam=1.0)
    # The game ended at the last step: the bootstrap value (5) does not leak in.
    assert adv[:, 0].tolist() == [1.0, 1.0, 1.0]


def test_without_the_train_extra(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "jax", None)
    with pytest.raises(cr.MissingDependencyError) as caught:
        train(Config(game="detective_poker", out=str(tmp_path / "z"), max_steps=1))
    assert caught.value.extra == "train"
    assert "pip install 'checkraise[train]'" in str(caught.value)
    # Playing a policy needs numpy only: checkraise.policy imports no training library.
    code = (
        "import sys; sys.modules['jax'] = sys.modules['optax'] = sys.modules['matplotlib'] = None\n"
        "import checkraise as cr\nfrom checkraise.policy import Policy\n"
        "s = cr.Env('poker_chess', seed=1).state()\n"
        "assert Policy.shipped('poker_chess').act(s) == cr.Bot('poker_chess', 'policy').act(s)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_pool_takes_any_bot_spec_including_search_and_policies(tmp_path):
    shipped = tmp_path / "shipped.safetensors"
    shipped.write_bytes(cr._core.shipped_policy("prediction_chess"))
    config = Config(
        game="prediction_chess",
        out=str(tmp_path / "pool"),
        max_steps=100,
        pool=[
            ("ismcts(iterations=4,rollout=random)", 1.0),
            (f"policy(path={shipped})", 1.0),
            ("self", 1.0),
        ],
        eval_opponents=["policy"],
        **{**SMALL, "num_envs": 4, "rollout": 8, "minibatch": 16},
    )
    summary = train(config, log=str)
    assert [e["opponent"] for e in summary["final"]] == ["policy"]


def test_training_on_points_is_evaluated_on_the_games_own_reward(tmp_path):
    """`--train-reward points`: the training games pay each placement as it scores (returns in
    points), the snapshots the pool plays and the policy file are the rank-reward game's, and
    the evaluation is on rank (returns within +-1)."""
    config = Config(
        game="pokeros(board_size=7)",
        out=str(tmp_path / "points"),
        max_steps=200,
        pool=[("heuristic", 1.0), ("self", 1.0)],
        train_reward="points",
        **{**SMALL, "num_envs": 4, "rollout": 16, "minibatch": 32},
    )
    summary = train(config, log=str)
    with open(tmp_path / "points" / "train.csv") as f:
        returns = [float(r["train_return"]) for r in csv.DictReader(f) if r["train_return"]]
    # Points, not ranks: some training game paid more than one point.
    assert any(abs(r) > 1 for r in returns), returns
    for e in summary["final"]:
        assert -1 <= e["mean"] <= 1
    policy = Policy.load(tmp_path / "points" / "policy.safetensors")
    assert policy.metadata["game"] == str(cr.make("pokeros(board_size=7)"))
    policy.check_game(cr.make("pokeros(board_size=7,reward=points)"))
    with pytest.raises(cr.CheckraiseError, match="no reward parameter"):
        train(Config(game="prediction_chess", out=str(tmp_path / "x"), train_reward="points"))
    assert main(["pokeros", "--train-reward", "score", "--out", str(tmp_path / "y")]) == 2


def test_the_placements_block_is_linked_into_the_logits_and_the_policy_plays_plain_pokeros(
    tmp_path,
):
    """With Pokeros's `observation=placements` the trainer links the per-action block into the
    logits (`policy.action_features`, offset in the metadata); the engine reads the link, and
    the policy plays `pokeros` itself through that observation. `--no-action-features` trains
    the plain network on the same observation."""
    game = "pokeros(board_size=7,observation=placements)"
    config = Config(
        game=game,
        out=str(tmp_path / "linked"),
        max_steps=300,
        pool=[("heuristic", 1.0)],
        train_reward="points",
        **{**SMALL, "num_envs": 4, "rollout": 16, "minibatch": 32, "final_eval_games": 6},
    )
    train(config, log=str)
    path = tmp_path / "linked" / "policy.safetensors"
    policy = Policy.load(path)
    offset = cr.make(game).action_features()
    assert offset == cr.make("pokeros(board_size=7)").observation_size
    assert policy.metadata[ACTION_FEATURES_OFFSET] == str(offset)
    link_offset, weight = policy.action_features
    assert link_offset == offset and np.isfinite(weight) and weight != 0.0, weight
    # The engine's logits are the network's plus the link: weight x the block.
    state = cr.make(game).new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    row = np.asarray(state.observation(state.current_player()), dtype=np.float32)
    assert row[offset:].any(), "some placement scores at the first decision"
    h = row
    for w, b in policy.layers:
        h = np.maximum(h @ w + b, np.float32(0))
    w, b = policy.head
    np.testing.assert_allclose(
        policy.logits(row), h @ w + b + np.float32(weight) * row[offset:], rtol=1e-4, atol=1e-4
    )
    # It plays plain Pokeros (a game, an arena run) by observing the placements variant.
    played = cr.Match(cr.make("pokeros(board_size=7)"), [f"policy(path={path})", "heuristic"], 3)
    assert played.start() == "over" and played.is_terminal()
    with pytest.raises(cr.CheckraiseError, match="trained on"):
        cr.Bot(cr.make("pokeros(board_size=9)"), f"policy(path={path})")
    plain = Config(
        **{
            **config.__dict__,
            "out": str(tmp_path / "plain"),
            "action_features": False,
            "max_steps": 64,
            "final_eval_games": 2,
        }
    )
    train(plain, log=str)
    assert Policy.load(tmp_path / "plain" / "policy.safetensors").action_features is None
    args = ["--no-action-features", "--max-steps", "1", "--out", str(tmp_path / "z")]
    assert main([game, *args, "--eval-games", "2", "--final-eval-games", "2"]) == 0


def test_sampling_draws_legal_actions_by_their_probabilities():
    import jax

    from checkraise.train import _sample

    rows = 20_000
    masks = np.tile([False, True, True, False], (rows, 1))
    logits = np.where(masks, np.float32([5.0, 1.0, 2.0, 9.0]), -np.inf)
    logp = (logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))).astype(np.float32)
    u = np.random.default_rng(0).random((rows, 1), dtype=np.float32)
    sample = jax.jit(_sample)
    counts = np.bincount(np.asarray(sample(logp, masks, u)), minlength=4) / rows
    expected = np.exp(logp[0])
    assert counts[0] == counts[3] == 0
    assert counts == pytest.approx(expected, abs=0.02)
    # The ends of the uniform: the first legal action, and the last one.
    ends = sample(logp[:2], masks[:2], np.float32([[0.0], [1.0]]))
    assert np.asarray(ends).tolist() == [1, 2]


def test_best_response_to_a_bot_reports_a_lower_bound_with_its_interval(tmp_path, capsys):
    """A fixed-seed smoke run of the learned best response (ABR): the pool and the evaluation
    are the target alone, and the summary carries the exploiter's value against it."""
    out = tmp_path / "abr"
    args = ["pokeros", "--best-response-to", "random", "--out", str(out), "--seed", "3"]
    small = ["--max-steps", "200", "--num-envs", "4", "--rollout", "8", "--minibatch", "16"]
    evals = ["--hidden", "8", "--eval-games", "6", "--final-eval-games", "10"]
    assert main([*args, *small, *evals]) == 0
    capsys.readouterr()
    config = json.loads((out / "config.json").read_text())
    assert config["pool"] == [["random", 1.0]] and config["eval_opponents"] == ["random"]
    summary = json.loads((out / "summary.json").read_text())
    response = summary["best_response"]
    assert response["target"] == "random" and response["games"] == 10
    low, high = response["ci"]
    assert low <= response["value"] <= high
    # The pool is the target's alone: other opponents are refused beside it.
    for bad in ([*args, "--opponent", "heuristic"], ["pokeros", "--best-response-to", " "]):
        with pytest.raises(SystemExit) as exit_info:
            main(bad)
        assert exit_info.value.code == 2
    assert "--best-response-to" in capsys.readouterr().err
    assert main(["pokeros", "--best-response-to", "alphazero", "--out", str(out), *small]) == 2


def test_init_starts_from_a_policy_file_or_the_shipped_policy_and_refuses_a_misfit(
    tmp_path, capsys
):
    """``--init``: a run's starting weights are a policy file's (value head included) or the
    shipped policy's (its value head fresh), the link's weight read back to the trainer's
    scale; a network of other layers or another game is refused, naming what differs."""
    import jax

    from checkraise.train import _init_from, _init_params

    out = tmp_path / "first"
    small = ["--max-steps", "64", "--num-envs", "4", "--rollout", "8", "--minibatch", "16"]
    evals = ["--eval-games", "2", "--final-eval-games", "2", "--hidden", "8"]
    assert main(["pokeros", "--out", str(out), "--seed", "3", *small, *evals]) == 0
    game = cr.make("pokeros")
    file_tensors, _ = read_safetensors((out / "policy.safetensors").read_bytes())
    fresh = _init_params(jax.random.PRNGKey(1), [game.observation_size, 8], 675)
    if game.action_features() is not None:
        fresh[ACTION_FEATURES] = np.zeros((1,), np.float32)
    started = _init_from(str(out / "policy.safetensors"), game, fresh)
    assert set(started) == set(file_tensors)
    for name, tensor in file_tensors.items():
        scale = 100.0 if name == ACTION_FEATURES else 1.0
        np.testing.assert_allclose(started[name] * scale, tensor, rtol=1e-6)

    holdem = cr.make("holdem_chess")
    shipped = Policy.shipped(holdem)
    sizes = [holdem.observation_size, 128, 128]
    fresh = _init_params(jax.random.PRNGKey(1), sizes, holdem.num_distinct_actions())
    started = _init_from("shipped", holdem, fresh)
    np.testing.assert_array_equal(started["layer0.weight"], shipped.layers[0][0])
    np.testing.assert_array_equal(started["policy.bias"], shipped.head[1])
    np.testing.assert_array_equal(started["value.weight"], np.asarray(fresh["value.weight"]))

    # The shipped policy's layers are 128 wide: a run of 8 cannot start from them.
    code = main(["holdem_chess", "--init", "shipped", "--out", str(tmp_path / "x"), *small, *evals])
    assert code == 2
    assert "does not fit" in capsys.readouterr().err
    # A policy of another game is refused by the engine's own check.
    with pytest.raises(cr.CheckraiseError):
        _init_from(str(out / "policy.safetensors"), holdem, fresh)
