"""Where trajectories come from: self-play, an arena's schedule, a server's stored matches and
``checkraise-server export`` output."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .._core import Bot, Game, Match, make
from .._optional import requires
from ._common import EXTRA, FEATURE, Trajectory, game_of

if TYPE_CHECKING:
    from ..arena import ArenaResult
    from ..client import Client


def _specs(game: Game, bots: str | Sequence[str], what: str) -> list[str]:
    """Each seat's canonical bot spec (a spec for every seat, or one per seat)."""
    n = game.num_players()
    if isinstance(bots, str):
        bots = [bots] * n
    if not isinstance(bots, Sequence) or not all(isinstance(b, str) for b in bots):
        raise TypeError(f"{what} must be a bot spec or a list of them, not {bots!r}")
    if len(bots) != n:
        raise ValueError(f"{what}: {len(bots)} bot specs for {game.name}'s {n} seats")
    return [Bot(game, spec).spec for spec in bots]


def _count(value: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{what} must be a positive integer, not {value!r}")
    return int(value)


def _seed(value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"seed must be an int, not {type(value).__name__}")
    if not 0 <= value < 2**64:
        raise ValueError(f"seed must be from 0 to 2**64 - 1, not {value}")
    return int(value)


def _played(game: Game, specs: Sequence[str], seed: int, source: Mapping[str, Any]) -> Trajectory:
    play = Match(game, list(specs), seed)
    if play.start() != "over":
        raise RuntimeError(f"{game} with bots {list(specs)} stopped before the end")
    return Trajectory(
        game=str(game),
        history=tuple((int(p), int(a)) for p, a in play.state().full_history()),
        seats=tuple(specs),
        seed=seed,
        returns=tuple(float(r) for r in play.returns()),
        source=source,
    )


def play_games(
    game: str | Game,
    bots: str | Sequence[str],
    games: int,
    seed: int = 0,
    *,
    rotate: bool = False,
) -> list[Trajectory]:
    """``games`` games of ``bots`` (one spec for every seat, or one per seat), game ``i`` a
    ``checkraise.Match`` with seed ``seed + i`` (its chance and every bot's generator, as a
    gRPC match with that seed); with ``rotate`` game ``i`` seats the bots rotated by ``i``
    (seat ``s`` plays ``bots[(s + i) % n]``), so each bot plays every seat. Every bot acts on a
    state resampled from its own seat's information. The same arguments give the same games."""
    g = game_of(game)
    specs = _specs(g, bots, "bots")
    count = _count(games, "games")
    seed = _seed(seed)
    n = g.num_players()
    source = {
        "kind": "self_play",
        "game": str(g),
        "bots": specs,
        "games": count,
        "seed": seed,
        "rotate": bool(rotate),
    }
    out = []
    for i in range(count):
        seating = [specs[(s + i) % n] for s in range(n)] if rotate else specs
        out.append(_played(g, seating, (seed + i) % 2**64, source))
    return out


def _mix(parts: Sequence[int]) -> int:
    """The arena's seed mixer (``checkraise_core::arena``'s SplitMix64 of a tuple)."""
    mask = 2**64 - 1
    h = 0x243F_6A88_85A3_08D3
    for p in parts:
        h = (h + p + 0x9E37_79B9_7F4A_7C15) & mask
        z = h
        z = ((z ^ (z >> 30)) * 0xBF58_476D_1CE4_E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D0_49BB_1331_11EB) & mask
        h = z ^ (z >> 31)
    return h


def _seatings(n: int) -> list[list[int]]:
    """The arena's seatings of a pair at ``n`` seats (``checkraise_core::arena::seatings``)."""
    out: list[list[int]] = []
    for first in range(2):
        for shift in range(n):
            seating = [((s + shift) % n + first) % 2 for s in range(n)]
            if seating not in out:
                out.append(seating)
    return out


def play_arena(
    game: str | Game | ArenaResult,
    bots: Sequence[str] | None = None,
    deals: int = 100,
    seed: int = 0,
) -> list[Trajectory]:
    """The games of an arena run (``checkraise.arena.run(game, bots, deals, seed)``'s
    schedule): every pair of ``bots`` (in order, each once), ``deals`` deals per pair, each deal
    played with every seating of the pair (the arena's: the two bots alternate around the
    table in every distinct rotation). Deal ``d`` of every pair and seating is a
    ``checkraise.Match`` with the arena's chance seed of deal ``d``, so its chance stream is
    the same in every seating (duplicate deals). The engine's arena keeps no histories, so its
    games are played again here: the bots' generators are the match's own (seeded from the
    same seed), not the arena's, and games of bots that draw random numbers differ from the
    arena's; the same arguments give the same games.

    ``game`` may be an :class:`checkraise.arena.ArenaResult`: its game, bots, deals and seed."""
    if bots is None:
        if isinstance(game, (str, Game)):
            raise TypeError("play_arena needs bots (a list of bot specs) or an ArenaResult")
        result = game
        game, bots, deals, seed = result.game, list(result.bots), result.deals, result.seed
    assert isinstance(game, (str, Game))
    g = game_of(game)
    if isinstance(bots, str) or not isinstance(bots, Sequence):
        raise TypeError(f"bots must be a list of bot specs, not {type(bots).__name__}")
    specs = [Bot(g, spec).spec for spec in bots]
    if len(specs) < 2 or len(set(specs)) != len(specs):
        raise ValueError(f"bots must be two or more distinct bot specs, not {list(bots)}")
    count = _count(deals, "deals")
    seed = _seed(seed)
    source = {"kind": "arena", "game": str(g), "bots": specs, "deals": count, "seed": seed}
    out = []
    for a in range(len(specs)):
        for b in range(a + 1, len(specs)):
            for d in range(count):
                chance_seed = _mix([seed, d])
                for seating in _seatings(g.num_players()):
                    seats = [specs[a] if w == 0 else specs[b] for w in seating]
                    out.append(_played(g, seats, chance_seed, source))
    return out


def _export_files(path: Path) -> tuple[str, Path, Path | None]:
    """(format, matches file, steps file) of an export at ``path`` (a directory or a file)."""
    if path.is_dir():
        if (path / "matches.parquet").exists():
            return "parquet", path / "matches.parquet", path / "steps.parquet"
        if (path / "matches.jsonl").exists():
            return "jsonl", path / "matches.jsonl", None
        raise ValueError(
            f"{path} holds no checkraise-server export (matches.jsonl or matches.parquet)"
        )
    if not path.exists():
        raise ValueError(f"{path} does not exist")
    if path.suffix == ".jsonl":
        return "jsonl", path, None
    if path.suffix == ".parquet":
        return "parquet", path.with_name("matches.parquet"), path.with_name("steps.parquet")
    raise ValueError(f"{path} is not an export's matches.jsonl or a .parquet file")


def _stored(
    match_id: str,
    game: str,
    history: Iterable[tuple[int, int]],
    record: Mapping[str, Any],
    source: Mapping[str, Any],
) -> Trajectory:
    return Trajectory(
        game=game,
        history=tuple((int(p), int(a)) for p, a in history),
        seats=tuple(str(s) for s in record["seats"]),
        seed=int(record["seed"]),
        returns=tuple(float(r) for r in record["returns"]),
        match_id=match_id,
        source=source,
    )


def _same_game(stored: str, wanted: Game | None) -> bool:
    return wanted is None or make(stored) == wanted


def read_export(path: str | os.PathLike[str], game: str | Game | None = None) -> list[Trajectory]:
    """The matches of a ``checkraise-server export``: ``path`` is its output directory (its
    ``matches.parquet`` and ``steps.parquet``, else its ``matches.jsonl``) or one of those
    files. With ``game`` (a name or game string: its parameters count), only that game's
    matches. Observations stored by ``--observations`` are not read: they are made again from
    the history."""
    where = Path(path)
    fmt, matches_file, steps_file = _export_files(where)
    wanted = game_of(game) if game is not None else None
    source = {"kind": "export", "path": str(where)}
    out = []
    if fmt == "jsonl":
        with open(matches_file, encoding="utf-8") as lines:
            for number, line in enumerate(lines, 1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                    match_id, game_string = record["match_id"], record["game_string"]
                    history = [(s["player"], s["action"]) for s in record["steps"]]
                except (ValueError, KeyError, TypeError) as error:
                    raise ValueError(
                        f"{matches_file}:{number} is not an exported match: {error!r}"
                    ) from None
                if _same_game(game_string, wanted):
                    out.append(_stored(match_id, game_string, history, record, source))
        return out
    with requires(FEATURE, EXTRA):
        import pyarrow.parquet as pq
    assert steps_file is not None
    if not steps_file.exists():
        raise ValueError(f"{steps_file} does not exist (an export writes it with matches.parquet)")
    matches = pq.read_table(
        matches_file, columns=["match_id", "game_string", "seed", "seats", "returns"]
    ).to_pylist()
    steps = pq.read_table(steps_file, columns=["match_id", "idx", "player", "action"]).to_pydict()
    histories: dict[str, list[tuple[int, int, int]]] = {}
    for match_id, idx, player, action in zip(
        steps["match_id"], steps["idx"], steps["player"], steps["action"], strict=True
    ):
        histories.setdefault(match_id, []).append((idx, player, action))
    for record in matches:
        if not _same_game(record["game_string"], wanted):
            continue
        entries = sorted(histories.get(record["match_id"], []))
        out.append(
            _stored(
                record["match_id"],
                record["game_string"],
                [(p, a) for _, p, a in entries],
                record,
                source,
            )
        )
    return out


def read_server(
    client: Client | str,
    game: str | Game | None = None,
    *,
    match_ids: Sequence[str] | None = None,
) -> list[Trajectory]:
    """Finished matches of a ``checkraise-server`` (a ``checkraise.client.Client`` or its
    address): every one ``ListMatches`` lists (with ``game``, a name or game string, only that
    game's), or the ones of ``match_ids``, each history read with ``GetReplay`` (every entry,
    chance included, once a match is over). A listed id that is not finished raises
    ``ValueError``."""
    from ..client import Client

    if isinstance(client, str):
        with Client(client, timeout=60) as own:
            return read_server(own, game, match_ids=match_ids)
    wanted = game_of(game) if game is not None else None
    source = {"kind": "server", "address": client.address}
    if match_ids is None:
        summaries = list(
            client.list_matches(game=wanted.name if wanted else None, status="finished")
        )
    else:
        if isinstance(match_ids, str):
            raise TypeError("match_ids is a list of match ids")
        by_id = {m.match_id: m for m in client.list_matches()}
        missing = [m for m in match_ids if m not in by_id]
        if missing:
            raise ValueError(f"the server lists no match {', '.join(missing)}")
        summaries = [by_id[m] for m in match_ids]
    out = []
    for summary in summaries:
        if summary.status != "finished":
            raise ValueError(f"match {summary.match_id} is {summary.status}, not finished")
        if not _same_game(summary.game, wanted):
            continue
        history: list[tuple[int, int]] = []
        for step in client.iter_replay(summary.match_id, page_size=1000):
            history.extend((e.player, e.action) for e in step.entries)
        record = {"seats": summary.seats, "seed": summary.seed, "returns": summary.returns}
        out.append(_stored(summary.match_id, summary.game, history, record, source))
    return out
