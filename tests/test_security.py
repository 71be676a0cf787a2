"""The server attacked as a client would attack it, against the real binary: rebuilding a live
match's deal from what anyone can read, a held choice seen through a timestamp, one request id
claiming two seats, a replay too long to send, one client address holding every connection,
world or env, a damaged store, and malformed requests (docs/security.md)."""

from __future__ import annotations

import contextlib
import json
import socket
import sqlite3
import subprocess
import threading
import time
from pathlib import Path

import grpc
import pytest
from dm_env_rpc.v1 import dm_env_rpc_pb2, dm_env_rpc_pb2_grpc, tensor_utils

from grpc_util import Server, packaged_stubs, server_binary

pb2, pb2_grpc = packaged_stubs()

LEAN = pb2.ViewOptions(
    omit_view_json=True, omit_observation=True, omit_observation_text=True, omit_action_texts=True
)


def channel_to(server: Server) -> grpc.Channel:
    channel = grpc.insecure_channel(
        server.address, options=[("grpc.max_receive_message_length", 64 * 1024 * 1024)]
    )
    grpc.channel_ready_future(channel).result(timeout=10)
    return channel


def with_token(token: str) -> tuple[tuple[str, str], ...]:
    return (("x-seat-token", token),)


def summary_of(matches, match_id: str) -> pb2.MatchSummary:
    listed = matches.ListMatches(pb2.ListMatchesRequest(page_size=1000), timeout=10).matches
    return next(m for m in listed if m.match_id == match_id)


def join_all(matches, match_id: str, seats: int) -> list[str]:
    return [
        matches.JoinSeat(pb2.JoinSeatRequest(match_id=match_id, seat=s), timeout=10).seat_token
        for s in range(seats)
    ]


def seat_views(matches, match_id: str, tokens: list[str]) -> list[str]:
    return [
        matches.GetView(
            pb2.GetViewRequest(match_id=match_id, seat=s), metadata=with_token(t), timeout=10
        ).view_json
        for s, t in enumerate(tokens)
    ]


# ---------------------------------------------------------------------------------------------
# Seeds


def test_a_live_match_gives_away_no_seed_and_its_deal_cannot_be_rebuilt():
    """The reported attack: create a 3-seat Hold'em Poker Chess match without a seed, read its
    seed from the listing or a replay with no token, create a replica with it and join every
    seat. Now nothing anyone can read while the match is live rebuilds the deal; once it is
    over its seed is shown, and replays the deal exactly."""
    server = Server()
    try:
        with channel_to(server) as channel:
            matches = pb2_grpc.MatchesStub(channel)
            game = {"game": "holdem_chess", "parameters": {"players": "3"}}
            victim = matches.CreateMatch(
                pb2.CreateMatchRequest(**game, seats=["human"] * 3), timeout=10
            )
            assert victim.seed == 0, "a drawn seed is never handed to the creator"
            tokens = join_all(matches, victim.match_id, 3)
            victim_views = seat_views(matches, victim.match_id, tokens)

            listed = matches.ListMatches(
                pb2.ListMatchesRequest(status=pb2.MATCH_STATUS_LIVE), timeout=10
            ).matches
            summary = next(m for m in listed if m.match_id == victim.match_id)
            replay = matches.GetReplay(pb2.GetReplayRequest(match_id=victim.match_id), timeout=10)
            assert summary.seed == 0 and replay.match.seed == 0
            assert not summary.chosen_seed
            assert not replay.revealed and all(not s.entries for s in replay.steps)
            spectator = matches.GetSpectatorView(
                pb2.GetSpectatorViewRequest(match_id=victim.match_id), timeout=10
            )
            assert not spectator.chosen_seed

            # Every number anyone can read, tried as the seed of a replica.
            readable = {
                summary.seed,
                summary.created_ms,
                summary.touched_ms,
                summary.version,
                int(victim.match_id[:16], 16),
            }
            for guess in readable:
                replica = matches.CreateMatch(
                    pb2.CreateMatchRequest(**game, seed=guess, seats=["human"] * 3), timeout=10
                )
                replica_tokens = join_all(matches, replica.match_id, 3)
                replica_views = seat_views(matches, replica.match_id, replica_tokens)
                assert replica_views != victim_views, f"seed {guess} rebuilt the deal"

            # Two matches created at once draw different deals.
            twin = matches.CreateMatch(
                pb2.CreateMatchRequest(**game, seats=["human"] * 3), timeout=10
            )
            twin_views = seat_views(matches, twin.match_id, join_all(matches, twin.match_id, 3))
            assert twin_views != victim_views

            # Over: everyone folds to the end. Then the seed is shown and deals the same cards.
            play_out(matches, victim.match_id, tokens)
            ended = summary_of(matches, victim.match_id)
            assert ended.status == pb2.MATCH_STATUS_FINISHED and ended.seed != 0
            rebuilt = matches.CreateMatch(
                pb2.CreateMatchRequest(**game, seed=ended.seed, seats=["human"] * 3), timeout=10
            )
            rebuilt_tokens = join_all(matches, rebuilt.match_id, 3)
            assert seat_views(matches, rebuilt.match_id, rebuilt_tokens) == victim_views
            finished = matches.GetReplay(pb2.GetReplayRequest(match_id=victim.match_id), timeout=10)
            assert finished.revealed and finished.match.seed == ended.seed
        created_lines = [
            json.loads(line)["fields"] for line in server.lines if "match created" in line
        ]
        assert created_lines and all("seed" not in fields for fields in created_lines), (
            "the log names no seed"
        )
    finally:
        assert server.stop() == 0, server.log()


