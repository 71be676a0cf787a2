"""Trained policies as bots, with numpy inference only.

A policy file is a `safetensors <https://huggingface.co/docs/safetensors>`_ file: a small
multi-layer perceptron from one seat's observation (``State.observation(seat)``) to a logit per
action, written by :mod:`checkraise.train`. The engine plays the same file as the bot spec
``policy`` (the policy shipped for the game) or ``policy(path=FILE)`` in every face: the arena,
``checkraise.Bot``, ``checkraise.Driver`` and gRPC bot seats, with inference in Rust. This
module is the Python inference: it needs numpy only (no training dependency) and gives the same
action as the engine's (``tests/test_policy.py`` checks it on random states of every game).

The bot plays the legal action of highest logit (ties: the lowest action number).

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

import json
import os
import struct
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from checkraise import _core

FORMAT = "checkraise-policy-v1"
"""The ``format`` entry of a policy file's metadata."""

_DTYPES = {"F32": np.dtype("<f4"), "F64": np.dtype("<f8"), "I64": np.dtype("<i8")}
_NAMES = {v: k for k, v in _DTYPES.items()}
# A header larger than this is not a policy file (and must not be read into memory).
_MAX_HEADER = 1 << 20


class PolicyFileError(_core.CheckraiseError):
    """A policy file that cannot be read, or that does not fit the game it is used for."""


def write_safetensors(
    path: str | os.PathLike[str],
    tensors: Mapping[str, npt.ArrayLike],
    metadata: Mapping[str, str] | None = None,
) -> None:
    """Writes ``tensors`` (float32, float64 or int64 arrays) and string ``metadata`` as a
    safetensors file, atomically (a temporary file renamed into place)."""
    header: dict[str, Any] = {}
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    blobs = []
    offset = 0
    for name in sorted(tensors):
        array = np.ascontiguousarray(tensors[name])
        dtype = array.dtype.newbyteorder("<")
        if dtype not in _NAMES:
            raise PolicyFileError(f"tensor {name!r} has dtype {array.dtype}; use float32")
        data = array.astype(dtype, copy=False).tobytes()
        header[name] = {
            "dtype": _NAMES[dtype],
            "shape": list(array.shape),
            "data_offsets": [offset, offset + len(data)],
        }
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as out:
        out.write(struct.pack("<Q", len(text)))
        out.write(text)
        out.writelines(blobs)
    tmp.replace(path)


def read_safetensors(data: bytes) -> tuple[dict[str, npt.NDArray[Any]], dict[str, str]]:
    """The tensors and metadata of a safetensors file's bytes; a malformed file raises
    :class:`PolicyFileError`."""
    if len(data) < 8:
        raise PolicyFileError("not a safetensors file: shorter than its 8-byte header length")
    (size,) = struct.unpack("<Q", data[:8])
    if size > _MAX_HEADER or 8 + size > len(data):
        raise PolicyFileError(f"not a safetensors file: header length {size} out of range")
    try:
        header = json.loads(data[8 : 8 + size])
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise PolicyFileError(f"not a safetensors file: header is not JSON ({error})") from None
    if not isinstance(header, dict):
        raise PolicyFileError("not a safetensors file: header is not a JSON object")
    metadata = header.pop("__metadata__", None) or {}
    body = memoryview(data)[8 + size :]
    tensors = {}
    for name, entry in header.items():
        try:
            dtype = _DTYPES[entry["dtype"]]
            shape = tuple(int(d) for d in entry["shape"])
            start, end = (int(x) for x in entry["data_offsets"])
        except (KeyError, TypeError, ValueError):
            raise PolicyFileError(f"tensor {name!r}: unsupported or malformed entry") from None
        count = int(np.prod(shape, dtype=np.int64))
        if not 0 <= start <= end <= len(body) or end - start != count * dtype.itemsize:
            raise PolicyFileError(f"tensor {name!r}: data offsets do not fit its shape")
        tensors[name] = np.frombuffer(body[start:end], dtype=dtype).reshape(shape)
    return tensors, {str(k): str(v) for k, v in metadata.items()}


