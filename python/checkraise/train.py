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

from __future__ import annotations

import argparse
import csv
import itertools
import json
import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from checkraise import _core
from checkraise._optional import requires
from checkraise.policy import (
    ACTION_FEATURES,
    ACTION_FEATURES_OFFSET,
    FORMAT,
    Policy,
    read_safetensors,
    safetensors_bytes,
    write_safetensors,
)

SELF = "self"
"""The pool entry for earlier snapshots of the learner."""


@dataclass
class Config:
    """Every setting of a training run (``python -m checkraise.train --help`` explains each)."""

    game: str
    out: str = "runs/train"
    seed: int = 0
    minutes: float = 10.0
    max_steps: int | None = None
    hidden: tuple[int, ...] = (128, 128)
    num_envs: int = 64
    rollout: int = 64
    epochs: int = 4
    minibatch: int = 1024
    lr: float = 3e-4
    clip: float = 0.2
    gamma: float = 1.0
    gae_lambda: float = 0.95
    entropy: float = 0.01
    value_coef: float = 0.5
    max_grad_norm: float = 0.5
    pool: list[tuple[str | bytes, float]] = field(
        default_factory=lambda: [("heuristic", 0.7), (SELF, 0.2), ("random", 0.1)]
    )
    snapshot_every: int = 10
    snapshots_kept: int = 5
    eval_opponents: list[str] = field(default_factory=lambda: ["random", "heuristic"])
    eval_every_s: float = 300.0
    eval_games: int = 300
    final_eval_games: int = 2000
    eval_seed: int = 1_000_000
    train_reward: str | None = None
    action_features: bool = True
    best_response_to: str | None = None
    init: str | None = None


def _json(value: Any) -> Any:
    """``config.json``'s entry for a pool member given as a policy file's bytes."""
    if isinstance(value, bytes):
        return f"<policy file, {len(value)} bytes>"
    raise TypeError(f"{type(value).__name__} is not JSON")


def _parse_pool(items: Sequence[str]) -> list[tuple[str, float]]:
    pool = []
    for item in items:
        spec, sep, weight = item.rpartition(":")
        if not sep:
            spec, weight = item, "1"
        try:
            w = float(weight)
        except ValueError:
            raise ValueError(f"--opponent {item!r}: weight {weight!r} is not a number") from None
        if not (math.isfinite(w) and w > 0):
            raise ValueError(f"--opponent {item!r}: the weight must be above 0")
        pool.append((spec.strip(), w))
    return pool


# --- the network (jax) -------------------------------------------------------------------


def _init_params(key: Any, sizes: Sequence[int], num_actions: int) -> dict[str, Any]:
    import jax
    import jax.numpy as jnp

    params = {}
    keys = jax.random.split(key, len(sizes) + 1)
    ortho = jax.nn.initializers.orthogonal

    for i, (a, b) in enumerate(itertools.pairwise(sizes)):
        params[f"layer{i}.weight"] = ortho(math.sqrt(2))(keys[i], (a, b), jnp.float32)
        params[f"layer{i}.bias"] = jnp.zeros((b,), jnp.float32)
    params["policy.weight"] = ortho(0.01)(keys[-2], (sizes[-1], num_actions), jnp.float32)
    params["policy.bias"] = jnp.zeros((num_actions,), jnp.float32)
    params["value.weight"] = ortho(1.0)(keys[-1], (sizes[-1], 1), jnp.float32)
    params["value.bias"] = jnp.zeros((1,), jnp.float32)
    return params


LINK_SCALE = 100.0
"""The action-features link's weight is trained as ``LINK_SCALE`` times a parameter: Adam
moves a parameter by about the learning rate per step whatever its scale, and a useful weight
on Pokeros's placements (points / 100) is tens, not tenths."""


