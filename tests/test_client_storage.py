"""Tests of checkraise.client's storage-era calls against the real checkraise-server binary:
retry-safe ``Seat.act(expected_version=...)`` and ``Match.join(request_id=...)``,
``Client.list_matches`` (filters and pages, in memory and on SQLite), replays (a finished match
with every card, a live one with only what a spectator may see; read a page at a time, each
step's public view rebuilt from the JSON Patch the server sends) and seeds (secret unless the
creator chose one, a practice deal every view announces)."""

from __future__ import annotations

import json
import threading
import time
import uuid
from datetime import datetime, timezone
from typing import Any

import pytest

import checkraise as cr
from checkraise.client import (
    MATCH_STATUSES,
    AbortedError,
    Client,
    Event,
    FailedPreconditionError,
    InvalidArgumentError,
    Match,
    MatchSummary,
    NotFoundError,
    RemoteError,
    Replay,
)
from grpc_util import Server

POKEROS: dict[str, Any] = {"board_size": 5}
DETECTIVE: dict[str, Any] = {"rounds": 1}


def first_action(legal: dict[int, str]) -> int:
    return next(iter(legal))


# --- Act with expected_version -----------------------------------------------------------------


def test_act_retried_with_expected_version_is_applied_once(client):
    # Two humans and no bots: every version is one of their actions.
    match = client.create_match("pokeros", seed=11, seats=["human", "human"], **POKEROS)
    seat0, seat1 = match.join(0), match.join(1)
    view = seat0.view()
    assert view.act_status is None  # not an Act reply
    action = first_action(view.legal_actions)

    applied = seat0.act(action, expected_version=view.version)
    assert applied.act_status == "applied"
    assert applied.version == view.version + 1
    # The reply was "lost": the same call again applies nothing.
    again = seat0.act(action, expected_version=view.version)
    assert again.act_status == "already_applied"
    assert again.version == applied.version
    assert again.state == applied.state and again.legal_actions == applied.legal_actions
    # By its text too, and without the parts left out.
    by_text = seat0.act(view.legal_actions[action], expected_version=view.version, omit="view_json")
    assert by_text.act_status == "already_applied" and by_text.state == {}
    assert match.spectate().version == view.version + 1

    # It is seat 1's turn; its plain act (no expected_version) says it applied.
    other = seat1.view()
    assert other.may_act and not seat0.view().may_act
    assert seat1.act(first_action(other.legal_actions)).act_status == "applied"

    # The match's history has seat 0's action once.
    replay = client.get_replay(match.match_id)
    assert [step.actor for step in replay.steps] == [-1, 0, 1]
    assert [step.version for step in replay.steps] == [0, 1, 2]


def test_act_with_a_stale_or_conflicting_expected_version_is_refused(client):
    match = client.create_match("pokeros", seed=12, seats=["human", "human"], **POKEROS)
    seat0, seat1 = match.join(0), match.join(1)
    first = seat0.view()
    chosen, another = list(first.legal_actions)[:2]
    seat0.act(chosen, expected_version=first.version)

    # Another action at the version seat 0 already acted at: FAILED_PRECONDITION, naming it.
    with pytest.raises(FailedPreconditionError) as info:
        seat0.act(another, expected_version=first.version)
    assert first.legal_actions[chosen] in info.value.message

    # Seat 1 acts; seat 0 then acts on a view the match has moved past (version 1, where
    # seat 0 did not act): ABORTED, and nothing is applied.
    seat1.act(first_action(seat1.view().legal_actions))
    now = seat0.view()
    assert now.version == first.version + 2 and now.may_act
    with pytest.raises(AbortedError) as info:
        seat0.act(first_action(now.legal_actions), expected_version=first.version + 1)
    assert isinstance(info.value, RemoteError)
    assert "act again" in info.value.message
    assert seat0.view().version == now.version
    # With the current version it applies.
    assert (
        seat0.act(first_action(now.legal_actions), expected_version=now.version).act_status
        == "applied"
    )

    for bad in (-1, 2**64, 1.5, True, "3"):
        with pytest.raises(InvalidArgumentError, match="expected_version"):
            seat0.act(0, expected_version=bad)  # type: ignore[arg-type]


# --- JoinSeat with request_id ------------------------------------------------------------------


