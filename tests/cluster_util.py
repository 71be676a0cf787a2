"""Helpers for the tests of checkraise-server behind a load balancer: a PostgreSQL server of
the test's own, server instances on it (the real binary, each on a fixed loopback port so that
it can be restarted where the balancer expects it), and HAProxy in front of them running
packaging/haproxy/haproxy.cfg with only its addresses rewritten.

    pg = Postgres.start()
    instances = [Instance(k, pg.url, "--cluster") for k in range(3)]
    lb = HAProxy.over(instances)        # or HAProxy(addresses, names); --no-web instances
                                        # get the file's native gRPC health check
    lb.wait_state("instance-1", "UP")
    instances[1].pause()                # SIGSTOP; .resume() is SIGCONT, .kill() SIGKILL
    lb.wait_state("instance-1", "DOWN")
    ...
    lb.stop(); [i.stop() for i in instances]; pg.stop()

Nothing here skips: PostgreSQL or HAProxy missing, or a server built without PostgreSQL,
fails with a sentence saying what to install or build (scripts/test.sh installs both)."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from grpc_util import ROOT, server_binary

HAPROXY_CONFIG = ROOT / "packaging" / "haproxy" / "haproxy.cfg"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(condition, timeout: float, what: str, interval: float = 0.05):
    """Calls `condition` until it returns something true, which is returned; a TimeoutError
    naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} within {timeout} s")
        time.sleep(interval)


def collect(stream, into: list) -> threading.Thread:
    """Reads `stream` into `into` on a thread; an error ends the list."""

    def read():
        try:
            into.extend(stream)
        except Exception as error:  # noqa: BLE001 - the test looks at what ended the stream
            into.append(error)

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


def cluster_binary() -> Path:
    """A server built with PostgreSQL: $CHECKRAISE_CLUSTER_SERVER, else
    $CHECKRAISE_EXPORT_SERVER (scripts/test.sh points both at the build `cargo test` made with
    the optional features), else $CHECKRAISE_SERVER or the release build. The release build
    has no PostgreSQL; Instance fails saying so."""
    for variable in ("CHECKRAISE_CLUSTER_SERVER", "CHECKRAISE_EXPORT_SERVER"):
        if variable in os.environ:
            return server_binary(variable)
    return server_binary()


def _is_root() -> bool:
    return os.geteuid() == 0


