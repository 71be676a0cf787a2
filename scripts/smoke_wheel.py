#!/usr/bin/env python3
"""Smoke test of a built checkraise wheel, as a user without Rust would install it.

    .venv/bin/python scripts/smoke_wheel.py dist/checkraise-*.whl \\
        --server target/release/checkraise-server

Run with any Python 3.10+ (the repository's .venv does). It checks the wheel's name, its tags
(``WHEEL``) and, when auditwheel is installed, that auditwheel finds it consistent with the
expected platform; then it creates a fresh virtual environment in a temporary directory and
installs the wheel with its ``grpc`` extra (numpy, grpcio and protobuf from the package index;
``--only-binary :all:``, so nothing is compiled) with the Rust toolchain off ``PATH``. In that
environment, under ``env -i PATH=/usr/bin:/bin`` (no cargo, no rustc, no repository on
``sys.path``), it runs this file again with ``--inside``, which imports the installed package
and checks: the version (the server's ``--version`` and the wheel's metadata), every game
stepped by a ``VectorEnv``, heuristic and ``policy`` bots playing every game, an arena run, and
the gRPC client against ``--server`` (a match played to its end, a remote vector env and a
ladder bot's games).
Finally it checks the installed size.

``--tag`` is the expected tag, its platforms in any order (default: the release's,
manylinux2014); a wheel that pip builds from the sdist is ``cp310-abi3-linux_x86_64``. Exit
status 0 when every check passes; the first failure stops it with a message.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from pathlib import Path

#: The release wheel's tags: abi3 for CPython 3.10+, glibc 2.17 (manylinux2014) on x86_64.
MANYLINUX_TAG = "cp310-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64"
#: The installed package's size limit (the engine with its shipped policies and the Python).
MAX_INSTALLED_MB = 40.0
#: The only PATH the fresh environment gets: no ~/.cargo/bin, so no cargo or rustc.
CLEAN_PATH = "/usr/bin:/bin"
#: Variables the pip install keeps (the index, its certificates, proxies, pip's cache).
PIP_ENV = re.compile(
    r"^(HOME|LANG|PIP_.*|SSL_CERT_.*|REQUESTS_CA_BUNDLE|CURL_CA_BUNDLE|(?i:https?_proxy|no_proxy))$"
)


def fail(message: str) -> None:
    sys.stdout.flush()
    print(f"smoke_wheel: FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def ok(message: str) -> None:
    print(f"smoke_wheel: ok: {message}", flush=True)


# ------------------------------------------------------------------------------------------------
# Outside: the wheel file, the fresh environment
# ------------------------------------------------------------------------------------------------


def expand_tags(tag: str) -> set[str]:
    """The tags of a compressed tag set: cp310-abi3-a.b is {cp310-abi3-a, cp310-abi3-b}."""
    python, abi, platforms = tag.split("-")
    return {
        f"{p}-{a}-{plat}"
        for p in python.split(".")
        for a in abi.split(".")
        for plat in platforms.split(".")
    }


def check_wheel_file(wheel: Path, tag: str) -> str:
    """Checks the file name's and WHEEL's tags; returns the wheel's version."""
    match = re.fullmatch(r"checkraise-([^-]+)-(.+)\.whl", wheel.name)
    if not match:
        fail(f"{wheel.name} is not a checkraise wheel's name")
    version, file_tag = match.groups()
    # A compressed tag set (PEP 425): its platforms in any order (maturin writes
    # manylinux2014_x86_64 first, auditwheel repair manylinux_2_17_x86_64).
    if expand_tags(file_tag) != expand_tags(tag):
        fail(f"{wheel.name}: tag {file_tag!r}, expected {tag!r}")
    with zipfile.ZipFile(wheel) as archive:
        meta = archive.read(f"checkraise-{version}.dist-info/WHEEL").decode()
        names = archive.namelist()
    tags = {line.split(":", 1)[1].strip() for line in meta.splitlines() if line.startswith("Tag:")}
    if tags != expand_tags(tag):
        fail(f"{wheel.name}: WHEEL tags {sorted(tags)}, expected {sorted(expand_tags(tag))}")
    if "Root-Is-Purelib: false" not in meta:
        fail(f"{wheel.name}: WHEEL does not say Root-Is-Purelib: false")
    cores = [n for n in names if re.fullmatch(r"checkraise/_core\.abi3\.so", n)]
    if len(cores) != 1:
        fail(f"{wheel.name}: expected one checkraise/_core.abi3.so, found {cores}")
    for needed in (
        "checkraise/py.typed",
        "checkraise/_core.pyi",
        "checkraise/v1/__init__.py",
        # The notebook widget's bundle (built from web/src, committed): checkraise.notebook.
        "checkraise/notebook/widget.js",
        "checkraise/notebook/widget.css",
    ):
        if needed not in names:
            fail(f"{wheel.name} lacks {needed}")
    size = wheel.stat().st_size / 1e6
    ok(f"{wheel.name}: tags {sorted(tags)}, {size:.1f} MB")
    return version


