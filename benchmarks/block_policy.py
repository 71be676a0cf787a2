"""Writes the policy file that plays the argmax of a game's per-action observation block
(``Game.action_features()``, e.g. Pokeros's ``observation=lookahead``) and nothing else: one
zero hidden unit, zero logits and the action-features link at weight 1. The ``policy`` bot
plays its largest logit, so in the arena this measures what the block alone is worth, the
baseline a policy trained on the block has to improve on.

    python benchmarks/block_policy.py "pokeros(observation=lookahead)" /tmp/block.safetensors
    checkraise-arena --game pokeros --deals 1000 --seed 12 --format json \\
        "policy(path=/tmp/block.safetensors)" heuristic
"""

from __future__ import annotations

import argparse

import numpy as np

import checkraise as cr
from checkraise.policy import ACTION_FEATURES, ACTION_FEATURES_OFFSET, FORMAT, write_safetensors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", help="a game string whose observation has a per-action block")
    parser.add_argument("out", help="the policy file to write")
    args = parser.parse_args()
    game = cr.make(args.game)
    offset = game.action_features()
    if offset is None:
        parser.error(f"{game} has no per-action observation block")
    size, actions = game.observation_size, game.num_distinct_actions()
    tensors = {
        "layer0.weight": np.zeros((size, 1), np.float32),
        "layer0.bias": np.zeros((1,), np.float32),
        "policy.weight": np.zeros((1, actions), np.float32),
        "policy.bias": np.zeros((actions,), np.float32),
        "value.weight": np.zeros((1, 1), np.float32),
        "value.bias": np.zeros((1,), np.float32),
        ACTION_FEATURES: np.ones((1,), np.float32),
    }
    metadata = {
        "format": FORMAT,
        "game": str(game),
        "observation_size": str(size),
        "num_actions": str(actions),
        "hidden": "1",
        "activation": "relu",
        "trainer": "benchmarks/block_policy.py (the block's argmax, nothing learned)",
        ACTION_FEATURES_OFFSET: str(offset),
    }
    write_safetensors(args.out, tensors, metadata)
    print(f"wrote {args.out}: argmax of {game}'s block at {offset}")


if __name__ == "__main__":
    main()