class Postgres:
    """A PostgreSQL server in a temporary directory on a loopback port (initdb and pg_ctl,
    run as the user `postgres`, else `nobody`, when the test runs as root: PostgreSQL refuses
    to run as root). `stop()` and `start_again()` take it away and bring it back on the same
    port, so that a server loses its store and finds it again."""

    def __init__(self, bin_dir: Path, directory: Path, user: str | None, port: int):
        self.bin = bin_dir
        self.dir = directory
        self.data = directory / "data"
        self.user = user
        self.port = port

    @staticmethod
    def bin_dir() -> Path:
        """$CHECKRAISE_PG_BIN, else Debian's newest /usr/lib/postgresql/*/bin."""
        if "CHECKRAISE_PG_BIN" in os.environ:
            return Path(os.environ["CHECKRAISE_PG_BIN"])
        found = sorted(
            (int(p.parent.parent.name), p.parent)
            for p in Path("/usr/lib/postgresql").glob("*/bin/initdb")
            if p.parent.parent.name.isdigit()
        )
        if not found:
            raise RuntimeError(
                "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): install it "
                "with `apt-get install -y postgresql` (scripts/test.sh does), or set "
                "CHECKRAISE_PG_BIN"
            )
        return found[-1][1]

    def _run(self, program: str, *args: str, timeout: float = 120) -> None:
        command = [str(self.bin / program), *args]
        if self.user:
            command = ["runuser", "-u", self.user, "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        if done.returncode != 0:
            raise RuntimeError(f"{program} failed ({done.returncode}): {done.stderr}")

    @classmethod
    def start(cls) -> Postgres:
        directory = Path(tempfile.mkdtemp(prefix="checkraise-pg-"))
        user = None
        if _is_root():
            exists = subprocess.run(["id", "postgres"], capture_output=True).returncode == 0
            user = "postgres" if exists else "nobody"
            shutil.chown(directory, user)
        pg = cls(Path(), directory, user, free_port())
        try:
            pg.bin = cls.bin_dir()
            pg._run("initdb", "-A", "trust", "-U", "checkraise", "-E", "UTF8", "-D", str(pg.data))
            pg.start_again()
        except BaseException:
            pg.remove()
            raise
        return pg

    def start_again(self) -> None:
        """Starts the server (again) on its port."""
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1"
        self._run(
            "pg_ctl", "-w", "-t", "60", "-o", options, "-l", str(self.dir / "postgres.log"),
            "-D", str(self.data), "start",
        )  # fmt: skip

    @property
    def url(self) -> str:
        return f"postgres://checkraise@127.0.0.1:{self.port}/postgres"

    def stop(self, mode: str = "fast") -> None:
        """Stops the server; `mode` is pg_ctl's (fast: connections are ended at once)."""
        self._run("pg_ctl", "-m", mode, "-D", str(self.data), "stop")

    def remove(self) -> None:
        """Stops the server if it runs, and removes its directory."""
        if (self.data / "postmaster.pid").exists():
            with contextlib.suppress(RuntimeError):
                self.stop("immediate")
        shutil.rmtree(self.dir, ignore_errors=True)


class Instance:
    """checkraise-server instance `k` (`instance-k` to the balancer) on a fixed loopback port
    with `database` and `flags`, logging JSON lines to a file; `restart()` starts it again on
    the same port with the same flags."""

    def __init__(self, k: int, database: str, *flags: str, binary: Path | None = None):
        self.k = k
        self.name = f"instance-{k}"
        self.database = database
        self.flags = flags
        self.binary = binary or cluster_binary()
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        fd, log = tempfile.mkstemp(prefix=f"checkraise-{self.name}-", suffix=".log")
        os.close(fd)
        self.log_path = Path(log)
        self.proc: subprocess.Popen | None = None
        try:
            self.restart()
        except BaseException:
            # The error carries the log.
            self.remove()
            raise

    def restart(self, timeout: float = 60) -> None:
        """Starts the instance (again), once it says it listens."""
        assert self.proc is None or self.proc.poll() is not None, f"{self.name} still runs"
        start = self.log_path.stat().st_size
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                [str(self.binary), "--address", self.address, "--database", self.database,
                 "--log-json", "--proxy-protocol-from", "127.0.0.1", *self.flags],
                stdout=log,
                stderr=subprocess.STDOUT,
            )  # fmt: skip

        def listening() -> bool:
            if self.proc.poll() is not None:
                log = self.log()[start:]
                if "built without PostgreSQL" in log:
                    raise RuntimeError(
                        f"{self.binary} was built without PostgreSQL: point "
                        "CHECKRAISE_CLUSTER_SERVER at a server built with `--features "
                        "postgres` (scripts/test.sh uses target/debug/checkraise-server, "
                        f"which cargo test builds with it)\n{log}"
                    )
                raise RuntimeError(f"{self.name} exited at start ({self.proc.returncode}):\n{log}")
            for line in self.log()[start:].splitlines():
                try:
                    message = json.loads(line).get("fields", {}).get("message", "")
                except json.JSONDecodeError:
                    continue
                if "listening" in message:
                    return True
            return False

        wait_until(listening, timeout, f"{self.name} did not listen on {self.address}")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def pause(self) -> None:
        """SIGSTOP: the process stays, its sockets accept connections, nothing answers."""
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        """SIGCONT after `pause()`."""
        self.proc.send_signal(signal.SIGCONT)

    def kill(self) -> None:
        """SIGKILL, as a crash: nothing is finished or committed on the way out."""
        self.proc.kill()
        self.proc.wait(timeout=10)

    def stop(self, timeout: float = 15) -> int:
        """SIGTERM (after SIGCONT, in case it is paused) and waits; returns the exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.terminate()
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
            raise

    def remove(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.kill()
            self.proc.wait(timeout=10)
        self.log_path.unlink(missing_ok=True)


def haproxy_binary() -> str:
    """$CHECKRAISE_HAPROXY, else haproxy on PATH (or /usr/sbin, where Debian puts it)."""
    found = os.environ.get("CHECKRAISE_HAPROXY") or shutil.which(
        "haproxy", path=f"{os.environ.get('PATH', '')}:/usr/sbin:/usr/local/sbin"
    )
    if not found or not Path(found).exists():
        where = f"not at $CHECKRAISE_HAPROXY ({found})" if found else "not on PATH or in /usr/sbin"
        raise RuntimeError(
            f"HAProxy is not installed ({where}): install Debian's with `apt-get install -y "
            "haproxy` (scripts/test.sh does), or point CHECKRAISE_HAPROXY at a haproxy 2.6 or later"
        )
    return found


# The health check's lines in the file: the gRPC-Web one in force, the native one commented
# out (for servers run with --no-web).
_WEB_CHECK = ("option httpchk", "http-check ")
_NATIVE_CHECK = ("# option tcp-check", "# tcp-check ")


def render_config(
    servers: list[tuple[str, str]],
    replace: dict[str, str] | None = None,
    source: Path = HAPROXY_CONFIG,
    native_check: bool = False,
) -> str:
    """packaging/haproxy/haproxy.cfg with its `server` lines replaced by one line per
    (name, address), and each line starting (after indentation) with a key of `replace`
    replaced by its value (e.g. {"timeout server": "timeout server 5s"}). With
    `native_check`, the file's commented-out native gRPC check replaces the gRPC-Web one (for
    instances run with --no-web)."""
    out: list[str] = []
    placed = False
    for line in source.read_text().splitlines():
        body = line.strip()
        if native_check and body.startswith(_WEB_CHECK):
            continue
        if native_check and body.startswith(_NATIVE_CHECK):
            line = "    " + body[2:]
            body = line.strip()
        if re.match(r"server\s", body):
            if not placed:
                out += [f"    server {name} {address}" for name, address in servers]
                placed = True
            continue
        for key, value in (replace or {}).items():
            if body.startswith(key):
                line = f"    {value}"
        out.append(line)
    assert placed, f"{source} has no server lines"
    return "\n".join(out) + "\n"


class HAProxy:
    """HAProxy running the sample configuration over `addresses` (instance-0, instance-1, ...
    unless `names` are given) on free loopback ports: clients connect to `address`, the
    stats page is at `stats`. Logs (one line per call) are kept in `log()`."""

    def __init__(
        self,
        addresses: list[str],
        names: list[str] | None = None,
        replace: dict[str, str] | None = None,
        native_check: bool = False,
    ):
        self.names = names or [f"instance-{k}" for k in range(len(addresses))]
        self.dir = Path(tempfile.mkdtemp(prefix="checkraise-haproxy-"))
        self.config = self.dir / "haproxy.cfg"
        self.config.write_text(
            render_config(
                list(zip(self.names, addresses, strict=True)), replace, native_check=native_check
            )
        )
        self.address = f"127.0.0.1:{free_port()}"
        self.stats = f"127.0.0.1:{free_port()}"
        env = {
            **os.environ,
            "CHECKRAISE_LB_ADDRESS": self.address,
            "CHECKRAISE_LB_STATS": self.stats,
            "CHECKRAISE_LB_SOCKET": str(self.dir / "admin.sock"),
        }
        binary = haproxy_binary()
        check = subprocess.run(
            [binary, "-c", "-f", str(self.config)], capture_output=True, text=True, env=env
        )
        assert check.returncode == 0, (
            f"haproxy -c refused {self.config}:\n{check.stdout}{check.stderr}"
        )
        self.log_path = self.dir / "haproxy.log"
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(
                [binary, "-db", "-f", str(self.config)],
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
            )
        wait_until(self._stats_up, 20, f"HAProxy did not serve its stats on {self.stats}")

    @classmethod
    def over(
        cls,
        instances: list[Instance],
        replace: dict[str, str] | None = None,
        native_check: bool | None = None,
    ) -> HAProxy:
        """HAProxy over `instances`, each under its own name (`instance-k`); the native
        health check when they run with --no-web (unless `native_check` says otherwise)."""
        if native_check is None:
            native_check = any("--no-web" in i.flags for i in instances)
        addresses, names = [i.address for i in instances], [i.name for i in instances]
        return cls(addresses, names, replace, native_check=native_check)

    def _stats_up(self) -> bool:
        if self.proc.poll() is not None:
            raise RuntimeError(f"haproxy exited ({self.proc.returncode}):\n{self.log()}")
        try:
            self.states()
        except OSError:
            return False
        return True

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def states(self) -> dict[str, dict[str, str]]:
        """Each server of the backend: its row of the stats CSV (`status`: UP, DOWN,
        "UP 1/2" on the way down...; `check_status`: L7OK, L7TOUT, L7RSP, L4CON...)."""
        with urllib.request.urlopen(f"http://{self.stats}/stats;csv", timeout=5) as reply:
            text = reply.read().decode().lstrip("# ")
        return {
            row["svname"]: row
            for row in csv.DictReader(io.StringIO(text))
            if row["pxname"] == "checkraise" and row["svname"] not in ("FRONTEND", "BACKEND")
        }

    def state(self, name: str) -> str:
        return self.states()[name]["status"]

    def wait_state(self, name: str, status: str, timeout: float = 20) -> float:
        """Waits until server `name` is `status` (UP or DOWN); returns the seconds it took."""
        start = time.monotonic()
        try:
            wait_until(lambda: self.state(name) == status, timeout, f"{name} was not {status}")
        except TimeoutError as error:
            raise TimeoutError(
                f"{error}: {self.states().get(name)}\n{self.log()[-3000:]}"
            ) from None
        return time.monotonic() - start

    def stop(self, timeout: float = 15) -> int:
        """Soft stop (SIGUSR1: HAProxy stops listening and exits once its open calls are
        done; 0 then) and waits; returns the exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGUSR1)
        return self.proc.wait(timeout=timeout)

    def remove(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        shutil.rmtree(self.dir, ignore_errors=True)
