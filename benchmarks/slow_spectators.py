"""Server memory with many spectators that never read their watch streams.

Starts checkraise-server (`--database memory`, a free loopback port; `--server-arg` passes
more flags), waits until it is idle and reads its VmRSS from /proc. Then it creates MATCHES
matches of GAME (by default six-player Detective Poker over ten rounds: one human seat, the
others `heuristic` bots, about 1,400 events and 6 MiB of spectator views per match), opens
SPECTATORS `WatchSpectator` streams over them, spread over separate connections (grpcio
channels with `grpc.use_local_subchannel_pool`, at most PER_CONNECTION streams each), and
never reads them: the call objects are kept, nothing iterates them. The spectators' channels
turn grpc-core's bandwidth-delay probe off, so their HTTP/2 windows stay at 64 KiB as a
reader that does not read would keep them (with it, grpc-core reads megabytes of every stream
into this process unasked; `--client-bdp-probe` allows it). Then it plays every human
seat to the end (random legal actions, one thread per match) while sampling the server's VmRSS
every half second, so every spectator falls far more than the server's watch buffer
(`--watch-buffer-kib`, 256 KiB by default) behind.

At the end it reads each stream out to learn how it ended: a spectator the server cut off gets
RESOURCE_EXHAUSTED after the events queued before the cut (its status cannot reach a client
that does not read, since it comes after those events), one that was not cut off gets the
whole match and OK. It prints the idle and peak RSS, peak minus idle, the RSS after the games
and after the streams were read out, how the streams ended, the actions played, and the
command lines (`--json`: the same as one JSON object).

    PYTHONPATH=python python benchmarks/slow_spectators.py [--matches 10] [--spectators 1000]
        [--server target/release/checkraise-server] [--server-arg=--watch-buffer-kib=16]
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import os
import random
import shlex
import sys
import threading
import time
from pathlib import Path
from typing import Any, cast

import grpc

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from checkraise.client import Client, Match, RemoteError
from checkraise.v1 import checkraise_pb2 as pb
from grpc_util import Server

WATCH_SPECTATOR = "/checkraise.v1.Matches/WatchSpectator"
# Every part of a seat's view but the legal action ids: the driver needs nothing else.
LEAN = ("view_json", "observation", "observation_text", "action_texts")


def spectator_options(bdp_probe: bool) -> list[tuple[str, int]]:
    """A spectator connection's grpcio channel arguments: a connection of its own, and
    (unless `bdp_probe`) grpc-core's flow-control windows left at HTTP/2's 64 KiB. With its
    bandwidth-delay probe grpc-core grows the windows, and so reads megabytes of every stream
    into the client's memory whether the application reads or not: the server then sees a
    fast reader, not a slow one."""
    options = [("grpc.use_local_subchannel_pool", 1)]
    if not bdp_probe:
        options.append(("grpc.http2.bdp_probe", 0))
    return options


def rss_kib(pid: int) -> int:
    """The process's resident set size (VmRSS), in KiB."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError(f"no VmRSS in /proc/{pid}/status")


def mib(kib: float) -> float:
    return round(kib / 1024, 1)


