"""A Hold'em Poker Chess policy against the raise-then-fold strategy: a seat that raises the
minimum at its first decision of every hand and then folds to any bet (so to every all-in), and
checks when checking is free. Against a policy that folds most hands and shoves the rest, this
takes the blinds whenever the policy folds and loses only its raise when the policy shoves; a
policy that loses nothing to it scores at least 0 here.

    python benchmarks/raise_fold.py --games 4000
    python benchmarks/raise_fold.py --policy runs/league_holdem_chess/policy.safetensors
    python benchmarks/raise_fold.py --bot 'policy(play=sample)'

Game ``k`` seats the policy at ``k % 2`` (seats rotated) and deals chance from a generator
seeded with ``--seed``, so two policies measured with the same seed see the same deals. The
interval is 95% over games (normal approximation); the mean is in chips a hand, the policy's.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
from policy_actions import deal, mean_ci  # beside this script

import checkraise as cr
from checkraise.policy import Policy


def raise_then_fold(state: cr.State, seat: int, raised: bool) -> tuple[int, bool]:
    """The strategy's action at ``seat`` and whether it has raised this hand: the minimum
    raise at its first decision, then fold when facing a bet and check when that is free."""
    legal = state.legal_actions(seat)
    texts = {a: state.action_to_string(seat, a) for a in legal}
    if not raised:
        # The raise sizes are offered smallest first: the first raise is the minimum.
        raises = [a for a in legal if texts[a].startswith(("raise", "bet"))]
        if raises:
            return raises[0], True
    for want in ("fold", "check"):
        for a in legal:
            if texts[a] == want:
                return a, raised
    # Neither fold nor check (a placement after the flop, or a lone call): the first offered.
    return legal[0], raised


def play(policy: Policy | cr.Bot, game_text: str, games: int, seed: int) -> dict:
    game = cr.make(game_text)
    rng = np.random.default_rng(seed)
    returns, policy_folds = [], 0
    for k in range(games):
        me = k % 2
        state = game.new_initial_state()
        raised = False
        while not state.is_terminal():
            if deal(state, rng):
                continue
            seat = state.current_player()
            if seat == me:
                action = policy.act(state, seat)
                policy_folds += state.action_to_string(seat, action) == "fold"
            else:
                action, raised = raise_then_fold(state, seat, raised)
            state.apply_action(action)
        returns.append(state.returns()[me])
    mean, ci = mean_ci(returns)
    return {
        "opponent": "raise-then-fold",
        "games": games,
        "mean": mean,
        "ci": ci,
        "policy_folded_in": policy_folds / games,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=4000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--game", default="holdem_chess")
    p.add_argument("--policy", default=None, help="a policy file (default: the shipped one)")
    p.add_argument(
        "--bot",
        default=None,
        help="an engine bot spec instead of a policy file (e.g. policy(play=sample)), "
        "its generator seeded with --seed",
    )
    p.add_argument("--json", type=Path, default=None, help="also write the result here")
    a = p.parse_args(argv)
    if cr.make(a.game).name != "holdem_chess":
        p.error(f"--game {a.game!r}: the strategy is Hold'em Poker Chess betting (holdem_chess)")
    if a.bot and a.policy:
        p.error("--bot and --policy: give one")
    player: Policy | cr.Bot
    if a.bot:
        player = cr.Bot(a.game, a.bot, seed=a.seed)
    else:
        player = Policy.load(a.policy) if a.policy else Policy.shipped(a.game)
    result = play(player, a.game, a.games, a.seed)
    result["policy"] = a.bot or a.policy or "shipped"
    print(json.dumps(result, indent=2))
    if a.json:
        a.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
