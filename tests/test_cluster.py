"""A cluster behind HAProxy, as packaging/haproxy/haproxy.cfg deploys it: three
`checkraise-server --cluster` instances on one PostgreSQL server the test starts, every call
through the balancer (so each lands on any instance).

- A two-human match played through the balancer, watched by a spectator and by each seat on
  three different instances: every watcher sees the stored versions in order, the spectator
  every one of them. The web page plays a match through the balancer, its calls spread over
  the instances.
- 30 clients play Pokeros against the random bot while a random instance is killed (SIGKILL)
  and restarted, ten times: no acknowledged action is lost, no action or bot move is stored
  twice, every match plays to its end, every seat's token keeps working. The interruptions
  clients saw (first failed call to the next answered one) are printed as p50/p99.
- An env batch made through the balancer is stepped through it: every call reaches the
  instance that holds the batch.
- A ladder bot plays through the balancer while the instance running the cluster's ladder is
  killed, three times: a survivor takes the ladder over and the bot is placed in new games that
  finish; every game it saw finish is listed once, finished.

The server is $CHECKRAISE_CLUSTER_SERVER (one built with PostgreSQL; scripts/test.sh points it
at the build cargo test made with the optional features). HAProxy and PostgreSQL missing fail
the test, saying how to install them."""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass, field

import grpc
import numpy as np
import pytest

from cluster_util import HAProxy, Instance, Postgres, collect, wait_until

CLIENTS = 30
KILLS = 10
LEASE_MS = 1000

# The ladder's house bots and clocks: short games, quick forfeits.
LADDER_FLAGS = ("--ladder-house", "random,heuristic", "--ladder-move-ms", "5000",
                "--ladder-grace-ms", "5000")  # fmt: skip

TRANSIENT = {
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.UNKNOWN,
    grpc.StatusCode.CANCELLED,
    grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.INTERNAL,
}


@pytest.fixture(scope="module")
def cluster():
    pg = Postgres.start()
    instances: list[Instance] = []
    lb = None
    try:
        for k in range(3):
            instances.append(
                Instance(k, pg.url, "--cluster", "--cluster-lease-ms", str(LEASE_MS), *LADDER_FLAGS)
            )
        lb = HAProxy.over(instances)
        for instance in instances:
            lb.wait_state(instance.name, "UP")
        yield pg, instances, lb
    finally:
        if lb is not None:
            lb.remove()
        for instance in instances:
            instance.remove()
        pg.remove()


@dataclass
class Played:
    matches: list[tuple[str, list[tuple[int, int]]]] = field(default_factory=list)
    interruptions: list[float] = field(default_factory=list)
    # Each acknowledged act's start and end (time.monotonic()).
    acts: list[tuple[float, float]] = field(default_factory=list)
    repeats: int = 0
    aborted: int = 0


def answered(played: Played, call, *args, **kwargs):
    """`call(*args, **kwargs)` until it is answered (not a transient error); the time from
    its first failure to its answer is recorded as an interruption."""
    from checkraise.client import RemoteError

    deadline = 120.0
    failed_at = None
    start = time.monotonic()
    while True:
        try:
            result = call(*args, **kwargs)
        except RemoteError as error:
            if error.code not in TRANSIENT or time.monotonic() - start > deadline:
                raise
            failed_at = failed_at or time.monotonic()
            time.sleep(0.03)
            continue
        if failed_at is not None:
            played.interruptions.append(time.monotonic() - failed_at)
        return result


