"""The server against careless or hostile input: error messages that quote input stay short,
undecodable requests are the client's mistake, startup refuses bad flags and occupied
addresses with messages a person can act on, silent connections are closed and capped,
creating calls need an API key when keys are set and are limited per peer, and every call is
logged."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import threading
import time
import urllib.request

import grpc
import pytest

from grpc_util import Server, server_binary

LIMIT = 1024  # bytes of grpc-message the server sends at most


def test_an_error_quoting_a_megabyte_of_input_stays_under_a_kibibyte(server, stubs):
    pb2, pb2_grpc = stubs
    # Clients' default metadata limit is 8 KiB: an echoed megabyte would surface as
    # RESOURCE_EXHAUSTED on the client instead of the real error.
    with grpc.insecure_channel(server.address) as channel:
        matches = pb2_grpc.MatchesStub(channel)
        huge = "x" * 1_000_000
        with pytest.raises(grpc.RpcError) as error:
            matches.CreateMatch(pb2.CreateMatchRequest(game=huge), timeout=30)
        assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        details = error.value.details()
        assert "xxxx" in details, details[:200]
        assert "message cut" in details
        assert len(details.encode()) <= LIMIT
        # A short error is sent whole.
        with pytest.raises(grpc.RpcError) as error:
            matches.CreateMatch(pb2.CreateMatchRequest(game="no_such_game"), timeout=30)
        assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "no_such_game" in error.value.details()
        assert "message cut" not in error.value.details()


def test_a_long_non_ascii_message_is_cut_between_characters(server, stubs):
    pb2, pb2_grpc = stubs
    with grpc.insecure_channel(server.address) as channel:
        matches = pb2_grpc.MatchesStub(channel)
        for pad in range(4):  # shift the cut across a character's bytes
            game = "é" * 5 + "a" * pad + "€" * 3000
            with pytest.raises(grpc.RpcError) as error:
                matches.CreateMatch(pb2.CreateMatchRequest(game=game), timeout=30)
            details = error.value.details()
            assert "\ufffd" not in details, "a character was split"
            assert "message cut" in details


def test_an_undecodable_request_is_invalid_argument(server):
    with grpc.insecure_channel(server.address) as channel:
        # Raw bytes that are not a CreateMatchRequest (field 1 claims 100 bytes, 2 follow).
        call = channel.unary_unary(
            "/checkraise.v1.Matches/CreateMatch",
            request_serializer=lambda raw: raw,
            response_deserializer=lambda raw: raw,
        )
        with pytest.raises(grpc.RpcError) as error:
            call(b"\x0a\x64ab", timeout=30)
        assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT, error.value.details()
        assert "decode" in error.value.details()


def run_server(*flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(server_binary()), "--database", "memory", *flags],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_an_address_in_use_is_named_at_startup():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        address = f"127.0.0.1:{taken.getsockname()[1]}"
        done = run_server("--address", address)
    assert done.returncode == 1
    assert f"cannot listen on {address}" in done.stderr
    assert "in use" in done.stderr
    assert "--address" in done.stderr
    assert "Os {" not in done.stderr  # not Rust's debug form


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        (("--log-level", "checkraise=[bad"), "not a log filter"),
        (("--max-matches", "0"), "below the least allowed, 1"),
        (("--max-envs", "0"), "below the least allowed, 1"),
        (("--idle-expiry-secs", "0"), "--idle-expiry-secs"),
        (("--finished-expiry-secs", "0"), "--finished-expiry-secs"),
        (("--max-message-size", "10"), "below the least allowed, 65536"),
        (("--max-connections", "0"), "below the least allowed, 1"),
        (("--max-streams-per-connection", "0"), "below the least allowed, 1"),
        (("--max-creates-per-minute", "0"), "below the least allowed, 1"),
        (("--handshake-timeout-secs", "0"), "--handshake-timeout-secs"),
    ],
)
def test_bad_flags_are_refused_at_startup(flags, words):
    done = run_server("--address", "127.0.0.1:0", *flags)
    assert done.returncode == 2, done.stderr
    assert words in done.stderr


def test_an_idle_limit_live_clients_could_not_meet_is_refused():
    done = run_server(
        "--address", "127.0.0.1:0", "--idle-connection-secs", "40", "--keepalive-secs", "30"
    )
    assert done.returncode == 1, done.stderr
    assert "--idle-connection-secs (40) must exceed" in done.stderr


def test_an_api_key_file_without_keys_is_refused(tmp_path):
    keys = tmp_path / "keys"
    keys.write_text("# no keys yet\n")
    done = run_server("--address", "127.0.0.1:0", "--api-keys", str(keys))
    assert done.returncode == 1, done.stderr
    assert "holds no key" in done.stderr and str(keys) in done.stderr


def host_port(address: str) -> tuple[str, int]:
    host, port = address.rsplit(":", 1)
    return host, int(port)


def closed_within(sock: socket.socket, seconds: float) -> bool:
    """Whether the server closes `sock` (a read ends or fails) within `seconds`."""
    sock.settimeout(seconds)
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def test_silent_connections_are_closed_and_capped_and_clients_still_get_in(stubs):
    pb2, pb2_grpc = stubs
    server = Server(
        "--max-connections",
        "8",
        "--handshake-timeout-secs",
        "1",
        "--keepalive-secs",
        "1",
        "--keepalive-timeout-secs",
        "1",
        "--idle-connection-secs",
        "3",
    )
    try:
        # More silent connections than the cap: the ones over it are closed at once, the
        # others after the handshake timeout.
        silent = [socket.create_connection(host_port(server.address)) for _ in range(20)]
        closed_fast = sum(closed_within(s, 0.5) for s in silent[8:])
        assert closed_fast >= 10, closed_fast
        assert all(closed_within(s, 5) for s in silent[:8])
        for s in silent:
            s.close()
        # A real client gets in, and a connection kept open (idle but answering keepalive
        # pings) outlives the idle limit.
        with grpc.insecure_channel(server.address) as channel:
            catalog = pb2_grpc.CatalogStub(channel)
            catalog.ListGames(pb2.ListGamesRequest(), timeout=10)
            time.sleep(4.5)
            catalog.ListGames(pb2.ListGamesRequest(), timeout=10)
    finally:
        server.stop()


def test_streams_per_connection_are_capped(stubs):
    pb2, pb2_grpc = stubs
    server = Server("--max-streams-per-connection", "3")
    try:
        with grpc.insecure_channel(server.address) as channel:
            matches = pb2_grpc.MatchesStub(channel)
            created = matches.CreateMatch(
                pb2.CreateMatchRequest(game="detective_poker"), timeout=10
            )
            watch = pb2.WatchSpectatorRequest(match_id=created.match_id)
            streams = [matches.WatchSpectator(watch, timeout=30) for _ in range(3)]
            for stream in streams:
                next(stream)  # each open stream starts with the current view
            # A fourth waits for a free stream: no first event while three are open.
            fourth = matches.WatchSpectator(watch, timeout=30)
            got: list[object] = []
            reader = threading.Thread(target=lambda: got.append(next(fourth)), daemon=True)
            reader.start()
            reader.join(1.5)
            assert not got, "a fourth stream was served while three were open"
            streams[0].cancel()
            reader.join(10)
            assert got, "the fourth stream was not served after one closed"
            for stream in [*streams[1:], fourth]:
                stream.cancel()
    finally:
        server.stop()


def test_creating_needs_an_api_key_when_keys_are_set(tmp_path, stubs):
    pb2, pb2_grpc = stubs
    keys = tmp_path / "keys"
    keys.write_text("# team\nsecret-one\nsecret-two\n")
    server = Server("--api-keys", str(keys))
    try:
        with grpc.insecure_channel(server.address) as channel:
            matches = pb2_grpc.MatchesStub(channel)
            envs = pb2_grpc.EnvsStub(channel)
            request = pb2.CreateMatchRequest(game="detective_poker")
            for metadata in [(), (("x-api-key", "wrong"),), (("authorization", "Basic x"),)]:
                with pytest.raises(grpc.RpcError) as error:
                    matches.CreateMatch(request, metadata=metadata, timeout=10)
                assert error.value.code() == grpc.StatusCode.UNAUTHENTICATED
            with pytest.raises(grpc.RpcError) as error:
                envs.CreateEnvs(
                    pb2.CreateEnvsRequest(game="detective_poker", num_envs=1), timeout=10
                )
            assert error.value.code() == grpc.StatusCode.UNAUTHENTICATED
            assert "x-api-key" in error.value.details()
            created = matches.CreateMatch(
                request, metadata=(("x-api-key", "secret-one"),), timeout=10
            )
            matches.CreateMatch(
                request, metadata=(("authorization", "Bearer secret-two"),), timeout=10
            )
            # Everything that does not create stays open.
            view = matches.GetSpectatorView(
                pb2.GetSpectatorViewRequest(match_id=created.match_id), timeout=10
            )
            assert view.view_json
            pb2_grpc.CatalogStub(channel).ListGames(pb2.ListGamesRequest(), timeout=10)
    finally:
        server.stop()


def test_creating_calls_are_limited_per_peer_and_every_call_is_logged(stubs):
    pb2, pb2_grpc = stubs
    # 6 a minute: a bucket of one, refilled every 10 s.
    server = Server("--max-creates-per-minute", "6")
    try:
        with grpc.insecure_channel(server.address) as channel:
            matches = pb2_grpc.MatchesStub(channel)
            request = pb2.CreateMatchRequest(game="detective_poker")
            matches.CreateMatch(request, timeout=10)
            with pytest.raises(grpc.RpcError) as error:
                matches.CreateMatch(request, timeout=10)
            assert error.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "too many creating calls" in error.value.details()
            assert "try again in" in error.value.details()
            # Other calls are not limited.
            for _ in range(5):
                pb2_grpc.CatalogStub(channel).ListGames(pb2.ListGamesRequest(), timeout=10)
            # A balancer's health checks answered OK are not logged at info.
            from grpc_health.v1 import health_pb2, health_pb2_grpc

            health = health_pb2_grpc.HealthStub(channel)
            for _ in range(3):
                health.Check(health_pb2.HealthCheckRequest(), timeout=10)
        time.sleep(0.3)
    finally:
        server.stop()
    calls = []
    for line in server.log().splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if record.get("target") == "checkraise_grpc::access":
            calls.append(record["fields"])
    methods = [(c["method"], c["status"]) for c in calls]
    assert ("/checkraise.v1.Matches/CreateMatch", "Ok") in methods, methods
    assert ("/checkraise.v1.Matches/CreateMatch", "ResourceExhausted") in methods, methods
    assert methods.count(("/checkraise.v1.Catalog/ListGames", "Ok")) == 5, methods
    assert not any(m.startswith("/grpc.health.v1.") for m, _ in methods), methods
    assert all(c["peer"].startswith("127.0.0.1:") for c in calls), calls
    assert all(int(c["latency_us"]) >= 0 for c in calls)


def self_signed(tmp_path) -> tuple[str, str, bytes]:
    """A certificate for 127.0.0.1 and localhost, its key, and the certificate's bytes."""
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
         "-nodes", "-days", "1", "-subj", "/CN=localhost", "-keyout", str(key),
         "-out", str(cert), "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return str(cert), str(key), cert.read_bytes()


