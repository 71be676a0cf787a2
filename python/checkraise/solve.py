"""Exact solving of small games: CFR, CFR+, discounted CFR and external-sampling MCCFR;
exact best responses, NashConv and exploitability of any tabular policy.

The engine enumerates the game's whole tree once, so this is for small games (Kuhn poker,
Leduc poker, built with their features); a game too large to enumerate is refused with
:class:`SolveError` naming its estimated size. A policy is a dict
``{information state string: {action id: probability}}``, keyed by the seat's
``State.information_state_string``. The numbers follow OpenSpiel's definitions::

    import checkraise.solve as solve

    result = solve.solve("kuhn_poker", "cfr+", iterations=1000, every=100)
    result.exploitability                 # about 8.7e-5, as OpenSpiel's CFRPlusSolver
    value, response = solve.best_response("kuhn_poker", result.policy, seat=1)

From the shell: ``python -m checkraise.solve kuhn_poker --iterations 1000 --every 100``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

from ._core import Game, GameTree, SolveError, Solver

__all__ = [
    "ALGORITHMS",
    "GameTree",
    "Policy",
    "Solution",
    "SolveError",
    "Solver",
    "best_response",
    "exploitability",
    "main",
    "nash_conv",
    "policy_values",
    "solve",
    "uniform_policy",
]

Policy = dict[str, dict[int, float]]
"""A tabular policy: per information-state string, each legal action's probability."""

ALGORITHMS = ("cfr", "cfr+", "dcfr", "mccfr")
"""The algorithms :func:`solve` runs."""


@dataclass(frozen=True)
class Solution:
    """What :func:`solve` found: the average policy after ``iterations`` iterations, its
    exploitability (``None`` for games whose returns do not sum to one number) and NashConv,
    and the exploitability measured every ``every`` iterations along the way."""

    game: str
    algorithm: str
    iterations: int
    seconds: float
    exploitability: float | None
    nash_conv: float
    policy: Policy = field(repr=False)
    curve: list[tuple[int, float]] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        """Everything but the policy, as plain values (what ``--json`` writes)."""
        out = asdict(self)
        del out["policy"]
        return out


def _tree(game: Game | str | GameTree) -> GameTree:
    return game if isinstance(game, GameTree) else GameTree(game)


def solve(
    game: Game | str,
    algorithm: str = "cfr+",
    iterations: int = 1000,
    *,
    seed: int = 0,
    every: int = 0,
    max_nodes: int | None = None,
) -> Solution:
    """Runs ``algorithm`` (``cfr``, ``cfr+``, ``dcfr``, ``mccfr``: external sampling from
    ``seed``) on ``game`` for ``iterations`` iterations; with ``every`` > 0 it measures the
    average policy's exploitability (NashConv for games that are not constant-sum) every
    ``every`` iterations into ``curve``."""
    if iterations < 0 or every < 0:
        raise ValueError(f"iterations ({iterations}) and every ({every}) must be 0 or more")
    kwargs = {} if max_nodes is None else {"max_nodes": max_nodes}
    solver = Solver(game, algorithm, seed=seed, **kwargs)
    constant_sum = True

    def measure() -> float:
        nonlocal constant_sum
        if constant_sum:
            try:
                return solver.exploitability()
            except SolveError:
                constant_sum = False
        return solver.nash_conv()

    curve: list[tuple[int, float]] = []
    seconds = 0.0
    while solver.iterations < iterations:
        step = iterations - solver.iterations
        if every:
            step = min(step, every - solver.iterations % every)
        start = time.perf_counter()
        solver.run(step)
        seconds += time.perf_counter() - start
        if every and solver.iterations % every == 0:
            curve.append((solver.iterations, measure()))
    final = measure()
    return Solution(
        game=solver.game,
        algorithm=solver.algorithm,
        iterations=solver.iterations,
        seconds=seconds,
        exploitability=final if constant_sum else None,
        nash_conv=solver.nash_conv(),
        policy=solver.average_policy(),
        curve=curve,
    )


def best_response(game: Game | str | GameTree, policy: Policy, seat: int) -> tuple[float, Policy]:
    """``(value, response)``: what the best response of ``seat`` to the other seats' parts of
    ``policy`` wins, and that response as a pure policy of the seat's information states."""
    return _tree(game).best_response(policy, seat)


def exploitability(game: Game | str | GameTree, policy: Policy) -> float:
    """``(Σ best-response values - the returns' sum) / seats``, for games whose returns always
    sum to one number (0 at an equilibrium)."""
    return _tree(game).exploitability(policy)


def nash_conv(game: Game | str | GameTree, policy: Policy) -> float:
    """The sum over seats of what a best response gains over the policy's own value."""
    return _tree(game).nash_conv(policy)


def policy_values(game: Game | str | GameTree, policy: Policy) -> list[float]:
    """Every seat's expected return when every seat plays ``policy``."""
    return _tree(game).policy_values(policy)


def uniform_policy(game: Game | str | GameTree) -> Policy:
    """The policy that plays every legal action with equal probability."""
    return _tree(game).uniform_policy()


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m checkraise.solve GAME``: solves a small game and prints its exploitability
    along the way."""
    parser = argparse.ArgumentParser(
        prog="python -m checkraise.solve",
        description="Solve a small game with a CFR-family algorithm and measure the average "
        "policy's exploitability.",
    )
    parser.add_argument("game", help="a game string, e.g. kuhn_poker or 'kuhn_poker(players=3)'")
    parser.add_argument("--algorithm", default="cfr+", choices=ALGORITHMS)
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--every", type=int, default=0, help="measure every N iterations")
    parser.add_argument("--seed", type=int, default=0, help="mccfr's sampling seed")
    parser.add_argument("--max-nodes", type=int, default=None, help="largest tree to enumerate")
    parser.add_argument("--json", metavar="FILE", help="write the result (and curve) as JSON")
    parser.add_argument("--policy", metavar="FILE", help="write the average policy as JSON")
    args = parser.parse_args(argv)
    try:
        result = solve(
            args.game,
            args.algorithm,
            args.iterations,
            seed=args.seed,
            every=args.every,
            max_nodes=args.max_nodes,
        )
    except ValueError as error:  # every checkraise error is a ValueError
        print(f"error: {error}", file=sys.stderr)
        return 2
    for iterations, value in result.curve:
        print(f"{iterations:>10} iterations  {value:.6g}")
    measure = "exploitability" if result.exploitability is not None else "NashConv"
    final = result.exploitability if result.exploitability is not None else result.nash_conv
    print(
        f"{result.game}: {result.algorithm}, {result.iterations} iterations in "
        f"{result.seconds:.2f} s; {measure} of the average policy {final:.6g}"
    )
    if args.json:
        with open(args.json, "w") as out:
            json.dump(result.to_dict(), out, indent=2)
    if args.policy:
        with open(args.policy, "w") as out:
            json.dump({k: {str(a): p for a, p in v.items()} for k, v in result.policy.items()}, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
