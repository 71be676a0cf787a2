"""checkraise-server behind HAProxy, as packaging/haproxy/haproxy.cfg deploys it (only its
addresses rewritten, by tests/cluster_util.py), on a PostgreSQL server the test starts: a
match played and watched through the balancer with the Python client (HTTP/2), gRPC-Web and
the page over HTTP/1.1, the page played in Chromium, and the balancer's gRPC health check
taking out an instance that stops answering (SIGSTOP) or loses its store (NOT_SERVING), and
putting it back afterwards, with the watch streams of an instance taken out cut, so that its
watchers reconnect.

The server is $CHECKRAISE_CLUSTER_SERVER (one built with PostgreSQL; scripts/test.sh points it
at the build cargo test made with the optional features). HAProxy and PostgreSQL missing fail
the test, saying how to install them: scripts/test.sh installs both."""

from __future__ import annotations

import socket
import time
from types import SimpleNamespace

import grpc
import pytest

from cluster_util import HAProxy, Instance, Postgres, collect, wait_until


@pytest.fixture(scope="module")
def deployment():
    pg = Postgres.start()
    instance = lb = None
    try:
        instance = Instance(0, pg.url)
        lb = HAProxy.over([instance])
        lb.wait_state(instance.name, "UP")
        yield SimpleNamespace(pg=pg, instance=instance, lb=lb)
        assert instance.stop() == 0, instance.log()
        assert lb.stop() == 0, lb.log()
    finally:
        for part in (lb, instance):
            if part is not None:
                part.remove()
        pg.remove()


def client(address: str):
    from checkraise.client import Client

    return Client(address, timeout=30)


def test_a_match_is_played_and_watched_through_the_balancer(deployment):
    lb = deployment.lb
    with client(lb.address) as c:
        c.wait_ready()
        match = c.create_match("pokeros", seats=["human", "random"], board_size=5, seed=11)
        seat = match.join(0)
        seat_events: list = []
        public_events: list = []
        readers = [
            collect(seat.watch(omit=("observation",)), seat_events),
            collect(match.watch(), public_events),
        ]
        view = seat.view()
        acts = 0
        while not view.is_terminal:
            view = seat.act(next(iter(view.legal_actions)), expected_version=view.version)
            acts += 1
            assert acts < 200, "the match does not end"
        for reader in readers:
            reader.join(30)
        for events in (seat_events, public_events):
            assert events and not isinstance(events[-1], Exception), events[-1:]
            versions = [e.view.version for e in events]
            assert versions == sorted(versions) and versions[-1] == view.version, versions
            assert events[-1].view.is_terminal
        assert match.replay().steps[-1].version == view.version
        finished = {s.match_id for s in c.list_matches(game="pokeros", status="finished")}
        assert match.match_id in finished
    # Through HAProxy, over HTTP/2, to the instance.
    log = lb.log()
    assert "checkraise/instance-0" in log and "/checkraise.v1.Matches/Act HTTP/2.0" in log, log


def http1(address: str, request: bytes) -> bytes:
    """One HTTP/1.1 request on its own connection; the raw reply."""
    host, port = address.rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(request)
        reply = b""
        while chunk := s.recv(65536):
            reply += chunk
    return reply


