"""`checkraise-server export` end to end: the real server plays all-bot matches on a SQLite
file, then the binary exports the store as JSON lines and Parquet; pandas (pyarrow engine),
polars and `json` read the files, and they agree with each other and with what ListMatches
and GetReplay said before the server stopped.

Parquet export is the server's optional `parquet` feature (the release tarball's server has
it): the server tested here is $CHECKRAISE_EXPORT_SERVER (scripts/test.sh points it at the
build `cargo test` made with the feature), else $CHECKRAISE_SERVER, else the release build."""

from __future__ import annotations

import json
import math
import os
import subprocess

import grpc
import numpy as np
import pandas as pd
import polars as pl
import pytest

from grpc_util import Server, server_binary

# (game, parameters, seats): all bots, so that CreateMatch plays each match to its end.
GAMES = [
    ("pokeros", {"board_size": "5"}, ["random", "heuristic"]),
    ("prediction_chess", {"max_turns": "30"}, ["random", "heuristic"]),  # joint actions
    ("detective_poker", {"rounds": "1"}, ["random", "heuristic", "random"]),
]


def binary():
    """The server with Parquet export."""
    if "CHECKRAISE_EXPORT_SERVER" in os.environ:
        return server_binary("CHECKRAISE_EXPORT_SERVER")
    return server_binary()


def export(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(binary()), "export", *args], capture_output=True, text=True, timeout=120
    )


def whole_replay(pb2, matches, match_id: str):
    """Every page of a match's GetReplay, its steps joined into one Replay message."""
    pages = []
    version = 0
    while True:
        page = matches.GetReplay(
            pb2.GetReplayRequest(match_id=match_id, from_version=version, page_size=1000),
            timeout=60,
        )
        pages.append(page)
        if not page.HasField("next_version"):
            break
        version = page.next_version
    return pb2.Replay(
        match=pages[-1].match,
        revealed=pages[-1].revealed,
        steps=[step for page in pages for step in page.steps],
    )


@pytest.fixture(scope="module")
def played(tmp_path_factory, stubs):
    """A SQLite store with finished all-bot matches and one live match, and what the server
    said of them: (database URL, ListMatches summaries by id, GetReplay replies by id, live id).
    """
    pb2, pb2_grpc = stubs
    tmp = tmp_path_factory.mktemp("export")
    database = f"sqlite://{tmp}/matches.sqlite3"
    server = Server("--database", database, binary=binary())
    try:
        with grpc.insecure_channel(server.address) as channel:
            matches = pb2_grpc.MatchesStub(channel)
            finished = []
            for game, params, seats in GAMES:
                for seed in (1, 2):
                    created = matches.CreateMatch(
                        pb2.CreateMatchRequest(
                            game=game, parameters=params, seed=seed, seats=seats
                        ),
                        timeout=120,
                    )
                    finished.append(created.match_id)
            live = matches.CreateMatch(
                pb2.CreateMatchRequest(game="pokeros", seed=3, seats=["human", "random"]),
                timeout=60,
            ).match_id
            listed = matches.ListMatches(pb2.ListMatchesRequest(page_size=1000), timeout=60)
            summaries = {m.match_id: m for m in listed.matches}
            replays = {mid: whole_replay(pb2, matches, mid) for mid in finished}
    finally:
        assert server.stop() == 0, server.log()
    assert summaries[live].status == pb2.MATCH_STATUS_LIVE
    assert all(summaries[mid].status == pb2.MATCH_STATUS_FINISHED for mid in finished)
    return database, summaries, replays, live


@pytest.fixture(scope="module")
def exported(played, tmp_path_factory):
    """The store exported as JSON lines and Parquet, with observations: (directory, jsonl
    records in file order)."""
    database = played[0]
    out = tmp_path_factory.mktemp("exported")
    for fmt in ("jsonl", "parquet"):
        done = export("--database", database, "--format", fmt, "--out", str(out), "--observations")
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith(f"exported {len(played[2])} finished matches"), done.stdout
    lines = (out / "matches.jsonl").read_text().splitlines()
    return out, [json.loads(line) for line in lines]


def test_jsonl_has_every_finished_match_as_the_server_listed_and_replayed_it(played, exported):
    _, summaries, replays, live = played
    _, records = exported
    assert sorted(r["match_id"] for r in records) == sorted(replays)
    assert live not in {r["match_id"] for r in records}
    for r in records:
        summary = summaries[r["match_id"]]
        assert r["game_string"] == summary.game
        assert r["game_string"].startswith(r["game"] + "(")
        assert r["seed"] == summary.seed
        assert r["seats"] == list(summary.seats)
        assert (r["created_ms"], r["finished_ms"]) == (summary.created_ms, summary.finished_ms)
        assert r["version"] == summary.version
        assert r["returns"] == pytest.approx(list(summary.returns))
        assert r["num_steps"] == len(r["steps"])
        # The history as GetReplay gives it: every entry, its text and its version.
        replay = replays[r["match_id"]]
        assert replay.revealed
        entries = [
            (e.player, e.action, e.text, step.version)
            for step in replay.steps
            for e in step.entries
        ]
        steps = [(s["player"], s["action"], s["action_text"], s["version"]) for s in r["steps"]]
        assert steps == entries
        assert [s["idx"] for s in r["steps"]] == list(range(len(steps)))
        # Rewards, seat by seat, add up to the returns.
        totals = np.sum([s["rewards"] for s in r["steps"]], axis=0)
        assert totals == pytest.approx(r["returns"], abs=1e-9)
        # Observations: the acting seat's, flat, of the match's shape; none for chance.
        size = math.prod(r["observation_shape"])
        for s in r["steps"]:
            if s["player"] < 0:
                assert s["observation"] is None
            else:
                assert len(s["observation"]) == size
    assert {r["game"] for r in records} == {game for game, _, _ in GAMES}


