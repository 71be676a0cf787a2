"""The server against careless or hostile input: error messages that quote input stay short,
undecodable requests are the client's mistake, and startup refuses bad flags and occupied
addresses with messages a person can act on."""

from __future__ import annotations

import socket
import subprocess

import grpc
import pytest

from grpc_util import server_binary

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
        [str(server_binary()), *flags], capture_output=True, text=True, timeout=60
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
    ],
)
def test_bad_flags_are_refused_at_startup(flags, words):
    done = run_server("--address", "127.0.0.1:0", *flags)
    assert done.returncode == 2, done.stderr
    assert words in done.stderr
