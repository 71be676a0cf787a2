"""Remote RL: a batch of envs on the server (:class:`RemoteVectorEnv`), each reply an
:class:`EnvBatch` of numpy arrays, and the opponent pools it reads."""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import numpy.typing as npt

from .._compact import unpack_mask_bits, unpack_rows
from .._core import _parse_opponent_pool
from .._optional import requires
from .errors import InvalidArgumentError, _unary
from .matches import _Ends, tensor_to_array

with requires("checkraise.client", "grpc"):
    import grpc

    from ..v1 import checkraise_pb2 as pb

if TYPE_CHECKING:
    from .client import Client


class EnvBatch(NamedTuple):
    """A batch of envs after a reset or a step; every array's first axis is the env.

    The arrays are read-only views of the reply's bytes (copy what you modify).
    ``observations``: float32 ``[n, *obs_shape]`` (the acting seat's; at a terminal state the
    seat that moved last) or ``[n, players, *obs_shape]`` with ``all_seats``; ``action_masks``:
    bool with the same leading axes and ``num_distinct_actions``; ``rewards``: float32
    ``[n, players]`` from this step; ``terminated``: bool ``[n]`` (the game ended on this step);
    ``current_players``: int32 ``[n]`` (-4 for a game that ended, in next-step mode);
    ``final_returns``: float32 ``[n, players]``, the returns of the games that ended
    (terminated or truncated) on this step, else 0; ``truncated``: bool ``[n]`` (the game hit
    ``max_episode_steps``); ``final_observations``: in same-step mode, the final observations
    of the games that ended on this step, shaped as ``observations`` (zeros elsewhere), and
    ``None`` in next-step mode (where ``observations`` holds them).

    With opponents (``Client.envs(..., opponent=...)``) every array is the learner's:
    ``observations`` and ``action_masks`` ``[n, ...]``, ``rewards`` and ``final_returns``
    float32 ``[n, 1]``; ``learner_seats`` (int32 ``[n]``) is each env's learner seat in its
    current game, ``None`` without opponents.

    With ``observation_encoding="compact"`` (as ``checkraise.VectorEnv``) ``observations``
    and ``final_observations`` are uint8 compact rows (``row_bytes`` last) and
    ``action_masks`` packed bits (uint8, ``mask_bytes`` last):
    ``RemoteVectorEnv.unpack_observations`` and ``unpack_action_masks`` give the float32 and
    bool arrays.
    """

    observations: npt.NDArray[Any]
    action_masks: npt.NDArray[Any]
    rewards: npt.NDArray[np.float32]
    terminated: npt.NDArray[np.bool_]
    current_players: npt.NDArray[np.int32]
    final_returns: npt.NDArray[np.float32]
    truncated: npt.NDArray[np.bool_]
    final_observations: npt.NDArray[Any] | None = None
    learner_seats: npt.NDArray[np.int32] | None = None

    @classmethod
    def from_proto(cls, batch: pb.EnvBatch) -> EnvBatch:
        """Decodes an ``EnvBatch`` message with ``np.frombuffer`` (no per-element work)."""
        masks = batch.action_masks
        observations, finals = batch.observations, batch.final_observations
        has_finals = batch.HasField("final_observations")
        if batch.HasField("packed_observations"):
            observations, masks = batch.packed_observations, batch.packed_action_masks
            finals = batch.packed_final_observations
            has_finals = batch.HasField("packed_final_observations")
        terminated = tensor_to_array(batch.terminated)
        return cls(
            observations=tensor_to_array(observations),
            action_masks=tensor_to_array(masks),
            rewards=tensor_to_array(batch.rewards),
            terminated=terminated,
            current_players=tensor_to_array(batch.current_players),
            final_returns=tensor_to_array(batch.final_returns),
            truncated=tensor_to_array(batch.truncated),
            final_observations=tensor_to_array(finals) if has_finals else None,
            learner_seats=(
                tensor_to_array(batch.learner_seats) if batch.HasField("learner_seats") else None
            ),
        )


_OBSERVATION_ENCODINGS = {
    "float32": pb.OBSERVATION_ENCODING_FLOAT32,
    "compact": pb.OBSERVATION_ENCODING_COMPACT,
}

