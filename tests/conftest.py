"""Fixtures shared by the gRPC end-to-end tests: each test module that asks for them gets its
own checkraise-server (the real binary on a free loopback port), stopped and its exit checked
when the module is done."""

from __future__ import annotations

import pytest

from grpc_util import Server, packaged_stubs


@pytest.fixture(scope="module")
def stubs():
    return packaged_stubs()


@pytest.fixture(scope="module")
def server():
    srv = Server()
    yield srv
    assert srv.stop() == 0, srv.log()


@pytest.fixture(scope="module")
def client(server):
    """A `checkraise.client.Client` connected to the module's server."""
    from checkraise.client import Client

    with Client(server.address, timeout=30) as c:
        c.wait_ready()
        yield c
