"""A run's records: its CSV files, and their curves drawn with matplotlib (``curves.png``)."""

from __future__ import annotations

import csv
import os
from pathlib import Path
from typing import Any

from checkraise._optional import requires


def _write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    tmp.replace(path)


def plot(out: str | os.PathLike[str]) -> Path:
    """Draws ``eval.csv`` and ``train.csv`` of a run directory into ``curves.png``."""
    with requires("checkraise.train.plot", "train"):
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

    out = Path(out)
    with open(out / "eval.csv") as f:
        evals = list(csv.DictReader(f))
    train_rows = []
    if (out / "train.csv").exists():
        with open(out / "train.csv") as f:
            train_rows = list(csv.DictReader(f))
    fig, grid = plt.subplots(2, 2, figsize=(13, 8))
    axes = grid.ravel()
    opponents = list(dict.fromkeys(r["opponent"] for r in evals))
    for axis, x, label in ((axes[0], "env_steps", "env steps"), (axes[1], "seconds", "seconds")):
        for opponent in opponents:
            rows = [r for r in evals if r["opponent"] == opponent]
            xs = [float(r[x]) for r in rows]
            axis.plot(xs, [float(r["mean_return"]) for r in rows], marker="o", label=opponent)
            axis.fill_between(
                xs,
                [float(r["ci_low"]) for r in rows],
                [float(r["ci_high"]) for r in rows],
                alpha=0.2,
            )
        axis.axhline(0, color="grey", linewidth=0.8)
        axis.set_xlabel(label)
        axis.set_ylabel("mean return against opponent (95% CI)")
        axis.legend()
    for opponent in opponents:
        rows = [r for r in evals if r["opponent"] == opponent]
        axes[2].plot(
            [float(r["env_steps"]) for r in rows],
            [float(r["win_rate"]) for r in rows],
            marker="o",
            label=opponent,
        )
    axes[2].set_xlabel("env steps")
    axes[2].set_ylabel("win rate against opponent")
    axes[2].set_ylim(0, 1)
    axes[2].legend()
    if train_rows:
        axes[3].plot(
            [float(r["env_steps"]) for r in train_rows],
            [float(r["train_return"]) for r in train_rows],
        )
    axes[3].set_xlabel("env steps")
    axes[3].set_ylabel("training return (pool, last 500 games)")
    fig.suptitle(f"{out.name}: PPO against the pool")
    fig.tight_layout()
    path = out / "curves.png"
    fig.savefig(path, dpi=80)
    plt.close(fig)
    return path
