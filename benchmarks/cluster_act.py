"""Act round trips on PostgreSQL: one server alone, then through HAProxy, then cluster mode
with one and with three instances behind HAProxy, in one run (ratios are what to compare).

    CHECKRAISE_CLUSTER_SERVER=target/release/checkraise-server \\
        .venv/bin/python benchmarks/cluster_act.py [ACTS]

The server must be built with PostgreSQL (`cargo build --release -p checkraise-grpc
--features postgres`). PostgreSQL (Debian's) and HAProxy are started on loopback by
tests/cluster_util.py, as the tests start them. Each configuration plays Pokeros (board 5) with
one client, sequentially: `human` against `random` (the bot answers inside the Act; in a
cluster, on the match's owner), and two humans (the client plays both seats). Reported: Act
p50 / p99 in microseconds, and the servers' CPU (user + system, all instances) per Act.

Then where an Act's time goes, from each instance's Prometheus metrics (`--metrics-address`)
and PostgreSQL's statistics: the servers' own mean time per Act (the rest of the round trip
is the client, HAProxy and the network), store commits per Act and their mean time
(`checkraise_store_commit_seconds`), and PostgreSQL transactions per Act (each commit, read
and lease renewal of every instance; `pg_stat_database.xact_commit`, all sessions), and how
the other instances' copies followed each change: from what its announcement carried, or by
reading the store back (`checkraise_cluster_follows_total`)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from cluster_util import HAProxy, Instance, Postgres, free_port

LEAN = ("observation", "observation_text", "view_json")


def cpu_seconds(instances: list[Instance]) -> float:
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for instance in instances:
        fields = Path(f"/proc/{instance.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


def play(address: str, seats: list[str], acts: int, seed: int) -> list[float]:
    from checkraise.client import Client

    latencies: list[float] = []
    with Client(address, timeout=30) as client:
        client.wait_ready()
        n = 0
        while len(latencies) < acts:
            n += 1
            match = client.create_match("pokeros", seats=seats, board_size=5, seed=seed + n)
            mine = [match.join(s) for s, kind in enumerate(seats) if kind == "human"]
            views = {seat.seat: seat.view(omit=LEAN) for seat in mine}
            while not next(iter(views.values())).is_terminal and len(latencies) < acts:
                seat = next((s for s in mine if views[s.seat].may_act), None)
                if seat is None:
                    views = {s.seat: s.view(omit=LEAN) for s in mine}
                    continue
                view = views[seat.seat]
                action = min(view.legal_actions)
                started = time.perf_counter()
                views[seat.seat] = seat.act(action, expected_version=view.version, omit=LEAN)
                latencies.append(time.perf_counter() - started)
                for other in mine:
                    if other is not seat:
                        views[other.seat] = other.view(omit=LEAN)
    return latencies


METRICS: dict[str, str] = {}
"""Each instance's metrics URL, by its name."""

BREAKDOWN: list[str] = []
"""The second table's rows, printed after the first."""


def start_instance(k: int, database: str, *flags: str) -> Instance:
    """An instance serving Prometheus metrics on a port of its own."""
    port = free_port()
    made = Instance(k, database, *flags, "--metrics-address", f"127.0.0.1:{port}")
    METRICS[made.name] = f"http://127.0.0.1:{port}/metrics"
    return made


def scrape(instances: list[Instance]) -> dict[str, float]:
    """Sums over the instances: store commits and their seconds, Acts and their seconds."""
    totals = dict.fromkeys(("commits", "commit_s", "acts", "act_s", "announced", "read"), 0.0)
    for one in instances:
        text = urllib.request.urlopen(METRICS[one.name], timeout=10).read().decode()
        for line in text.splitlines():
            if line.startswith("#") or " " not in line:
                continue
            name, _, value = line.rpartition(" ")
            act = 'method="/checkraise.v1.Matches/Act"' in name
            if name.startswith("checkraise_store_commit_seconds_count"):
                totals["commits"] += float(value)
            elif name.startswith("checkraise_store_commit_seconds_sum"):
                totals["commit_s"] += float(value)
            elif name.startswith("checkraise_cluster_follows_total"):
                totals["announced" if 'from="announcement"' in name else "read"] += float(value)
            elif act and name.startswith("checkraise_grpc_request_duration_seconds_count"):
                totals["acts"] += float(value)
            elif act and name.startswith("checkraise_grpc_request_duration_seconds_sum"):
                totals["act_s"] += float(value)
    return totals