def play_out(matches, match_id: str, tokens: list[str]) -> None:
    """Plays a match of human seats to its end: each seat to act folds when it can, else takes
    its first legal action."""
    for _ in range(10_000):
        views = [
            matches.GetView(
                pb2.GetViewRequest(match_id=match_id, seat=s), metadata=with_token(t), timeout=10
            )
            for s, t in enumerate(tokens)
        ]
        if views[0].is_terminal:
            return
        for seat, view in enumerate(views):
            if view.may_act:
                folds = [a for a in view.legal_actions if a.text == "fold"]
                action = (folds or list(view.legal_actions))[0]
                matches.Act(
                    pb2.ActRequest(match_id=match_id, seat=seat, action_id=action.id),
                    metadata=with_token(tokens[seat]),
                    timeout=10,
                )
                break
    raise AssertionError("the match did not end")


def test_a_chosen_seed_is_a_practice_deal_announced_to_everyone():
    server = Server()
    try:
        with channel_to(server) as channel:
            matches = pb2_grpc.MatchesStub(channel)
            created = matches.CreateMatch(
                pb2.CreateMatchRequest(game="detective_poker", seed=5, seats=["human"] * 3),
                timeout=10,
            )
            assert created.seed == 5
            tokens = join_all(matches, created.match_id, 3)
            for seat, token in enumerate(tokens):
                view = matches.GetView(
                    pb2.GetViewRequest(match_id=created.match_id, seat=seat),
                    metadata=with_token(token),
                    timeout=10,
                )
                assert view.chosen_seed
            spectator = matches.GetSpectatorView(
                pb2.GetSpectatorViewRequest(match_id=created.match_id), timeout=10
            )
            assert spectator.chosen_seed
            summary = summary_of(matches, created.match_id)
            assert summary.chosen_seed and summary.seed == 0, "still no seed while live"
    finally:
        assert server.stop() == 0, server.log()


# ---------------------------------------------------------------------------------------------
# Timestamps and request ids