def play(k: int, address: str, stop: threading.Event, played: Played, errors: list) -> None:
    from checkraise.client import AbortedError, Client

    rng = random.Random(k)
    try:
        with Client(address, timeout=10) as client:
            n = 0
            while not stop.is_set() or not played.matches:
                n += 1
                match = answered(
                    played,
                    client.create_match,
                    "pokeros",
                    seats=["human", "random"],
                    board_size=5,
                    seed=k * 1000 + n,
                )
                join_id = f"cluster-client-{k:04d}-match-{n:06d}"
                seat = answered(played, match.join, 0, request_id=join_id)
                acked: list[tuple[int, int]] = []
                view = answered(played, seat.view)
                while not view.is_terminal:
                    if not view.may_act:
                        # The bot's owner died: a survivor takes the match over.
                        time.sleep(0.02)
                        view = answered(played, seat.view)
                        continue
                    action = rng.choice(sorted(view.legal_actions))
                    version = view.version
                    started = time.monotonic()
                    try:
                        view = answered(
                            played,
                            seat.act,
                            action,
                            expected_version=version,
                            omit=("observation",),
                        )
                    except AbortedError:
                        played.aborted += 1
                        view = answered(played, seat.view)
                        continue
                    played.acts.append((started, time.monotonic()))
                    if view.act_status == "already_applied":
                        played.repeats += 1
                    acked.append((version, action))
                played.matches.append((match.match_id, acked))
    except Exception as error:  # noqa: BLE001 - reported by the test
        errors.append((k, error))


def test_watchers_on_every_instance_see_a_match_played_through_the_balancer(cluster):
    from checkraise.client import Client

    _, instances, lb = cluster
    with Client(lb.address, timeout=30) as c:
        match = c.create_match("pokeros", seats=["human", "human"], board_size=5, seed=23)
        seats = [match.join(0), match.join(1)]
        tokens = [s.token for s in seats]
    from checkraise.client import Match, Seat
    from checkraise.v1 import checkraise_pb2 as pb

    def attach(client: Client) -> Match:
        return Match(client, pb.CreateMatchResponse(match_id=match.match_id), "pokeros")

    # A spectator on instance 0, each seat on another instance; every move through HAProxy.
    watchers = [Client(instance.address, timeout=30) for instance in instances]
    try:
        watched = [attach(watchers[0])] + [
            Seat(attach(watchers[k + 1]), k, tokens[k]) for k in range(2)
        ]
        events: list[list] = [[], [], []]
        readers = [collect(w.watch(), events[k]) for k, w in enumerate(watched)]
        time.sleep(0.5)  # the streams are open before the first move
        with Client(lb.address, timeout=30) as c:
            players = [Seat(attach(c), k, tokens[k]) for k in range(2)]
            view = players[0].view()
            moves = 0
            while not view.is_terminal:
                mover = next(p for p in players if p.view().may_act)
                view = mover.view()
                view = mover.act(next(iter(view.legal_actions)), expected_version=view.version)
                moves += 1
                assert moves < 200, "the match does not end"
            stored = [step.version for step in c.get_replay(match.match_id).steps]
        for reader in readers:
            reader.join(30)
    finally:
        for w in watchers:
            w.close()
    for k, seen in enumerate(events):
        assert seen and not isinstance(seen[-1], Exception), (k, seen[-1:])
        versions = [e.view.version for e in seen]
        assert versions == sorted(set(versions)), (k, versions)
        assert set(versions) <= set(stored) | {0}, (k, versions, stored)
        assert versions[-1] == stored[-1] and seen[-1].view.is_terminal, (k, versions)
    # The spectator is told every stored version after the one it joined at.
    spectator = [e.view.version for e in events[0]]
    assert [v for v in stored if v > spectator[0]] == spectator[1:], (spectator, stored)


def test_the_page_plays_a_match_through_the_balanced_cluster(cluster, context):
    from test_web import create_match, open_page, play_one_move, wait_turn_or_end

    _, _, lb = cluster
    page, calls, errors = open_page(context, f"http://{lb.address}/")
    create_match(page, "pokeros", {"players": "2", "deck": "stripped"}, ["heuristic"], 7)
    moves = 0
    while wait_turn_or_end(page):
        play_one_move(page)
        moves += 1
        assert moves < 400, "the match does not end"
    assert page.locator("#status").text_content().startswith("Game over.")
    assert "checkraise.v1.Matches/WatchSeat" in calls, calls
    assert errors == [], errors
    # The page's calls were spread over the instances.
    used = {line.split("checkraise/")[1].split()[0] for line in lb.log().splitlines()
            if "checkraise/instance-" in line and "Matches/" in line}  # fmt: skip
    assert len(used) >= 2, used