def test_join_repeated_with_a_request_id_gives_the_same_token(client):
    match = client.create_match("pokeros", seed=13, seats=["human", "human"], **POKEROS)
    request_id = str(uuid.uuid4())
    seat = match.join(request_id=request_id)
    assert (seat.seat, seat.repeated) == (0, False)
    again = match.join(request_id=request_id)
    assert (again.seat, again.token, again.repeated) == (seat.seat, seat.token, True)
    # Naming the seat repeats it too.
    assert match.join(0, request_id=request_id).token == seat.token
    # The repeated seat works: the token is the seat's.
    assert again.view().may_act

    # Another request id gets the other seat, and then none is left.
    other = match.join(request_id=str(uuid.uuid4()))
    assert other.seat == 1 and other.token != seat.token and not other.repeated
    with pytest.raises(FailedPreconditionError):
        match.join(request_id=str(uuid.uuid4()))
    with pytest.raises(FailedPreconditionError, match="taken"):
        match.join(0)
    # Still repeatable after the match filled up.
    assert match.join(request_id=request_id).token == seat.token

    with pytest.raises(InvalidArgumentError, match="request_id"):
        match.join(request_id="too short")
    with pytest.raises(TypeError):
        match.join(request_id=uuid.uuid4())  # type: ignore[arg-type]


# --- ListMatches -------------------------------------------------------------------------------


@pytest.fixture(params=["memory", "sqlite"])
def lone_client(request, tmp_path):
    """A client of a server of its own (so listings hold only this test's matches), in
    memory or on a SQLite file."""
    database = "memory" if request.param == "memory" else f"sqlite://{tmp_path}/matches.sqlite3"
    server = Server("--database", database)
    try:
        with Client(server.address, timeout=30) as c:
            c.wait_ready()
            yield c
    finally:
        assert server.stop() == 0, server.log()


def test_list_matches_filters_and_pages(lone_client):
    client = lone_client
    assert list(client.list_matches()) == []

    def create(game: str, seed: int, seats: list[str], **params: Any) -> Match:
        # Listings are ordered by creation time in milliseconds, then by id: one match per
        # millisecond makes that the order of creation.
        time.sleep(0.002)
        return client.create_match(game, seed=seed, seats=seats, **params)

    # First batch: three all-bot Detective Poker matches (played to the end in CreateMatch).
    first = [create("detective_poker", s, ["heuristic"] * 3, **DETECTIVE) for s in range(3)]
    time.sleep(0.02)
    middle = time.time()
    time.sleep(0.02)
    # Second batch: four live Pokeros matches with a human, and one of bots only.
    live = [create("pokeros", s, ["human", "random"], **POKEROS) for s in range(4)]
    bots = create("pokeros", 9, ["random", "random"], **POKEROS)
    created = [m.match_id for m in (*first, *live, bots)]

    def ids(**filters: Any) -> list[str]:
        return [m.match_id for m in client.list_matches(**filters)]

    everything = list(client.list_matches())
    assert [m.match_id for m in everything] == created  # oldest first
    for page_size in (1, 3, 8, 1000):
        assert ids(page_size=page_size) == created, page_size
    assert ids(game="pokeros", page_size=2) == created[3:]
    assert ids(game="detective_poker") == created[:3]
    assert ids(game="holdem_chess") == []
    assert ids(status="finished", page_size=3) == [*created[:3], bots.match_id]
    assert ids(status="live", page_size=3) == [m.match_id for m in live]
    assert ids(status="expired") == []
    assert ids(game="pokeros", status="finished") == [bots.match_id]
    assert ids(created_before=middle) == created[:3]
    assert ids(created_after=middle, page_size=2) == created[3:]
    when = datetime.fromtimestamp(middle, tz=timezone.utc)
    assert ids(created_after=when, created_before=when) == []
    assert ids(created_after=when, status="finished") == [bots.match_id]

    by_id = {m.match_id: m for m in everything}
    summary = by_id[first[0].match_id]
    assert isinstance(summary, MatchSummary)
    assert summary.game.startswith("detective_poker(") and summary.game_name == "detective_poker"
    assert "rounds=1" in summary.game
    assert summary.seed == 0 and summary.seats == ("heuristic",) * 3
    assert summary.chosen_seed  # created with seed=0: a practice deal, its seed shown once over
    assert summary.status == "finished" and summary.status in MATCH_STATUSES
    assert summary.returns is not None and len(summary.returns) == 3
    assert summary.version > 0
    assert summary.created.tzinfo is not None and summary.created.timestamp() < middle
    playing = by_id[live[0].match_id]
    assert (playing.status, playing.returns, playing.finished) == ("live", None, None)
    # A live match's seed is not listed, even one its creator chose.
    assert by_id[live[1].match_id].seed == 0 and by_id[live[1].match_id].chosen_seed
    assert playing.seats == ("human", "random") and playing.created.timestamp() >= middle

    with pytest.raises(ValueError, match="status"):
        list(client.list_matches(status="done"))
    with pytest.raises(TypeError, match="created_after"):
        list(client.list_matches(created_after="yesterday"))  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="page_size"):
        list(client.list_matches(page_size=1001))