_AUTORESET_MODES = {
    "next_step": pb.AUTORESET_MODE_NEXT_STEP,
    "NextStep": pb.AUTORESET_MODE_NEXT_STEP,
    "same_step": pb.AUTORESET_MODE_SAME_STEP,
    "SameStep": pb.AUTORESET_MODE_SAME_STEP,
}


_SEAT_CHOICES = "a seat number or 'random'"


def _opponent_pool(opponent: object) -> list[pb.EnvOpponent]:
    """The ``opponent`` argument as the request's entries, read by the engine's own parser
    (``checkraise.VectorEnv`` reads it the same way): one entry (weight 1), a list of entries
    or of ``(entry, weight)`` pairs, or a dict entry -> weight."""
    pool = [
        pb.EnvOpponent(bot=entry, weight=weight)
        if isinstance(entry, str)
        else pb.EnvOpponent(policy=entry, weight=weight)
        for entry, weight in _parse_opponent_pool(opponent)  # type: ignore[arg-type]
    ]
    if not pool:
        raise InvalidArgumentError(
            grpc.StatusCode.INVALID_ARGUMENT,
            "opponent is an empty pool: give at least one bot spec, Bot or policy",
        )
    return pool


def _learner_seat(seat: object, request: pb.CreateEnvsRequest) -> None:
    """Sets the request's learner seat from the ``seat`` argument: a seat number (Python or
    numpy integer) or ``"random"`` (drawn for every game)."""
    if isinstance(seat, str):
        if seat != "random":
            raise InvalidArgumentError(
                grpc.StatusCode.INVALID_ARGUMENT, f"seat must be {_SEAT_CHOICES}, not {seat!r}"
            )
        request.random_learner_seat = True
        return
    if isinstance(seat, bool):
        raise TypeError(f"seat must be {_SEAT_CHOICES}, not bool")
    try:
        number = operator.index(seat)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"seat must be {_SEAT_CHOICES}, not {type(seat).__name__}") from None
    if not 0 <= number < 2**32:
        raise InvalidArgumentError(
            grpc.StatusCode.INVALID_ARGUMENT,
            f"seat must be {_SEAT_CHOICES}, not {number} (seats count from 0)",
        )
    request.learner_seat = number


def _autoreset_mode(mode: object) -> str:
    """``"next_step"`` or ``"same_step"`` from either name, or from Gymnasium's
    ``AutoresetMode`` member."""
    value = getattr(mode, "value", mode)
    if isinstance(value, str) and value in _AUTORESET_MODES:
        return (
            "same_step" if _AUTORESET_MODES[value] == pb.AUTORESET_MODE_SAME_STEP else "next_step"
        )
    raise ValueError(f"autoreset_mode must be 'next_step' or 'same_step', not {mode!r}")


