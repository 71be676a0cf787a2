"""Every seat's trajectories as one Parquet file, and its loader."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from .. import _adapt
from .._core import Game, make
from .._optional import requires
from ._common import (
    EXTRA,
    FEATURE,
    Trajectory,
    check_seat,
    check_trajectories,
    episode_of,
    metadata_of,
    replay,
    rewards_of,
)

if TYPE_CHECKING:
    import pyarrow as pa

#: The ``format`` entry of a multi-agent Parquet file's metadata.
MULTI_AGENT_FORMAT = "checkraise-multi-agent-v1"

#: The key of the multi-agent file's key-value metadata holding the dataset's metadata (JSON),
#: and the one holding its episodes (JSON, one object per episode).
_META_KEY = b"checkraise.metadata"
_EPISODES_KEY = b"checkraise.episodes"

#: The columns of a multi-agent Parquet file, one row per seat decision (and one final row per
#: seat and game), with their meanings.
MULTI_AGENT_COLUMNS: dict[str, str] = {
    "episode": "int32: the game, an index into the file's episodes (0, 1, ...)",
    "step": "int32: the decision step of the game (a joint action's seats share one); "
    "final rows: the number of steps",
    "history_index": "int32: the entry's position in the game's history, chance included; "
    "final rows: the history's length",
    "seat": "int32: the seat deciding",
    "observation": "fixed-size list of float32 (uint8 for observation_type='compact'): the "
    "seat's observation tensor before its action, flat (the shape is in the metadata)",
    "action_mask": "fixed-size list of bool: the seat's legal actions there",
    "action": "int64: the action taken; -1 on final rows",
    "reward": "float64: the change of the seat's return from this decision to its next one "
    "(or the end); the first also counts what the seat earned before it, so a seat's rewards "
    "in a game add up to its return; 0 on final rows",
    "terminated": "bool: the seat's last decision of the game",
    "final": "bool: the seat's observation after the end (mask all false), one per seat and game",
}


def write_multi_agent(
    path: str | os.PathLike[str],
    trajectories: Iterable[Trajectory],
    *,
    game: str | Game | None = None,
    observation_type: str = "observation",
) -> Path:
    """Writes every seat's decisions of every trajectory to the Parquet file ``path``: one row
    per seat decision, then one final row per seat (its observation after the end), episode by
    episode in order, with the columns of :data:`MULTI_AGENT_COLUMNS`; the file's key-value
    metadata holds the dataset's metadata (``checkraise.metadata``: the format, the checkraise
    version, the game string, observation type and shape, the bots, the seeds and the sources)
    and its episodes (``checkraise.episodes``: each one's ``match_id``, ``seed``, ``seats``,
    ``returns`` and ``source``), both JSON. Errors as :func:`minari_dataset`'s. Returns the
    path. Written under a temporary name and renamed, so a failure leaves no partial file."""
    with requires(FEATURE, EXTRA):
        import pyarrow as pa
        import pyarrow.parquet as pq
    g, items = check_trajectories(trajectories, game)
    observation_type = _adapt.check_observation_type(observation_type)
    shape = _adapt.observation_shape(g, observation_type)
    size = math.prod(shape)
    n, num_actions = g.num_players(), g.num_distinct_actions()
    columns: dict[str, list[Any]] = {name: [] for name in MULTI_AGENT_COLUMNS}
    observations: list[npt.NDArray[Any]] = []
    masks: list[npt.NDArray[np.bool_]] = []
    episodes = []
    for e, t in enumerate(items):
        replayed = replay(g, t, observation_type, set(range(n)))
        rewards: dict[int, list[float]] = {}
        last: dict[int, int] = {}
        for s in range(n):
            mine = [d for d in replayed.decisions if d.seat == s]
            rewards[s] = rewards_of(mine, replayed.returns[s]) if mine else []
            if mine:
                last[s] = mine[-1].index
        seen = dict.fromkeys(range(n), 0)
        for d in replayed.decisions:
            columns["episode"].append(e)
            columns["step"].append(d.step)
            columns["history_index"].append(d.index)
            columns["seat"].append(d.seat)
            columns["action"].append(d.action)
            columns["reward"].append(rewards[d.seat][seen[d.seat]])
            columns["terminated"].append(d.index == last[d.seat])
            columns["final"].append(False)
            observations.append(d.observation.reshape(-1))
            masks.append(d.mask)
            seen[d.seat] += 1
        for s in range(n):
            columns["episode"].append(e)
            columns["step"].append(replayed.steps)
            columns["history_index"].append(len(t.history))
            columns["seat"].append(s)
            columns["action"].append(-1)
            columns["reward"].append(0.0)
            columns["terminated"].append(False)
            columns["final"].append(True)
            observations.append(replayed.final[s].reshape(-1))
            masks.append(np.zeros(num_actions, dtype=bool))
        episodes.append(episode_of(t, replayed))
    obs = np.stack(observations)
    obs_type = pa.from_numpy_dtype(obs.dtype)
    arrays: dict[str, pa.Array] = {
        "episode": pa.array(columns["episode"], pa.int32()),
        "step": pa.array(columns["step"], pa.int32()),
        "history_index": pa.array(columns["history_index"], pa.int32()),
        "seat": pa.array(columns["seat"], pa.int32()),
        "observation": pa.FixedSizeListArray.from_arrays(pa.array(obs.reshape(-1), obs_type), size),
        "action_mask": pa.FixedSizeListArray.from_arrays(
            pa.array(np.stack(masks).reshape(-1), pa.bool_()), num_actions
        ),
        "action": pa.array(columns["action"], pa.int64()),
        "reward": pa.array(columns["reward"], pa.float64()),
        "terminated": pa.array(columns["terminated"], pa.bool_()),
        "final": pa.array(columns["final"], pa.bool_()),
    }
    metadata = {"format": MULTI_AGENT_FORMAT, **metadata_of(g, items, observation_type)}
    table = pa.table(arrays).replace_schema_metadata(
        {_META_KEY: json.dumps(metadata), _EPISODES_KEY: json.dumps(episodes)}
    )
    out = Path(path)
    tmp = out.with_name(f".{out.name}.partial")
    pq.write_table(table, tmp)
    tmp.replace(out)
    return out


@dataclass(frozen=True)
class MultiAgentDataset:
    """A multi-agent Parquet file read back (:func:`load_multi_agent`): ``metadata`` and
    ``episodes`` as written, ``table`` the whole ``pyarrow.Table``, and its columns as numpy
    arrays (one entry per row): ``episode``, ``step``, ``seat``, ``observations`` (shaped
    ``[rows, *observation_shape]``), ``action_masks`` (bool ``[rows, num_actions]``),
    ``actions``, ``rewards``, ``terminated`` and ``final``."""

    metadata: dict[str, Any]
    episodes: list[dict[str, Any]]
    table: pa.Table = field(repr=False)
    episode: npt.NDArray[np.int32] = field(repr=False)
    step: npt.NDArray[np.int32] = field(repr=False)
    seat: npt.NDArray[np.int32] = field(repr=False)
    observations: npt.NDArray[Any] = field(repr=False)
    action_masks: npt.NDArray[np.bool_] = field(repr=False)
    actions: npt.NDArray[np.int64] = field(repr=False)
    rewards: npt.NDArray[np.float64] = field(repr=False)
    terminated: npt.NDArray[np.bool_] = field(repr=False)
    final: npt.NDArray[np.bool_] = field(repr=False)

    @property
    def game(self) -> str:
        """The game string."""
        return str(self.metadata["game"])

    def transitions(self, seat: int | None = None) -> dict[str, npt.NDArray[Any]]:
        """Every decision of ``seat`` (``None``: of every seat) as offline-RL transitions, in
        file order: ``observations``, ``action_masks``, ``actions``, ``rewards``,
        ``next_observations`` and ``next_action_masks`` (the seat's next decision's, or its
        final observation and an all-false mask), ``terminated``, ``episode``, ``seat``."""
        rows = ~self.final
        if seat is not None:
            rows &= self.seat == check_seat(make(self.game), seat)
        index = np.flatnonzero(rows)
        # A seat's next row in the same episode: its next decision, or its final row.
        order = np.lexsort((np.arange(len(self.seat)), self.seat, self.episode))
        position = np.empty_like(order)
        position[order] = np.arange(len(order))
        following = order[np.minimum(position[index] + 1, len(order) - 1)]
        return {
            "observations": self.observations[index],
            "action_masks": self.action_masks[index],
            "actions": self.actions[index],
            "rewards": self.rewards[index],
            "next_observations": self.observations[following],
            "next_action_masks": self.action_masks[following],
            "terminated": self.terminated[index],
            "episode": self.episode[index],
            "seat": self.seat[index],
        }


def load_multi_agent(path: str | os.PathLike[str]) -> MultiAgentDataset:
    """Reads a file :func:`write_multi_agent` wrote; a Parquet file without its metadata, or
    of another format, raises ``ValueError``. (Any Parquet reader reads the file too:
    ``polars.read_parquet(path)``, ``pandas.read_parquet(path)``.)"""
    with requires(FEATURE, EXTRA):
        import pyarrow.parquet as pq
    table = pq.read_table(path)
    meta = table.schema.metadata or {}
    if _META_KEY not in meta or _EPISODES_KEY not in meta:
        raise ValueError(f"{path} is not a checkraise multi-agent dataset (no checkraise.metadata)")
    metadata = json.loads(meta[_META_KEY])
    if metadata.get("format") != MULTI_AGENT_FORMAT:
        raise ValueError(f"{path} has format {metadata.get('format')!r}, not {MULTI_AGENT_FORMAT}")
    missing = [c for c in MULTI_AGENT_COLUMNS if c not in table.column_names]
    if missing:
        raise ValueError(f"{path} has no column {', '.join(missing)}")
    shape = tuple(metadata["observation_shape"])

    def flat(name: str) -> npt.NDArray[Any]:
        column = table.column(name).combine_chunks()
        return np.asarray(column.flatten().to_numpy(zero_copy_only=False))

    rows = table.num_rows
    return MultiAgentDataset(
        metadata=metadata,
        episodes=json.loads(meta[_EPISODES_KEY]),
        table=table,
        episode=table.column("episode").to_numpy(),
        step=table.column("step").to_numpy(),
        seat=table.column("seat").to_numpy(),
        observations=flat("observation").reshape(rows, *shape),
        action_masks=flat("action_mask").astype(bool).reshape(rows, -1),
        actions=table.column("action").to_numpy(),
        rewards=table.column("reward").to_numpy(),
        terminated=table.column("terminated").to_numpy(zero_copy_only=False),
        final=table.column("final").to_numpy(zero_copy_only=False),
    )