@pytest.mark.parametrize("database", ["memory", "sqlite"])
def test_a_held_choice_leaves_no_trace(tmp_path, database):
    """In Prediction Chess both seats choose at once; a seat that has chosen must not show
    in anything the other seat or a spectator can read, the listing's touched_ms included."""
    flag = "memory" if database == "memory" else f"sqlite://{tmp_path}/store.sqlite3"
    server = Server("--database", flag)
    try:
        with channel_to(server) as channel:
            matches = pb2_grpc.MatchesStub(channel)
            created = matches.CreateMatch(
                pb2.CreateMatchRequest(game="prediction_chess", seats=["human", "human"]),
                timeout=10,
            )
            match_id = created.match_id
            tokens = join_all(matches, match_id, 2)

            def readable():
                other = matches.GetView(
                    pb2.GetViewRequest(match_id=match_id, seat=1),
                    metadata=with_token(tokens[1]),
                    timeout=10,
                )
                spectator = matches.GetSpectatorView(
                    pb2.GetSpectatorViewRequest(match_id=match_id), timeout=10
                )
                summary = summary_of(matches, match_id)
                replay = matches.GetReplay(pb2.GetReplayRequest(match_id=match_id), timeout=10)
                return (
                    other.SerializeToString(deterministic=True),
                    spectator.SerializeToString(deterministic=True),
                    summary.SerializeToString(deterministic=True),
                    replay.SerializeToString(deterministic=True),
                )

            before = readable()
            time.sleep(0.05)
            mine = matches.GetView(
                pb2.GetViewRequest(match_id=match_id, seat=0),
                metadata=with_token(tokens[0]),
                timeout=10,
            )
            held = matches.Act(
                pb2.ActRequest(match_id=match_id, seat=0, action_id=mine.legal_actions[0].id),
                metadata=with_token(tokens[0]),
                timeout=10,
            )
            assert held.action_submitted and held.version == mine.version
            time.sleep(0.05)
            assert readable() == before, "a held choice showed in what others can read"

            touched = summary_of(matches, match_id).touched_ms
            theirs = matches.GetView(
                pb2.GetViewRequest(match_id=match_id, seat=1),
                metadata=with_token(tokens[1]),
                timeout=10,
            )
            time.sleep(0.05)
            matches.Act(
                pb2.ActRequest(match_id=match_id, seat=1, action_id=theirs.legal_actions[0].id),
                metadata=with_token(tokens[1]),
                timeout=10,
            )
            after = summary_of(matches, match_id)
            assert after.version == mine.version + 1
            assert after.touched_ms > touched, "a step is a public change"
    finally:
        assert server.stop() == 0, server.log()


def test_one_request_id_claims_one_seat(server):
    with channel_to(server) as channel:
        matches = pb2_grpc.MatchesStub(channel)
        created = matches.CreateMatch(
            pb2.CreateMatchRequest(game="pokeros", seats=["human", "human"]), timeout=10
        )
        request_id = "3f2b8c1e-9d4a-4e57-8a61-0c9f1d2e3b4a"
        first = matches.JoinSeat(
            pb2.JoinSeatRequest(match_id=created.match_id, request_id=request_id), timeout=10
        )
        assert first.seat == 0 and not first.repeated
        with pytest.raises(grpc.RpcError) as error:
            matches.JoinSeat(
                pb2.JoinSeatRequest(match_id=created.match_id, seat=1, request_id=request_id),
                timeout=10,
            )
        assert error.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "already claimed seat 0" in error.value.details()
        again = matches.JoinSeat(
            pb2.JoinSeatRequest(match_id=created.match_id, seat=0, request_id=request_id),
            timeout=10,
        )
        assert again.repeated and again.seat == 0 and again.seat_token == first.seat_token
        # Seat 1 is still free for someone else.
        other = matches.JoinSeat(pb2.JoinSeatRequest(match_id=created.match_id), timeout=10)
        assert other.seat == 1


# ---------------------------------------------------------------------------------------------
# Replays by page


def apply_patch(document, patch: list[dict]):
    """RFC 6902's add, remove and replace, as the server's patches use them."""
    for op in patch:
        tokens = [t.replace("~1", "/").replace("~0", "~") for t in op["path"].split("/")[1:]]
        if not tokens:
            assert op["op"] == "replace"
            document = op["value"]
            continue
        parent = document
        for token in tokens[:-1]:
            parent = parent[int(token)] if isinstance(parent, list) else parent[token]
        last = tokens[-1]
        if isinstance(parent, list):
            if op["op"] == "add":
                parent.insert(len(parent) if last == "-" else int(last), op["value"])
            elif op["op"] == "remove":
                del parent[int(last)]
            else:
                parent[int(last)] = op["value"]
        elif op["op"] == "remove":
            del parent[last]
        else:
            parent[last] = op["value"]
    return document


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


# Long enough for seven pages of 500 steps; a Prediction Chess view lists every turn, so the
# server's work for a whole replay grows with the square of its length (docs/storage.md): 3,000
# turns read in pages of 1,000 took about two minutes of the test command, this a quarter.
TURNS = 1_500
PAGE = 500