class Sampler:
    """Samples a process's VmRSS every `interval` seconds in a thread; `peak` is the largest
    sample so far."""

    def __init__(self, pid: int, interval: float) -> None:
        self.pid, self.interval = pid, interval
        self.samples: list[tuple[float, int]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def sample(self) -> int:
        kib = rss_kib(self.pid)
        self.samples.append((time.monotonic(), kib))
        return kib

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.sample()

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    @property
    def peak(self) -> int:
        return max(kib for _, kib in self.samples)


def wait_idle(pid: int, settle: float = 3.0) -> int:
    """The server's RSS once two samples a quarter second apart differ by under 64 KiB (or
    after `settle` seconds)."""
    deadline = time.monotonic() + settle
    last = rss_kib(pid)
    while time.monotonic() < deadline:
        time.sleep(0.25)
        now = rss_kib(pid)
        if abs(now - last) < 64:
            return now
        last = now
    return last


def play(match: Match, rng: random.Random, deadline: float, actions: list[int]) -> bool:
    """Plays the match's human seat to the end (or the deadline) with random legal actions;
    counts them in `actions` (one slot per match). Returns whether the match ended."""
    seat = match.join()
    view = seat.view(omit=LEAN)
    while not view.is_terminal and time.monotonic() < deadline:
        view = seat.act(rng.choice(list(view.legal_actions)), omit=LEAN)
        actions[0] += 1
    return view.is_terminal


def read_out(call: Any) -> tuple[str, int, int]:
    """Reads a stream to its end: its final status code's name, events and bytes read."""
    events = size = 0
    try:
        for message in call:
            events += 1
            size += len(message)
    except grpc.RpcError as error:
        return error.code().name, events, size
    return call.code().name, events, size


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--server",
        default=None,
        help="the checkraise-server binary ($CHECKRAISE_SERVER, else target/release)",
    )
    parser.add_argument(
        "--server-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="one more server argument (repeat it), e.g. --server-arg=--watch-buffer-kib=16",
    )
    parser.add_argument("--matches", type=int, default=10)
    parser.add_argument("--spectators", type=int, default=1000, help="in all, over the matches")
    parser.add_argument(
        "--per-connection", type=int, default=200, help="most streams on one connection"
    )
    parser.add_argument("--game", default="detective_poker")
    parser.add_argument(
        "--param",
        action="append",
        default=None,
        metavar="NAME=VALUE",
        help="a game parameter (repeat it); default for detective_poker: players=6 rounds=10",
    )
    parser.add_argument("--bots", default="heuristic", help="the bot spec of every other seat")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--interval", type=float, default=0.5, help="seconds between samples")
    parser.add_argument(
        "--max-seconds",
        type=float,
        default=90.0,
        help="stop playing after this long, finished or not",
    )
    parser.add_argument(
        "--client-bdp-probe",
        action="store_true",
        help="let grpc-core grow the spectators' flow-control windows (it then buffers "
        "megabytes of each stream in this process, so the server sees fast readers)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object only")
    args = parser.parse_args(argv)
    for name in ("matches", "spectators", "per_connection"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be positive")
    if args.interval <= 0 or args.max_seconds <= 0:
        parser.error("--interval and --max-seconds must be positive")
    if args.param is None:
        args.param = ["players=6", "rounds=10"] if args.game == "detective_poker" else []
    params = {}
    for item in args.param:
        name, sep, value = item.partition("=")
        if not sep or not name:
            parser.error(f"--param takes NAME=VALUE, not {item!r}")
        params[name] = value
    args.params = params
    return args


def run(args: argparse.Namespace) -> dict[str, Any]:
    if args.server is not None:
        os.environ["CHECKRAISE_SERVER"] = str(Path(args.server).resolve())
    server = Server(*args.server_arg)
    pid = server.proc.pid
    channels: list[grpc.Channel] = []
    calls: list[Any] = []
    try:
        with Client(server.address, timeout=60) as client:
            client.wait_ready()
            players = client.game(args.game, **args.params).sizes.num_players
            seats = ["human"] + [args.bots] * (players - 1)
            idle = wait_idle(pid)
            sampler = Sampler(pid, args.interval)
            sampler.sample()
            sampler.start()

            matches = [
                client.create_match(args.game, seed=args.seed + i, seats=seats, **args.params)
                for i in range(args.matches)
            ]
            # The spectators: stream j watches match j % matches, on connection
            # j // per_connection; raw bytes (no decoding), and never read until the end.
            connections = math.ceil(args.spectators / args.per_connection)
            for _ in range(connections):
                channels.append(
                    grpc.insecure_channel(
                        server.address, options=spectator_options(args.client_bdp_probe)
                    )
                )
            for j in range(args.spectators):
                watch = channels[j // args.per_connection].unary_stream(
                    WATCH_SPECTATOR,
                    request_serializer=pb.WatchSpectatorRequest.SerializeToString,
                    response_deserializer=None,
                )
                calls.append(
                    watch(pb.WatchSpectatorRequest(match_id=matches[j % len(matches)].match_id))
                )
            # Subscribed: the server answers with its headers once the watcher is registered
            # (headers are not held back by flow control, so this reads no event).
            for call in calls:
                call.initial_metadata()
            subscribed = sampler.sample()

            # Play every match to its end, one thread each.
            started = time.monotonic()
            deadline = started + args.max_seconds
            actions = [[0] for _ in matches]
            finished = [False] * len(matches)
            errors: list[str] = []

            def drive(i: int) -> None:
                try:
                    finished[i] = play(
                        matches[i], random.Random(args.seed + i), deadline, actions[i]
                    )
                except RemoteError as error:
                    errors.append(f"match {i}: {error}")

            threads = [threading.Thread(target=drive, args=(i,)) for i in range(len(matches))]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            drive_seconds = time.monotonic() - started
            time.sleep(max(1.0, 2 * args.interval))
            after_games = sampler.sample()
            peak = sampler.peak

            # Read every stream out for its status (cancelling any still open at the end of a
            # grace period: a match that did not finish never ends its uncut streams).
            ended: collections.Counter[str] = collections.Counter()
            received = [0, 0]
            lock = threading.Lock()
            grace = threading.Timer(30.0, lambda: [c.cancel() for c in calls])
            grace.start()

            def read_connection(k: int) -> None:
                for call in calls[k * args.per_connection : (k + 1) * args.per_connection]:
                    code, events, size = read_out(call)
                    with lock:
                        ended[code] += 1
                        received[0] += events
                        received[1] += size

            readers = [
                threading.Thread(target=read_connection, args=(k,)) for k in range(connections)
            ]
            for reader in readers:
                reader.start()
            for reader in readers:
                reader.join()
            grace.cancel()
            time.sleep(max(1.0, 2 * args.interval))
            after_read = sampler.sample()
            sampler.stop()
    finally:
        for channel in channels:
            channel.close()
        code = server.stop()
    return {
        "idle_rss_mib": mib(idle),
        "subscribed_rss_mib": mib(subscribed),
        "peak_rss_mib": mib(peak),
        "peak_minus_idle_mib": mib(peak - idle),
        "after_games_rss_mib": mib(after_games),
        "after_read_out_rss_mib": mib(after_read),
        "samples": len(sampler.samples),
        "spectators": args.spectators,
        "connections": connections,
        "streams_cut_off": ended.get("RESOURCE_EXHAUSTED", 0),
        "streams_ended_ok": ended.get("OK", 0),
        "streams_by_status": dict(sorted(ended.items())),
        "events_read_out": received[0],
        "mib_read_out": mib(received[1] / 1024),
        "matches": len(matches),
        "matches_finished": sum(finished),
        "actions": sum(a[0] for a in actions),
        "drive_seconds": round(drive_seconds, 2),
        "errors": errors,
        "client_bdp_probe": args.client_bdp_probe,
        "game": args.game,
        "params": args.params,
        "seats": seats,
        "server_exit_code": code,
        "command": shlex.join([sys.executable, *sys.argv]),
        "server_command": shlex.join(str(a) for a in cast("list[str]", server.proc.args)),
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    result = run(args)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        rows = [
            ("idle RSS", f"{result['idle_rss_mib']} MiB"),
            ("RSS with every spectator subscribed", f"{result['subscribed_rss_mib']} MiB"),
            ("peak RSS", f"{result['peak_rss_mib']} MiB"),
            ("peak minus idle", f"{result['peak_minus_idle_mib']} MiB"),
            ("RSS after the games", f"{result['after_games_rss_mib']} MiB"),
            ("RSS after the streams were read out", f"{result['after_read_out_rss_mib']} MiB"),
            (
                "spectator streams",
                f"{result['spectators']} on {result['connections']} connections",
            ),
            ("cut off (RESOURCE_EXHAUSTED)", result["streams_cut_off"]),
            ("ended OK (whole match)", result["streams_ended_ok"]),
            ("streams by status", result["streams_by_status"]),
            (
                "events read out at the end",
                f"{result['events_read_out']} ({result['mib_read_out']} MiB)",
            ),
            (
                "actions driven",
                (
                    f"{result['actions']} in {result['drive_seconds']} s, "
                    f"{result['matches_finished']} of {result['matches']} matches finished"
                ),
            ),
            ("game", f"{result['game']} {result['params']} seats {result['seats']}"),
            ("command", result["command"]),
            ("server", result["server_command"]),
        ]
        width = max(len(name) for name, _ in rows)
        for name, value in rows:
            print(f"{name:<{width}}  {value}")
        for error in result["errors"]:
            print(f"error: {error}")
    return 0 if not result["errors"] and result["server_exit_code"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
