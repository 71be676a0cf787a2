"""Unpacking compact observations and packed legal masks (``observation_encoding="compact"``).

A compact row is ``bit_bytes`` bytes of bits, entry ``i`` of the observation in bit ``i % 8``
of byte ``i // 8`` (numpy's ``bitorder="little"``), then the game's non-binary entries
(``Game.compact_layout()["scalar_indices"]``) as little-endian float32s. A packed mask holds
action ``a`` in bit ``a % 8`` of byte ``a // 8``. See docs/observations.md (with a torch
version).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ._core import Game, make


def _game(game: Game | str) -> Game:
    return make(game) if isinstance(game, str) else game


def unpack_rows(
    packed: npt.ArrayLike,
    observation_size: int,
    bit_bytes: int,
    scalar_indices: Sequence[int],
    row_bytes: int,
) -> npt.NDArray[np.float32]:
    """The float32 rows (``observation_size`` last) that compact rows (uint8, ``row_bytes``
    last) encode, from a layout's numbers (``Game.compact_layout()``, or the gRPC
    ``CreateEnvsResponse.compact_layout``)."""
    rows = np.asarray(packed, dtype=np.uint8)
    if rows.shape[-1:] != (row_bytes,):
        raise ValueError(f"compact rows have {row_bytes} bytes, not {rows.shape[-1:]}")
    out = np.unpackbits(
        rows[..., :bit_bytes], axis=-1, count=observation_size, bitorder="little"
    ).astype(np.float32)
    scalars = np.asarray(scalar_indices, dtype=np.intp)
    if scalars.size:
        out[..., scalars] = np.ascontiguousarray(rows[..., bit_bytes:]).view("<f4")
    return out


def unpack_observations(game: Game | str, packed: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """The float32 observations that compact rows encode: ``packed`` is uint8 with
    ``row_bytes`` last (any leading shape, such as ``(num_envs,)`` or
    ``(num_envs, num_players)``); the result has ``observation_shape`` in its place, and
    equals the float32 observations exactly."""
    game = _game(game)
    layout: dict[str, Any] = game.compact_layout()
    out = unpack_rows(
        packed,
        layout["observation_size"],
        layout["bit_bytes"],
        layout["scalar_indices"],
        layout["row_bytes"],
    )
    return out.reshape(out.shape[:-1] + tuple(game.observation_shape()))


def unpack_mask_bits(packed: npt.ArrayLike, num_actions: int) -> npt.NDArray[np.bool_]:
    """The bool masks (``num_actions`` last) that packed masks (uint8) encode."""
    return np.unpackbits(
        np.asarray(packed, dtype=np.uint8), axis=-1, count=num_actions, bitorder="little"
    ).astype(bool)


def unpack_action_masks(game: Game | str, packed: npt.ArrayLike) -> npt.NDArray[np.bool_]:
    """The bool legal masks that packed masks encode (``num_distinct_actions`` last)."""
    return unpack_mask_bits(packed, _game(game).num_distinct_actions())