def test_tls_serves_grpcio_clients_that_trust_the_certificate(tmp_path, stubs):
    pb2, pb2_grpc = stubs
    cert, key, cert_bytes = self_signed(tmp_path)
    server = Server("--tls-cert", cert, "--tls-key", key)
    try:
        credentials = grpc.ssl_channel_credentials(root_certificates=cert_bytes)
        with grpc.secure_channel(server.address, credentials) as channel:
            games = pb2_grpc.CatalogStub(channel).ListGames(pb2.ListGamesRequest(), timeout=10)
            assert len(games.games) == 5
            matches = pb2_grpc.MatchesStub(channel)
            created = matches.CreateMatch(
                pb2.CreateMatchRequest(game="detective_poker", seats=["human", "random", "random"]),
                timeout=10,
            )
            assert created.match_id
        # A plaintext client gets nowhere.
        with grpc.insecure_channel(server.address) as channel:
            with pytest.raises(grpc.RpcError) as error:
                pb2_grpc.CatalogStub(channel).ListGames(pb2.ListGamesRequest(), timeout=3)
            assert error.value.code() == grpc.StatusCode.UNAVAILABLE
    finally:
        server.stop()


@pytest.mark.parametrize(
    ("flags", "code", "words"),
    [
        (("--tls-cert", "cert.pem"), 2, "--tls-key"),
        (("--tls-key", "key.pem"), 2, "--tls-cert"),
        (("--tls-cert", "/nonexistent/cert.pem", "--tls-key", "/nonexistent/key.pem"), 1,
         "cannot read the TLS certificate /nonexistent/cert.pem"),
    ],
)  # fmt: skip
def test_tls_flags_come_in_pairs_and_name_unreadable_files(flags, code, words):
    done = run_server("--address", "127.0.0.1:0", *flags)
    assert done.returncode == code, done.stderr
    assert words in done.stderr


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def metric(text: str, name: str, **labels: str) -> float:
    """The value of one sample of the Prometheus text `text`."""
    for line in text.splitlines():
        if not line.startswith(name + "{") and not line.startswith(name + " "):
            continue
        found = dict(re.findall(r'(\w+)="([^"]*)"', line.split(" ")[0]))
        if all(found.get(k) == v for k, v in labels.items()):
            return float(line.rsplit(" ", 1)[1])
    raise KeyError(f"{name} {labels} not in the metrics")


