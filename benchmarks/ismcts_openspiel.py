#!/usr/bin/env python3
"""IS-MCTS iterations per second: checkraise's native search beside OpenSpiel's Python
IS-MCTS, on the same checkraise positions, in one process.

For every sequential game (OpenSpiel's IS-MCTS has no simultaneous moves, so Prediction Chess
is left out), the position is the first decision with more than one legal action after the
chance outcomes drawn by ``numpy.random.RandomState(1)``. Both searches use uniformly random
rollouts:

- checkraise: ``checkraise.Bot(game, "ismcts(iterations=N,rollout=random,seed=1)")``, one
  search per ``act`` (single thread, the GIL released);
- OpenSpiel: ``open_spiel.python.algorithms.ismcts.ISMCTSBot`` with
  ``mcts.RandomRolloutEvaluator(n_rollouts=1)``, ``uct_c=2``, over the game registered by
  ``checkraise.openspiel`` (``checkraise_<name>``), one search per ``step``.

Each side runs whole searches until ``--seconds`` have passed (at least one); the rate is
iterations (simulations) over time.

Usage::

    PYTHONPATH=python python benchmarks/ismcts_openspiel.py --markdown
    PYTHONPATH=python python benchmarks/ismcts_openspiel.py --quick
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import time

import numpy as np

GAMES = ["pokeros", "poker_chess", "holdem_chess", "detective_poker"]


def position(game, seed: int):
    """The first decision with a choice, chance drawn from ``RandomState(seed)``."""
    rng = np.random.RandomState(seed)
    state = game.new_initial_state()
    while True:
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        elif len(state.legal_actions()) == 1:
            state.apply_action(state.legal_actions()[0])
        else:
            return state


def rate(search, iterations: int, seconds: float) -> tuple[float, int]:
    """Iterations per second of ``search`` (which runs ``iterations``), over whole searches."""
    done = 0
    start = time.perf_counter()
    while True:
        search()
        done += iterations
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return done / elapsed, done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--native-iterations", type=int, default=2000)
    parser.add_argument("--openspiel-iterations", type=int, default=100)
    parser.add_argument("--quick", action="store_true", help="0.3 s a side, small searches")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.seconds, args.native_iterations, args.openspiel_iterations = 0.3, 200, 10

    from open_spiel.python.algorithms import ismcts, mcts

    import checkraise as cr
    import checkraise.openspiel as co

    rows = []
    for name in GAMES:
        game = co.load_game(name)
        state = position(game, 1)
        engine_state = state.engine_state
        bot = cr.Bot(
            name,
            f"ismcts(iterations={args.native_iterations},rollout=random,seed=1)",
        )
        native, _ = rate(
            lambda b=bot, s=engine_state: b.act(s), args.native_iterations, args.seconds
        )
        random_state = np.random.RandomState(0)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=random_state)
        theirs = ismcts.ISMCTSBot(
            game,
            evaluator,
            uct_c=2.0,
            max_simulations=args.openspiel_iterations,
            random_state=random_state,
        )
        spiel, _ = rate(
            lambda b=theirs, s=state: b.step(s.clone()), args.openspiel_iterations, args.seconds
        )
        rows.append((name, native, spiel))
        if not args.markdown:
            print(
                f"{name}: checkraise {native:,.0f}/s, OpenSpiel {spiel:,.0f}/s, "
                f"{native / spiel:,.0f}x"
            )
    if args.markdown:
        print(
            f"IS-MCTS iterations/s, random rollouts, one thread "
            f"({datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, "
            f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
            f"load {os.getloadavg()[0]:.2f})\n"
        )
        print("| game | checkraise | OpenSpiel (Python IS-MCTS) | ratio |")
        print("|---|---:|---:|---:|")
        for name, native, spiel in rows:
            print(f"| {name} | {native:,.0f} | {spiel:,.0f} | {native / spiel:,.0f}× |")


if __name__ == "__main__":
    main()
