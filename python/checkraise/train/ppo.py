"""The PPO loop (:func:`train`): the training games in the engine's vector env, the jitted
inference and update, snapshots in the pool, evaluations, and the run's files."""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import asdict
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
    PLAY,
    Policy,
    safetensors_bytes,
    write_safetensors,
)
from checkraise.train.config import SELF, Config, _json
from checkraise.train.curves import _write_csv, plot
from checkraise.train.evaluation import Evaluation, evaluate
from checkraise.train.network import (
    _forward,
    _init_from,
    _init_params,
    _masked_log_probs,
    _sample,
    _tensors,
)


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


PLAYS = ("greedy", "sample")
"""How a trained policy can be played (its file's metadata ``play``)."""


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
    if config.play not in PLAYS:
        raise _core.CheckraiseError(f"--play {config.play!r}: it must be one of {', '.join(PLAYS)}")
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
    if config.play != "greedy":
        # The file, its self-play snapshots and its evaluations are played by sampling.
        metadata[PLAY] = config.play

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
        played by the engine's ``policy`` bot as the metadata says: greedily unless
        ``config.play`` is ``sample``) sharing the ``self`` weight."""
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
