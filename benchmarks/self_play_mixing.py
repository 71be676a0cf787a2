"""How much a two-seat simultaneous-move policy mixes in its own games: each policy file plays
itself by sampling (``policy(path=FILE,play=sample)``, seat 0's bot seeded ``2k`` and seat 1's
``2k + 1`` in game ``k``), and for every decision of both seats the script records the
probability of the policy's most likely legal action. It reports how the games ended (the
returns and how often each came), their lengths in turns, and the share of decisions whose most
likely action has under ``--mixed`` of the probability.

    python benchmarks/self_play_mixing.py tests/data/prediction_chess_2026-11-25.safetensors \
        runs/league_prediction_chess_sample/members/main5.safetensors

A policy that wins from one seat in nearly every game against itself plays one line, however
often it mixes elsewhere: a best response needs to find that line once.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys

import numpy as np

import checkraise as cr
from checkraise.policy import Policy


def measure(path: str, game_text: str, games: int, mixed: float) -> dict:
    game = cr.make(game_text)
    if game.num_players() != 2:
        raise SystemExit(f"--game {game_text!r}: the script plays two-seat games")
    policy = Policy.load(path)
    spec = f"policy(path={path},play=sample)"
    endings: collections.Counter[str] = collections.Counter()
    lengths, tops = [], []
    for k in range(games):
        bots = [cr.Bot(game, spec, seed=2 * k), cr.Bot(game, spec, seed=2 * k + 1)]
        state = game.new_initial_state()
        turns = 0
        while not state.is_terminal():
            for seat in range(2):
                mask = state.action_mask(seat)
                if not mask.any():
                    continue
                logits = policy.logits(policy.net.observation(state, seat)).astype(np.float64)
                p = np.where(mask, np.exp(logits - logits[mask].max()), 0.0)
                tops.append(p.max() / p.sum())
            if state.is_simultaneous_node():
                state.apply_actions([bots[s].act(state, s) for s in range(2)])
            else:
                seat = state.current_player()
                state.apply_action(bots[seat].act(state, seat))
            turns += 1
        endings[str([float(r) for r in state.returns()])] += 1
        lengths.append(turns)
    top = np.array(tops)
    return {
        "policy": path,
        "games": games,
        "endings": dict(endings),
        "turns": sorted(lengths),
        "decisions": len(top),
        "mixed_share": float(np.mean(top < mixed)),
        "mixed_below": mixed,
        "mean_top_probability": float(top.mean()),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("policies", nargs="+", help="policy files")
    p.add_argument("--game", default="prediction_chess")
    p.add_argument("--games", type=int, default=20)
    p.add_argument("--mixed", type=float, default=0.9)
    a = p.parse_args(argv)
    for path in a.policies:
        print(json.dumps(measure(path, a.game, a.games, a.mixed)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
