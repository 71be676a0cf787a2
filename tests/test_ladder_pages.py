"""The Python client reads every page of ListLadders, against the real binary: the server
sends the ladders by page (docs/ladder.md), so a client that read one reply would miss the
ladders past it."""

from __future__ import annotations

from checkraise.client import ladder
from grpc_util import Server

GAMES = [f"pokeros(board_size={n})" for n in range(3, 10)]


def test_the_client_lists_every_ladder_page_by_page():
    server = Server("--ladder-max-ladders", "7")
    try:
        for i in range(0, len(GAMES), 2):
            ladder.register(server.address, f"lister-{i}", GAMES[i : i + 2])
        for page_size in (1, 2, 1000):
            listed = ladder.ladders(server.address, page_size=page_size)
            games = [info.game for info in listed]
            assert len(games) == len(GAMES) == len(set(games)), games
            assert games == sorted(games)
            assert all(info.bots >= 2 and info.connected == 0 for info in listed), listed
    finally:
        assert server.stop() == 0, server.log()
