"""Fixtures shared by the gRPC end-to-end tests: each test module that asks for them gets its
own checkraise-server (the real binary on a free loopback port), stopped and its exit checked
when the module is done; and the browser of the web page's tests."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from grpc_util import ROOT, Server, packaged_stubs, web_context


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


# The web page's tests (test_web.py, test_web_page.py): Debian's headless Chromium, driven by
# Playwright, one browser per module and a fresh context (1280 × 900, no pause before
# others' moves) per test.
CHROMIUM = os.environ.get("CHECKRAISE_CHROMIUM", "/usr/bin/chromium")
WEB_ARTIFACTS = ROOT / "tests" / "artifacts" / "web"


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"{CHROMIUM} does not exist: install Debian's chromium (apt-get install chromium) "
            "or point CHECKRAISE_CHROMIUM at a Chromium"
        )
    WEB_ARTIFACTS.mkdir(parents=True, exist_ok=True)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture
def context(browser):
    ctx = web_context(browser, viewport={"width": 1280, "height": 900})
    yield ctx
    ctx.close()
