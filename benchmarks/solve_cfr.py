"""CFR+ iterations per second: checkraise's tabular solver against OpenSpiel's C++
``CFRPlusSolver`` on the same games, in one run, with the exploitability each reaches after the
same iterations (equal to 1e-9: the same algorithm). Kuhn and Leduc poker are built behind
features, so run it with a module built with them (the test command's feature step builds one):

    python benchmarks/solve_cfr.py --json /tmp/solve_cfr.json
"""

from __future__ import annotations

import argparse
import json
import time

import pyspiel

import checkraise as cr
import checkraise.solve as solve

# Iterations timed per game: (checkraise, OpenSpiel). OpenSpiel's C++ solver walks the game's
# states anew every iteration, so it gets fewer on Leduc to keep the run short; the rates are
# per iteration.
ITERATIONS = {"kuhn_poker": (100_000, 5_000), "leduc_poker": (2_000, 50)}


def time_ours(game: str, iterations: int) -> tuple[float, float, float]:
    """(seconds to enumerate the tree, seconds for the iterations, exploitability)."""
    start = time.perf_counter()
    solver = solve.Solver(game, "cfr+")
    built = time.perf_counter() - start
    start = time.perf_counter()
    solver.run(iterations)
    return built, time.perf_counter() - start, solver.exploitability()


def time_openspiel(game: str, iterations: int) -> tuple[float, float, float]:
    start = time.perf_counter()
    solver = pyspiel.CFRPlusSolver(pyspiel.load_game(game))
    built = time.perf_counter() - start
    start = time.perf_counter()
    for _ in range(iterations):
        solver.evaluate_and_update_policy()
    seconds = time.perf_counter() - start
    return built, seconds, pyspiel.exploitability(pyspiel.load_game(game), solver.average_policy())


def main(argv: list[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the results here")
    parser.add_argument(
        "--scale", type=float, default=1.0, help="multiply every iteration count (tests: 0.01)"
    )
    args = parser.parse_args(argv)
    rows = []
    for game, (ours_n, theirs_n) in ITERATIONS.items():
        if game not in cr.game_names():
            parser.error(f"this build has no {game}: build the module with its feature")
        ours_n = max(1, int(ours_n * args.scale))
        theirs_n = max(1, int(theirs_n * args.scale))
        ours = time_ours(game, ours_n)
        theirs = time_openspiel(game, theirs_n)
        # The same iterations on both sides for the exploitability check.
        same = solve.Solver(game, "cfr+")
        same.run(theirs_n)
        rows.append(
            {
                "game": game,
                "checkraise_iterations": ours_n,
                "checkraise_tree_seconds": ours[0],
                "checkraise_per_second": ours_n / ours[1],
                "openspiel_iterations": theirs_n,
                "openspiel_setup_seconds": theirs[0],
                "openspiel_per_second": theirs_n / theirs[1],
                "speedup": (ours_n / ours[1]) / (theirs_n / theirs[1]),
                "exploitability_difference": abs(same.exploitability() - theirs[2]),
                "checkraise_exploitability": ours[2],
            }
        )
    header = ("game", "checkraise it/s", "OpenSpiel it/s", "ratio", "|diff|")
    print(f"{header[0]:<12} {header[1]:>16} {header[2]:>15} {header[3]:>8} {header[4]:>10}")
    for r in rows:
        print(
            f"{r['game']:<12} {r['checkraise_per_second']:>16,.0f}"
            f" {r['openspiel_per_second']:>15,.1f} {r['speedup']:>7.0f}x"
            f" {r['exploitability_difference']:>10.1e}"
        )
    result = {"rows": rows}
    if args.json:
        with open(args.json, "w") as out:
            json.dump(result, out, indent=2)
    return result


if __name__ == "__main__":
    main()
