"""A training run's settings (:class:`Config`) and the opponent pool's parsing."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

SELF = "self"
"""The pool entry for earlier snapshots of the learner."""


@dataclass
class Config:
    """Every setting of a training run (``python -m checkraise.train --help`` explains each)."""

    game: str
    out: str = "runs/train"
    seed: int = 0
    minutes: float = 10.0
    max_steps: int | None = None
    hidden: tuple[int, ...] = (128, 128)
    num_envs: int = 64
    rollout: int = 64
    epochs: int = 4
    minibatch: int = 1024
    lr: float = 3e-4
    clip: float = 0.2
    gamma: float = 1.0
    gae_lambda: float = 0.95
    entropy: float = 0.01
    value_coef: float = 0.5
    max_grad_norm: float = 0.5
    pool: list[tuple[str | bytes, float]] = field(
        default_factory=lambda: [("heuristic", 0.7), (SELF, 0.2), ("random", 0.1)]
    )
    snapshot_every: int = 10
    snapshots_kept: int = 5
    eval_opponents: list[str] = field(default_factory=lambda: ["random", "heuristic"])
    eval_every_s: float = 300.0
    eval_games: int = 300
    final_eval_games: int = 2000
    eval_seed: int = 1_000_000
    train_reward: str | None = None
    action_features: bool = True
    best_response_to: str | None = None
    init: str | None = None
    play: str = "greedy"  # how the policy is played: its file's metadata ``play``


def _json(value: Any) -> Any:
    """``config.json``'s entry for a pool member given as a policy file's bytes."""
    if isinstance(value, bytes):
        return f"<policy file, {len(value)} bytes>"
    raise TypeError(f"{type(value).__name__} is not JSON")


def _parse_pool(items: Sequence[str]) -> list[tuple[str, float]]:
    pool = []
    for item in items:
        spec, sep, weight = item.rpartition(":")
        if not sep:
            spec, weight = item, "1"
        try:
            w = float(weight)
        except ValueError:
            raise ValueError(f"--opponent {item!r}: weight {weight!r} is not a number") from None
        if not (math.isfinite(w) and w > 0):
            raise ValueError(f"--opponent {item!r}: the weight must be above 0")
        pool.append((spec.strip(), w))
    return pool
