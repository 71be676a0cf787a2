"""The policy network in jax: its parameters, forward pass, masked sampling, and its start
from a policy file."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from checkraise import _core
from checkraise.policy import ACTION_FEATURES, Policy, read_safetensors


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
