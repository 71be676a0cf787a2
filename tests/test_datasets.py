"""checkraise.datasets: Minari datasets of one seat and Parquet files of every seat, built from
self-play, arena schedules, a real server's ListMatches and GetReplay, and `checkraise-server
export` output; Minari's own loader reads every dataset back and the checks of Minari's test
suite (every episode's lengths, spaces and flags) pass on it; a seat's data is what the seat
may observe and nothing else; bad input raises errors that say what is wrong.

The server is $CHECKRAISE_SERVER (else the release build); the Parquet export needs one built
with the `parquet` feature ($CHECKRAISE_EXPORT_SERVER, as in tests/test_export.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace

import minari
import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import checkraise as cr
import checkraise.datasets as crd
from grpc_util import ROOT, Server, server_binary
from run_util import run_python

# Two seats, one round: hidden cards, chance between decisions, games of about 8 decisions.
GAME = "detective_poker(players=2,rounds=1)"
# Simultaneous moves: a joint action's entries are one step of every seat.
JOINT = "prediction_chess(max_turns=6)"
MINARI_KWARGS = {"author": "checkraise tests", "author_email": "none", "code_permalink": "tests"}


@pytest.fixture(autouse=True)
def minari_root(tmp_path, monkeypatch):
    """Minari keeps its datasets in a directory of each test's own."""
    root = tmp_path / "minari"
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(root))
    return root


@pytest.fixture(scope="module")
def games():
    return crd.play_games(GAME, ["heuristic", "random"], 8, seed=5, rotate=True)


def build(dataset_id, trajectories, seat, **kwargs):
    return crd.minari_dataset(dataset_id, trajectories, seat, **MINARI_KWARGS, **kwargs)


def check_minari(dataset_id, trajectories, seat, observation_type="observation"):
    """Loads the dataset with Minari's loader and runs the checks of Minari's own test suite
    (tests/common.py's check_data_integrity: lengths, spaces, flags, totals) on it, plus ours:
    the spaces are the Gymnasium env's, rewards add up to the seat's return, each action is
    legal under the mask stored with it, and the metadata regenerates the games."""
    assert dataset_id in minari.list_local_datasets()
    dataset = minari.load_dataset(dataset_id)
    game = cr.make(trajectories[0].game)
    env = cr.gymnasium.env(game, seat=seat, observation_type=observation_type)
    assert dataset.observation_space == env.observation_space
    assert dataset.action_space == env.action_space
    episodes = list(dataset.iterate_episodes())
    assert len(episodes) == dataset.total_episodes == len(trajectories)
    assert sum(len(e) for e in episodes) == dataset.total_steps
    returns = []
    for episode, meta in zip(
        episodes, dataset.storage.get_episode_metadata(dataset.episode_indices), strict=True
    ):
        t = len(episode)
        assert t >= 1 and meta["total_steps"] == t and meta["id"] == episode.id
        assert len(episode.observations) == t + 1 and len(episode.actions) == t
        assert len(episode.rewards) == len(episode.terminations) == len(episode.truncations) == t
        for obs in episode.observations:
            assert obs in dataset.observation_space
        for action in episode.actions:
            assert action in dataset.action_space
        assert list(episode.terminations) == [False] * (t - 1) + [True]
        assert not episode.truncations.any()
        masks = episode.infos["action_mask"]
        assert masks.dtype == np.int8 and masks.shape == (t + 1, game.num_distinct_actions())
        assert all(masks[i, a] == 1 for i, a in enumerate(episode.actions))
        assert not masks[-1].any()
        assert np.sum(episode.rewards) == pytest.approx(meta["returns"][seat])
        returns.append(meta["returns"])
    assert [list(t.returns) for t in trajectories] == returns
    sampled = dataset.sample_episodes(2)
    assert len(sampled) == 2
    metadata = dataset.storage.metadata
    assert cr.make(metadata["game"]) == game
    assert metadata["seat"] == seat and metadata["observation_type"] == observation_type
    assert metadata["checkraise_version"] == cr.__version__
    assert metadata["seeds"] == [t.seed for t in trajectories]
    assert metadata["bots"] == sorted({s for t in trajectories for s in t.seats})
    recovered = dataset.recover_environment()
    assert recovered.observation_space == dataset.observation_space
    recovered.reset(seed=0)
    return dataset, episodes