def test_pandas_and_polars_read_the_parquet_tables_alike_and_as_the_jsonl(exported):
    out, records = exported
    matches_pd = pd.read_parquet(out / "matches.parquet", engine="pyarrow")
    steps_pd = pd.read_parquet(out / "steps.parquet", engine="pyarrow")
    matches_pl = pl.read_parquet(out / "matches.parquet")
    steps_pl = pl.read_parquet(out / "steps.parquet")

    # Types as documented.
    assert matches_pl.schema["seed"] == pl.UInt64
    assert matches_pl.schema["seats"] == pl.List(pl.String)
    assert matches_pl.schema["returns"] == pl.List(pl.Float64)
    assert matches_pl.schema["observation_shape"] == pl.List(pl.Int64)
    assert steps_pl.schema["player"] == pl.Int32
    assert steps_pl.schema["action"] == pl.Int64
    assert steps_pl.schema["rewards"] == pl.List(pl.Float64)
    assert steps_pl.schema["observation"] == pl.List(pl.Float32)
    assert str(matches_pd["seed"].dtype) == "uint64"
    assert str(steps_pd["player"].dtype) == "int32"
    assert list(matches_pd.columns) == matches_pl.columns
    assert list(steps_pd.columns) == steps_pl.columns

    # pandas and polars give the same rows.
    def plain(value):
        if isinstance(value, np.ndarray):
            return [plain(v) for v in value.tolist()]
        if isinstance(value, np.generic):
            return value.item()
        return value

    for frame_pd, frame_pl in [(matches_pd, matches_pl), (steps_pd, steps_pl)]:
        rows_pd = [{k: plain(v) for k, v in row.items()} for row in frame_pd.to_dict("records")]
        assert rows_pd == frame_pl.to_dicts()

    # The matches table and the JSON lines: the same matches, in the same order.
    assert matches_pl["match_id"].to_list() == [r["match_id"] for r in records]
    for row, r in zip(matches_pl.to_dicts(), records, strict=True):
        assert json.loads(row.pop("parameters")) == r["parameters"]
        assert row["returns"] == pytest.approx(r["returns"])
        assert row["observation_shape"] == r["observation_shape"]
        for key in ("game", "game_string", "seed", "seats", "created_ms", "finished_ms"):
            assert row[key] == r[key], key
        assert (row["version"], row["num_steps"]) == (r["version"], r["num_steps"])

    # The steps table: each match's entries in order, as in the JSON lines.
    assert len(steps_pl) == sum(r["num_steps"] for r in records)
    trajectories = steps_pl.group_by("match_id", maintain_order=True).agg(pl.all())
    assert trajectories["match_id"].to_list() == [r["match_id"] for r in records]
    for t, r in zip(trajectories.to_dicts(), records, strict=True):
        assert t["idx"] == list(range(r["num_steps"]))
        for key in ("version", "player", "action", "action_text"):
            assert t[key] == [s[key] for s in r["steps"]], key
        assert np.allclose(t["rewards"], [s["rewards"] for s in r["steps"]])
        for got, s in zip(t["observation"], r["steps"], strict=True):
            if s["observation"] is None:
                assert got is None
            else:
                assert np.array_equal(
                    np.asarray(got, dtype=np.float32), np.asarray(s["observation"], np.float32)
                )

    # The documented pandas recipe: a batch of one game's seat observations.
    pokeros = matches_pd[matches_pd.game == "pokeros"]
    seat_rows = steps_pd[(steps_pd.player >= 0) & steps_pd.match_id.isin(pokeros.match_id)]
    batch = np.stack(seat_rows.observation.to_list())
    assert batch.dtype == np.float32
    assert batch.shape == (len(seat_rows), math.prod(pokeros.observation_shape.iloc[0]))


def test_game_filter_and_bad_input(played, tmp_path):
    database = played[0]
    done = export(
        "--database", database, "--format", "parquet", "--out", str(tmp_path), "--game", "pokeros"
    )
    assert done.returncode == 0, done.stderr
    games = pl.read_parquet(tmp_path / "matches.parquet")["game"].to_list()
    assert games == ["pokeros", "pokeros"]
    assert "observation" not in pl.read_parquet(tmp_path / "steps.parquet").columns

    bad = export("--database", database, "--format", "csv", "--out", str(tmp_path / "x"))
    assert bad.returncode == 2
    assert bad.stderr.count("\n") == 1 and "unknown format 'csv'" in bad.stderr
    missing = f"sqlite://{tmp_path}/nothing-here.sqlite3"
    bad = export("--database", missing, "--format", "jsonl", "--out", str(tmp_path / "x"))
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1, bad.stderr
    assert not (tmp_path / "x").exists() and not (tmp_path / "nothing-here.sqlite3").exists()