def play_shuttling_kings(matches, match_id: str, tokens: list[str], turns: int) -> None:
    """Two lone kings shuttle a1-b1 and a8-b8 for `turns` turns, each seat predicting the
    other's king a step towards the middle (never its real move, so no battle)."""
    white, black = ("a1", "b1"), ("a8", "b8")
    for turn in range(turns):
        w_from, w_to = white[turn % 2], white[(turn + 1) % 2]
        b_from, b_to = black[turn % 2], black[(turn + 1) % 2]
        moves = [f"{w_from}{w_to}", f"{b_from}{b_to}"]
        predictions = [
            f"predict {b_from}{b_from[0]}7",
            f"predict {w_from}{w_from[0]}2",
        ]
        for texts in (moves, predictions):
            for seat, text in enumerate(texts):
                matches.Act(
                    pb2.ActRequest(
                        match_id=match_id, seat=seat, action_text=text, view_options=LEAN
                    ),
                    metadata=with_token(tokens[seat]),
                    timeout=10,
                )


def test_a_replay_of_fifteen_hundred_turns_pages_in_bounded_memory():
    """A 1,500-turn Prediction Chess match (3,000 steps) is read page by page: every step's
    public view rebuilt from the first view and the patches equals the live spectator view at
    the end, each page fits the message limit, and reading them all barely moves the server's
    memory (one whole replay used to be 110 MB at 1,000 turns)."""
    server = Server("--max-message-size", str(4 * 1024 * 1024))
    try:
        with channel_to(server) as channel:
            matches = pb2_grpc.MatchesStub(channel)
            created = matches.CreateMatch(
                pb2.CreateMatchRequest(
                    game="prediction_chess",
                    parameters={
                        "fen": "k7/8/8/8/8/8/8/K7 w - - 0 1",
                        "max_turns": str(TURNS),
                        "fifty_move": "false",
                    },
                    seats=["human", "human"],
                ),
                timeout=10,
            )
            tokens = join_all(matches, created.match_id, 2)
            play_shuttling_kings(matches, created.match_id, tokens, TURNS)
            end = matches.GetSpectatorView(
                pb2.GetSpectatorViewRequest(match_id=created.match_id), timeout=30
            )
            assert end.is_terminal and end.version == 2 * TURNS

            before = rss_kib(server.proc.pid)
            view, version, pages, steps = None, 0, 0, 0
            peak = before
            while True:
                page = matches.GetReplay(
                    pb2.GetReplayRequest(
                        match_id=created.match_id, from_version=version, page_size=PAGE
                    ),
                    timeout=60,
                )
                assert page.ByteSize() <= 4 * 1024 * 1024
                pages += 1
                for i, step in enumerate(page.steps):
                    assert step.version == version + i
                    if i == 0:
                        view = json.loads(step.spectator_view_json)
                        assert not step.spectator_view_patch
                    else:
                        assert not step.spectator_view_json
                        view = apply_patch(view, json.loads(step.spectator_view_patch))
                    steps += 1
                peak = max(peak, rss_kib(server.proc.pid))
                if not page.HasField("next_version"):
                    break
                version = page.next_version
            assert steps == 2 * TURNS + 1
            # A finished match's replay shows the view of everyone: with no hidden cards in
            # Prediction Chess, the spectator's view but for the header's flag.
            assert view == {**json.loads(end.view_json), "everyone": True}, (
                "the patches rebuild the final view"
            )
            assert pages >= 2 * TURNS // PAGE + 1, "at most PAGE steps a page"
            grown = peak - before
            assert grown < 64 * 1024, f"reading the replay grew the server by {grown} KiB"

            with pytest.raises(grpc.RpcError) as error:
                matches.GetReplay(
                    pb2.GetReplayRequest(match_id=created.match_id, from_version=2 * TURNS + 1),
                    timeout=10,
                )
            assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            with pytest.raises(grpc.RpcError) as error:
                matches.GetReplay(
                    pb2.GetReplayRequest(match_id=created.match_id, page_size=1001), timeout=10
                )
            assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    finally:
        assert server.stop() == 0, server.log()


# ---------------------------------------------------------------------------------------------
# Fair shares: the attacker's address is 127.0.0.2, the victim's 127.0.0.1


def host_port(address: str) -> tuple[str, int]:
    host, port = address.rsplit(":", 1)
    return host, int(port)


PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"


def connect_from(source: str, address: str) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((source, 0))
    sock.connect(host_port(address))
    return sock


def closed_within(sock: socket.socket, seconds: float) -> bool:
    sock.settimeout(seconds)
    try:
        while True:
            data = sock.recv(4096)
            if not data:
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False