def transactions(pg: Postgres) -> float:
    """PostgreSQL's committed transactions so far, every session's (read after the sessions
    have reported: a backend sends its counts at most once a second while busy)."""
    time.sleep(1.5)
    done = subprocess.run(
        [str(pg.bin / "psql"), "-h", "127.0.0.1", "-p", str(pg.port), "-U", "checkraise",
         "-d", "postgres", "-Atc", "SELECT sum(xact_commit) FROM pg_stat_database"],
        capture_output=True, text=True, timeout=30, check=True,
    )  # fmt: skip
    return float(done.stdout.strip())


def measure(name: str, address: str, instances: list[Instance], acts: int, pg: Postgres) -> None:
    play(address, ["human", "random"], 50, seed=1)  # warm up
    for seats in (["human", "random"], ["human", "human"]):
        before = cpu_seconds(instances)
        metrics, xacts = scrape(instances), transactions(pg)
        latencies = np.array(play(address, seats, acts, seed=1000)) * 1e6
        cpu = (cpu_seconds(instances) - before) / len(latencies) * 1e6
        after, xacts = scrape(instances), transactions(pg) - xacts
        print(
            f"| {name} | {' vs '.join(seats)} | {np.percentile(latencies, 50):.0f} | "
            f"{np.percentile(latencies, 99):.0f} | {cpu:.0f} |",
            flush=True,
        )
        d = {k: after[k] - metrics[k] for k in after}
        n = len(latencies)
        BREAKDOWN.append(
            f"| {name} | {' vs '.join(seats)} | {latencies.mean():.0f} | "
            f"{d['act_s'] / max(d['acts'], 1) * 1e6:.0f} | {d['commits'] / n:.2f} | "
            f"{d['commit_s'] / max(d['commits'], 1) * 1e6:.0f} | {xacts / n:.2f} | "
            f"{d['announced'] / n:.2f} | {d['read'] / n:.2f} |"
        )


def main() -> None:
    acts = int(sys.argv[1]) if len(sys.argv) > 1 else 600
    pg = Postgres.start()
    print("| configuration | seats | Act p50 µs | Act p99 µs | server CPU µs/Act |")
    print("|---|---|---:|---:|---:|")
    try:
        single = start_instance(0, pg.url, "--log-level", "info,checkraise_grpc::access=warn")
        try:
            measure("one server, direct", single.address, [single], acts, pg)
            lb = HAProxy.over([single])
            try:
                lb.wait_state(single.name, "UP")
                measure("one server, HAProxy", lb.address, [single], acts, pg)
            finally:
                lb.remove()
        finally:
            single.remove()
        for count in (1, 3):
            quiet = ("--log-level", "info,checkraise_grpc::access=warn")
            instances = [start_instance(10 + k, pg.url, "--cluster", *quiet) for k in range(count)]
            lb = HAProxy.over(instances)
            try:
                for instance in instances:
                    lb.wait_state(instance.name, "UP")
                measure(f"cluster of {count}, HAProxy", lb.address, instances, acts, pg)
            finally:
                lb.remove()
                for instance in instances:
                    instance.remove()
    finally:
        pg.remove()
    print()
    print(
        "| configuration | seats | Act mean µs (client) | Act mean µs (servers) | "
        "commits per Act | commit mean µs | PostgreSQL transactions per Act | "
        "copies followed from announcements per Act | copies read back per Act |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    print("\n".join(BREAKDOWN))


if __name__ == "__main__":
    main()
