"""How often a policy bot plays the action the heuristic would play in its place, in games
against the heuristic (seats alternating, chance from fixed seeds), split into Poker Chess's
card steps and move steps (action ids from 4,192 are card choices, discards included).

    python benchmarks/policy_agreement.py --games 100
    python benchmarks/policy_agreement.py --policy "policy(path=runs/x/policy.safetensors)"
"""

from __future__ import annotations

import argparse

import checkraise as cr

CARD_BASE = 4192


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--policy", default="policy", help="the policy bot spec")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1000, help="game g's chance seed is seed + g")
    args = parser.parse_args()
    game = cr.make("poker_chess")
    learner_bot, heuristic = cr.Bot(game, args.policy), cr.Bot(game, "heuristic")
    same = {"card": [0, 0], "move": [0, 0]}
    for g in range(args.games):
        state, learner, seed = game.new_initial_state(), g % 2, args.seed + g
        while True:
            state.sample_chance(seed)
            seed += 7
            if state.is_terminal():
                break
            seat = state.current_player()
            action = (learner_bot if seat == learner else heuristic).act(state)
            if seat == learner:
                kind = "card" if action >= CARD_BASE else "move"
                same[kind][0] += action == heuristic.act(state)
                same[kind][1] += 1
            state.apply_action(action)
    for kind, (agree, total) in same.items():
        print(f"{kind} steps: the heuristic's action {agree} of {total} ({agree / total:.1%})")


if __name__ == "__main__":
    main()