class RemoteVectorEnv(_Ends):
    """A batch of envs on the server (env i seeded ``seed + i``); chance is sampled there, so
    callers see decision points only, and finished envs reset automatically: on the next step
    (``autoreset_mode="next_step"``, the default, as ``checkraise.VectorEnv``) or within the
    step that ended them (``"same_step"``; servers before the option only did this).

    ``batch`` is the latest :class:`EnvBatch` (the fresh one after creation). Close it (or use
    ``with``) to free the server's memory at once rather than at idle expiry.

    With opponents (``has_opponents``) the server plays every seat but each env's learner's:
    ``step`` takes the learner's action per env and the batch holds the learner's side only
    (``learner_seats`` says whose); ``seat`` is the learner's seat as given (a seat number or
    ``"random"``), ``None`` without opponents.
    """

    def __init__(
        self,
        client: Client,
        response: pb.CreateEnvsResponse,
        game: str,
        all_seats: bool,
        autoreset_mode: str = "next_step",
        observation_encoding: str = "float32",
        *,
        has_opponents: bool = False,
        seat: int | str | None = None,
    ) -> None:
        self.client = client
        self.has_opponents = has_opponents
        self.seat = seat
        self.observation_encoding = observation_encoding
        #: How compact rows unpack (``CreateEnvsResponse.compact_layout``; ``None`` from a
        #: server before the compact encoding).
        self.compact_layout: pb.CompactLayout | None = (
            response.compact_layout if response.HasField("compact_layout") else None
        )
        self.game = game
        self.envs_id: str = response.envs_id
        self.sizes: pb.GameSizes = response.sizes
        self.all_seats = all_seats
        self.autoreset_mode = autoreset_mode
        self.batch: EnvBatch = EnvBatch.from_proto(response.batch)
        self.num_envs: int = self.batch.terminated.shape[0]
        self._closed = False

    def __repr__(self) -> str:
        return (
            f"RemoteVectorEnv(game={self.game!r}, num_envs={self.num_envs}, "
            f"envs_id={self.envs_id!r})"
        )

    @property
    def num_players(self) -> int:
        """Number of seats."""
        return self.sizes.num_players

    @property
    def num_distinct_actions(self) -> int:
        """Size of the action space (and of each legal mask's last axis)."""
        return self.sizes.num_distinct_actions

    @property
    def observation_shape(self) -> tuple[int, ...]:
        """Shape of one seat's observation."""
        return tuple(self.sizes.observation_shape)

    @property
    def learner_seats(self) -> npt.NDArray[np.int32] | None:
        """Each env's learner seat in its current game (the latest batch's); ``None`` without
        opponents."""
        return self.batch.learner_seats

    @property
    def action_shape(self) -> tuple[int, ...]:
        """Shape ``step`` takes: ``(num_envs,)`` (with opponents, the learner's action per
        env), or ``(num_envs, players)`` with all_seats."""
        if self.all_seats:
            return (self.num_envs, self.num_players)
        return (self.num_envs,)

    def unpack_observations(self, packed: npt.ArrayLike | None = None) -> npt.NDArray[np.float32]:
        """The float32 observations that compact rows encode (by default the latest batch's
        ``observations``), exactly as the float32 encoding sends them."""
        layout = self._layout()
        rows = self.batch.observations if packed is None else packed
        out = unpack_rows(
            rows,
            layout.observation_size,
            layout.bit_bytes,
            list(layout.scalar_indices),
            layout.row_bytes,
        )
        return out.reshape(out.shape[:-1] + self.observation_shape)

    def unpack_action_masks(self, packed: npt.ArrayLike | None = None) -> npt.NDArray[np.bool_]:
        """The bool masks that packed masks encode (by default the latest batch's)."""
        masks = self.batch.action_masks if packed is None else packed
        return unpack_mask_bits(masks, self.num_distinct_actions)

    def _layout(self) -> pb.CompactLayout:
        if self.compact_layout is None:
            raise ValueError("this server sends no compact layout (it predates them)")
        return self.compact_layout

    def reset(self, seed: int | None = None) -> EnvBatch:
        """Starts every env afresh (env i reseeded ``seed + i`` when a seed is given, else
        continuing its stream)."""
        request = pb.ResetRequest(envs_id=self.envs_id)
        if seed is not None:
            request.seed = seed
        self.batch = EnvBatch.from_proto(
            _unary(self.client._envs.Reset, request, timeout=self.client.timeout)
        )
        return self.batch

    def step(self, actions: npt.ArrayLike) -> EnvBatch:
        """Applies one action per env: an int array of ``action_shape`` (with all_seats, a
        seat's entry is used when it acts; put -1 elsewhere). A wrong dtype or shape or an
        illegal action is :class:`InvalidArgumentError` (a ``ValueError``) and changes
        nothing."""
        array = np.asarray(actions)
        if array.dtype.kind not in "iu":
            raise InvalidArgumentError(
                grpc.StatusCode.INVALID_ARGUMENT,
                f"actions must be an integer array of shape {self.action_shape}, not {array.dtype}",
            )
        if array.size and (array.min() < -(2**31) or array.max() >= 2**31):
            raise InvalidArgumentError(
                grpc.StatusCode.INVALID_ARGUMENT, "actions must fit in int32"
            )
        packed = np.ascontiguousarray(array, dtype="<i4")
        request = pb.StepRequest(
            envs_id=self.envs_id,
            actions=pb.Tensor(
                dtype=pb.DATA_TYPE_INT32,
                shape=list(packed.shape),
                data=packed.tobytes(),
            ),
        )
        self.batch = EnvBatch.from_proto(
            _unary(self.client._envs.Step, request, timeout=self.client.timeout)
        )
        return self.batch

    def close(self) -> None:
        """Frees the batch on the server (idempotent)."""
        if self._closed:
            return
        _unary(
            self.client._envs.CloseEnvs,
            pb.CloseEnvsRequest(envs_id=self.envs_id),
            timeout=self.client.timeout,
        )
        self._closed = True

    def _end(self) -> None:
        self.close()