def test_a_self_play_dataset_reads_back_in_minari_and_regenerates_from_its_metadata(games):
    build("checkraise/detective_poker/self-play-v0", games, 1)
    dataset, episodes = check_minari("checkraise/detective_poker/self-play-v0", games, 1)
    # Rotated seats: each bot plays seat 1 in half the games.
    assert [t.seats[1] for t in games] == ["random", "heuristic"] * 4
    # The metadata says how the games were made; playing them again gives the same dataset.
    (source,) = dataset.storage.metadata["sources"]
    assert source["kind"] == "self_play"
    again = crd.play_games(
        source["game"], source["bots"], source["games"], source["seed"], rotate=source["rotate"]
    )
    assert again == games
    rebuilt = build("checkraise/detective_poker/again-v0", again, 1)
    for a, b in zip(episodes, rebuilt.iterate_episodes(), strict=True):
        assert np.array_equal(a.observations, b.observations)
        assert np.array_equal(a.actions, b.actions)
    # Another seed plays other games.
    assert crd.play_games(GAME, ["heuristic", "random"], 8, seed=6, rotate=True) != games


def test_information_state_observations(games):
    build(
        "checkraise/detective_poker/infostate-v0",
        games[:3],
        0,
        observation_type="information_state",
    )
    _, episodes = check_minari(
        "checkraise/detective_poker/infostate-v0", games[:3], 0, "information_state"
    )
    size = cr.make(GAME).information_state_tensor_size()
    assert episodes[0].observations.shape[1:] == (size,)


def test_a_seats_dataset_holds_what_that_seat_observes_and_nothing_hidden(games):
    """Each stored observation and mask is the seat's own (state.observation(seat) at its
    decision), and they are unchanged when everything the seat cannot see is resampled: the
    dataset is a function of the seat's information alone. The resamples do change what the
    other seat sees (its cards), so the check would catch a leak."""
    seat, other = 0, 1
    dataset = build("checkraise/detective_poker/private-v0", games, seat)
    game = cr.make(GAME)
    hidden_changed = 0
    for t, episode in zip(games, dataset.iterate_episodes(), strict=True):
        state = game.new_initial_state()
        k = 0
        for player, action in t.history:
            if player == seat:
                obs = episode.observations[k]
                assert np.array_equal(obs, state.observation(seat))
                assert np.array_equal(episode.infos["action_mask"][k], state.action_mask(seat))
                assert not np.array_equal(obs, state.observation(other))
                for r in range(3):
                    resampled = state.resample_from_infostate(seat, 100 * k + r)
                    assert np.array_equal(resampled.observation(seat), obs)
                    assert np.array_equal(resampled.action_mask(seat), state.action_mask(seat))
                    if not np.array_equal(resampled.observation(other), state.observation(other)):
                        hidden_changed += 1
                k += 1
            state.apply_action(action)
        assert k == len(episode)
        assert np.array_equal(episode.observations[k], state.observation(seat))
    assert hidden_changed > 0


