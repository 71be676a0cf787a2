#!/usr/bin/env python3
"""Learner steps per second with the opponents played inside the engine, through the standard
Gymnasium vector API, beside the raw engine and beside Gymnasium's own ``make_vec`` sync mode.

For each game and opponent (``heuristic``, ``policy``, ``random``), with the learner's seat
drawn per game (``seat="random"``):

- ``engine``: ``checkraise.VectorEnv(game, N, opponent=..., seat="random")`` stepped directly.
- ``make_vec``: ``gymnasium.make_vec("checkraise/<game>-v0", num_envs=N, opponent=...,
  seat="random")`` (the native vector env, ``vectorization_mode="vector_entry_point"``, the
  default for these ids), stepped through Gymnasium's API: rewards ``(N,)``, the info dict
  with the action masks.
- ``sync``: ``gymnasium.make_vec(..., vectorization_mode="sync")``: Gymnasium runs one
  ``checkraise.gymnasium.CheckraiseEnv`` per env in Python (the opponents still play in the
  engine, one env at a time). Run at ``--sync-envs`` envs (its rate hardly depends on N).

A learner step is one decision of the learner in one env (everything the opponents and chance
do until its next decision is inside it). Actions are uniformly random legal ones: drawn in
Rust by the engine (``sample_actions``) for ``engine`` and ``make_vec``, from the info masks
with vectorized numpy for ``sync``; the drawing is inside the timing. Each figure is the
median of ``--rounds`` timed runs of ``--seconds`` each, after one untimed step.

Usage::

    python benchmarks/vector_opponents.py                      # every game, 1,024 envs
    python benchmarks/vector_opponents.py --quick              # a smoke run (tests use it)
    python benchmarks/vector_opponents.py --games holdem_chess --opponents heuristic
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable

import gymnasium as gym
import numpy as np

import checkraise as cr
from checkraise.gymnasium import env_id

OPPONENTS = ("heuristic", "policy", "random")


def rate(step: Callable[[], None], envs: int, seconds: float, rounds: int) -> float:
    """Median learner steps/s of ``step`` (one call = ``envs`` learner steps)."""
    step()
    results = []
    for _ in range(rounds):
        calls = 0
        start = time.perf_counter()
        while True:
            step()
            calls += 1
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                break
        results.append(calls * envs / elapsed)
    return statistics.median(results)


def engine_rate(game: str, opponent: str, envs: int, seconds: float, rounds: int) -> float:
    venv = cr.VectorEnv(game, envs, seed=0, opponent=opponent, seat="random")
    venv.reset()
    return rate(lambda: venv.step(venv.sample_actions()), envs, seconds, rounds)


def make_vec_rate(game: str, opponent: str, envs: int, seconds: float, rounds: int) -> float:
    vec = gym.make_vec(env_id(game), num_envs=envs, opponent=opponent, seat="random")
    assert vec.spec is not None and vec.spec.kwargs["vectorization_mode"] == "vector_entry_point"
    vec.reset(seed=0)
    engine = vec.unwrapped.engine
    return rate(lambda: vec.step(engine.sample_actions()), envs, seconds, rounds)


def sync_rate(game: str, opponent: str, envs: int, seconds: float, rounds: int) -> float:
    vec = gym.make_vec(
        env_id(game),
        num_envs=envs,
        vectorization_mode="sync",
        opponent=opponent,
        seat=0,
    )
    _, info = vec.reset(seed=0)
    rng = np.random.default_rng(0)
    state = {"info": info}

    def step() -> None:
        masks = state["info"]["action_mask"].astype(bool)
        noise = rng.random(masks.shape)
        actions = np.where(masks, noise, -1.0).argmax(axis=1)
        *_, state["info"] = vec.step(actions)

    return rate(step, envs, seconds, rounds)


def human(value: float) -> str:
    if value >= 1e6:
        return f"{value / 1e6:.2f} M"
    if value >= 1e3:
        return f"{value / 1e3:.1f} k"
    return f"{value:.0f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=",".join(cr.game_names()))
    parser.add_argument("--opponents", default=",".join(OPPONENTS))
    parser.add_argument("--envs", type=int, default=1024)
    parser.add_argument("--sync-envs", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-sync", action="store_true", help="skip make_vec sync mode")
    parser.add_argument("--quick", action="store_true", help="tiny run: 8 envs, 0.05 s, 1 round")
    args = parser.parse_args()
    if args.quick:
        args.envs, args.sync_envs, args.seconds, args.rounds = 8, 2, 0.05, 1
    games = [g for g in args.games.split(",") if g]
    opponents = [o for o in args.opponents.split(",") if o]
    print(
        f"# checkraise {cr.__version__}, gymnasium {gym.__version__}, {platform.machine()}, "
        f"{os.cpu_count()} CPUs, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
        f"{args.envs} envs (sync: {args.sync_envs}), median of {args.rounds} x {args.seconds} s"
    )
    print("| game | opponent | engine | make_vec | make_vec / engine | sync | make_vec / sync |")
    print("|---|---|---|---|---|---|---|")
    for game in games:
        for opponent in opponents:
            raw = engine_rate(game, opponent, args.envs, args.seconds, args.rounds)
            vec = make_vec_rate(game, opponent, args.envs, args.seconds, args.rounds)
            if args.no_sync:
                sync_cell, ratio_cell = "-", "-"
            else:
                sync = sync_rate(game, opponent, args.sync_envs, args.seconds, args.rounds)
                sync_cell, ratio_cell = human(sync), f"{vec / sync:.0f}x"
            print(
                f"| {game} | {opponent} | {human(raw)} | {human(vec)} | {vec / raw:.2f} | "
                f"{sync_cell} | {ratio_cell} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
