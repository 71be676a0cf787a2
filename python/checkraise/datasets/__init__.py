"""Datasets for offline RL: one seat's trajectories as a Minari dataset, every seat as Parquet.

::

    import checkraise.datasets as crd

    games = crd.play_games("detective_poker(players=2,rounds=1)", ["ismcts", "random"], 100)
    dataset = crd.minari_dataset("checkraise/detective_poker/ismcts-v0", games, seat=0)
    crd.write_multi_agent("games.parquet", games)
    table = crd.load_multi_agent("games.parquet")

A :class:`Trajectory` is one finished game as the engine recorded it: its game string, its
whole history (every chance outcome and seat action, as ``(player, action)`` pairs, chance
``-1``), each seat's kind (a bot spec or ``"human"``), the seed and the returns. They come from

- stored matches: :func:`read_export` reads ``checkraise-server export`` output (JSON lines or
  Parquet), :func:`read_server` a server's ``ListMatches`` and ``GetReplay``;
- :func:`play_arena`: an arena's schedule (every pair of bots, every seating of each deal);
- :func:`play_games`: bots playing every seat (self-play).

Every observation, mask and reward is made here, by replaying a trajectory's history (chance
outcomes included) through the engine: a seat's dataset holds ``state.observation(seat)`` and
``state.action_mask(seat)`` at each of its decisions, what that seat may know and nothing
else, whatever the source stored. A history that does not replay, that does not end the game or
that ends it with other returns than the stored ones is refused with a ``ValueError`` naming the
match.

- :func:`minari_dataset`: a `Minari <https://minari.farama.org>`_ dataset of one seat, episode
  by episode, with the Gymnasium env's spaces (``checkraise.gymnasium.env(game, seat=seat)``)
  and encoding: observations (the initial one to the final one, one more than the actions),
  the seat's actions, its rewards (the change of its return from one of its decisions to the
  next, so that an episode's rewards add up to the seat's return), ``terminations`` (the last
  step), ``truncations`` (never) and ``infos["action_mask"]`` (int8, all zeros at the end).
  Its metadata names the game string, the seat, the bots, every episode's seed and how each
  source was made, so the data can be regenerated. Stored in Minari's ``arrow`` format (no
  HDF5 needed).
- :func:`write_multi_agent`: every seat's decisions of every game as one Parquet file (Minari
  has no multi-agent format yet), its schema in :data:`MULTI_AGENT_COLUMNS`, the same metadata
  in the file's key-value metadata; :func:`load_multi_agent` reads it back as a
  :class:`MultiAgentDataset`.

Needs the ``datasets`` extra (``pip install 'checkraise[datasets]'``: minari, pyarrow,
gymnasium, pillow); the sources need nothing more, but for :func:`read_server` (the ``grpc``
extra).
"""

from __future__ import annotations

from ._common import Trajectory
from ._minari import minari_dataset
from ._multi_agent import (
    MULTI_AGENT_COLUMNS,
    MULTI_AGENT_FORMAT,
    MultiAgentDataset,
    load_multi_agent,
    write_multi_agent,
)
from ._sources import play_arena, play_games, read_export, read_server

__all__ = [
    "MULTI_AGENT_COLUMNS",
    "MULTI_AGENT_FORMAT",
    "MultiAgentDataset",
    "Trajectory",
    "load_multi_agent",
    "minari_dataset",
    "play_arena",
    "play_games",
    "read_export",
    "read_server",
    "write_multi_agent",
]
