"""Trained policies as bots, run by the engine.

A policy file is a `safetensors <https://huggingface.co/docs/safetensors>`_ file: a small
multi-layer perceptron from one seat's observation (``State.observation(seat)``) to a logit per
action, written by :mod:`checkraise.train`. The engine plays the same file as the bot spec
``policy`` (the policy shipped for the game) or ``policy(path=FILE)`` in every face: the arena,
``checkraise.Bot``, ``checkraise.Driver`` and gRPC bot seats. :class:`Policy` is that network
from Python, for batches of observations of your own: reading the file, the forward pass and
the choice of action are the engine's (``_core.PolicyNet``), the very code the ``policy`` bot
runs, so both always pick the same greedy action. It needs numpy only (no training
dependency).

The bot plays the legal action of highest logit (ties: the lowest action number), or where the
file's metadata says ``play=sample`` (:data:`PLAY`; the shipped Prediction Chess policy does)
one drawn from the softmax of the legal logits; there :class:`Policy` draws with numpy's
generator and the bot with its own, so the two draw alike but not the same actions.

.. code-block:: python

    import checkraise as cr
    from checkraise.policy import Policy

    policy = Policy.shipped("detective_poker")
    state = cr.Env("detective_poker", seed=1).state()
    action = policy.act(state)                 # the current player's action
    cr.Bot("detective_poker", "policy").act(state) == action

File layout (every tensor float32, little-endian; ``weight`` is ``[inputs, outputs]``):
``layer0.weight``, ``layer0.bias``, ..., ``layer{k-1}.*`` (ReLU after each), ``policy.weight``,
``policy.bias`` (the logits), ``value.weight``, ``value.bias`` (the value head, kept for
further training; bots do not use it). The header's ``__metadata__`` holds ``format``
(``checkraise-policy-v1``), ``game`` (the game string the policy was trained on, parameters
included), ``observation_size``, ``num_actions`` and training details.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from checkraise import _core

FORMAT = "checkraise-policy-v1"
"""The ``format`` entry of a policy file's metadata."""

ACTION_FEATURES = "policy.action_features"
"""The optional tensor (one float32 weight) linking the observation's per-action block
(``Game.action_features()``, such as Pokeros's ``observation="placements"``) into the logits:
``weight * observation[offset + a]`` is added to action ``a``'s logit."""

ACTION_FEATURES_OFFSET = "action_features_offset"
"""The metadata entry giving that block's first index in the observation."""

PLAY = "play"
"""The metadata entry saying how the policy is played: ``greedy`` (also without the entry),
the legal action of highest logit, or ``sample``, one drawn from the softmax of the legal
actions' logits. The ``policy`` bot plays a file as it says unless its spec's ``play`` setting
says otherwise; :meth:`Policy.actions` plays it as it says."""

PolicyFileError = _core.PolicyFileError
"""A policy or safetensors file that cannot be read, or a policy that does not fit the game it
is used for (a :class:`checkraise.CheckraiseError`)."""


def safetensors_bytes(
    tensors: Mapping[str, npt.ArrayLike], metadata: Mapping[str, str] | None = None
) -> bytes:
    """The bytes of a safetensors file holding ``tensors`` (float32, float64 or int64 arrays)
    and string ``metadata``, written by the engine (the same bytes for the same contents)."""
    arrays = {str(k): np.asarray(v) for k, v in tensors.items()}
    meta = {str(k): str(v) for k, v in (metadata or {}).items()}
    return _core.safetensors_bytes(arrays, meta)


def write_safetensors(
    path: str | os.PathLike[str],
    tensors: Mapping[str, npt.ArrayLike],
    metadata: Mapping[str, str] | None = None,
) -> None:
    """Writes ``tensors`` (float32, float64 or int64 arrays) and string ``metadata`` as a
    safetensors file (:func:`safetensors_bytes`), atomically (a temporary file renamed into
    place)."""
    data = safetensors_bytes(tensors, metadata)
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    tmp.replace(path)


def read_safetensors(data: bytes) -> tuple[dict[str, npt.NDArray[Any]], dict[str, str]]:
    """The tensors and metadata of a safetensors file's bytes, read by the engine; a
    malformed file raises :class:`PolicyFileError`."""
    return _core.read_safetensors(data)