def test_the_multi_agent_file_keeps_every_seat_and_loads_back(games, tmp_path):
    path = crd.write_multi_agent(tmp_path / "games.parquet", games)
    assert not list(tmp_path.glob(".*partial"))
    data = crd.load_multi_agent(path)
    game = cr.make(GAME)
    assert cr.make(data.game) == game
    meta = data.metadata
    assert meta["format"] == crd.MULTI_AGENT_FORMAT
    assert meta["checkraise_version"] == cr.__version__
    assert meta["seeds"] == [t.seed for t in games] and meta["bots"] == ["heuristic", "random"]
    assert [e["returns"] for e in data.episodes] == [list(t.returns) for t in games]
    # The documented schema, read by another Parquet reader too.
    schema = pq.read_schema(path)
    assert schema.names == list(crd.MULTI_AGENT_COLUMNS)
    assert schema.field("observation").type == pa.list_(pa.float32(), game.observation_size)
    assert schema.field("action_mask").type == pa.list_(pa.bool_(), game.num_distinct_actions())
    frame = pl.read_parquet(path)
    assert len(frame) == len(data.actions)
    per_seat = (
        frame.filter(~pl.col("final")).group_by("episode", "seat").agg(pl.col("reward").sum())
    )
    for row in per_seat.iter_rows(named=True):
        assert row["reward"] == pytest.approx(games[row["episode"]].returns[row["seat"]])
    # One final row per seat and game.
    assert int(data.final.sum()) == len(games) * game.num_players()
    # Seat 0's rows are the seat-0 Minari dataset.
    dataset = build("checkraise/detective_poker/seat0-v0", games, 0)
    mine = data.transitions(0)
    episodes = list(dataset.iterate_episodes())
    assert np.array_equal(
        mine["observations"], np.concatenate([e.observations[:-1] for e in episodes])
    )
    assert np.array_equal(
        mine["next_observations"], np.concatenate([e.observations[1:] for e in episodes])
    )
    assert np.array_equal(mine["actions"], np.concatenate([e.actions for e in episodes]))
    assert np.allclose(mine["rewards"], np.concatenate([e.rewards for e in episodes]))
    assert np.array_equal(mine["terminated"], np.concatenate([e.terminations for e in episodes]))
    assert np.array_equal(
        mine["action_masks"], np.concatenate([e.infos["action_mask"][:-1] for e in episodes]) == 1
    )
    everyone = data.transitions()
    assert len(everyone["actions"]) == int((~data.final).sum())
    assert everyone["action_masks"][np.arange(len(everyone["actions"])), everyone["actions"]].all()


def test_joint_actions_are_one_step_of_every_seat(tmp_path):
    trajectories = crd.play_games(JOINT, "random", 2, seed=3)
    data = crd.load_multi_agent(crd.write_multi_agent(tmp_path / "joint.parquet", trajectories))
    decisions = ~data.final
    for e in range(2):
        rows = decisions & (data.episode == e)
        steps = data.step[rows]
        # Both seats choose at every step of Prediction Chess.
        assert np.array_equal(np.sort(data.seat[rows][steps == steps[0]]), [0, 1])
        assert len(steps) == 2 * len(set(steps.tolist()))
    build("checkraise/prediction_chess/joint-v0", trajectories, 1)
    check_minari("checkraise/prediction_chess/joint-v0", trajectories, 1)


def test_arena_games_rotate_the_seats_over_duplicate_deals():
    result = cr.arena.run(GAME, ["heuristic", "random"], deals=2, seed=4, progress=False)
    games = crd.play_arena(result)
    assert games == crd.play_arena(GAME, ["heuristic", "random"], 2, 4)
    assert [t.seats for t in games] == [("heuristic", "random"), ("random", "heuristic")] * 2
    # The two seatings of a deal are dealt the same cards before the first decision.
    for a, b in (games[0:2], games[2:4]):
        deal = a.history[: next(i for i, e in enumerate(a.history) if e[0] >= 0)]
        assert deal and b.history[: len(deal)] == deal
    assert games[0].history[:3] != games[2].history[:3]
    (source,) = {json.dumps(dict(t.source)) for t in games}
    assert json.loads(source) == {
        "kind": "arena",
        "game": str(cr.make(GAME)),
        "bots": ["heuristic", "random"],
        "deals": 2,
        "seed": 4,
    }
    build("checkraise/detective_poker/arena-v0", games, 0)
    check_minari("checkraise/detective_poker/arena-v0", games, 0)


# -- stored matches: a real server, and its export -------------------------------------------