class Policy:
    """A policy network from a policy file, run with numpy."""

    def __init__(self, tensors: Mapping[str, npt.ArrayLike], metadata: Mapping[str, str]):
        """From a file's tensors and metadata (:func:`read_safetensors`); checked to be a
        whole, consistent policy."""
        if metadata.get("format") != FORMAT:
            raise PolicyFileError(
                f"not a checkraise policy: metadata format is {metadata.get('format')!r}, "
                f"expected {FORMAT!r}"
            )
        self.metadata = dict(metadata)
        """The file's metadata."""
        self.game = self.metadata.get("game", "")
        """The game string the policy was trained on."""
        self.layers: list[tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]] = []
        """The hidden layers' ``(weight, bias)``, each followed by ReLU."""

        def pair(name: str) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
            try:
                w = np.asarray(tensors[f"{name}.weight"], dtype=np.float32)
                b = np.asarray(tensors[f"{name}.bias"], dtype=np.float32)
            except KeyError as missing:
                raise PolicyFileError(f"policy file has no tensor {missing}") from None
            if w.ndim != 2 or b.shape != (w.shape[1],):
                raise PolicyFileError(f"{name}: weight {w.shape} and bias {b.shape} do not fit")
            return w, b

        k = 0
        while f"layer{k}.weight" in tensors:
            self.layers.append(pair(f"layer{k}"))
            k += 1
        self.head = pair("policy")
        """The logits layer's ``(weight, bias)``."""
        width = (self.layers or [self.head])[0][0].shape[0]
        self.observation_size = width
        """Entries of the observation the network reads."""
        for w, _ in [*self.layers, self.head]:
            if w.shape[0] != width:
                raise PolicyFileError(f"layer sizes do not chain: {w.shape[0]} after {width}")
            width = w.shape[1]
        self.num_actions = self.head[0].shape[1]
        """Logits it writes: the game's distinct actions."""

    @classmethod
    def from_bytes(cls, data: bytes) -> Policy:
        """A policy from a policy file's bytes."""
        return cls(*read_safetensors(data))

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
        return cls.from_bytes(_core.shipped_policy(name))

    def check_game(self, game: _core.Game) -> None:
        """Raises :class:`PolicyFileError` unless the policy was trained on ``game`` (the same
        game string, parameters included)."""
        if str(game) != self.game:
            raise PolicyFileError(
                f"this policy was trained on {self.game!r}, not {str(game)!r}; train one for "
                "these parameters (python -m checkraise.train)"
            )
        if game.observation_size != self.observation_size:
            raise PolicyFileError(
                f"the policy reads {self.observation_size} observation entries; "
                f"{str(game)!r} has {game.observation_size}"
            )
        if game.num_distinct_actions() != self.num_actions:
            raise PolicyFileError(
                f"the policy writes {self.num_actions} logits; {str(game)!r} has "
                f"{game.num_distinct_actions()} actions"
            )

    def logits(self, observations: npt.ArrayLike) -> npt.NDArray[np.float32]:
        """Logits for a batch of observations ``[..., observation_size]``."""
        h = np.asarray(observations, dtype=np.float32)
        if h.shape[-1] != self.observation_size:
            raise PolicyFileError(
                f"observations have {h.shape[-1]} entries; the policy reads {self.observation_size}"
            )
        for w, b in self.layers:
            h = np.maximum(h @ w + b, np.float32(0))
        w, b = self.head
        return h @ w + b

    def actions(self, observations: npt.ArrayLike, masks: npt.ArrayLike) -> npt.NDArray[np.int64]:
        """The legal action of highest logit for each row (``masks``: bool, legal actions)."""
        logits = self.logits(observations)
        masks = np.asarray(masks, dtype=bool)
        if not masks.any(axis=-1).all():
            raise PolicyFileError("a row of masks has no legal action")
        return np.where(masks, logits, -np.inf).argmax(axis=-1)

    def act(self, state: _core.State, seat: int | None = None) -> int:
        """The action for ``seat`` (default: the current player) at ``state``: the legal
        action of highest logit on the seat's observation."""
        self.check_game(state.get_game())
        if seat is None:
            seat = state.current_player()
        if not 0 <= seat < state.num_players():
            raise _core.InvalidSeatError(
                f"seat {seat} does not exist; the game has seats 0 to {state.num_players() - 1}"
            )
        mask = state.action_mask(seat)
        if not mask.any():
            raise _core.OutOfTurnError(f"seat {seat} has no legal action at this state")
        return int(self.actions(state.observation(seat), mask))