def _forward(
    params: dict[str, Any], obs: Any, layers: int, link: int | None = None
) -> tuple[Any, Any]:
    """Logits and values; with ``link`` (the observation's per-action block, at that index)
    each action's entry times the link's weight is added to its logit."""
    import jax.numpy as jnp

    h = obs
    for i in range(layers):
        h = jnp.maximum(h @ params[f"layer{i}.weight"] + params[f"layer{i}.bias"], 0.0)
    logits = h @ params["policy.weight"] + params["policy.bias"]
    if link is not None:
        block = obs[..., link : link + logits.shape[-1]]
        logits = logits + LINK_SCALE * params[ACTION_FEATURES][0] * block
    value = (h @ params["value.weight"] + params["value.bias"])[..., 0]
    return logits, value


def _tensors(params: dict[str, Any]) -> dict[str, npt.NDArray[np.float32]]:
    """The policy file's tensors from the trained parameters (the link's weight scaled)."""
    tensors = {k: np.asarray(v, dtype=np.float32) for k, v in params.items()}
    if ACTION_FEATURES in tensors:
        tensors[ACTION_FEATURES] = tensors[ACTION_FEATURES] * np.float32(LINK_SCALE)
    return tensors


def _init_from(
    source: str, game: _core.Game, fresh: dict[str, Any]
) -> dict[str, npt.NDArray[np.float32]]:
    """The starting parameters read from a policy file (``shipped``: the engine's own policy
    for ``game``, the one the ``policy`` bot plays), checked against the run's network: the
    same game and the same layers, else an error naming what differs. The value head comes
    from the file where it has one (the shipped policies' files are read through the engine,
    which keeps no value head: theirs starts fresh). A warm start: a learned best response
    that starts from its target's weights need not first relearn the game."""
    if source == "shipped":
        policy = Policy.shipped(game)
        value: dict[str, npt.NDArray[Any]] = {}
    else:
        policy = Policy.load(source)
        tensors, _ = read_safetensors(Path(source).read_bytes())
        value = {k: v for k, v in tensors.items() if k.startswith("value.")}
    policy.check_game(game)
    tensors = {
        f"layer{i}.{part}": t
        for i, pair in enumerate(policy.layers)
        for part, t in zip(("weight", "bias"), pair, strict=True)
    }
    tensors["policy.weight"], tensors["policy.bias"] = policy.head
    if policy.action_features is not None:
        tensors[ACTION_FEATURES] = np.array([policy.action_features[1] / LINK_SCALE])
    out = {k: np.asarray(v, dtype=np.float32) for k, v in fresh.items()}
    for name, tensor in {**tensors, **value}.items():
        if name not in out or out[name].shape != np.shape(tensor):
            raise _core.CheckraiseError(
                f"--init {source}: its tensor {name} {tuple(np.shape(tensor))} does not fit "
                f"this run's network (hidden layers and the action-features link must match)"
            )
        out[name] = np.asarray(tensor, dtype=np.float32)
    missing = sorted(set(out) - set(tensors) - {"value.weight", "value.bias"})
    if missing:
        raise _core.CheckraiseError(f"--init {source}: it has no {', '.join(missing)}")
    return out


def _masked_log_probs(logits: Any, masks: Any) -> Any:
    import jax

    return jax.nn.log_softmax(_masked(logits, masks), axis=-1)


def _masked(logits: Any, masks: Any) -> Any:
    import jax.numpy as jnp

    return jnp.where(masks, logits, jnp.float32(-1e9))


def _sample(logp_all: Any, masks: Any, u: Any) -> Any:
    """One action per row drawn from ``exp(logp_all)`` by inverting its cumulative sum at the
    uniform ``u`` (``[rows, 1]``): one random number per row, where ``jax.random.categorical``
    draws one per action (thousands in the chess games, the larger cost on a CPU). Masked
    actions have probability 0, so the first action whose cumulative sum passes ``u`` is
    legal; rounding at the very top falls back to the most likely action."""
    import jax.numpy as jnp

    cdf = jnp.cumsum(jnp.exp(logp_all), axis=-1)
    action = jnp.sum(cdf <= u * cdf[:, -1:], axis=-1)
    action = jnp.minimum(action, logp_all.shape[-1] - 1)
    legal = jnp.take_along_axis(masks, action[:, None], axis=-1)[:, 0]
    return jnp.where(legal, action, jnp.argmax(logp_all, axis=-1))