def test_prometheus_metrics_count_calls_and_live_objects(tmp_path, stubs):
    pb2, pb2_grpc = stubs
    port = free_port()
    database = f"sqlite://{tmp_path}/metrics.sqlite3"
    server = Server("--metrics-address", f"127.0.0.1:{port}", "--database", database)
    try:
        with grpc.insecure_channel(server.address) as channel:
            catalog = pb2_grpc.CatalogStub(channel)
            for _ in range(3):
                catalog.ListGames(pb2.ListGamesRequest(), timeout=10)
            with pytest.raises(grpc.RpcError):
                catalog.GetGame(pb2.GetGameRequest(name="no_such_game"), timeout=10)
            matches = pb2_grpc.MatchesStub(channel)
            created = [
                matches.CreateMatch(pb2.CreateMatchRequest(game="detective_poker"), timeout=10)
                for _ in range(2)
            ]
            # One open watch stream, counted by the gauge while it is open.
            watching = matches.WatchSpectator(
                pb2.WatchSpectatorRequest(match_id=created[0].match_id), timeout=30
            )
            next(watching)
            time.sleep(1.5)  # the live-object gauges are refreshed every second
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
                text = r.read().decode()
            watching.cancel()
        list_games = "/checkraise.v1.Catalog/ListGames"
        assert metric(text, "checkraise_grpc_requests_total", method=list_games, code="Ok") == 3
        assert (
            metric(
                text,
                "checkraise_grpc_requests_total",
                method="/checkraise.v1.Catalog/GetGame",
                code="NotFound",
            )
            == 1
        )
        assert (
            metric(text, "checkraise_grpc_request_duration_seconds_count", method=list_games) == 3
        )
        assert metric(text, "checkraise_live_matches") == 2
        assert metric(text, "checkraise_live_envs") == 0
        assert metric(text, "checkraise_open_connections") >= 1
        assert metric(text, "checkraise_open_streams") == 1
        assert metric(text, "checkraise_store_commit_seconds_count") >= 2
    finally:
        server.stop()