def test_one_address_cannot_hold_every_connection(stubs):
    server = Server("--max-connections", "40", "--max-connections-per-peer", "10")
    try:
        # Live-looking HTTP/2 connections (a preface and settings), more than the whole cap.
        held = []
        for _ in range(50):
            sock = connect_from("127.0.0.2", server.address)
            sock.sendall(PREFACE)
            held.append(sock)
        closed = [closed_within(s, 0.5) for s in held]
        assert sum(closed) == 40, f"{sum(closed)} of 50 closed; the share is 10"
        # The victim's first call goes through while the attacker's ten stay open.
        with channel_to(server) as channel:
            pb2_grpc.CatalogStub(channel).ListGames(pb2.ListGamesRequest(), timeout=10)
        assert not any(closed_within(s, 0.1) for s, c in zip(held, closed, strict=True) if not c)
        for sock in held:
            sock.close()
        assert "--max-connections-per-peer" in server.log()
    finally:
        assert server.stop() == 0, server.log()


class Relay:
    """A TCP relay on 127.0.0.1 whose connections reach the server from 127.0.0.2: a gRPC
    client through it is another client address to the server."""

    def __init__(self, target: str):
        self.target = target
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.address = f"127.0.0.1:{self.listener.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = connect_from("127.0.0.2", self.target)
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        self.listener.close()


def create_world_request(game: str) -> dm_env_rpc_pb2.EnvironmentRequest:
    return dm_env_rpc_pb2.EnvironmentRequest(
        create_world=dm_env_rpc_pb2.CreateWorldRequest(
            settings={"game": tensor_utils.pack_tensor(game)}
        )
    )


def process(channel: grpc.Channel, requests: list) -> list:
    stub = dm_env_rpc_pb2_grpc.EnvironmentStub(channel)
    return list(stub.Process(iter(requests), timeout=30))


def test_one_address_cannot_fill_the_worlds_or_the_envs():
    server = Server("--max-matches", "20", "--max-matches-per-peer", "5", "--max-envs", "40")
    relay = Relay(server.address)
    try:
        with grpc.insecure_channel(relay.address) as attacker, channel_to(server) as victim:
            # One Process stream asks for 30 worlds: five are made, the rest refused.
            replies = process(attacker, [create_world_request("pokeros")] * 30)
            made = [r for r in replies if r.HasField("create_world")]
            refused = [r.error for r in replies if r.HasField("error")]
            assert len(made) == 5 and len(refused) == 25
            assert all(e.code == grpc.StatusCode.RESOURCE_EXHAUSTED.value[0] for e in refused)
            assert (
                "127.0.0.2" in refused[0].message and "--max-matches-per-peer" in refused[0].message
            )
            # The victim's first world is made.
            mine = process(victim, [create_world_request("pokeros")])
            assert mine[0].HasField("create_world"), mine[0]

            # Envs: a quarter of --max-envs per address by default.
            attacker_envs = pb2_grpc.EnvsStub(attacker)
            attacker_envs.CreateEnvs(pb2.CreateEnvsRequest(game="pokeros", num_envs=10), timeout=30)
            with pytest.raises(grpc.RpcError) as error:
                attacker_envs.CreateEnvs(
                    pb2.CreateEnvsRequest(game="pokeros", num_envs=1), timeout=30
                )
            assert error.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "--max-envs-per-peer" in error.value.details()
            pb2_grpc.EnvsStub(victim).CreateEnvs(
                pb2.CreateEnvsRequest(game="pokeros", num_envs=10), timeout=30
            )
    finally:
        relay.close()
        assert server.stop() == 0, server.log()


def test_worlds_take_from_the_creation_quota():
    server = Server("--max-creates-per-minute", "60")
    try:
        with channel_to(server) as channel:
            # The quota holds ten seconds' worth: ten worlds, then RESOURCE_EXHAUSTED.
            replies = process(channel, [create_world_request("pokeros")] * 30)
            made = sum(r.HasField("create_world") for r in replies)
            assert made == 10, made
            assert "--max-creates-per-minute" in replies[-1].error.message
    finally:
        assert server.stop() == 0, server.log()


# ---------------------------------------------------------------------------------------------
# The store