def test_kills_under_load_lose_nothing_acknowledged(cluster):
    from checkraise.client import Client

    _, instances, lb = cluster
    stop = threading.Event()
    played = [Played() for _ in range(CLIENTS)]
    errors: list = []
    threads = [
        threading.Thread(target=play, args=(k, lb.address, stop, played[k], errors), daemon=True)
        for k in range(CLIENTS)
    ]
    for thread in threads:
        thread.start()
    rng = random.Random(2026)
    kills = []
    for _ in range(KILLS):
        time.sleep(rng.uniform(0.5, 1.5))
        victim = rng.choice(instances)
        kills.append(time.monotonic())
        victim.kill()
        victim.restart()
    stop.set()
    for thread in threads:
        thread.join(180)
    assert not errors, errors[:3]
    assert not any(t.is_alive() for t in threads), "a client did not finish"

    matches = actions = 0
    with Client(lb.address, timeout=30) as client:
        for p in played:
            for match_id, acked in p.matches:
                replay = answered(Played(), client.get_replay, match_id)
                assert replay.match.status == "finished", (match_id, replay.match)
                seat_steps = [
                    (step.version, entry.action)
                    for step in replay.steps
                    for entry in step.entries
                    if entry.player == 0
                ]
                for version, action in acked:
                    assert seat_steps.count((version + 1, action)) == 1, (
                        f"{match_id}: the action {action} acknowledged at version {version} is "
                        f"stored {seat_steps.count((version + 1, action))} times"
                    )
                versions = [step.version for step in replay.steps]
                assert versions == sorted(set(versions)), f"{match_id}: a version twice"
                bot_moves = [
                    step.version
                    for step in replay.steps
                    for entry in step.entries
                    if entry.player == 1
                ]
                assert len(bot_moves) == len(set(bot_moves)), f"{match_id}: a bot moved twice"
                matches += 1
                actions += len(acked)
    # Failover: from each kill to each client's first acknowledged act begun after it (the
    # slowest are the clients whose match the killed instance owned: their bot moves once a
    # survivor takes the match over).
    failovers = []
    for kill in kills:
        for p in played:
            after = [end - kill for start, end in p.acts if start >= kill]
            if after:
                failovers.append(after[0])
    f50, f99 = np.percentile(failovers, 50), np.percentile(failovers, 99)
    print(
        f"\nkill to each client's next acknowledged act: p50 {f50:.3f} s, p99 {f99:.3f} s, "
        f"max {max(failovers):.3f} s over {len(failovers)} (kill, client) pairs"
    )
    interruptions = sorted(i for p in played for i in p.interruptions)
    p50 = np.percentile(interruptions, 50) if interruptions else 0.0
    p99 = np.percentile(interruptions, 99) if interruptions else 0.0
    print(
        f"\n{matches} matches, {actions} acknowledged actions checked through {KILLS} kills; "
        f"{len(interruptions)} interrupted calls, answered after p50 {p50:.3f} s, p99 "
        f"{p99:.3f} s; {sum(p.repeats for p in played)} acts found already applied, "
        f"{sum(p.aborted for p in played)} aborted as stale"
    )
    assert matches >= CLIENTS


def test_an_env_batch_is_stepped_through_the_balancer(cluster):
    from checkraise.client import Client

    _, _, lb = cluster
    with Client(lb.address, timeout=30) as client:
        batch = client.envs("pokeros", num_envs=4, seed=3, board_size=5)
        try:
            stepped = batch.reset(seed=3)
            for _ in range(20):
                masks = np.asarray(stepped.action_masks)
                stepped = batch.step([int(np.flatnonzero(row)[0]) for row in masks])
        finally:
            batch.close()


