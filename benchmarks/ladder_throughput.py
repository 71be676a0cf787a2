"""How many games a second the ladder sustains: a real checkraise-server, its house bots, and
Python bots (``checkraise.client.ladder``, each in a process of its own) that play the
first legal action, on a short game, for a fixed time. Prints the ladder games finished per
second (all of them, and those of the registered bots), and the server's CPU time per game.

    .venv/bin/python benchmarks/ladder_throughput.py --bots 4 --seconds 30

The server is target/release/checkraise-server unless --server names another; it keeps its
ladder in memory. House bots play each other at most --ladder-house-sets sets (here the
default, 50), so after the first seconds nearly every game has a registered bot in it.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from checkraise.client import ladder  # noqa: E402
from grpc_util import Server  # noqa: E402


def first_legal(view):
    return min(view.legal_actions)


def play(address: str, name: str, game: str, stop_at: float) -> None:
    import threading

    bot = ladder.register(address, name, [game])
    stop = threading.Event()
    timer = threading.Timer(max(0.0, stop_at - time.time()), stop.set)
    timer.start()
    ladder.play(
        address, bot, first_legal, stop=stop, omit=("view_json", "observation_text", "observation")
    )
    timer.cancel()


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--server", type=Path, default=ROOT / "target" / "release" / "checkraise-server"
    )
    parser.add_argument("--bots", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--game", default="pokeros(board_size=3)")
    parser.add_argument("--house", default="random,heuristic")
    parser.add_argument("--sets-per-bot", type=int, default=4)
    args = parser.parse_args()

    server = Server(
        "--ladder-house",
        args.house,
        "--ladder-sets-per-bot",
        str(args.sets_per_bot),
        "--ladder-max-games",
        "64",
        binary=args.server,
    )
    try:
        warmup = 3.0
        stop_at = time.time() + warmup + args.seconds
        players = [
            multiprocessing.Process(
                target=play, args=(server.address, f"bench-{i}", args.game, stop_at)
            )
            for i in range(args.bots)
        ]
        for p in players:
            p.start()
        time.sleep(warmup)
        before = ladder.games(server.address, game=args.game, limit=10**7)
        cpu0, t0 = cpu_seconds(server.proc.pid), time.monotonic()
        time.sleep(args.seconds)
        cpu1, t1 = cpu_seconds(server.proc.pid), time.monotonic()
        after = ladder.games(server.address, game=args.game, limit=10**7)
        for p in players:
            p.join(timeout=30)
        seen = {g.match_id for g in before}
        new = [g for g in after if g.match_id not in seen and not g.live]
        registered = [g for g in new if any(b.startswith("bench-") for b in g.bots)]
        elapsed = t1 - t0
        print(f"game {args.game}, {args.bots} Python bots, house {args.house}, {elapsed:.1f} s")
        print(f"ladder games finished: {len(new)} ({len(new) / elapsed:.1f}/s)")
        print(f"  with a registered bot: {len(registered)} ({len(registered) / elapsed:.1f}/s)")
        forfeits = sum(1 for g in new if any(g.forfeits))
        print(f"  forfeited (a bot out of time): {forfeits}")
        per_game = (cpu1 - cpu0) / max(1, len(new)) * 1000
        print(f"server CPU: {cpu1 - cpu0:.2f} s ({per_game:.2f} ms a game)")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