def start_refused(*flags: str, timeout: float = 20.0) -> subprocess.CompletedProcess[str]:
    started = time.monotonic()
    done = subprocess.run(
        [str(server_binary()), "--address", "127.0.0.1:0", *flags],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert time.monotonic() - started < 10, "a damaged store is refused at once"
    return done


def make_store(path: Path) -> None:
    """A real store with a finished match in it, made by the server, with everything in the
    main file (the write-ahead log checkpointed into it and emptied)."""
    server = Server("--database", f"sqlite://{path}")
    try:
        with channel_to(server) as channel:
            pb2_grpc.MatchesStub(channel).CreateMatch(
                pb2.CreateMatchRequest(game="pokeros", seats=["random", "random"]), timeout=10
            )
    finally:
        assert server.stop() == 0, server.log()
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.execute("PRAGMA journal_mode = DELETE")


def damage_empty(path: Path) -> None:
    path.write_bytes(b"")


def damage_foreign_header(path: Path) -> None:
    path.write_bytes(b"PK\x03\x04" + b"\x00" * 4096)


def damage_truncated(path: Path) -> None:
    make_store(path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def damage_foreign_tables(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")


def damage_corrupted(path: Path) -> None:
    make_store(path)
    data = bytearray(path.read_bytes())
    # Scribble over every page after the first (the schema stays readable).
    for page in range(4096, len(data), 4096):
        data[page + 8 : page + 64] = b"\xa5" * 56
    path.write_bytes(bytes(data))


DAMAGES = [
    (damage_empty, "is empty (0 bytes)"),
    (damage_foreign_header, "is not a SQLite database"),
    (damage_truncated, "damaged"),
    (damage_foreign_tables, "another program's tables (invoices)"),
    (damage_corrupted, "damaged"),
]


@pytest.mark.parametrize(("damage", "words"), DAMAGES, ids=[d[0].__name__ for d in DAMAGES])
def test_a_damaged_store_is_refused_with_its_cause(tmp_path, damage, words):
    path = tmp_path / "store.sqlite3"
    damage(path)
    done = start_refused("--database", f"sqlite://{path}")
    assert done.returncode == 1, done.stderr
    error = done.stderr.strip().splitlines()[-1]
    assert str(path) in error and words in error, error
    if damage is damage_empty:
        assert path.stat().st_size == 0, "an empty file is refused, not replaced"


def chattr(flag: str, *paths: Path) -> None:
    subprocess.run(["chattr", flag, *map(str, paths)], check=True, capture_output=True)


def test_a_store_that_cannot_be_written_is_refused(tmp_path):
    path = tmp_path / "store.sqlite3"
    make_store(path)
    files = [p for p in (path, Path(f"{path}-wal")) if p.exists()]
    chattr("+i", *files)
    try:
        done = start_refused("--database", f"sqlite://{path}")
    finally:
        chattr("-i", *files)
    assert done.returncode == 1, done.stderr
    error = done.stderr.strip().splitlines()[-1]
    assert str(path) in error and ("cannot be written" in error or "readonly" in error), error


def health(channel: grpc.Channel, service: str = "") -> int:
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    reply = health_pb2_grpc.HealthStub(channel).Check(
        health_pb2.HealthCheckRequest(service=service), timeout=10
    )
    return reply.status


def test_a_store_failing_while_serving_turns_health_not_serving(tmp_path):
    from grpc_health.v1 import health_pb2

    path = tmp_path / "store.sqlite3"
    server = Server("--database", f"sqlite://{path}")
    try:
        with channel_to(server) as channel:
            matches = pb2_grpc.MatchesStub(channel)
            matches.CreateMatch(pb2.CreateMatchRequest(game="pokeros"), timeout=10)
            assert health(channel) == health_pb2.HealthCheckResponse.SERVING
            files = [path, Path(f"{path}-wal")]
            chattr("+i", *files)
            try:
                with pytest.raises(grpc.RpcError) as error:
                    matches.CreateMatch(pb2.CreateMatchRequest(game="pokeros"), timeout=10)
                assert error.value.code() == grpc.StatusCode.UNAVAILABLE
                assert health(channel) == health_pb2.HealthCheckResponse.NOT_SERVING
                assert (
                    health(channel, "checkraise.v1.Matches")
                    == health_pb2.HealthCheckResponse.NOT_SERVING
                )
            finally:
                chattr("-i", *files)
            deadline = time.monotonic() + 15
            while health(channel) != health_pb2.HealthCheckResponse.SERVING:
                assert time.monotonic() < deadline, "health never came back"
                time.sleep(0.2)
            matches.CreateMatch(pb2.CreateMatchRequest(game="pokeros"), timeout=10)
        log = server.log()
        assert "the store cannot take writes" in log and "the store takes writes again" in log
    finally:
        assert server.stop() == 0, server.log()


# ---------------------------------------------------------------------------------------------
# Malformed input


def test_malformed_dm_env_requests_end_the_session_with_the_reason(server):
    with channel_to(server) as channel:
        call = channel.stream_stream(
            "/dm_env_rpc.v1.Environment/Process",
            request_serializer=lambda raw: raw,
            response_deserializer=lambda raw: raw,
        )
        with pytest.raises(grpc.RpcError) as error:
            list(call(iter([b"\x0a\x64ab"]), timeout=10))
        assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "does not decode" in error.value.details()
        # An error quoting a megabyte of input stays under a kibibyte.
        replies = process(channel, [create_world_request("x" * 1_000_000)])
        message = replies[0].error.message
        assert "message cut" in message and len(message.encode()) <= 1024


def test_a_lowercase_bearer_scheme_is_accepted(tmp_path):
    keys = tmp_path / "keys"
    keys.write_text("secret-one\n")
    server = Server("--api-keys", str(keys))
    try:
        with channel_to(server) as channel:
            matches = pb2_grpc.MatchesStub(channel)
            for scheme in ("Bearer", "bearer", "BEARER"):
                matches.CreateMatch(
                    pb2.CreateMatchRequest(game="pokeros"),
                    metadata=(("authorization", f"{scheme} secret-one"),),
                    timeout=10,
                )
    finally:
        assert server.stop() == 0, server.log()


def test_a_tls_file_without_pem_says_so(tmp_path):
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert.write_text("not a certificate\n")
    key.write_text("not a key\n")
    done = subprocess.run(
        [
            str(server_binary()),
            "--address",
            "127.0.0.1:0",
            "--database",
            "memory",
            "--tls-cert",
            str(cert),
            "--tls-key",
            str(key),
        ],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 1
    assert "holds no PEM certificate" in done.stderr and str(cert) in done.stderr, done.stderr


@pytest.fixture(scope="module")
def stubs():
    return pb2, pb2_grpc


def test_the_security_page_states_each_tested_property():
    text = (Path(__file__).resolve().parent.parent / "docs" / "security.md").read_text()
    names = {
        part.split("`")[0]
        for line in text.splitlines()
        for part in line.split("tests/test_security.py::")[1:]
    }
    assert len(names) >= 8, names
    here = Path(__file__).read_text()
    for name in names:
        assert f"def {name}" in here, f"docs/security.md names {name}, which is not a test here"


def test_a_store_that_fails_under_a_match_answers_in_the_services_words_not_the_databases(
    tmp_path,
):
    """The database's own error text (a table, a constraint, a statement) never reaches a
    client: a store that fails under a live match answers UNAVAILABLE with what could not be
    done and what to do, and the server's log keeps the database's text."""
    path = tmp_path / "store.sqlite3"
    server = Server("--database", f"sqlite://{path}")
    try:
        with channel_to(server) as channel:
            matches = pb2_grpc.MatchesStub(channel)
            created = matches.CreateMatch(
                pb2.CreateMatchRequest(game="pokeros", seats=["human", "human"]), timeout=10
            )
            token = join_all(matches, created.match_id, 2)[0]
            view = matches.GetView(
                pb2.GetViewRequest(match_id=created.match_id, seat=0),
                metadata=with_token(token),
                timeout=10,
            )
            # Another program breaks the store under the running server.
            with sqlite3.connect(path, timeout=10) as db:
                db.execute("DROP TABLE steps")
            with pytest.raises(grpc.RpcError) as refused:
                matches.Act(
                    pb2.ActRequest(
                        match_id=created.match_id, seat=0, action_id=view.legal_actions[0].id
                    ),
                    metadata=with_token(token),
                    timeout=10,
                )
            error = refused.value
            assert error.code() == grpc.StatusCode.UNAVAILABLE, error.details()
            assert "the store failed" in error.details() and "try again" in error.details()
            for database_text in ("no such table", "steps", "sqlite", "SQL", "error returned"):
                assert database_text not in error.details(), error.details()
    finally:
        server.stop()
    assert "no such table" in server.log(), "the log keeps the database's text"