# --- batched games -----------------------------------------------------------------------

LEARNER = "learner"
"""The ``players`` entry of the learner's seat in a :class:`Games` schedule."""


@dataclass
class Game:
    """One game being played: the engine's :class:`checkraise.Match` (its bot seats played by
    the engine, the learner's and opponent policies' seats from here), the learner's seat, who
    plays each seat (a bot spec, :data:`LEARNER`, or an opponent :class:`Policy`) and the
    match's seed."""

    match: Any
    seat: int
    players: list[Any]
    seed: int


class Games:
    """Up to ``n`` games played at once, started in order from ``schedule(k)``, which gives
    the ``k``-th game's ``(learner seat, players, driver seed)``; ``limit`` games in all
    (``None``: no end). The engine plays bot seats; the caller plays the learner's, and
    :meth:`settle` plays opponent policies' seats (greedy), batched per policy."""

    def __init__(
        self,
        game: _core.Game,
        n: int,
        schedule: Callable[[int], tuple[int, list[Any], int]],
        limit: int | None = None,
    ) -> None:
        self.game = game
        self.schedule = schedule
        self.limit = limit
        self.started = 0
        self.slots: list[Game | None] = [self._start() for _ in range(n)]

    def _start(self) -> Game | None:
        if self.limit is not None and self.started >= self.limit:
            return None
        seat, players, seed = self.schedule(self.started)
        self.started += 1
        bots = [p if isinstance(p, str) and p != LEARNER else None for p in players]
        played = _core.Match(self.game, bots, seed)
        played.start()
        return Game(played, seat, players, seed)

    def _pending(self, g: Game) -> list[int]:
        """The seats the learner or an opponent policy must play now, after the engine's bots
        and chance have played."""
        g.match.advance()
        return g.match.waiting()

    def settle(self, on_end: Callable[[int, Game], None]) -> list[int]:
        """Plays bots and opponent policies (greedy) until every game waits for its learner.
        A game that ends calls ``on_end(slot, game)`` and its slot starts the next game.
        Returns the slots waiting for their learner (in order)."""
        waiting: list[int] = []
        todo = list(range(len(self.slots)))
        while todo:
            batch: dict[int, list[tuple[int, int]]] = {}
            policies: dict[int, Policy] = {}
            again = []
            for i in todo:
                g = self.slots[i]
                if g is None:
                    continue
                seats = self._pending(g)
                if not seats:
                    on_end(i, g)
                    self.slots[i] = self._start()
                    again.append(i)
                    continue
                others = [s for s in seats if g.players[s] != LEARNER]
                if others:
                    for s in others:
                        policies[id(g.players[s])] = g.players[s]
                        batch.setdefault(id(g.players[s]), []).append((i, s))
                    again.append(i)
                else:
                    waiting.append(i)
            for index, items in batch.items():
                matches = [(self.slots[i].match, s) for i, s in items]  # type: ignore[union-attr]
                obs = np.stack([m.observation(s) for m, s in matches])
                masks = np.stack([m.action_mask(s) for m, s in matches])
                for (m, s), a in zip(matches, policies[index].actions(obs, masks), strict=True):
                    m.decide(s, int(a))
            todo = again
        return sorted(waiting)

    def learner_inputs(
        self, waiting: Sequence[int]
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_]]:
        """Observations and masks of the learners of ``waiting`` slots."""
        games = [self.slots[i] for i in waiting]
        obs = np.stack([g.match.observation(g.seat) for g in games])  # type: ignore[union-attr]
        masks = np.stack([g.match.action_mask(g.seat) for g in games])  # type: ignore[union-attr]
        return obs, masks

    def play_learners(self, waiting: Sequence[int], actions: npt.ArrayLike) -> None:
        """Plays each waiting learner's action."""
        for i, a in zip(waiting, np.asarray(actions).tolist(), strict=True):
            g = self.slots[i]
            g.match.decide(g.seat, int(a))  # type: ignore[union-attr]


