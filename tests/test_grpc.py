"""End-to-end tests of checkraise-server from Python grpcio: the real binary on a free loopback
port, through the stubs committed in the package (checkraise.v1)."""

from __future__ import annotations

import json
import math
import random
import re
import struct
import subprocess

import grpc
import pytest

from grpc_util import Server, server_binary

CARD = re.compile(r"(?<![A-Za-z0-9])(?:[2-9TJQKA][cdhs]|X[123])(?![A-Za-z0-9])")


@pytest.fixture(scope="module")
def channel(server):
    with grpc.insecure_channel(server.address) as ch:
        grpc.channel_ready_future(ch).result(timeout=10)
        yield ch


@pytest.fixture(scope="module")
def catalog(stubs, channel):
    return stubs[1].CatalogStub(channel)


@pytest.fixture(scope="module")
def matches(stubs, channel):
    return stubs[1].MatchesStub(channel)


def token_md(token: str):
    return (("x-seat-token", token),)


def error_of(call) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as info:
        call()
    return info.value


def unpack_f32(tensor) -> list[float]:
    return list(struct.unpack(f"<{len(tensor.data) // 4}f", tensor.data))


def hand_of(view, seat: int) -> list[str]:
    """The cards of ``seat`` the view shows face up (None entries are face down)."""
    seats = json.loads(view.view_json)["seats"]
    return [card for card in seats[seat]["cards"] if card is not None]


def board_cards(view) -> set[str]:
    return {c["card"] for c in json.loads(view.view_json)["board"]}


def seat_texts(view) -> list[str]:
    """Every text a seat's view carries."""
    return [
        view.view_json,
        view.observation_text,
        *(a.text for a in view.legal_actions),
    ]


def assert_no_foreign_cards(view, seat: int, foreign_hand: list[str] | None = None) -> None:
    """A seat sees only public cards (the board) and its own hand; when the other seat's
    current hand is known, none of it appears anywhere in the response, bytes included."""
    allowed = board_cards(view) | set(hand_of(view, seat))
    for text in seat_texts(view):
        for card in CARD.findall(text):
            assert card in allowed, f"seat {seat} sees {card!r} in {text[:200]!r}"
    for other in json.loads(view.view_json)["seats"]:
        if other["seat"] != seat:
            assert other["cards"] == [None] * other["count"], (
                f"seat {seat} sees seat {other['seat']}'s hand"
            )
    if foreign_hand:
        stripped = type(view)()
        stripped.CopyFrom(view)
        stripped.ClearField("observation")
        raw = stripped.SerializeToString()
        for card in foreign_hand:
            for text in seat_texts(view):
                assert card not in text, f"seat {seat} response contains {card}"
            assert (
                re.search(rb"(?<![A-Za-z0-9])" + card.encode() + rb"(?![A-Za-z0-9])", raw) is None
            )


# --- Catalog -------------------------------------------------------------------------------


def test_one_version_in_the_catalog_the_binary_and_the_python_package(stubs, catalog):
    """The server's version reaches clients (ListGames.server_version) and is the version
    `checkraise-server --version` prints and the Python package carries: one version, the
    workspace's."""
    import checkraise

    pb2 = stubs[0]
    version = catalog.ListGames(pb2.ListGamesRequest()).server_version
    assert re.fullmatch(r"\d+\.\d+\.\d+(-[0-9A-Za-z.]+)?", version), version
    assert version == checkraise.__version__
    printed = subprocess.run(
        [server_binary(), "--version"], capture_output=True, text=True, check=True
    ).stdout
    assert printed.strip() == f"checkraise-server {version}"


def test_list_games_describes_pokeros(stubs, catalog):
    pb2 = stubs[0]
    games = catalog.ListGames(pb2.ListGamesRequest()).games
    pokeros = next(g for g in games if g.name == "pokeros")
    assert pokeros.long_name == "Pokeros"
    assert pokeros.min_players == 2 and pokeros.max_players == 4
    assert pokeros.chance_mode == "explicit_stochastic"
    assert pokeros.information == "imperfect"
    assert pokeros.dynamics == "sequential"
    assert set(pokeros.bot_kinds) >= {"random", "heuristic"}
    params = {p.name: p for p in pokeros.parameters}
    assert params["players"].type == pb2.PARAMETER_TYPE_INT
    assert (params["players"].min, params["players"].max) == (2, 4)
    assert params["multiplier"].type == pb2.PARAMETER_TYPE_CHOICE
    assert "cross" in params["multiplier"].options
    sizes = pokeros.default_sizes
    assert sizes.num_players == 2
    assert sizes.num_distinct_actions == 15 * 15 * 3
    assert len(sizes.observation_shape) >= 1