def test_finished_matches_list_when_they_ended(lone_client):
    before = time.time()
    match = lone_client.create_match("detective_poker", seed=1, seats=["random"] * 3, **DETECTIVE)
    (summary,) = lone_client.list_matches()
    assert summary.match_id == match.match_id and summary.status == "finished"
    assert summary.finished is not None
    assert before - 1 <= summary.finished.timestamp() <= time.time() + 1


# --- GetReplay ---------------------------------------------------------------------------------


def test_replay_of_a_finished_match_has_every_step_and_card(client):
    seats = ["heuristic", "random", "heuristic"]
    match = client.create_match("detective_poker", seed=21, seats=seats, **DETECTIVE)
    replay = match.replay()
    assert isinstance(replay, Replay)
    assert replay.steps == client.get_replay(match.match_id).steps
    assert replay.revealed
    assert replay.match.match_id == match.match_id and replay.match.status == "finished"
    assert replay.match.seats == tuple(seats) and replay.match.seed == 21
    assert replay.match.chosen_seed and replay.next_version is None
    final = match.spectate()
    assert final.is_terminal
    # The deal, then one step per action, every version once, in order.
    assert [s.version for s in replay.steps] == list(range(final.version + 1))
    assert replay.steps[0].actor == -1
    assert all(0 <= s.actor < 3 for s in replay.steps[1:])
    # The view of everyone: the spectator's at the end, with every seat's cards face up.
    last = dict(replay.steps[-1].state)
    assert last.pop("everyone") is True
    assert {k: v for k, v in last.items() if k != "seats"} == {
        k: v for k, v in final.state.items() if k != "seats"
    }
    assert all(None not in seat["cards"] for seat in last["seats"]), last["seats"]

    # Every history entry is there: replayed through the local engine they give the same
    # match (each step's view of everyone, the returns), and every card dealt is named.
    state = cr.make("detective_poker", **DETECTIVE).new_initial_state()
    dealt = []
    turned_over = False  # a step whose cards the spectator could not see, all face up here
    for step in replay.steps:
        assert step.entries, step.version
        for entry in step.entries:
            assert entry.player == state.current_player()
            assert entry.text == state.action_to_string(entry.player, entry.action)
            if entry.player == -1:
                dealt.append(entry.text)
            state.apply_action(entry.action)
        assert step.entries[0].player == step.actor
        assert step.state == state.everyone_view(), step.version
        face_down = [None in seat["cards"] for seat in state.view(None)["seats"]]
        turned_over |= any(face_down) and all(
            None not in seat["cards"] for seat in step.state["seats"]
        )
    assert state.is_terminal() and turned_over
    assert tuple(state.returns()) == replay.match.returns == final.returns
    assert dealt
    # Cards the spectator never saw (the hole cards) are named in the entries.
    seen = json.dumps(final.state)
    assert any(f'"{card}"' not in seen for card in dealt)

    with pytest.raises(NotFoundError):
        client.get_replay("0" * 32)