def export_binary():
    if "CHECKRAISE_EXPORT_SERVER" in os.environ:
        return server_binary("CHECKRAISE_EXPORT_SERVER")
    return server_binary()


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """All-bot matches played by a real server on SQLite, read back with ListMatches and
    GetReplay (checkraise.datasets.read_server), and the store exported as JSON lines."""
    from checkraise.client import Client

    tmp = tmp_path_factory.mktemp("stored")
    database = f"sqlite://{tmp}/matches.sqlite3"
    server = Server("--database", database, binary=export_binary())
    try:
        with Client(server.address, timeout=60) as client:
            client.wait_ready()
            for seed in (11, 12, 13):
                client.create_match(
                    "detective_poker", seed=seed, seats=["random", "heuristic"], players=2, rounds=1
                )
            client.create_match("prediction_chess", seed=1, seats=["random", "random"], max_turns=6)
            live = client.create_match(
                "detective_poker", seats=["human", "heuristic"], players=2, rounds=1
            ).match_id
            summaries = {m.match_id: m for m in client.list_matches()}
            from_server = crd.read_server(client, GAME)
            everything = crd.read_server(client)
            with pytest.raises(ValueError, match=f"match {live} is live, not finished"):
                crd.read_server(client, match_ids=[live])
    finally:
        assert server.stop() == 0, server.log()
    out = tmp / "exported"
    done = subprocess.run(
        [
            str(export_binary()),
            "export",
            "--database",
            database,
            "--format",
            "jsonl",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return database, out, summaries, from_server, everything


def test_server_matches_make_a_dataset_and_regenerate_from_their_seeds(stored):
    _, _, summaries, from_server, everything = stored
    assert len(from_server) == 3 and len(everything) == 4
    for t in from_server:
        summary = summaries[t.match_id]
        assert (t.seed, t.seats, t.returns) == (summary.seed, summary.seats, summary.returns)
        assert cr.make(t.game) == cr.make(GAME)
        # A match of bots is regenerated from its seed and seats by checkraise.Match.
        (again,) = crd.play_games(GAME, list(t.seats), 1, t.seed)
        assert again.history == t.history and again.returns == t.returns
    build("checkraise/detective_poker/server-v0", from_server, 1)
    dataset, _ = check_minari("checkraise/detective_poker/server-v0", from_server, 1)
    assert dataset.storage.metadata["sources"][0]["kind"] == "server"
    episodes = dataset.storage.get_episode_metadata(dataset.episode_indices)
    assert [e["match_id"] for e in episodes] == [t.match_id for t in from_server]
    # A store of two games cannot be one game's dataset without choosing the game.
    with pytest.raises(ValueError, match=r"is a game of prediction_chess\(.*not of detective"):
        build("checkraise/detective_poker/mixed-v0", everything, 0)


def test_exported_matches_are_the_server_matches(stored, tmp_path):
    _, out, _, from_server, everything = stored
    assert crd.read_export(out, GAME) == from_server
    assert crd.read_export(out / "matches.jsonl") == everything
    # The Parquet layout of docs/storage.md, written from the JSON lines, reads the same.
    records = [json.loads(line) for line in (out / "matches.jsonl").read_text().splitlines()]
    pq.write_table(
        pa.table(
            {
                "match_id": [r["match_id"] for r in records],
                "game_string": [r["game_string"] for r in records],
                "seed": pa.array([r["seed"] for r in records], pa.uint64()),
                "seats": [r["seats"] for r in records],
                "returns": [r["returns"] for r in records],
            }
        ),
        tmp_path / "matches.parquet",
    )
    steps = [(r["match_id"], s) for r in reversed(records) for s in reversed(r["steps"])]
    pq.write_table(
        pa.table(
            {
                "match_id": [m for m, _ in steps],
                "idx": pa.array([s["idx"] for _, s in steps], pa.int64()),
                "player": pa.array([s["player"] for _, s in steps], pa.int32()),
                "action": pa.array([s["action"] for _, s in steps], pa.int64()),
            }
        ),
        tmp_path / "steps.parquet",
    )
    assert crd.read_export(tmp_path) == everything
    build("checkraise/detective_poker/export-v0", crd.read_export(out, GAME), 0)
    check_minari("checkraise/detective_poker/export-v0", from_server, 0)


def test_the_servers_parquet_export_reads_as_its_json_lines(stored, tmp_path):
    database, _, _, _, everything = stored
    done = subprocess.run(
        [
            str(export_binary()),
            "export",
            "--database",
            database,
            "--format",
            "parquet",
            "--out",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    if done.returncode == 2 and "without Parquet export" in done.stderr:
        if "CHECKRAISE_EXPORT_SERVER" in os.environ:
            pytest.fail(f"$CHECKRAISE_EXPORT_SERVER has no Parquet export: {done.stderr}")
        pytest.skip("this server was built without the parquet feature")
    assert done.returncode == 0, done.stderr
    assert crd.read_export(tmp_path) == everything


# -- bad input ---------------------------------------------------------------------------------


def test_bad_input_is_refused_saying_why(games, tmp_path):
    with pytest.raises(cr.UnknownGameError):
        crd.play_games("no_such_game", "random", 1)
    with pytest.raises(ValueError, match="3 bot specs for detective_poker's 2 seats"):
        crd.play_games(GAME, ["random"] * 3, 1)
    with pytest.raises(cr.ParameterError):
        crd.play_games(GAME, "alphazero", 1)
    with pytest.raises(ValueError, match="games must be a positive integer"):
        crd.play_games(GAME, "random", 0)
    with pytest.raises(ValueError, match="two or more distinct bot specs"):
        crd.play_arena(GAME, ["random", "random"], 1)
    with pytest.raises(cr.InvalidSeatError, match="seat 2 does not exist"):
        build("checkraise/x/seat-v0", games, 2)
    with pytest.raises(ValueError, match="no trajectories"):
        build("checkraise/x/empty-v0", [], 0)
    with pytest.raises(ValueError, match="no trajectories"):
        crd.write_multi_agent(tmp_path / "empty.parquet", [])
    with pytest.raises(ValueError, match=r"seed 5 is a game of detective_poker.*not of prediction"):
        build("checkraise/x/other-v0", games, 0, game=JOINT)
    # Histories that do not replay, or replay to other returns, name the game.
    t = games[0]
    state = cr.make(GAME).new_initial_state()
    bad = None
    for k, (player, action) in enumerate(t.history):
        if player >= 0 and not state.action_mask(player).all():
            illegal = int(np.flatnonzero(~state.action_mask(player))[0])
            bad = replace(t, history=(*t.history[:k], (player, illegal), *t.history[k + 1 :]))
            break
        state.apply_action(action)
    assert bad is not None
    with pytest.raises(ValueError, match=r"self_play game with seed 5 of .* does not replay"):
        build("checkraise/x/illegal-v0", [bad], 0)
    with pytest.raises(ValueError, match="does not end the game"):
        build("checkraise/x/short-v0", [replace(t, history=t.history[:-1])], 0)
    with pytest.raises(ValueError, match="goes on after the game ended"):
        build("checkraise/x/long-v0", [replace(t, history=(*t.history, (0, 0)))], 0)
    with pytest.raises(ValueError, match=r"replays to returns .*not the stored \[5.0, -5.0\]"):
        build("checkraise/x/returns-v0", [replace(t, returns=(5.0, -5.0))], 0)
    with pytest.raises(ValueError, match="does not exist"):
        crd.read_export(tmp_path / "nothing")
    with pytest.raises(ValueError, match="holds no checkraise-server export"):
        crd.read_export(tmp_path)
    pq.write_table(pa.table({"x": [1]}), tmp_path / "plain.parquet")
    with pytest.raises(ValueError, match="not a checkraise multi-agent dataset"):
        crd.load_multi_agent(tmp_path / "plain.parquet")
    # Nothing half-made was left behind by the failures.
    assert minari.list_local_datasets() == {}


def test_a_relative_minari_path_is_refused_before_anything_is_written(games, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MINARI_DATASETS_PATH", "datasets")
    with pytest.raises(ValueError, match="MINARI_DATASETS_PATH is 'datasets': make it an absolute"):
        build("checkraise/x/relative-v0", games, 0)
    assert not (tmp_path / "datasets").exists()


def test_without_minari_the_error_names_the_extra(games, monkeypatch):
    monkeypatch.setitem(sys.modules, "minari", None)
    with pytest.raises(cr.MissingDependencyError, match=r"pip install 'checkraise\[datasets\]'"):
        build("checkraise/x/none-v0", games, 0)


def test_the_behaviour_cloning_example_runs(tmp_path):
    """examples/behaviour_cloning.py end to end at a tiny size (docs/python.md has the measured
    run): Minari datasets per seat, a policy file the engine plays, the arena's measure."""
    out = tmp_path / "bc"
    done = run_python(
        ROOT / "examples" / "behaviour_cloning.py",
        *("--games", "4", "--steps", "5", "--eval-deals", "3", "--hidden", "16"),
        *("--out", str(out)),
        timeout=300,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    results = json.loads((out / "results.json").read_text())
    assert results["games"] == 4 and results["eval_games"] == 6
    low, high = results["mean_ci"]
    assert low <= results["mean_return"] <= high
    policy = f"policy(path={out / 'policy.safetensors'})"
    assert cr.Bot(GAME, policy).spec.startswith("policy(")
    assert "BC policy vs random: mean return" in done.stdout