def test_get_game_sizes_follow_parameters(stubs, catalog):
    pb2 = stubs[0]
    reply = catalog.GetGame(
        pb2.GetGameRequest(name="pokeros", parameters={"players": "3", "board_size": "9"})
    )
    assert reply.sizes.num_players == 3
    assert reply.sizes.num_distinct_actions == 9 * 9 * 3
    assert reply.sizes.parameters["players"] == "3"
    assert reply.sizes.HasField("utility_sum") and reply.sizes.utility_sum == 0.0


def test_get_game_errors(stubs, catalog):
    pb2 = stubs[0]
    err = error_of(lambda: catalog.GetGame(pb2.GetGameRequest(name="go")))
    assert err.code() == grpc.StatusCode.NOT_FOUND
    assert "unknown game 'go'" in err.details() and "pokeros" in err.details()
    err = error_of(
        lambda: catalog.GetGame(pb2.GetGameRequest(name="pokeros", parameters={"players": "9"}))
    )
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "players" in err.details() and "9" in err.details()


# --- Matches -------------------------------------------------------------------------------


def new_match(pb2, matches, seats, seed=7, **params):
    return matches.CreateMatch(
        pb2.CreateMatchRequest(game="pokeros", parameters=params, seed=seed, seats=seats)
    )


def test_two_humans_play_a_whole_match_without_seeing_each_others_hands(stubs, matches):
    pb2 = stubs[0]
    created = new_match(pb2, matches, ["human", "human"], seed=11)
    assert created.seed == 11
    mid = created.match_id
    tokens = {}
    for seat in (0, 1):
        joined = matches.JoinSeat(pb2.JoinSeatRequest(match_id=mid, seat=seat))
        assert joined.seat == seat and len(joined.seat_token) >= 32
        tokens[seat] = joined.seat_token
    assert tokens[0] != tokens[1]

    def view(seat):
        return matches.GetView(
            pb2.GetViewRequest(match_id=mid, seat=seat), metadata=token_md(tokens[seat])
        )

    rng = random.Random(5)
    steps = 0
    version = 0
    while True:
        views = {seat: view(seat) for seat in (0, 1)}
        for seat in (0, 1):
            other = 1 - seat
            assert_no_foreign_cards(views[seat], seat, hand_of(views[other], other))
            assert views[seat].version == version
            assert list(views[seat].observation.shape) == list(created.sizes.observation_shape)
            assert len(views[seat].observation.data) == 4 * created.sizes.observation_shape[0]
        if views[0].is_terminal:
            break
        mover = views[0].current_player
        assert views[mover].may_act and not views[1 - mover].may_act
        assert views[1 - mover].legal_actions == []
        legal = views[mover].legal_actions
        assert [a.id for a in legal] == sorted(a.id for a in legal)
        choice = rng.choice(legal)
        if steps % 2:
            request = pb2.ActRequest(match_id=mid, seat=mover, action_text=choice.text)
        else:
            request = pb2.ActRequest(match_id=mid, seat=mover, action_id=choice.id)
        after = matches.Act(request, metadata=token_md(tokens[mover]))
        version += 1
        assert after.version == version
        assert_no_foreign_cards(after, mover, hand_of(view(1 - mover), 1 - mover))
        steps += 1
    assert steps == 51  # 52 cards: the centre card turned up by chance, 51 placed
    final = views[0]
    assert len(final.returns) == 2 and sum(final.returns) == pytest.approx(0.0)
    spectator = matches.GetSpectatorView(pb2.GetSpectatorViewRequest(match_id=mid))
    assert spectator.is_terminal and list(spectator.returns) == list(final.returns)
    # Acting on a finished match is a failed precondition.
    err = error_of(
        lambda: matches.Act(
            pb2.ActRequest(match_id=mid, seat=0, action_id=0),
            metadata=token_md(tokens[0]),
        )
    )
    assert err.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "over" in err.details()