def test_replay_of_a_live_match_shows_only_what_a_spectator_sees(client):
    match = client.create_match(
        "detective_poker", seed=22, seats=["human", "heuristic", "heuristic"], **DETECTIVE
    )
    seat = match.join()
    public: dict[int, Event] = {}
    stream = match.watch()

    def read() -> None:
        for event in stream:
            public[event.view.version] = event

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    view = seat.view()
    for _ in range(3):
        if view.is_terminal:
            break
        view = seat.act(first_action(view.legal_actions), expected_version=view.version)
    assert not view.is_terminal, "the test wants a match still being played"

    replay = client.get_replay(match.match_id)
    assert not replay.revealed and replay.match.status == "live"
    assert [s.version for s in replay.steps] == list(range(view.version + 1))
    assert all(step.entries == () for step in replay.steps)
    assert not any(step.entries for step in replay.raw.steps)
    # Each step's public view is the spectator's view at that version.
    spectator = match.spectate()
    assert replay.steps[-1].state == spectator.state
    deadline = time.monotonic() + 10
    while view.version not in public and time.monotonic() < deadline:
        time.sleep(0.01)
    stream.cancel()
    reader.join(timeout=10)
    compared = [v for v in public if v < len(replay.steps)]
    assert view.version in compared and len(compared) >= 2
    for version in compared:
        assert replay.steps[version].state == public[version].view.state, version
        assert replay.steps[version].actor == public[version].actor or version == min(public)
    # The human's hole cards, which the seat sees and a spectator does not, are nowhere.
    own = [c for c in view.state["seats"][0]["cards"] if c is not None]
    assert own and all(c is None for c in spectator.state["seats"][0]["cards"])
    text = json.dumps([step.state for step in replay.steps])
    assert not [c for c in own if f'"{c}"' in text]

    # Played to the end, the replay reveals the same steps with their entries, each step's
    # view now the view of everyone: the same but for the header's flag and the cards a seat
    # held, all face up (the human's own among them).
    while not view.is_terminal:
        view = seat.act(first_action(view.legal_actions))
    finished = client.get_replay(match.match_id)
    assert finished.revealed and all(step.entries for step in finished.steps)

    def without_cards(state):
        seats = [
            {k: v for k, v in s.items() if k not in ("cards", "action_cards")}
            for s in state["seats"]
        ]
        rest = {k: v for k, v in state.items() if k not in ("seats", "everyone", "bets")}
        return {**rest, "seats": seats}

    for live_step, done_step in zip(replay.steps, finished.steps, strict=False):
        assert (live_step.version, live_step.actor) == (done_step.version, done_step.actor)
        assert done_step.state["everyone"] is True
        assert without_cards(live_step.state) == without_cards(done_step.state)
        assert all(None not in s["cards"] for s in done_step.state["seats"])
    text = json.dumps([step.state for step in finished.steps])
    assert all(f'"{c}"' in text for c in own)


# --- Paged replays -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def finished_match(client) -> tuple[Match, int]:
    """A finished all-bot Detective Poker match and its last version."""
    match = client.create_match("detective_poker", seed=23, seats=["random"] * 3, **DETECTIVE)
    final = match.spectate()
    assert final.is_terminal and final.version >= 7, final.version
    return match, final.version


def test_replay_pages_rebuild_the_same_views_whatever_their_size(client, finished_match):
    match, last = finished_match
    whole = client.get_replay(match.match_id, page_size=1000)
    assert whole.next_version is None
    assert [s.version for s in whole.steps] == list(range(last + 1))
    # The server sends the first view whole and every later step as a patch.
    assert whole.raw.steps[0].spectator_view_json and not whole.raw.steps[0].spectator_view_patch
    assert all(not s.spectator_view_json and s.spectator_view_patch for s in whole.raw.steps[1:])
    assert whole.steps[0].view_patch is None and whole.steps[1].view_patch is not None

    # Each step's rebuilt view is the engine's view of everyone after it (a finished match).
    state = cr.make("detective_poker", **DETECTIVE).new_initial_state()
    for step in whole.steps:
        for entry in step.entries:
            state.apply_action(entry.action)
        assert step.state == state.everyone_view(), step.version

    for page_size in (1, 3):
        assert tuple(client.iter_replay(match.match_id, page_size=page_size)) == whole.steps
        assert match.replay(page_size=page_size).steps == whole.steps
    assert match.replay() == whole
    # From a step within the match: that step's whole view, and every later one.
    middle = last // 2
    later = tuple(client.iter_replay(match.match_id, from_version=middle, page_size=2))
    assert later == whole.steps[middle:]