def ladder_logs(instances: list[Instance], lb: HAProxy, lines: int = 40) -> str:
    """The last lines of each instance's log about the ladder's role, its bots and the cluster
    (not each game's start and end), its warnings and errors, and the balancer's last lines."""
    parts = []
    for instance in instances:
        alive = instance.proc is not None and instance.proc.poll() is None
        said = [
            line
            for line in instance.log().splitlines()
            if '"WARN"' in line
            or '"ERROR"' in line
            or (
                any(word in line for word in ("ladder", "listening", "cluster"))
                and "ladder game " not in line
            )
        ]
        parts.append(f"--- {instance.name} ({'running' if alive else 'not running'})")
        parts.extend(said[-lines:])
    parts.append("--- the balancer")
    parts.extend(lb.log().splitlines()[-lines:])
    return "\n".join(parts)


def ladder_holder(instances: list[Instance]) -> Instance | None:
    """The instance running the cluster's ladder, from the logs: it said it took the role since
    it last started, and has not said it gave it up."""
    for instance in instances:
        if instance.proc is None or instance.proc.poll() is not None:
            continue
        runs = gave_up = started = -1
        for k, line in enumerate(instance.log().splitlines()):
            if "checkraise-server listening" in line:
                started = k
            elif "this server runs the cluster's ladder" in line:
                runs = k
            elif "no longer runs the cluster's ladder" in line:
                gave_up = k
        if runs > max(started, gave_up):
            return instance
    return None


def test_the_ladder_plays_on_while_its_server_is_killed(cluster):
    from checkraise.client import ladder

    _, instances, lb = cluster
    game = "pokeros(board_size=3)"
    bot = ladder.register(lb.address, "roamer", games=[game])
    finished: list[tuple[float, ladder.LadderGame]] = []
    stop = threading.Event()
    thread = threading.Thread(
        target=ladder.play,
        args=(lb.address, bot, lambda view: min(view.legal_actions)),
        kwargs={
            "stop": stop,
            "reconnect_delay": 0.2,
            "on_game": lambda g: finished.append((time.monotonic(), g)),
        },
        daemon=True,
    )
    thread.start()
    start = time.monotonic()
    try:
        wait_until(lambda: len(finished) >= 2, 60, "the bot's first ladder games finished")
        takeovers = []
        for kill in range(3):
            holder = wait_until(lambda: ladder_holder(instances), 20, "an instance runs the ladder")
            seen = len(finished)
            holder.kill()
            killed = time.monotonic()
            try:
                wait_until(
                    lambda seen=seen: len(finished) >= seen + 2,
                    60,
                    "ladder games finished after the ladder's instance was killed",
                )
            except TimeoutError as error:
                # What each instance and the balancer said, to tell where the bot got stuck.
                raise AssertionError(
                    f"{error} (kill {kill + 1}, {holder.name} killed at "
                    f"{killed - start:.1f} s; games finished at "
                    f"{[round(t - start, 1) for t, _ in finished]} s)\n"
                    + ladder_logs(instances, lb)
                ) from None
            takeovers.append(finished[seen][0] - killed)
            holder.restart()
        print(
            "\nthe ladder's instance killed 3 times: the bot's next game finished after "
            + ", ".join(f"{t:.2f} s" for t in takeovers)
        )
    finally:
        stop.set()
        thread.join(30)
    ids = [g.match_id for _, g in finished]
    assert len(ids) == len(set(ids)), "a game was reported finished twice"
    listed = {g.match_id: g for g in ladder.games(lb.address, bot="roamer")}
    for match_id in ids:
        assert match_id in listed, f"{match_id} finished but is not listed"
        assert not listed[match_id].live, listed[match_id]
    standings = {s.bot: s for s in ladder.leaderboard(lb.address, game)}
    assert standings["roamer"].games >= len(ids)