def test_human_against_heuristic_bot(stubs, matches):
    pb2 = stubs[0]
    created = new_match(pb2, matches, ["human", "heuristic"], seed=3)
    mid = created.match_id
    assert [(s.kind, s.taken) for s in created.seats] == [
        ("human", False),
        ("heuristic", True),
    ]
    err = error_of(lambda: matches.JoinSeat(pb2.JoinSeatRequest(match_id=mid, seat=1)))
    assert err.code() == grpc.StatusCode.FAILED_PRECONDITION and "bot" in err.details()
    token = matches.JoinSeat(pb2.JoinSeatRequest(match_id=mid)).seat_token
    err = error_of(lambda: matches.JoinSeat(pb2.JoinSeatRequest(match_id=mid, seat=0)))
    assert err.code() == grpc.StatusCode.FAILED_PRECONDITION and "taken" in err.details()
    md = token_md(token)
    view = matches.GetView(pb2.GetViewRequest(match_id=mid, seat=0), metadata=md)
    moves = 0
    while not view.is_terminal:
        assert view.may_act and view.current_player == 0
        assert_no_foreign_cards(view, 0)
        view = matches.Act(
            pb2.ActRequest(match_id=mid, seat=0, action_id=view.legal_actions[-1].id),
            metadata=md,
        )
        moves += 1
    assert_no_foreign_cards(view, 0)
    assert moves == 26
    placed = json.loads(view.view_json)["moves"]
    assert [m["seat"] for m in placed] == [0, 1] * 25 + [0]
    assert sum(view.returns) == pytest.approx(0.0) and view.seat_return == view.returns[0]


def test_bots_only_match_finishes_on_creation(stubs, matches):
    pb2 = stubs[0]
    created = new_match(pb2, matches, ["random", "heuristic"], seed=1)
    spectator = matches.GetSpectatorView(pb2.GetSpectatorViewRequest(match_id=created.match_id))
    assert spectator.is_terminal and spectator.version == 51
    assert not spectator.HasField("seat") and not spectator.HasField("observation")
    assert all(
        card is None for seat in json.loads(spectator.view_json)["seats"] for card in seat["cards"]
    )


def test_same_seed_same_match(stubs, matches):
    pb2 = stubs[0]
    views = []
    for _ in range(2):
        created = new_match(pb2, matches, ["heuristic", "random"], seed=99)
        views.append(
            matches.GetSpectatorView(
                pb2.GetSpectatorViewRequest(match_id=created.match_id)
            ).view_json
        )
    assert views[0] == views[1]


def test_spectator_sees_no_hands(stubs, matches):
    pb2 = stubs[0]
    created = new_match(pb2, matches, ["human", "human"])
    spectator = matches.GetSpectatorView(pb2.GetSpectatorViewRequest(match_id=created.match_id))
    seats = json.loads(spectator.view_json)["seats"]
    assert [s["cards"] for s in seats] == [[None] * 3, [None] * 3]
    assert [s["count"] for s in seats] == [3, 3]
    assert set(CARD.findall(spectator.view_json)) == board_cards(spectator)
    assert spectator.legal_actions == [] and not spectator.may_act


def test_permission_denied_without_the_right_token(stubs, matches):
    pb2 = stubs[0]
    mid = new_match(pb2, matches, ["human", "human"]).match_id
    t0 = matches.JoinSeat(pb2.JoinSeatRequest(match_id=mid, seat=0)).seat_token
    t1 = matches.JoinSeat(pb2.JoinSeatRequest(match_id=mid, seat=1)).seat_token
    get0 = pb2.GetViewRequest(match_id=mid, seat=0)
    for metadata in [(), token_md("0" * 64), token_md(t1), token_md(t0[:-1])]:
        err = error_of(lambda md=metadata: matches.GetView(get0, metadata=md))
        assert err.code() == grpc.StatusCode.PERMISSION_DENIED, metadata
    err = error_of(
        lambda: matches.Act(
            pb2.ActRequest(match_id=mid, seat=0, action_id=0), metadata=token_md(t1)
        )
    )
    assert err.code() == grpc.StatusCode.PERMISSION_DENIED
    # A seat nobody joined has no token that works.
    mid2 = new_match(pb2, matches, ["human", "human"]).match_id
    err = error_of(
        lambda: matches.GetView(pb2.GetViewRequest(match_id=mid2, seat=1), metadata=token_md(t0))
    )
    assert err.code() == grpc.StatusCode.PERMISSION_DENIED
    # Tokens belong to one match.
    err = error_of(
        lambda: matches.GetView(pb2.GetViewRequest(match_id=mid2, seat=0), metadata=token_md(t0))
    )
    assert err.code() == grpc.StatusCode.PERMISSION_DENIED