def _won(returns: Sequence[float], seat: int) -> float:
    """1 for a sole best return, 1/k shared among k best, else 0."""
    best = max(returns)
    return 1.0 / sum(1 for r in returns if r == best) if returns[seat] == best else 0.0


# --- evaluation --------------------------------------------------------------------------


@dataclass
class Evaluation:
    """The learner against one fixed opponent."""

    opponent: str
    games: int
    mean: float
    ci: tuple[float, float]
    win_rate: float


def evaluate(
    policy: Policy,
    game: _core.Game,
    opponent: str,
    games: int,
    seed: int,
    batch: int = 128,
) -> Evaluation:
    """Plays ``games`` games (rounded down to whole deals) of ``policy`` (greedy, as the
    ``policy`` bot plays) against ``opponent`` (a bot spec) in every other seat. Game ``k``
    seats the policy at ``k % players`` with driver seed ``seed + k // players``, so each deal
    is played from every seat. The 95% interval is normal, over deals (a deal's seatings
    averaged)."""
    n = game.num_players()
    deals = max(1, games // n)
    _core.Bot(game, opponent)  # a bad spec is an error here, before any game

    def schedule(k: int) -> tuple[int, list[Any], int]:
        players: list[Any] = [opponent] * n
        players[k % n] = LEARNER
        return k % n, players, seed + k // n

    per_deal = np.zeros(deals)
    wins = 0.0

    def on_end(_slot: int, g: Game) -> None:
        nonlocal wins
        returns = g.match.returns()
        per_deal[g.seed - seed] += returns[g.seat] / n
        wins += _won(returns, g.seat)

    play = Games(game, min(batch, deals * n), schedule, limit=deals * n)
    while waiting := play.settle(on_end):
        obs, masks = play.learner_inputs(waiting)
        play.play_learners(waiting, policy.actions(obs, masks))
    mean = float(per_deal.mean())
    half = 1.96 * float(per_deal.std(ddof=1)) / math.sqrt(deals) if deals > 1 else 0.0
    return Evaluation(opponent, deals * n, mean, (mean - half, mean + half), wins / (deals * n))


# --- training ----------------------------------------------------------------------------


def _policy_from(params: dict[str, Any], metadata: dict[str, str]) -> Policy:
    return Policy(_tensors(params), metadata)


def _gae(
    rewards: npt.NDArray[np.float32],
    dones: npt.NDArray[np.bool_],
    values: npt.NDArray[np.float32],
    last_values: npt.NDArray[np.float32],
    gamma: float,
    lam: float,
) -> npt.NDArray[np.float32]:
    """Advantages for ``[T, N]`` arrays; ``dones[t]``: the game ended after step ``t``."""
    steps = rewards.shape[0]
    adv = np.zeros_like(rewards)
    last = np.zeros_like(last_values)
    for t in reversed(range(steps)):
        following = last_values if t == steps - 1 else values[t + 1]
        live = 1.0 - dones[t].astype(np.float32)
        delta = rewards[t] + gamma * following * live - values[t]
        last = delta + gamma * lam * live * last
        adv[t] = last
    return adv


def train(config: Config, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Runs PPO as ``config`` says and writes its files to ``config.out``; returns a summary
    (steps, seconds, steps per second, the final evaluations)."""
    # Bad settings are errors before the (slow) import of the training libraries.
    game = _core.make(config.game)
    # The training games may pay another reward than the game evaluated (`--train-reward
    # points`: every placement paid as it scores); the rules and observations are the same,
    # and the policy file names the evaluated game.
    train_game = game
    if config.train_reward is not None:
        if "reward" not in game.parameters:
            raise _core.CheckraiseError(
                f"--train-reward {config.train_reward}: {game.name} has no reward parameter"
            )
        train_game = _core.make(game.name, **{**game.parameters, "reward": config.train_reward})
    for spec, _ in config.pool:
        if isinstance(spec, bytes):
            Policy.from_bytes(spec).check_game(game)
        elif spec != SELF:
            _core.Bot(game, spec)
    for spec in config.eval_opponents:
        _core.Bot(game, spec)
    with requires("checkraise.train", "train"):
        import jax
        import jax.numpy as jnp
        import optax

    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps(asdict(config), indent=2, default=_json) + "\n")

    rng = np.random.default_rng(config.seed)
    obs_size = game.observation_size
    num_actions = game.num_distinct_actions()
    layers = len(config.hidden)
    params = _init_params(jax.random.PRNGKey(config.seed), [obs_size, *config.hidden], num_actions)
    # The observation's per-action block, linked straight into each action's logit (weight 0
    # at the start, so the first policy is the plain network's).
    link = game.action_features() if config.action_features else None
    if link is not None:
        params[ACTION_FEATURES] = jnp.zeros((1,), jnp.float32)
    if config.init is not None:
        params = {k: jnp.asarray(v) for k, v in _init_from(config.init, game, params).items()}
    optimizer = optax.chain(
        optax.clip_by_global_norm(config.max_grad_norm), optax.adam(config.lr, eps=1e-5)
    )
    opt_state = optimizer.init(params)
    metadata = {
        "format": FORMAT,
        "game": str(game),
        "observation_size": str(obs_size),
        "num_actions": str(num_actions),
        "hidden": ",".join(str(h) for h in config.hidden),
        "activation": "relu",
        "trainer": "checkraise.train (PPO)",
    }
    if link is not None:
        metadata[ACTION_FEATURES_OFFSET] = str(link)

    @jax.jit
    def act(params: Any, obs: Any, masks: Any, key: Any) -> Any:
        key, sub = jax.random.split(key)
        logits, value = _forward(params, obs, layers, link)
        logp_all = _masked_log_probs(logits, masks)
        action = _sample(logp_all, masks, jax.random.uniform(sub, (obs.shape[0], 1)))
        logp = jnp.take_along_axis(logp_all, action[:, None], axis=-1)[:, 0]
        return action, logp, value, key

    def loss_fn(params: Any, batch: dict[str, Any]) -> Any:
        logits, value = _forward(params, batch["obs"], layers, link)
        logp_all = _masked_log_probs(logits, batch["masks"])
        logp = jnp.take_along_axis(logp_all, batch["actions"][:, None], axis=-1)[:, 0]
        ratio = jnp.exp(logp - batch["logp"])
        adv = batch["adv"]
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
        pg = -jnp.minimum(ratio * adv, jnp.clip(ratio, 1 - config.clip, 1 + config.clip) * adv)
        v_loss = 0.5 * jnp.square(value - batch["returns"])
        probs = jnp.exp(logp_all)
        ent = -jnp.sum(jnp.where(batch["masks"], probs * logp_all, 0.0), axis=-1)
        total = pg.mean() + config.value_coef * v_loss.mean() - config.entropy * ent.mean()
        kl = ((ratio - 1) - (logp - batch["logp"])).mean()
        return total, (pg.mean(), v_loss.mean(), ent.mean(), kl)

    T, N = config.rollout, config.num_envs
    size = T * N
    # Every sample is valid (each env stops only at its learner's decisions), so an update is
    # always `size` samples: whole minibatches of `mb`, the rest of a permutation left out.
    mb = min(config.minibatch, size)
    per_epoch = size // mb

    @jax.jit
    def ppo_update(params: Any, opt_state: Any, data: dict[str, Any], orders: Any) -> Any:
        """Every epoch and minibatch of one update in one compiled call: ``lax.scan`` over
        epochs and minibatches (``orders[epoch, minibatch]``: its samples' rows, gathered from
        the samples on the device)."""
        # Measured at Poker Chess's size, one compiled call per epoch took 1.1-1.5x as long per
        # update and a compiled minibatch step called from Python 2.5x.

        def minibatch(carry: Any, idx: Any) -> Any:
            params, opt_state = carry
            batch = {k: v[idx] for k, v in data.items()}
            grads, aux = jax.grad(loss_fn, has_aux=True)(params, batch)
            updates, opt_state = optimizer.update(grads, opt_state, params)
            return (optax.apply_updates(params, updates), opt_state), aux

        def epoch(carry: Any, order: Any) -> Any:
            return jax.lax.scan(minibatch, carry, order)

        (params, opt_state), aux = jax.lax.scan(epoch, (params, opt_state), orders)
        return params, opt_state, tuple(a[-1, -1] for a in aux)

    snapshots: list[bytes] = []
    bot_pool = [(spec, w) for spec, w in config.pool if spec != SELF]
    self_weight = sum(w for spec, w in config.pool if spec == SELF)

    def snapshot() -> bytes:
        return safetensors_bytes(_tensors(params), metadata)

    def new_env() -> Any:
        """The vector env of the current pool: bots by spec and each kept snapshot (its bytes,
        played greedily by the engine's ``policy`` bot) sharing the ``self`` weight."""
        pool: list[tuple[Any, float]] = list(bot_pool)
        if self_weight:
            pool += [(b, self_weight / len(snapshots)) for b in snapshots]
        venv = _core.VectorEnv(
            train_game,
            N,
            seed=int(rng.integers(2**62)),
            opponent=pool,
            seat="random",
            autoreset_mode="same_step",
        )
        obs, info = venv.reset()
        return venv, obs, info["action_mask"]

    snapshots.append(snapshot())
    train_rows: list[dict[str, Any]] = []
    eval_rows: list[dict[str, Any]] = []
    recent: list[float] = []
    steps = 0
    updates = 0
    start = time.perf_counter()
    eval_seconds = 0.0
    last_eval = -math.inf
    key = jax.random.PRNGKey(config.seed + 1)
    train_csv = out / "train.csv"
    eval_csv = out / "eval.csv"
    # Where training time goes (seconds): the engine (games and opponents, in `step`), the
    # learner's inference, the PPO update (GAE included), new vector envs (pool changes).
    profile = dict.fromkeys(("engine", "inference", "update", "new_env"), 0.0)

    def run_evals(games: int) -> list[Evaluation]:
        nonlocal eval_seconds
        t0 = time.perf_counter()
        policy = _policy_from(params, metadata)
        results = [
            evaluate(policy, game, spec, games, config.eval_seed) for spec in config.eval_opponents
        ]
        eval_seconds += time.perf_counter() - t0
        for r in results:
            eval_rows.append(
                {
                    "update": updates,
                    "env_steps": steps,
                    "seconds": round(time.perf_counter() - start - eval_seconds, 2),
                    "opponent": r.opponent,
                    "games": r.games,
                    "mean_return": r.mean,
                    "ci_low": r.ci[0],
                    "ci_high": r.ci[1],
                    "win_rate": r.win_rate,
                }
            )
            log(
                f"  eval vs {r.opponent}: {r.mean:+.3f} [{r.ci[0]:+.3f}, {r.ci[1]:+.3f}] "
                f"win {r.win_rate:.3f} ({r.games} games)"
            )
        _write_csv(eval_csv, eval_rows)
        save()
        return results

    def save() -> None:
        meta = {
            **metadata,
            "env_steps": str(steps),
            "updates": str(updates),
            "seconds": f"{training_seconds():.0f}",
            "seed": str(config.seed),
        }
        write_safetensors(
            out / "policy.safetensors",
            _tensors(params),
            meta,
        )

    def training_seconds() -> float:
        return time.perf_counter() - start - eval_seconds

    t0 = time.perf_counter()
    venv, first_obs, first_masks = new_env()
    profile["new_env"] += time.perf_counter() - t0
    # Row t of the buffers is the learners' decision at rollout step t; row T is the next
    # rollout's first (and this one's bootstrap). The engine's arrays are views it overwrites
    # at every step, so each step's are copied into the next row at once.
    obs_buf = np.zeros((T + 1, N, obs_size), np.float32)
    mask_buf = np.zeros((T + 1, N, num_actions), bool)
    obs_buf[T], mask_buf[T] = first_obs, first_masks
    act_buf = np.zeros((T, N), np.int32)
    logp_buf = np.zeros((T, N), np.float32)
    val_buf = np.zeros((T, N), np.float32)
    rewards = np.zeros((T, N), np.float32)
    dones = np.zeros((T, N), bool)
    limit_s = config.minutes * 60
    final: list[Evaluation] = []
    while True:
        if training_seconds() - last_eval >= config.eval_every_s or updates == 0:
            run_evals(config.eval_games)
            last_eval = training_seconds()
        if training_seconds() >= limit_s or (
            config.max_steps is not None and steps >= config.max_steps
        ):
            break
        obs_buf[0], mask_buf[0] = obs_buf[T], mask_buf[T]
        for t in range(T):
            t0 = time.perf_counter()
            a, lp, v, key = act(params, obs_buf[t], mask_buf[t], key)
            act_buf[t], logp_buf[t], val_buf[t] = a, lp, v
            t1 = time.perf_counter()
            obs, reward, terminated, truncated, info = venv.step(act_buf[t])
            obs_buf[t + 1], mask_buf[t + 1] = obs, info["action_mask"]
            rewards[t] = reward[:, 0]
            dones[t] = terminated | truncated
            if terminated.any():
                recent.extend(info["final_returns"][terminated, 0].tolist())
            t2 = time.perf_counter()
            profile["inference"] += t1 - t0
            profile["engine"] += t2 - t1
        steps += size
        t0 = time.perf_counter()
        # The bootstrap values, from the act call already compiled (its actions unused).
        next_values = np.asarray(act(params, obs_buf[T], mask_buf[T], key)[2])
        profile["inference"] += time.perf_counter() - t0
        t0 = time.perf_counter()
        adv = _gae(rewards, dones, val_buf, next_values, config.gamma, config.gae_lambda)
        data = {
            "obs": obs_buf[:T].reshape(size, obs_size),
            "masks": mask_buf[:T].reshape(size, num_actions),
            "actions": act_buf.reshape(-1),
            "logp": logp_buf.reshape(-1),
            "adv": adv.reshape(-1),
            "returns": (adv + val_buf).reshape(-1),
        }
        orders = np.stack(
            [rng.permutation(size)[: per_epoch * mb] for _ in range(config.epochs)]
        ).reshape(config.epochs, per_epoch, mb)
        params, opt_state, aux = ppo_update(params, opt_state, data, orders.astype(np.int32))
        pg, vl, ent, kl = (float(x) for x in aux)
        profile["update"] += time.perf_counter() - t0
        updates += 1
        if updates % config.snapshot_every == 0 and self_weight:
            # A pool is fixed per vector env: the new snapshot enters through a new one. The
            # games in progress are dropped (their last samples were bootstrapped above).
            t0 = time.perf_counter()
            snapshots.append(snapshot())
            del snapshots[: -config.snapshots_kept]
            venv.close()
            venv, first_obs, first_masks = new_env()
            obs_buf[T], mask_buf[T] = first_obs, first_masks
            profile["new_env"] += time.perf_counter() - t0
        for name, value in (("policy_loss", pg), ("value_loss", vl)):
            if not math.isfinite(value):
                raise FloatingPointError(f"{name} is {value} at update {updates}")
        seconds = training_seconds()
        train_rows.append(
            {
                "update": updates,
                "env_steps": steps,
                "seconds": round(seconds, 2),
                "steps_per_second": round(steps / seconds, 1),
                "policy_loss": pg,
                "value_loss": vl,
                "entropy": ent,
                "approx_kl": kl,
                "train_return": float(np.mean(recent[-500:])) if recent else math.nan,
                "games": len(recent),
            }
        )
        _write_csv(train_csv, train_rows)
        if updates % 10 == 0:
            log(
                f"update {updates}: {steps} steps, {seconds:.0f} s, "
                f"{steps / seconds:.0f} steps/s, return {train_rows[-1]['train_return']:+.3f}, "
                f"entropy {ent:.3f}"
            )
    venv.close()
    final = run_evals(config.final_eval_games)
    seconds = training_seconds()
    plot(out)
    summary = {
        "game": str(game),
        "env_steps": steps,
        "updates": updates,
        "seconds": round(seconds, 1),
        "steps_per_second": round(steps / seconds, 1) if seconds else 0.0,
        "device": str(jax.devices()[0]),
        "profile": _profile(profile, seconds),
        "final": [asdict(e) for e in final],
    }
    if config.best_response_to is not None:
        against = next(e for e in final if e.opponent == config.best_response_to)
        summary["best_response"] = {
            "target": config.best_response_to,
            "games": against.games,
            "value": against.mean,
            "ci": list(against.ci),
            "meaning": "the exploiter's mean return against the target, seats rotated: a "
            "lower bound on what a best response to the target wins",
        }
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return summary


def _profile(parts: dict[str, float], seconds: float) -> dict[str, float]:
    """Training seconds by part, with ``other`` (bookkeeping, CSV rows, the clock) the rest."""
    out = {k: round(v, 2) for k, v in parts.items()}
    out["other"] = round(seconds - sum(parts.values()), 2)
    return out


def _write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    tmp.replace(path)


def plot(out: str | os.PathLike[str]) -> Path:
    """Draws ``eval.csv`` and ``train.csv`` of a run directory into ``curves.png``."""
    with requires("checkraise.train.plot", "train"):
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

    out = Path(out)
    with open(out / "eval.csv") as f:
        evals = list(csv.DictReader(f))
    train_rows = []
    if (out / "train.csv").exists():
        with open(out / "train.csv") as f:
            train_rows = list(csv.DictReader(f))
    fig, grid = plt.subplots(2, 2, figsize=(13, 8))
    axes = grid.ravel()
    opponents = list(dict.fromkeys(r["opponent"] for r in evals))
    for axis, x, label in ((axes[0], "env_steps", "env steps"), (axes[1], "seconds", "seconds")):
        for opponent in opponents:
            rows = [r for r in evals if r["opponent"] == opponent]
            xs = [float(r[x]) for r in rows]
            axis.plot(xs, [float(r["mean_return"]) for r in rows], marker="o", label=opponent)
            axis.fill_between(
                xs,
                [float(r["ci_low"]) for r in rows],
                [float(r["ci_high"]) for r in rows],
                alpha=0.2,
            )
        axis.axhline(0, color="grey", linewidth=0.8)
        axis.set_xlabel(label)
        axis.set_ylabel("mean return against opponent (95% CI)")
        axis.legend()
    for opponent in opponents:
        rows = [r for r in evals if r["opponent"] == opponent]
        axes[2].plot(
            [float(r["env_steps"]) for r in rows],
            [float(r["win_rate"]) for r in rows],
            marker="o",
            label=opponent,
        )
    axes[2].set_xlabel("env steps")
    axes[2].set_ylabel("win rate against opponent")
    axes[2].set_ylim(0, 1)
    axes[2].legend()
    if train_rows:
        axes[3].plot(
            [float(r["env_steps"]) for r in train_rows],
            [float(r["train_return"]) for r in train_rows],
        )
    axes[3].set_xlabel("env steps")
    axes[3].set_ylabel("training return (pool, last 500 games)")
    fig.suptitle(f"{out.name}: PPO against the pool")
    fig.tight_layout()
    path = out / "curves.png"
    fig.savefig(path, dpi=80)
    plt.close(fig)
    return path


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
    )
    try:
        summary = train(config, log=lambda line: print(line, flush=True))
    except (_core.CheckraiseError, ImportError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