def check_auditwheel(wheel: Path, tag: str) -> None:
    """`auditwheel show`: the wheel must be consistent with its manylinux tag (skipped for a
    plain linux_x86_64 wheel, which makes no promise about the system's libraries)."""
    manylinux = re.search(r"manylinux_(\d+)_(\d+)_x86_64", tag)
    if manylinux is None:
        return
    try:
        import auditwheel  # noqa: F401
    except ImportError:
        print("smoke_wheel: auditwheel is not installed; `auditwheel show` skipped", flush=True)
        return
    shown = subprocess.run(
        [sys.executable, "-m", "auditwheel", "show", str(wheel)],
        capture_output=True,
        text=True,
        check=False,
    )
    text = " ".join(shown.stdout.split())
    policy = f"manylinux_{manylinux[1]}_{manylinux[2]}_x86_64"
    if shown.returncode != 0 or f'consistent with the following platform tag: "{policy}"' not in (
        text
    ):
        fail(f"auditwheel show {wheel.name}:\n{shown.stdout}{shown.stderr}")
    ok(f"auditwheel: consistent with {policy}")


def base_python() -> str:
    """The interpreter under the current one's virtual environment, if any."""
    return getattr(sys, "_base_executable", None) or sys.executable


def installed_size(venv_python: Path) -> tuple[float, Path]:
    """MB of every file the wheel installed (its RECORD), and the package's directory."""
    code = (
        "import importlib.metadata as m, pathlib, json; d = m.distribution('checkraise'); "
        "fs = [pathlib.Path(d.locate_file(f)) for f in d.files]; "
        "print(json.dumps([sum(f.stat().st_size for f in fs if f.is_file()), "
        "str(d.locate_file('checkraise'))]))"
    )
    out = subprocess.run(
        [str(venv_python), "-c", code],
        env={"PATH": CLEAN_PATH},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    total, package = json.loads(out)
    return total / 1e6, Path(package)


def outside(args: argparse.Namespace) -> None:
    wheel = args.wheel.resolve()
    server = args.server.resolve()
    if not wheel.is_file():
        fail(f"{wheel} does not exist")
    if not os.access(server, os.X_OK):
        fail(f"{server} is not an executable checkraise-server")
    version = check_wheel_file(wheel, args.tag)
    check_auditwheel(wheel, args.tag)
    for tool in ("cargo", "rustc"):
        found = shutil.which(tool, path=CLEAN_PATH)
        if found:
            fail(f"{found} is on {CLEAN_PATH}: the fresh environment would not be without Rust")

    with tempfile.TemporaryDirectory(prefix="checkraise-smoke-") as tmp:
        venv = Path(tmp) / "venv"
        python = venv / "bin" / "python"
        clean = {"PATH": CLEAN_PATH}
        subprocess.run([base_python(), "-m", "venv", str(venv)], env=clean, check=True)
        pip_env = {k: v for k, v in os.environ.items() if PIP_ENV.match(k)} | clean
        subprocess.run(
            [
                *(str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"),
                *("--only-binary", ":all:", f"checkraise[grpc] @ {wheel.as_uri()}"),
            ],
            env=pip_env,
            cwd=tmp,
            check=True,
        )
        ok(f"installed {wheel.name} with its grpc extra into a fresh venv (PATH={CLEAN_PATH})")
        # The checks, in the fresh environment: the environment empty but PATH, run from the
        # temporary directory so that neither the repository nor python/ is importable.
        script = Path(tmp) / "smoke_inside.py"
        shutil.copyfile(__file__, script)
        inside_run = subprocess.run(
            [
                *("env", "-i", f"PATH={CLEAN_PATH}", str(python), "-I", str(script), "--inside"),
                *("--server", str(server), "--expect-version", version),
            ],
            cwd=tmp,
            check=False,
        )
        if inside_run.returncode != 0:
            fail(f"the checks in the fresh venv failed (exit status {inside_run.returncode})")
        size, package = installed_size(python)
        if size > args.max_installed_mb:
            fail(f"installed size {size:.1f} MB exceeds {args.max_installed_mb} MB")
        core = package / "_core.abi3.so"
        ok(
            f"installed size {size:.1f} MB (limit {args.max_installed_mb} MB), "
            f"of which _core.abi3.so {core.stat().st_size / 1e6:.1f} MB"
        )
    ok(f"every check passed for {wheel.name}")


# ------------------------------------------------------------------------------------------------
# Inside: the installed package
# ------------------------------------------------------------------------------------------------


class Server:
    """checkraise-server on a free loopback port, storing in memory."""

    def __init__(self, binary: str) -> None:
        self.lines: list[str] = []
        self.proc = subprocess.Popen(
            [binary, "--address", "127.0.0.1:0", "--log-json", "--database", "memory"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        assert self.proc.stdout is not None
        deadline = time.monotonic() + 30
        self.address = ""
        while not self.address and time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                fail(f"checkraise-server exited early:\n{''.join(self.lines)}")
            self.lines.append(line)
            try:
                fields = json.loads(line).get("fields", {})
            except json.JSONDecodeError:
                continue
            if "listening" in fields.get("message", ""):
                self.address = fields["address"]
        if not self.address:
            fail("checkraise-server did not report its address within 30 s")
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def play_with_bots(cr, game: str, spec: str) -> int:
    """Plays one game of `game` with `spec` in every seat; returns the number of decisions."""
    bots = [cr.Bot(game, spec, seed=seat) for seat in range(cr.make(game).num_players())]
    env = cr.Env(game, seed=1)
    for decisions in range(10_000):
        if env.is_terminal():
            return decisions
        state = env.state()
        player = env.current_player()
        if player == -2:  # simultaneous: every seat chooses
            env.step_joint([bot.act(state, seat) for seat, bot in enumerate(bots)])
        else:
            action = bots[player].act(state)
            if action not in env.legal_actions():
                fail(f"{game}: {spec} chose {action}, not a legal action")
            env.step(action)
    fail(f"{game}: {spec} bots did not finish a game in 10,000 decisions")
    return 0


def inside(args: argparse.Namespace) -> None:
    import numpy as np

    import checkraise as cr

    prefix = Path(sys.prefix).resolve()
    where = Path(cr.__file__).resolve()
    if prefix not in where.parents:
        fail(f"checkraise was imported from {where}, not from the fresh venv {prefix}")
    for tool in ("cargo", "rustc"):
        if shutil.which(tool):
            fail(f"{tool} is on PATH ({shutil.which(tool)}) in the fresh environment")
    ok(f"import checkraise from {where.parent}; no cargo or rustc on PATH")

    import importlib.metadata

    said = subprocess.run(
        [args.server, "--version"], capture_output=True, text=True, check=True
    ).stdout.split()
    if said[:1] != ["checkraise-server"] or len(said) != 2:
        fail(f"checkraise-server --version printed {' '.join(said)!r}")
    versions = {
        "checkraise.__version__": cr.__version__,
        "checkraise-server --version": said[1],
        "the wheel's metadata": importlib.metadata.version("checkraise"),
        "the wheel's file name": args.expect_version,
    }
    if len(set(versions.values())) != 1:
        fail(f"versions differ: {versions}")
    ok(f"version {cr.__version__} everywhere ({', '.join(versions)})")

    games = cr.game_names()
    if len(games) < 5:
        fail(f"game_names() lists {games}")
    for game in games:
        with cr.VectorEnv(game, num_envs=8, seed=0) as venv:
            obs, _ = venv.reset()
            ended = 0
            for _ in range(200):
                obs, rewards, terminated, _, _ = venv.step(venv.sample_actions())
                ended += int(terminated.sum())
            if not (np.isfinite(obs).all() and np.isfinite(rewards).all()):
                fail(f"{game}: VectorEnv gave non-finite observations or rewards")
        ok(f"{game}: VectorEnv(8 envs) stepped 200 times, {ended} games ended")

    for game in games:
        heuristic = play_with_bots(cr, game, "heuristic")
        policy = play_with_bots(cr, game, "policy")
        # The engine's policy bot and the package's numpy inference agree.
        from checkraise.policy import Policy

        state = cr.Env(game, seed=2).state()
        seat = 0 if state.current_player() == -2 else state.current_player()
        engine = cr.Bot(game, "policy").act(state, seat)
        python = Policy.shipped(game).act(state, seat)
        if engine != python:
            fail(f"{game}: policy bot chose {engine}, checkraise.policy {python}")
        ok(
            f"{game}: heuristic bots played a game ({heuristic} decisions), policy bots too "
            f"({policy}); the engine's policy and checkraise.policy agree"
        )

    result = cr.arena.run(
        games[0], ["random", "heuristic", "policy"], deals=4, seed=0, bootstrap=20, progress=False
    )
    if sorted(r.bot for r in result.ratings) != ["heuristic", "policy", "random"]:
        fail(f"arena ratings: {result.ratings}")
    ok(f"arena: {games[0]}, random vs heuristic vs policy, {len(result.pairs)} pairs")

    from checkraise.client import Client
    from checkraise.v1 import checkraise_pb2 as pb

    server = Server(args.server)
    try:
        with Client(server.address, timeout=30) as client:
            client.wait_ready()
            if client.game_names() != games:
                fail(f"the server's games {client.game_names()} differ from {games}")
            listed = client._catalog.ListGames(pb.ListGamesRequest())
            if listed.server_version != cr.__version__:
                fail(f"ListGames says server_version {listed.server_version!r}")
            match = client.create_match(games[0], seats=["human", "heuristic"])
            seat = match.join()
            view = seat.view()
            for _ in range(10_000):
                if view.is_terminal:
                    break
                view = seat.act(min(view.legal_actions))
            if not view.is_terminal:
                fail("the match did not end in 10,000 actions")
            env = client.envs(games[0], 4, seed=0)
            batch = env.batch
            for _ in range(20):
                batch = env.step(batch.action_masks.argmax(axis=-1))
            env.close()
        ok(
            f"client: {server.address}, a {games[0]} match played to its end (returns "
            f"{view.returns}), a remote VectorEnv stepped 20 times"
        )
        # The ladder, with the server's default house bots: a bot registered and played.
        from checkraise.client import ladder

        game = f"{games[0]}(board_size=3)" if games[0] == "pokeros" else games[0]
        bot = ladder.register(server.address, "smoke-bot", [game])
        report = ladder.play(server.address, bot, lambda view: min(view.legal_actions), max_games=2)
        standings = {s.bot: s for s in ladder.leaderboard(server.address, game)}
        if len(report.games) < 2 or standings["smoke-bot"].games < 2:
            fail(f"the ladder bot played {len(report.games)} games: {standings}")
        ok(f"ladder: smoke-bot played {len(report.games)} games of {game} against house bots")
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("wheel", type=Path, nargs="?", help="the wheel to test")
    parser.add_argument("--server", required=True, help="a checkraise-server binary")
    parser.add_argument("--tag", default=MANYLINUX_TAG, help=f"expected tag ({MANYLINUX_TAG})")
    parser.add_argument("--max-installed-mb", type=float, default=MAX_INSTALLED_MB)
    parser.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--expect-version", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inside:
        inside(args)
    elif args.wheel is None:
        parser.error("the wheel to test is required")
    else:
        args.server = Path(args.server)
        outside(args)


if __name__ == "__main__":
    main()
