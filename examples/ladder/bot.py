"""A ladder bot in Python: registers itself, then plays every game the server places it in
until Ctrl-C (or MAX_GAMES of its games have ended), and prints where it stands.

    python examples/ladder/bot.py ADDRESS NAME GAME [MAX_GAMES]

It plays the legal action with the lowest id; replace ``act`` with your agent (any function of
the seat's view, or a ``checkraise.policy.Policy``).
"""

import sys

from checkraise.client import ladder


def act(view):
    return min(view.legal_actions)


def main() -> None:
    address, name, game = sys.argv[1:4]
    max_games = int(sys.argv[4]) if len(sys.argv) > 4 else None
    bot = ladder.register(address, name, [game])
    report = ladder.play(address, bot, act, max_games=max_games)
    print(f"{len(report.games)} games, {report.forfeits} forfeited")
    for standing in ladder.leaderboard(address, game):
        low, high = standing.interval
        rating = f"{standing.rating:8.1f} [{low:.0f}, {high:.0f}]"
        print(f"{standing.bot:>24} {rating} {standing.games} games")


if __name__ == "__main__":
    main()
