"""The command line, ``python -m checkraise.train GAME [options]``: its options into a
:class:`Config`, then :func:`train`."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from checkraise import _core
from checkraise.train.config import Config, _parse_pool
from checkraise.train.ppo import train


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: ``python -m checkraise.train GAME [options]``."""
    d = Config(game="")
    p = argparse.ArgumentParser(
        prog="python -m checkraise.train",
        description="Masked-action PPO for one game against a pool of opponents.",
    )
    p.add_argument("game", help="a game name or game string, e.g. holdem_chess(players=3)")
    p.add_argument("--out", default=None, help="run directory (default runs/GAME)")
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument("--minutes", type=float, default=d.minutes, help="training time limit")
    p.add_argument("--max-steps", type=int, default=None, help="stop after this many steps")
    p.add_argument("--hidden", default=",".join(map(str, d.hidden)), help="hidden layer sizes")
    p.add_argument("--num-envs", type=int, default=d.num_envs, help="games played at once")
    p.add_argument("--rollout", type=int, default=d.rollout, help="decisions per game per update")
    p.add_argument("--epochs", type=int, default=d.epochs)
    p.add_argument("--minibatch", type=int, default=d.minibatch)
    p.add_argument("--lr", type=float, default=d.lr)
    p.add_argument("--entropy", type=float, default=d.entropy)
    p.add_argument(
        "--opponent",
        action="append",
        default=None,
        help="SPEC:WEIGHT, repeatable: a bot spec (heuristic, random, "
        "ismcts(iterations=50)) or 'self' (earlier snapshots); default "
        + " ".join(f"{s}:{w}" for s, w in d.pool),
    )
    p.add_argument(
        "--eval-opponent",
        action="append",
        default=None,
        help="a bot spec evaluated against, repeatable (default random and heuristic)",
    )
    p.add_argument("--eval-every", type=float, default=d.eval_every_s, help="seconds")
    p.add_argument("--eval-games", type=int, default=d.eval_games)
    p.add_argument("--final-eval-games", type=int, default=d.final_eval_games)
    p.add_argument(
        "--train-reward",
        default=None,
        help="train on this reward parameter of the game (e.g. points: each placement paid "
        "as it scores) and evaluate on the game's own",
    )
    p.add_argument(
        "--best-response-to",
        metavar="SPEC",
        default=None,
        help="train an exploiter of this frozen bot (the pool and the evaluation are that bot "
        "alone); summary.json's best_response is its value with a 95%% interval, a lower "
        "bound on the bot's exploitability",
    )
    p.add_argument(
        "--play",
        choices=("greedy", "sample"),
        default="greedy",
        help="how the policy is played: greedy (the legal action of highest logit) or "
        "sample (drawn from its distribution, a mixed strategy); it is written in the "
        "file's metadata, so the policy bot plays the file so, and the evaluations and "
        "self-play snapshots play it so",
    )
    p.add_argument(
        "--init",
        metavar="POLICY",
        default=None,
        help="start from this policy file's weights, or 'shipped' for the engine's own policy "
        "of the game (its game, layers and link must be this run's); with "
        "--best-response-to policy, an exploiter that starts from its target",
    )
    p.add_argument(
        "--no-action-features",
        dest="action_features",
        action="store_false",
        help="leave out the link from the observation's per-action block (Pokeros with "
        "observation=placements) to each action's logit",
    )
    args = p.parse_args(argv)
    try:
        hidden = tuple(int(h) for h in args.hidden.split(",") if h.strip())
        if not hidden or min(hidden) < 1:
            raise ValueError
    except ValueError:
        p.error(f"--hidden {args.hidden!r}: comma-separated positive integers")
    try:
        pool = _parse_pool(args.opponent) if args.opponent else d.pool
    except ValueError as error:
        p.error(str(error))
    eval_opponents = args.eval_opponent or d.eval_opponents
    if args.best_response_to is not None:
        target = args.best_response_to.strip()
        if not target:
            p.error("--best-response-to needs a bot spec")
        if args.opponent or args.eval_opponent:
            p.error(
                "--best-response-to sets the pool and the evaluation: leave out --opponent "
                "and --eval-opponent"
            )
        pool, eval_opponents = [(target, 1.0)], [target]
    for name, value in (
        ("--num-envs", args.num_envs),
        ("--rollout", args.rollout),
        ("--epochs", args.epochs),
        ("--minibatch", args.minibatch),
    ):
        if value < 1:
            p.error(f"{name} must be at least 1")
    config = Config(
        game=args.game,
        out=args.out or str(Path("runs") / args.game.partition("(")[0]),
        seed=args.seed,
        minutes=args.minutes,
        max_steps=args.max_steps,
        hidden=hidden,
        num_envs=args.num_envs,
        rollout=args.rollout,
        epochs=args.epochs,
        minibatch=args.minibatch,
        lr=args.lr,
        entropy=args.entropy,
        pool=pool,
        eval_opponents=eval_opponents,
        eval_every_s=args.eval_every,
        eval_games=args.eval_games,
        final_eval_games=args.final_eval_games,
        train_reward=args.train_reward,
        action_features=args.action_features,
        best_response_to=None if args.best_response_to is None else pool[0][0],
        init=args.init,
        play=args.play,
    )
    try:
        summary = train(config, log=lambda line: print(line, flush=True))
    except (_core.CheckraiseError, ImportError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(json.dumps(summary, indent=2))
    return 0