def test_bad_requests_are_invalid_arguments_with_reasons(stubs, matches):
    pb2 = stubs[0]
    err = error_of(lambda: matches.CreateMatch(pb2.CreateMatchRequest(game="chess")))
    assert (
        err.code() == grpc.StatusCode.INVALID_ARGUMENT and "unknown game 'chess'" in err.details()
    )
    err = error_of(lambda: new_match(pb2, matches, [], hand_size="9"))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT and "hand_size" in err.details()
    err = error_of(lambda: new_match(pb2, matches, [], colour="red"))
    assert (
        err.code() == grpc.StatusCode.INVALID_ARGUMENT and "no parameter 'colour'" in err.details()
    )
    err = error_of(lambda: new_match(pb2, matches, ["human", "genius"]))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT and "genius" in err.details()
    err = error_of(lambda: new_match(pb2, matches, ["human"]))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT and "2 seats" in err.details()

    mid = new_match(pb2, matches, ["human", "human"]).match_id
    tokens = [
        matches.JoinSeat(pb2.JoinSeatRequest(match_id=mid, seat=s)).seat_token for s in (0, 1)
    ]
    view = matches.GetView(pb2.GetViewRequest(match_id=mid, seat=0), metadata=token_md(tokens[0]))
    legal = {a.id for a in view.legal_actions}
    illegal = next(a for a in range(15 * 15 * 3) if a not in legal)

    def act(**kw):
        return matches.Act(pb2.ActRequest(match_id=mid, seat=0, **kw), metadata=token_md(tokens[0]))

    err = error_of(lambda: act(action_id=illegal))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT and "illegal action" in err.details()
    err = error_of(lambda: act(action_id=10**6))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    err = error_of(lambda: act(action_text="Zz@0,0"))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT and "Zz@0,0" in err.details()
    err = error_of(lambda: act())
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    err = error_of(
        lambda: matches.GetView(
            pb2.GetViewRequest(match_id=mid, seat=5), metadata=token_md(tokens[0])
        )
    )
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT and "seat 5" in err.details()
    # Nothing changed after the bad requests.
    again = matches.GetView(pb2.GetViewRequest(match_id=mid, seat=0), metadata=token_md(tokens[0]))
    assert again.version == 0 and again.view_json == view.view_json

    # Seat 1 acting on seat 0's turn is out of turn.
    err = error_of(
        lambda: matches.Act(
            pb2.ActRequest(match_id=mid, seat=1, action_id=0),
            metadata=token_md(tokens[1]),
        )
    )
    assert err.code() == grpc.StatusCode.FAILED_PRECONDITION and "out of turn" in err.details()


def test_unknown_match_is_not_found(stubs, matches):
    pb2 = stubs[0]
    for call in [
        lambda: matches.JoinSeat(pb2.JoinSeatRequest(match_id="nope")),
        lambda: matches.GetView(pb2.GetViewRequest(match_id="nope"), metadata=token_md("x")),
        lambda: matches.Act(pb2.ActRequest(match_id="nope", action_id=0), metadata=token_md("x")),
        lambda: matches.GetSpectatorView(pb2.GetSpectatorViewRequest(match_id="nope")),
    ]:
        err = error_of(call)
        assert err.code() == grpc.StatusCode.NOT_FOUND and "nope" in err.details()


def test_observation_tensor_is_packed_float32(stubs, matches):
    pb2 = stubs[0]
    created = new_match(pb2, matches, ["human", "random"])
    token = matches.JoinSeat(pb2.JoinSeatRequest(match_id=created.match_id, seat=0)).seat_token
    view = matches.GetView(
        pb2.GetViewRequest(match_id=created.match_id, seat=0), metadata=token_md(token)
    )
    assert view.observation.dtype == pb2.DATA_TYPE_FLOAT32
    values = unpack_f32(view.observation)
    assert len(values) == created.sizes.observation_shape[0]
    assert all(math.isfinite(v) for v in values) and any(v != 0.0 for v in values)


