#!/usr/bin/env python3
"""Steps one checkraise VectorEnv with random legal actions for a while: a target for profilers.

    PYTHONPATH=python perf record -g python benchmarks/vector_env_loop.py pokeros 10 --envs 1024

Prints the step()-only and total env-steps/s, and the bytes the env writes per env-step
(observations as float32 plus the legal masks as bool), so a profile can be read against the
memory traffic.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import checkraise

sys.path.insert(0, str(Path(__file__).resolve().parent))
from python_throughput import LegalSampler


def main() -> int:
    """Runs the loop and prints its figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", help="a checkraise game, e.g. pokeros")
    parser.add_argument("seconds", type=float, help="how long to step")
    parser.add_argument("--envs", type=int, default=1024, help="number of envs (default 1024)")
    args = parser.parse_args()
    if args.envs < 1 or args.seconds <= 0:
        parser.error("--envs and seconds must be positive")
    info = checkraise.make(args.game).info
    observer = "all" if info["dynamics"] == "simultaneous" else None
    venv = checkraise.VectorEnv(args.game, num_envs=args.envs, seed=0, observer=observer)
    venv.reset()
    sampler = LegalSampler(0)
    per_env = (venv.observations.nbytes + venv.action_masks.nbytes) // args.envs
    steps = 0
    in_step = 0.0
    t0 = time.perf_counter()
    deadline = t0 + args.seconds
    while time.perf_counter() < deadline:
        actions = sampler.sample(venv.action_masks)
        t1 = time.perf_counter()
        venv.step(actions)
        in_step += time.perf_counter() - t1
        steps += args.envs
    wall = time.perf_counter() - t0
    print(
        f"{args.game} envs={args.envs} observer={observer}: step() only "
        f"{steps / in_step / 1e6:.3f} M steps/s, with sampling {steps / wall / 1e6:.3f} M steps/s; "
        f"{per_env} bytes written per env-step "
        f"({per_env * steps / in_step / 1e9:.2f} GB/s in step())"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
