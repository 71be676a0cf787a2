"""Helpers for the gRPC end-to-end tests: run the real checkraise-server binary on a free
loopback port, and the generated Python stubs committed in the package (checkraise.v1)."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def server_binary(variable: str = "CHECKRAISE_SERVER") -> Path:
    """The server to test: $CHECKRAISE_SERVER (or another variable's), else the release
    build."""
    path = Path(os.environ.get(variable, ROOT / "target" / "release" / "checkraise-server"))
    if not path.exists():
        raise FileNotFoundError(
            f"{path} does not exist; build it with "
            "`cargo build --release -p checkraise-grpc --bin checkraise-server` "
            "or point CHECKRAISE_SERVER at a build"
        )
    return path


def packaged_stubs():
    """The committed stubs (checkraise.v1, kept equal to the .proto by test_client.py's
    regeneration check); returns (pb2, pb2_grpc).

    Every gRPC test uses these, so the messages are registered in protobuf's descriptor pool
    once, under the file name `checkraise/v1/checkraise.proto`."""
    from checkraise.v1 import checkraise_pb2, checkraise_pb2_grpc

    return checkraise_pb2, checkraise_pb2_grpc


class Server:
    """A checkraise-server process on 127.0.0.1 with a port the OS picked."""

    def __init__(self, *flags: str, binary: Path | None = None):
        self.lines: list[str] = []
        # In memory unless a test names a database: tests must not share one.
        database = (
            () if any(f.startswith("--database") for f in flags) else ("--database", "memory")
        )
        self.proc = subprocess.Popen(
            [
                str(binary or server_binary()),
                "--address",
                "127.0.0.1:0",
                "--log-json",
                *database,
                *flags,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.address = self._wait_for_address()
        self._drain = threading.Thread(target=self._read_rest, daemon=True)
        self._drain.start()

    def _wait_for_address(self, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        assert self.proc.stdout is not None
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"server exited early:\n{''.join(self.lines)}")
            self.lines.append(line)
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            fields = record.get("fields", {})
            if "listening" in fields.get("message", ""):
                return fields["address"]
        raise TimeoutError("server did not report its address")

    def _read_rest(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line)

    def stop(self, timeout: float = 10.0) -> int:
        """Sends SIGTERM and waits; returns the exit code."""
        if self.proc.poll() is None:
            self.proc.terminate()
        code = self.proc.wait(timeout=timeout)
        self._drain.join(timeout=timeout)
        if self.proc.stdout is not None and not self._drain.is_alive():
            self.proc.stdout.close()
        return code

    def log(self) -> str:
        return "".join(self.lines)


# The web page's pause before drawing someone else's move (a player's setting, kept in the
# browser's local storage): none in the browser tests, so that a match against bots is not
# slowed by it, except where a test checks the pause itself.
PAUSE_KEY = "checkraise.pause-ms"


def web_context(browser, **options):
    """A Playwright browser context whose pages draw every move without the page's pause.

    With $CHECKRAISE_WEB_DIST set (a folder such as web/dist), the page's script and stylesheet
    are that folder's instead of those the server embeds: a page rebuilt from web/src is then
    tested against a server built before the change."""
    context = browser.new_context(**options)
    context.add_init_script(f"localStorage.setItem({PAUSE_KEY!r}, '0')")
    dist = os.environ.get("CHECKRAISE_WEB_DIST")
    if dist:
        for name, kind in (("app.js", "text/javascript"), ("app.css", "text/css")):
            context.route(f"**/{name}", _serve((Path(dist) / name).read_bytes(), kind))
    return context


def _serve(body: bytes, kind: str):
    """A route handler that answers with `body`."""

    def handler(route):
        route.fulfill(body=body, content_type=kind)

    return handler
