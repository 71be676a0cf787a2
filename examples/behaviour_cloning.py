"""Behaviour cloning from a Minari dataset of IS-MCTS games, measured against random.

1. ``checkraise.datasets.play_games`` plays ``--games`` games of ``--bot`` against itself;
2. ``checkraise.datasets.minari_dataset`` makes one Minari dataset per seat of them (under
   ``$MINARI_DATASETS_PATH``, default ``OUT/minari``), read back with ``minari.load_dataset``;
3. a masked-softmax MLP (jax and optax, the ``train`` extra) learns the bot's actions from the
   observations, ``--steps`` Adam steps, keeping the parameters of best accuracy on held-out
   games (every tenth game; checked every 100 steps);
4. the network is written as a policy file (``OUT/policy.safetensors``, the format
   ``checkraise.train`` writes), which the engine plays as the bot ``policy(path=...)``;
5. the arena plays it against ``random`` (``--eval-deals`` deals, each with the seats swapped):
   its mean return per seat with a 95% interval.

Run from the repository root (about 6 minutes on a loaded 2-core machine)::

    PYTHONPATH=python python examples/behaviour_cloning.py --out runs/bc

Results go to ``OUT/results.json``. See docs/python.md, "Datasets for offline RL".
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import time
from pathlib import Path

import numpy as np

import checkraise as cr
import checkraise.datasets as crd
from checkraise.policy import FORMAT, write_safetensors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="detective_poker(players=2,rounds=1)")
    parser.add_argument("--bot", default="ismcts", help="the bot cloned (plays every seat)")
    parser.add_argument("--games", type=int, default=400, help="games in the dataset")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hidden", default="128,128", help="hidden layer sizes")
    parser.add_argument("--steps", type=int, default=2000, help="Adam steps")
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--eval-deals", type=int, default=500, help="arena deals against random")
    parser.add_argument("--out", default="runs/bc")
    args = parser.parse_args()

    import jax
    import jax.numpy as jnp
    import optax

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    # Minari needs an absolute path (it cannot write under a relative one).
    os.environ.setdefault("MINARI_DATASETS_PATH", str((out / "minari").resolve()))
    import minari

    game = cr.make(args.game)
    started = time.perf_counter()
    games = crd.play_games(game, args.bot, args.games, args.seed)
    play_seconds = time.perf_counter() - started
    print(f"played {len(games)} games of {game} ({args.bot} at every seat) in {play_seconds:.0f} s")

    # One Minari dataset per seat, read back through Minari's own loader.
    observations, masks, actions, episode_of = [], [], [], []
    for seat in range(game.num_players()):
        dataset_id = f"checkraise/{game.name}/{args.bot.split('(')[0]}-seat{seat}-v0"
        path = Path(os.environ["MINARI_DATASETS_PATH"]) / dataset_id
        if path.exists():
            shutil.rmtree(path)
        crd.minari_dataset(
            dataset_id,
            games,
            seat,
            author="checkraise examples",
            author_email="none",
            code_permalink="examples/behaviour_cloning.py",
        )
        dataset = minari.load_dataset(dataset_id)
        for episode in dataset.iterate_episodes():
            observations.append(episode.observations[:-1])
            masks.append(episode.infos["action_mask"][:-1].astype(bool))
            actions.append(episode.actions)
            episode_of.append(np.full(len(episode.actions), episode.id * 10 + seat))
        print(f"seat {seat}: {dataset.total_episodes} episodes, {dataset.total_steps} steps")
    obs = np.concatenate(observations).astype(np.float32)
    legal = np.concatenate(masks)
    act = np.concatenate(actions).astype(np.int32)
    groups = np.concatenate(episode_of)
    # Held-out games: every tenth episode.
    held = (groups // 10) % 10 == 0
    print(f"{len(act)} decisions, {int(held.sum())} of them held out")

    hidden = [int(h) for h in args.hidden.split(",")]
    sizes = [obs.shape[1], *hidden]
    key = jax.random.PRNGKey(args.seed)
    keys = jax.random.split(key, len(sizes) + 1)
    ortho = jax.nn.initializers.orthogonal
    params = {}
    for i in range(len(hidden)):
        params[f"layer{i}.weight"] = ortho(np.sqrt(2))(keys[i], (sizes[i], sizes[i + 1]))
        params[f"layer{i}.bias"] = jnp.zeros((sizes[i + 1],))
    params["policy.weight"] = ortho(0.01)(keys[-1], (sizes[-1], game.num_distinct_actions()))
    params["policy.bias"] = jnp.zeros((game.num_distinct_actions(),))

    def logits_of(p, x):
        h = x
        for i in range(len(hidden)):
            h = jnp.maximum(h @ p[f"layer{i}.weight"] + p[f"layer{i}.bias"], 0.0)
        return h @ p["policy.weight"] + p["policy.bias"]

    def loss_fn(p, x, m, a):
        logits = jnp.where(m, logits_of(p, x), -1e9)
        logp = jax.nn.log_softmax(logits, axis=-1)
        return -jnp.mean(jnp.take_along_axis(logp, a[:, None], axis=-1))

    optimizer = optax.adam(args.lr)
    opt_state = optimizer.init(params)

    @jax.jit
    def update(p, s, x, m, a):
        loss, grads = jax.value_and_grad(loss_fn)(p, x, m, a)
        updates, s = optimizer.update(grads, s, p)
        return optax.apply_updates(p, updates), s, loss

    @jax.jit
    def accuracy(p, x, m, a):
        chosen = jnp.argmax(jnp.where(m, logits_of(p, x), -1e9), axis=-1)
        return jnp.mean(chosen == a)

    train_idx = np.flatnonzero(~held)
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    # The network overfits a few thousand decisions within a few hundred steps: keep the
    # parameters of best held-out accuracy (checked every 100 steps).
    best, best_step, best_accuracy = params, 0, -1.0
    for step in range(1, args.steps + 1):
        batch = rng.choice(train_idx, size=min(args.batch, len(train_idx)), replace=False)
        params, opt_state, loss = update(params, opt_state, obs[batch], legal[batch], act[batch])
        if step % 100 == 0 or step == args.steps:
            held_accuracy = float(accuracy(params, obs[held], legal[held], act[held]))
            if held_accuracy > best_accuracy:
                best, best_step, best_accuracy = params, step, held_accuracy
            if step % 500 == 0 or step == args.steps:
                print(f"step {step}: loss {float(loss):.3f}, held-out accuracy {held_accuracy:.3f}")
    train_seconds = time.perf_counter() - started
    params = best
    held_accuracy = best_accuracy
    train_accuracy = float(accuracy(params, obs[~held], legal[~held], act[~held]))
    print(
        f"kept step {best_step}: held-out accuracy {held_accuracy:.3f}, "
        f"training accuracy {train_accuracy:.3f}"
    )

    tensors = {k: np.asarray(v, dtype=np.float32) for k, v in params.items()}
    tensors["value.weight"] = np.zeros((sizes[-1], 1), np.float32)
    tensors["value.bias"] = np.zeros((1,), np.float32)
    policy_file = out / "policy.safetensors"
    write_safetensors(
        policy_file,
        tensors,
        {
            "format": FORMAT,
            "game": str(game),
            "observation_size": str(obs.shape[1]),
            "num_actions": str(game.num_distinct_actions()),
            "hidden": args.hidden,
            "activation": "relu",
            "trainer": f"behaviour cloning of {args.bot} (examples/behaviour_cloning.py)",
            "seed": str(args.seed),
        },
    )

    started = time.perf_counter()
    spec = f"policy(path={policy_file})"
    result = cr.arena.run(game, [spec, "random"], deals=args.eval_deals, seed=1, progress=False)
    eval_seconds = time.perf_counter() - started
    pair = next(p for p in result.pairs if p.bot == spec)
    print(
        f"BC policy vs random: mean return {pair.mean:+.3f} "
        f"[{pair.mean_ci[0]:+.3f}, {pair.mean_ci[1]:+.3f}] (95%), win rate {pair.win_rate:.3f} "
        f"[{pair.win_ci[0]:.3f}, {pair.win_ci[1]:.3f}], {pair.games} games, seats swapped"
    )
    results = {
        "game": str(game),
        "bot": args.bot,
        "games": args.games,
        "decisions": len(act),
        "seed": args.seed,
        "steps": args.steps,
        "kept_step": best_step,
        "hidden": hidden,
        "train_accuracy": train_accuracy,
        "held_out_accuracy": held_accuracy,
        "eval_games": pair.games,
        "mean_return": pair.mean,
        "mean_ci": list(pair.mean_ci),
        "win_rate": pair.win_rate,
        "win_ci": list(pair.win_ci),
        "seconds": {
            "play": round(play_seconds),
            "train": round(train_seconds),
            "eval": round(eval_seconds),
        },
    }
    (out / "results.json").write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
