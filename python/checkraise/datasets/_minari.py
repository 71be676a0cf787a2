"""One seat's trajectories as a Minari dataset."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import _adapt
from .._core import Bot, Game
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
    import minari


def minari_dataset(
    dataset_id: str,
    trajectories: Iterable[Trajectory],
    seat: int,
    *,
    game: str | Game | None = None,
    observation_type: str = "observation",
    eval_opponent: str = "random",
    author: str | None = None,
    author_email: str | None = None,
    code_permalink: str | None = None,
    description: str | None = None,
) -> minari.MinariDataset:
    """A Minari dataset ``dataset_id`` (``"checkraise/pokeros/ismcts-v0"``; Minari keeps it
    under ``$MINARI_DATASETS_PATH``) of ``seat``'s side of each trajectory, replayed through
    the engine (see the module docstring).

    ``game`` (default: the first trajectory's) must be every trajectory's game, parameters
    included, else ``ValueError`` naming the match. A game in which ``seat`` never decided
    (one that ended before its turn) cannot be an episode and is left out; the metadata counts
    it (``skipped_episodes``). ``observation_type`` is the Gymnasium env's (``"observation"``,
    ``"information_state"`` or ``"compact"``), and so are the spaces. The dataset's env is
    ``checkraise.gymnasium.env(game, opponent=eval_opponent, seat=seat, ...)``
    (``dataset.recover_environment()`` makes it). ``author``, ``author_email``,
    ``code_permalink`` and ``description`` are Minari's (it warns when they are missing).

    The dataset's metadata (``dataset.storage.metadata``) adds ``checkraise_version``,
    ``game``, ``seat``, ``observation_type``, ``observation_shape``, ``num_actions``, ``bots``
    (every seat kind), ``seeds`` (each trajectory's), ``sources`` (how each was made: enough
    to regenerate it) and ``skipped_episodes``; each episode's metadata
    (``dataset.storage.get_episode_metadata([i])``) its ``match_id``, ``match_seed``,
    ``seats``, ``returns`` and ``source``."""
    with requires(FEATURE, EXTRA):
        import gymnasium
        import minari
        from minari.data_collector import EpisodeBuffer

        from .. import gymnasium as cr_gymnasium
    if not isinstance(dataset_id, str):
        raise TypeError(f"dataset_id must be a str, not {type(dataset_id).__name__}")
    root = os.environ.get("MINARI_DATASETS_PATH")
    if root is not None and not os.path.isabs(root):
        raise ValueError(
            f"MINARI_DATASETS_PATH is {root!r}: make it an absolute path (Minari 0.5 fails "
            "to write a dataset under a relative one)"
        )
    g, items = check_trajectories(trajectories, game)
    seat = check_seat(g, seat)
    observation_type = _adapt.check_observation_type(observation_type)
    eval_spec = Bot(g, eval_opponent).spec
    num_actions = g.num_distinct_actions()
    buffers: list[EpisodeBuffer] = []
    episodes: list[dict[str, Any]] = []
    skipped = 0
    for t in items:
        replayed = replay(g, t, observation_type, {seat})
        mine = replayed.decisions
        if not mine:
            skipped += 1
            continue
        rewards = rewards_of(mine, replayed.returns[seat])
        masks = np.zeros((len(mine) + 1, num_actions), dtype=np.int8)
        masks[:-1] = np.stack([d.mask for d in mine])
        buffers.append(
            EpisodeBuffer(
                id=len(buffers),
                observations=np.stack([d.observation for d in mine] + [replayed.final[seat]]),
                actions=np.asarray([d.action for d in mine], dtype=np.int64),
                rewards=rewards,
                terminations=[False] * (len(mine) - 1) + [True],
                truncations=[False] * len(mine),
                infos={"action_mask": masks},
            )
        )
        episode = episode_of(t, replayed)
        episode["match_seed"] = episode.pop("seed")
        episodes.append(episode)
    if not buffers:
        raise ValueError(f"seat {seat} has no decision in any of the {len(items)} games")
    metadata = metadata_of(g, items, observation_type)
    metadata.update(seat=seat, skipped_episodes=skipped)
    env_spec = gymnasium.spec(cr_gymnasium.env_id(g.name))
    env_spec = dataclasses.replace(
        env_spec,
        kwargs={
            **env_spec.kwargs,
            **g.parameters,
            "seat": seat,
            "opponent": eval_spec,
            "observation_type": observation_type,
        },
        max_episode_steps=g.max_game_length(),
    )
    env = cr_gymnasium.env(g, eval_spec, seat, observation_type=observation_type)
    dataset = minari.create_dataset_from_buffers(
        dataset_id,
        buffers,
        env=env_spec,
        eval_env=env_spec,
        algorithm_name=f"checkraise bots: {', '.join(metadata['bots'])}",
        author=author,
        author_email=author_email,
        code_permalink=code_permalink,
        observation_space=env.observation_space,
        action_space=env.action_space,
        description=description
        or (
            f"Seat {seat} of {len(buffers)} games of {g} played by {', '.join(metadata['bots'])}"
            " (checkraise.datasets)"
        ),
        data_format="arrow",
    )
    dataset.storage.update_metadata(metadata)
    dataset.storage.update_episode_metadata(episodes, range(len(episodes)))
    return dataset
