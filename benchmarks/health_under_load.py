"""Health.Check latency while all-bot matches play whole games inside CreateMatch.

Starts checkraise-server (`--database memory`), then CONCURRENT threads each create an
all-heuristic Hold'em Poker Chess match of ten seats and `hands` hands (the whole game is
played inside the call, on the server's blocking pool), while the main thread calls
`grpc.health.v1.Health/Check` every 10 ms on its own connection. Prints the health p50/p99/max
during the load and how many matches were created.

    PYTHONPATH=python python benchmarks/health_under_load.py [--hands 1000] [--concurrent 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from pathlib import Path

import grpc

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from grpc_util import Server, packaged_stubs


def health_check(channel: grpc.Channel) -> None:
    call = channel.unary_unary(
        "/grpc.health.v1.Health/Check",
        request_serializer=lambda raw: raw,
        response_deserializer=lambda raw: raw,
    )
    call(b"", timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--concurrent", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=15.0)
    args = parser.parse_args()
    pb2, pb2_grpc = packaged_stubs()
    server = Server()
    created, done = [], threading.Event()

    def load() -> None:
        with grpc.insecure_channel(server.address) as channel:
            matches = pb2_grpc.MatchesStub(channel)
            request = pb2.CreateMatchRequest(
                game="holdem_chess",
                parameters={"players": "10", "hands": str(args.hands)},
                seats=["heuristic"] * 10,
            )
            while not done.is_set():
                started = time.perf_counter()
                matches.CreateMatch(request, timeout=600)
                created.append(time.perf_counter() - started)

    try:
        threads = [threading.Thread(target=load, daemon=True) for _ in range(args.concurrent)]
        for t in threads:
            t.start()
        time.sleep(0.5)
        latencies = []
        with grpc.insecure_channel(server.address) as channel:
            health_check(channel)
            end = time.perf_counter() + args.seconds
            while time.perf_counter() < end:
                started = time.perf_counter()
                health_check(channel)
                latencies.append(time.perf_counter() - started)
                time.sleep(0.01)
        done.set()
        latencies.sort()
        ms = [x * 1000 for x in latencies]
        p99 = ms[int(0.99 * (len(ms) - 1))]
        print(
            f"health checks: {len(ms)}, p50 {statistics.median(ms):.2f} ms, p99 {p99:.2f} ms, "
            f"max {ms[-1]:.2f} ms; all-bot matches finished meanwhile: {len(created)} "
            f"({args.concurrent} at a time, hands={args.hands}, "
            f"mean {statistics.mean(created) if created else float('nan'):.1f} s each)"
        )
    finally:
        server.stop(timeout=60)


if __name__ == "__main__":
    main()