class Policy:
    """A policy network from a policy file, run by the engine (the ``policy`` bot's reader
    and forward pass)."""

    def __init__(self, tensors: Mapping[str, npt.ArrayLike], metadata: Mapping[str, str]):
        """From tensors and metadata (:func:`read_safetensors`, or a trainer's parameters):
        written as a policy file and read back by the engine, so it is checked to be a whole,
        consistent policy exactly as the ``policy`` bot checks a file."""
        self._init(_core.PolicyNet(safetensors_bytes(tensors, metadata)))

    def _init(self, net: _core.PolicyNet) -> None:
        self.net = net
        """The engine's network."""
        self.metadata = net.metadata
        """The file's metadata."""
        self.game = net.game
        """The game string the policy was trained on."""
        self.layers: list[tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]] = net.layers()
        """The hidden layers' ``(weight, bias)``, each followed by ReLU (copies)."""
        self.head: tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]] = net.head()
        """The logits layer's ``(weight, bias)`` (a copy)."""
        self.action_features: tuple[int, float] | None = net.action_features
        """The action-features link ``(offset, weight)``, or ``None`` (a plain network)."""
        self.observation_size = net.observation_size
        """Entries of the observation the network reads."""
        self.num_actions = net.num_actions
        """Logits it writes: the game's distinct actions."""
        self.play: str = self.metadata.get(PLAY, "greedy")
        """How it is played (:data:`PLAY`): ``greedy`` or ``sample`` (the engine checked)."""
        self._rng = np.random.default_rng(0)

    @classmethod
    def _from_net(cls, net: _core.PolicyNet) -> Policy:
        policy = cls.__new__(cls)
        policy._init(net)
        return policy

    @classmethod
    def from_bytes(cls, data: bytes) -> Policy:
        """A policy from a policy file's bytes."""
        return cls._from_net(_core.PolicyNet(data))

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Policy:
        """A policy from a policy file."""
        try:
            data = Path(path).read_bytes()
        except OSError as error:
            raise PolicyFileError(f"cannot read policy file {str(path)!r}: {error}") from None
        return cls.from_bytes(data)

    @classmethod
    def shipped(cls, game: str | _core.Game) -> Policy:
        """The policy the package ships for ``game`` (a name; trained on its default
        parameters), the one the bot spec ``policy`` plays."""
        name = game.name if isinstance(game, _core.Game) else str(game)
        return cls._from_net(_core.PolicyNet.shipped(name))

    def check_game(self, game: _core.Game) -> None:
        """Raises :class:`PolicyFileError` unless the policy was trained on ``game`` (the same
        game string, parameters included but for ``reward``, which changes only how returns are
        paid) and fits its observation and action sizes."""
        self.net.check_game(game)

    def logits(self, observations: npt.ArrayLike) -> npt.NDArray[np.float32]:
        """Logits for a batch of observations ``[..., observation_size]``."""
        obs = np.asarray(observations, dtype=np.float32)
        if obs.ndim == 0 or obs.shape[-1] != self.observation_size:
            raise PolicyFileError(
                f"observations have shape {obs.shape}; the policy reads "
                f"{self.observation_size} entries per row"
            )
        rows = np.ascontiguousarray(obs.reshape(-1, self.observation_size))
        return self.net.logits(rows).reshape(*obs.shape[:-1], self.num_actions)

    def actions(
        self,
        observations: npt.ArrayLike,
        masks: npt.ArrayLike,
        rng: np.random.Generator | None = None,
    ) -> npt.NDArray[np.int64]:
        """The legal action of highest logit for each row (``masks``: bool, legal actions),
        or for a policy whose file says ``play=sample`` (:data:`PLAY`) one drawn from the
        softmax of the row's legal logits with ``rng`` (default: the policy's own generator,
        seeded 0 when it was read)."""
        obs = np.asarray(observations, dtype=np.float32)
        legal = np.asarray(masks, dtype=bool)
        if obs.ndim == 0 or obs.shape[-1] != self.observation_size:
            raise PolicyFileError(
                f"observations have shape {obs.shape}; the policy reads "
                f"{self.observation_size} entries per row"
            )
        if legal.shape[:-1] != obs.shape[:-1] or legal.shape[-1:] != (self.num_actions,):
            raise PolicyFileError(
                f"masks have shape {legal.shape}; observations {obs.shape} need "
                f"{(*obs.shape[:-1], self.num_actions)}"
            )
        rows = np.ascontiguousarray(obs.reshape(-1, self.observation_size))
        row_masks = np.ascontiguousarray(legal.reshape(-1, self.num_actions))
        if self.play == "sample":
            return self._sample(rows, row_masks, rng or self._rng).reshape(obs.shape[:-1])
        best = self.net.actions(rows, row_masks)
        return best.reshape(obs.shape[:-1])

    def _sample(
        self,
        rows: npt.NDArray[np.float32],
        masks: npt.NDArray[np.bool_],
        rng: np.random.Generator,
    ) -> npt.NDArray[np.int64]:
        """One action per row drawn from the softmax of its legal logits."""
        empty = np.flatnonzero(~masks.any(axis=1))
        if empty.size:
            raise PolicyFileError(f"row {int(empty[0])} of masks has no legal action")
        logits = np.where(masks, self.net.logits(rows).astype(np.float64), -np.inf)
        weights = np.exp(logits - logits.max(axis=1, keepdims=True))
        cumulative = np.cumsum(weights, axis=1)
        draws = rng.random(len(rows))[:, None] * cumulative[:, -1:]
        chosen = (cumulative <= draws).sum(axis=1)
        # A draw at the very top lands past the last legal action: take the last legal one.
        last = self.num_actions - 1 - np.argmax(masks[:, ::-1], axis=1)
        return np.minimum(chosen, last).astype(np.int64)

    def act(self, state: _core.State, seat: int | None = None) -> int:
        """The action for ``seat`` (default: the current player) at ``state``: the legal
        action of highest logit on the seat's observation, or one drawn from their softmax
        with the policy's own generator where its file says ``play=sample`` (for a policy
        trained with another ``observation`` parameter, such as Pokeros's ``placements``, on
        the seat's observation of the same history in that variant, as the ``policy`` bot
        plays it)."""
        if seat is None:
            seat = state.current_player()
        if not 0 <= seat < state.num_players():
            raise _core.InvalidSeatError(
                f"seat {seat} does not exist; the game has seats 0 to {state.num_players() - 1}"
            )
        observation = self.net.observation(state, seat)  # PolicyFileError for another game
        mask = state.action_mask(seat)
        if not mask.any():
            raise _core.OutOfTurnError(f"seat {seat} has no legal action at this state")
        return int(self.actions(observation, mask))