def test_watch_seat_streams_every_change_in_order(stubs, matches):
    pb2 = stubs[0]
    mid = new_match(pb2, matches, ["human", "heuristic"], seed=21).match_id
    md = token_md(matches.JoinSeat(pb2.JoinSeatRequest(match_id=mid, seat=0)).seat_token)
    seat_stream = matches.WatchSeat(pb2.WatchSeatRequest(match_id=mid, seat=0), metadata=md)
    spectator_stream = matches.WatchSpectator(pb2.WatchSpectatorRequest(match_id=mid))
    first = next(seat_stream)
    assert first.actor == -1 and first.view.version == 0 and first.view.may_act
    assert next(spectator_stream).view.version == 0
    chosen = []
    view = first.view
    while not view.is_terminal:
        action = view.legal_actions[len(chosen) % len(view.legal_actions)]
        chosen.append((action.id, action.text))
        view = matches.Act(pb2.ActRequest(match_id=mid, seat=0, action_id=action.id), metadata=md)
    events = list(seat_stream)  # the stream ends after the terminal event
    assert [e.view.version for e in events] == list(range(1, 52))
    assert [e.actor for e in events] == [0, 1] * 25 + [0]
    own = [(e.own_action.id, e.own_action.text) for e in events if e.HasField("own_action")]
    assert own == chosen
    assert all(not e.HasField("own_action") for e in events if e.actor == 1)
    for event in events:
        assert_no_foreign_cards(event.view, 0)
        assert event.view.seat == 0
    assert events[-1].view.is_terminal and events[-1].view.view_json == view.view_json
    spectated = list(spectator_stream)
    assert [e.view.version for e in spectated] == list(range(1, 52))
    for event in spectated:
        assert not event.HasField("own_action") and not event.view.HasField("seat")
        seats = json.loads(event.view.view_json)["seats"]
        assert all(card is None for seat in seats for card in seat["cards"])


def test_watch_needs_the_seat_token(stubs, matches):
    pb2 = stubs[0]
    mid = new_match(pb2, matches, ["human", "human"]).match_id
    matches.JoinSeat(pb2.JoinSeatRequest(match_id=mid, seat=0))
    err = error_of(
        lambda: next(
            matches.WatchSeat(pb2.WatchSeatRequest(match_id=mid, seat=0), metadata=token_md("bad"))
        )
    )
    assert err.code() == grpc.StatusCode.PERMISSION_DENIED
    err = error_of(
        lambda: next(
            matches.WatchSeat(
                pb2.WatchSeatRequest(match_id="nope", seat=0), metadata=token_md("bad")
            )
        )
    )
    assert err.code() == grpc.StatusCode.NOT_FOUND


def test_watching_a_finished_match_gives_its_final_view_and_ends(stubs, matches):
    pb2 = stubs[0]
    mid = new_match(pb2, matches, ["random", "random"], seed=4).match_id
    events = list(matches.WatchSpectator(pb2.WatchSpectatorRequest(match_id=mid)))
    assert len(events) == 1 and events[0].view.is_terminal and events[0].view.version == 51


def test_sigterm_ends_open_watch_streams_and_exits_cleanly(stubs):
    pb2, pb2_grpc = stubs
    srv = Server()
    try:
        with grpc.insecure_channel(srv.address) as channel:
            matches = pb2_grpc.MatchesStub(channel)
            mid = matches.CreateMatch(pb2.CreateMatchRequest(game="pokeros")).match_id
            token = matches.JoinSeat(pb2.JoinSeatRequest(match_id=mid, seat=0)).seat_token
            stream = matches.WatchSeat(
                pb2.WatchSeatRequest(match_id=mid, seat=0), metadata=token_md(token)
            )
            assert next(stream).view.version == 0
            srv.proc.terminate()
            err = error_of(lambda: next(stream))
            assert err.code() == grpc.StatusCode.UNAVAILABLE
            assert srv.proc.wait(timeout=10) == 0
    finally:
        srv.stop()
    assert "SIGTERM" in srv.log()


# --- Health and reflection -----------------------------------------------------------------


def test_health_reports_serving(channel):
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    health = health_pb2_grpc.HealthStub(channel)
    for service in ["", "checkraise.v1.Catalog", "checkraise.v1.Matches"]:
        reply = health.Check(health_pb2.HealthCheckRequest(service=service))
        assert reply.status == health_pb2.HealthCheckResponse.SERVING, service


def test_reflection_v1alpha_lists_and_describes_services(channel):
    from google.protobuf.descriptor_pool import DescriptorPool
    from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
        ProtoReflectionDescriptorDatabase,
    )

    database = ProtoReflectionDescriptorDatabase(channel)
    services = set(database.get_services())
    assert {
        "checkraise.v1.Catalog",
        "checkraise.v1.Matches",
        "grpc.health.v1.Health",
    } <= services
    pool = DescriptorPool(database)
    matches = pool.FindServiceByName("checkraise.v1.Matches")
    assert {"CreateMatch", "JoinSeat", "GetView", "Act"} <= {m.name for m in matches.methods}
    view = pool.FindMessageTypeByName("checkraise.v1.SeatView")
    assert "view_json" in view.fields_by_name
