"""Masked-action PPO against a pool of opponents, for any registered game.

``python -m checkraise.train GAME --minutes 50 --out runs/GAME`` trains one seat's policy
against a pool (the game's heuristic and random bots, IS-MCTS if asked for, and earlier
snapshots of the policy itself), evaluates it against each fixed opponent at intervals, and
writes to ``--out``:

- ``train.csv``: one row per PPO update (env steps, seconds, losses, entropy, KL, the mean
  training return);
- ``eval.csv``: one row per evaluation and opponent (mean return with its 95% interval, win
  rate), by env steps and by wall-clock seconds;
- ``curves.png``: both, drawn with matplotlib;
- ``policy.safetensors``: the final policy (:mod:`checkraise.policy` reads it, and
  the engine plays it as the bot spec ``policy(path=...)``);
- ``config.json``: every setting, for the record.

Needs the ``train`` extra (``pip install 'checkraise[train]'``: jax, optax and matplotlib). jax
runs on the GPU when a GPU build of jax is installed and on the CPU otherwise.

Training games are played by the engine's vector env (:class:`checkraise.VectorEnv` with
``opponent=``): the engine plays every seat but the learner's (bots, and snapshots of the
policy as policy bytes) on its worker threads, and each env stops only at its learner's
decisions, so one step is one jitted inference call over every env. The learner's seat is
drawn at random for each game, so it learns every seat. A sample is one decision of the
learner; its reward is the learner's return gained since its previous decision (the game's
return summed over its decisions), and returns are not discounted. A PPO update moves its
samples to the device once and runs every epoch and minibatch in one compiled call.

``--best-response-to SPEC`` trains an exploiter of one frozen bot (a learned best response,
as Timbers et al.'s ABR): the pool is that bot alone, evaluation is against it, and
``summary.json`` gains ``best_response``: the exploiter's final mean return against the bot
over ``--final-eval-games`` games (seats rotated) with its 95% interval. In a two-seat
zero-sum game that mean is a lower bound on the bot's exploitability (a best response wins
at least as much); in games of more seats, on what a best response of one seat wins against
the bot in every other seat.

Evaluation plays fixed deals from every seat as engine matches (:class:`Games`): the
vector env skips games that end before the learner's first decision, which an exact
evaluation must count.
"""

# The private helpers are importable from here too: checkraise.league and the tests use them.
from checkraise.train.cli import main
from checkraise.train.config import SELF, Config, _json, _parse_pool  # noqa: F401
from checkraise.train.curves import _write_csv, plot  # noqa: F401
from checkraise.train.evaluation import (
    LEARNER,
    Evaluation,
    Game,
    Games,
    _won,  # noqa: F401
    evaluate,
)
from checkraise.train.network import (  # noqa: F401
    LINK_SCALE,
    _forward,
    _init_from,
    _init_params,
    _masked,
    _masked_log_probs,
    _sample,
    _tensors,
)
from checkraise.train.ppo import _gae, _policy_from, _profile, train  # noqa: F401

__all__ = [
    "LEARNER",
    "LINK_SCALE",
    "SELF",
    "Config",
    "Evaluation",
    "Game",
    "Games",
    "evaluate",
    "main",
    "plot",
    "train",
]
