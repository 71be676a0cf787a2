"""What a policy does in Hold'em Poker Chess: its betting decisions by street (fold, check, call,
raise, all-in; placements left out) and its mean return in chips, against each opponent.

    python benchmarks/policy_actions.py --games 2000 heuristic random
    python benchmarks/policy_actions.py --games 400 'ismcts(iterations=1000,rollout=heuristic)'

Game ``k`` seats the policy at ``k % 2`` (seats rotated), deals chance from a generator seeded
with ``--seed`` and the opponent bot with the same seed, so a run is repeatable. The interval is
95% over games (normal approximation). ``--policy`` plays a policy file instead of the shipped
one; ``--json`` writes the results too. Each game's preflop line (the seats' betting kinds in
order, ``P`` the policy and ``O`` the opponent, and ``+flop`` when the hand went on) is counted
with its mean return, to show where the chips were won and lost.
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import sys
from pathlib import Path

import numpy as np

import checkraise as cr
from checkraise.policy import Policy

KINDS = ("fold", "check", "call", "raise", "all-in")


def kind(text: str) -> str | None:
    """The betting kind of an action string (``None`` for a placement)."""
    if text in ("fold", "check"):
        return text
    if text.startswith(("call", "raise", "bet")):
        return "all-in" if "all-in" in text else text.split()[0].replace("bet", "raise")
    return None


def deal(state: cr.State, rng: np.random.Generator) -> bool:
    """At a chance node, applies one outcome drawn uniformly from ``rng`` and says so."""
    if not state.is_chance_node():
        return False
    outcomes = state.chance_outcomes()
    state.apply_action(outcomes[rng.integers(len(outcomes))][0])
    return True


def mean_ci(returns: list[float]) -> tuple[float, list[float]]:
    """The mean of ``returns`` and its 95% interval (normal approximation)."""
    r = np.asarray(returns)
    half = 1.96 * float(r.std(ddof=1)) / math.sqrt(len(r)) if len(r) > 1 else 0.0
    return float(r.mean()), [float(r.mean()) - half, float(r.mean()) + half]


def play(policy: Policy, game_text: str, opponent: str, games: int, seed: int) -> dict:
    game = cr.make(game_text)
    other = cr.Bot(game, opponent, seed=seed)
    rng = np.random.default_rng(seed)
    by_street: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    by_line: dict[str, list[float]] = collections.defaultdict(list)
    returns = []
    for k in range(games):
        me = k % 2
        state = game.new_initial_state()
        line, flop = [], False
        while not state.is_terminal():
            if deal(state, rng):
                continue
            seat = state.current_player()
            action = policy.act(state, seat) if seat == me else other.act(state, seat)
            # Placements (no betting kind) come only after the flop, before a bet that counts.
            if k_ := kind(state.action_to_string(seat, action)):
                street = state.view(None)["street"]
                if seat == me:
                    by_street[street][k_] += 1
                if street == "preflop":
                    line.append(("P " if seat == me else "O ") + k_)
                else:
                    flop = True
            state.apply_action(action)
        returns.append(state.returns()[me])
        by_line[", ".join(line) + (" +flop" if flop else "")].append(returns[-1])
    mean, ci = mean_ci(returns)
    return {
        "opponent": opponent,
        "games": games,
        "mean": mean,
        "ci": ci,
        "by_street": {street: dict(c) for street, c in by_street.items()},
        "by_line": {
            line: {"games": len(v), "mean": float(np.mean(v))}
            for line, v in sorted(by_line.items(), key=lambda kv: -len(kv[1]))
        },
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("opponents", nargs="+", help="bot specs, e.g. heuristic")
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--game", default="holdem_chess", help="a Hold'em Poker Chess game string")
    p.add_argument("--policy", default=None, help="a policy file (default: the shipped one)")
    p.add_argument("--json", default=None, help="also write the results here")
    args = p.parse_args(argv)
    if cr.make(args.game).name != "holdem_chess":
        p.error(f"--game {args.game!r}: a Hold'em Poker Chess game string")
    if args.games < 1:
        p.error("--games must be at least 1")
    policy = Policy.load(args.policy) if args.policy else Policy.shipped(args.game)
    results = [play(policy, args.game, o, args.games, args.seed) for o in args.opponents]
    for res in results:
        lo, hi = res["ci"]
        print(
            f"against {res['opponent']}: {res['mean']:+.1f} chips [{lo:+.1f}, {hi:+.1f}], "
            f"{res['games']} games"
        )
        print("| street | decisions | " + " | ".join(KINDS) + " |")
        print("|---|---:|" + "---:|" * len(KINDS))
        for street, counts in res["by_street"].items():
            total = sum(counts.values())
            shares = " | ".join(f"{100 * counts.get(k, 0) / total:.1f}%" for k in KINDS)
            print(f"| {street} | {total} | {shares} |")
        print("\n| preflop line | games | mean | share of the mean |")
        print("|---|---:|---:|---:|")
        for line, row in res["by_line"].items():
            share = row["games"] * row["mean"] / res["games"]
            print(f"| {line} | {row['games']} | {row['mean']:+.1f} | {share:+.2f} |")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