def test_replay_pages_chain_by_next_version(client, finished_match):
    match, last = finished_match
    pages = []
    version: int | None = 0
    while version is not None:
        page = client.get_replay(match.match_id, from_version=version, page_size=3)
        assert page.revealed and page.match.match_id == match.match_id
        assert page.steps[0].version == version
        assert page.raw.steps[0].spectator_view_json  # every page starts with a whole view
        pages.append(page)
        version = page.next_version
        if version is not None:
            assert len(page.steps) == 3 and version == page.steps[-1].version + 1
    assert len(pages) == last // 3 + 1
    assert pages[-1].steps[-1].version == last
    assert [s.version for p in pages for s in p.steps] == list(range(last + 1))

    # The last step alone is a page of one; past it, INVALID_ARGUMENT.
    final = client.get_replay(match.match_id, from_version=last)
    assert [s.version for s in final.steps] == [last] and final.next_version is None
    # At Detective Poker's end every card is revealed: the view of everyone is the
    # spectator's, flagged.
    assert final.steps[0].state == {**match.spectate().state, "everyone": True}
    with pytest.raises(InvalidArgumentError):
        client.get_replay(match.match_id, from_version=last + 1)
    with pytest.raises(InvalidArgumentError):
        list(client.iter_replay(match.match_id, from_version=last + 1))
    with pytest.raises(InvalidArgumentError, match="page_size"):
        client.get_replay(match.match_id, page_size=1001)
    for bad in (-1, 2**64, 1.5, True):
        with pytest.raises(InvalidArgumentError, match="from_version"):
            client.get_replay(match.match_id, from_version=bad)  # type: ignore[arg-type]
    with pytest.raises(NotFoundError):
        list(client.iter_replay("0" * 32))


# --- Seeds: secret unless chosen ----------------------------------------------------------------


def summary_of(client: Client, match_id: str) -> MatchSummary:
    (summary,) = [m for m in client.list_matches(page_size=1000) if m.match_id == match_id]
    return summary


def test_a_chosen_seed_is_a_practice_deal_every_view_announces(lone_client):
    client = lone_client
    match = client.create_match("pokeros", seed=31, seats=["human", "human"], **POKEROS)
    assert (match.seed, match.chosen_seed) == (31, True)
    seat = match.join(0)
    view = seat.view()
    assert view.chosen_seed and match.spectate().chosen_seed
    with match.watch() as events:
        assert next(events).view.chosen_seed
    summary = summary_of(client, match.match_id)
    assert summary.chosen_seed and summary.seed == 0  # live: even a chosen seed is not listed
    assert client.get_replay(match.match_id).match.chosen_seed
    other = match.join(1)
    while not view.is_terminal:
        mover = seat if view.may_act else other
        view = mover.act(first_action(mover.view().legal_actions))
        view = seat.view()
    finished = summary_of(client, match.match_id)
    assert (finished.status, finished.seed, finished.chosen_seed) == ("finished", 31, True)


def test_a_drawn_seed_stays_secret_until_the_end(lone_client):
    client = lone_client
    match = client.create_match("pokeros", seats=["human", "heuristic"], **POKEROS)
    assert (match.seed, match.chosen_seed) == (0, False)
    seat = match.join()
    view = seat.view()
    assert not view.chosen_seed and not match.spectate().chosen_seed
    summary = summary_of(client, match.match_id)
    assert (summary.status, summary.seed, summary.chosen_seed) == ("live", 0, False)
    replay = client.get_replay(match.match_id)
    assert (replay.match.seed, replay.match.chosen_seed) == (0, False)
    while not view.is_terminal:
        view = seat.act(first_action(view.legal_actions))
    finished = summary_of(client, match.match_id)
    assert finished.status == "finished" and not finished.chosen_seed
    assert finished.seed != 0  # revealed once over (0 is one draw in 2**64)
    assert client.get_replay(match.match_id).match.seed == finished.seed


def test_the_revealed_seed_is_the_one_the_match_was_played_with(lone_client):
    client = lone_client
    seats = ["random", "heuristic", "random"]
    drawn = client.create_match("detective_poker", seats=seats, **DETECTIVE)
    assert drawn.seed == 0 and not drawn.chosen_seed
    summary = summary_of(client, drawn.match_id)
    assert summary.status == "finished" and summary.seed != 0 and not summary.chosen_seed
    # The same game, seats and seed, chosen this time: the same match, step by step.
    again = client.create_match("detective_poker", seed=summary.seed, seats=seats, **DETECTIVE)
    assert again.chosen_seed and summary_of(client, again.match_id).chosen_seed
    assert again.replay().steps == drawn.replay().steps


def test_touched_moves_only_on_public_changes(lone_client):
    client = lone_client
    match = client.create_match("pokeros", seed=32, seats=["human", "human"], **POKEROS)
    seat0, seat1 = match.join(0), match.join(1)
    before = summary_of(client, match.match_id).touched
    time.sleep(0.05)
    # Reads change nothing anyone sees.
    view = seat0.view()
    seat1.view()
    match.spectate()
    client.get_replay(match.match_id)
    assert summary_of(client, match.match_id).touched == before
    seat0.act(first_action(view.legal_actions))
    assert summary_of(client, match.match_id).touched > before