def test_grpc_web_and_the_page_over_http1_through_the_balancer(deployment):
    address = deployment.lb.address
    page = http1(address, b"GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
    assert page.startswith(b"HTTP/1.1 200"), page[:200]
    assert b"text/html" in page and b'src="app.js"' in page
    # Catalog.ListGames over gRPC-Web from an HTTP/1.1 client; HAProxy sends it on over HTTP/2.
    request = (
        b"POST /checkraise.v1.Catalog/ListGames HTTP/1.1\r\nHost: localhost\r\n"
        b"Content-Type: application/grpc-web+proto\r\nX-Grpc-Web: 1\r\nContent-Length: 5\r\n"
        b"Connection: close\r\n\r\n\x00\x00\x00\x00\x00"
    )
    reply = http1(address, request)
    assert reply.startswith(b"HTTP/1.1 200"), reply[:300]
    assert b"application/grpc-web+proto" in reply
    assert b"pokeros" in reply and b"grpc-status:0" in reply, reply[-200:]
    # The health service through the balancer, native gRPC.
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    with grpc.insecure_channel(address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        answer = health.Check(health_pb2.HealthCheckRequest(service=""), timeout=10)
        assert answer.status == health_pb2.HealthCheckResponse.SERVING


def test_the_page_plays_a_match_through_the_balancer(deployment, context):
    from test_web import create_match, open_page, play_one_move, wait_turn_or_end

    page, calls, errors = open_page(context, f"http://{deployment.lb.address}/")
    create_match(page, "pokeros", {"players": "2", "deck": "stripped"}, ["heuristic"], 7)
    moves = 0
    while wait_turn_or_end(page):
        play_one_move(page)
        moves += 1
        assert moves < 400, "the match does not end"
    assert page.locator("#status").text_content().startswith("Game over.")
    assert "checkraise.v1.Matches/WatchSeat" in calls, calls
    assert errors == [], errors


def unavailable(call) -> bool:
    try:
        call()
    except Exception as error:  # noqa: BLE001 - any failure is checked by its code
        from checkraise.client import UnavailableError

        return isinstance(error, UnavailableError)
    return False


def test_a_stopped_instance_is_taken_out_and_put_back(deployment):
    lb, instance = deployment.lb, deployment.instance
    with client(lb.address) as c:
        match = c.create_match("pokeros", seats=["human", "human"], board_size=5)
        events: list = []
        reader = collect(match.watch(), events)
        wait_until(lambda: events, 10, "the watch stream's first event")
        instance.pause()
        try:
            took = lb.wait_state(instance.name, "DOWN", timeout=20)
            # Up to 2 s to the next check, then two checks timing out after 2 s, 1 s apart
            # (about 7 s).
            assert took < 12, f"marked down after {took:.1f} s"
            assert lb.states()[instance.name]["check_status"] == "L7TOUT"
            # Its watch streams are cut (on-marked-down shutdown-sessions): the watcher
            # learns at once, instead of waiting on a stream that will not move.
            reader.join(10)
            assert not reader.is_alive(), "the watch stream outlived the instance's removal"
            assert isinstance(events[-1], Exception), events[-1]
            # With no instance left, calls fail fast (HAProxy's 503 is UNAVAILABLE).
            start = time.monotonic()
            assert unavailable(match.spectate)
            assert time.monotonic() - start < 5
        finally:
            instance.resume()
        lb.wait_state(instance.name, "UP", timeout=20)
        assert match.spectate().version == 0
        with match.watch() as again:
            assert next(iter(again)).view.version == 0


def test_an_instance_without_its_store_is_taken_out_and_put_back(deployment):
    lb, instance, pg = deployment.lb, deployment.instance, deployment.pg
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    pg.stop()
    try:
        # A write that cannot be stored turns the instance NOT_SERVING (asked of it directly:
        # the balancer may already have taken it out).
        with client(instance.address) as direct:
            assert unavailable(lambda: direct.create_match("pokeros", board_size=5))
        with grpc.insecure_channel(instance.address) as channel:
            health = health_pb2_grpc.HealthStub(channel)
            answer = health.Check(health_pb2.HealthCheckRequest(service=""), timeout=10)
            assert answer.status == health_pb2.HealthCheckResponse.NOT_SERVING
        lb.wait_state(instance.name, "DOWN", timeout=20)
        # It answers, but not SERVING: the content check failed, not a timeout.
        assert lb.states()[instance.name]["check_status"] == "L7RSP"
    finally:
        pg.start_again()
    # The server probes its store every 2 s and turns SERVING again; HAProxy follows.
    lb.wait_state(instance.name, "UP", timeout=30)
    with client(lb.address) as c:
        match = c.create_match("pokeros", seats=["random", "random"], board_size=5)
        assert match.spectate().is_terminal
