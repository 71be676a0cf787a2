"""No response to a seat carries anything that seat may not know, over whole matches of every
game, checked against the engine itself.

Every seat of a match is a client driven by the test, so the test knows every action and
replays the match locally: the server samples chance from the match seed exactly as
``checkraise.Env(game, seed)`` does (one stream from that seed, resolved after creation and
after every step; see crates/grpc/src/live_match/), so ``Env.step``/``step_joint`` with the
same actions gives the server's state. Then every response a seat receives (``Act`` replies,
``GetView``, every event of its watch stream) must equal what the engine computes for that
seat on the replica: the view dict, the observation tensor's bytes, the observation text, the
legal actions with their texts, the returns. And it must equal the same on states resampled
from that seat's information state (``resample_from_infostate(seat, seed)``), which differ in
everything the seat cannot see; so each response is a function of the seat's information
alone. Spectator responses must equal the public view of the replica and of resamples from
every seat's information state.
"""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import pytest

import checkraise as cr
from checkraise.client import Client, Event, Match, Seat, View

# Short parameters where a game is long, and a variant with more seats where a game has them.
CASES: list[tuple[str, dict[str, Any]]] = [
    ("pokeros", {"board_size": 5}),
    ("pokeros", {"players": 3, "board_size": 7, "hand_size": 2}),
    ("pokeros", {"hand_size": 0, "board_size": 5}),
    ("prediction_chess", {"max_turns": 30}),
    ("poker_chess", {}),
    ("holdem_chess", {}),
    ("holdem_chess", {"players": 3, "hands": 2}),
    ("detective_poker", {"rounds": 1}),
    ("detective_poker", {"players": 4, "rounds": 1, "expert": True}),
]
# Any other game of the build (added later, or behind a feature): its default parameters.
CASES += [(name, {}) for name in cr.game_names() if name not in {game for game, _ in CASES}]
# The cases with private hands, where a resample must differ from the replica somewhere (the
# others: Prediction Chess hides only pending choices, which live on the server, not in the
# state; Pokeros with hand_size 0 deals face up).
HIDDEN_HANDS = [
    case for case in CASES if case[0] != "prediction_chess" and case[1].get("hand_size") != 0
]
SEEDS = [0, 1, 2]
RESAMPLES = [11, 12, 13]


def choose(legal: dict[int, str], rng: random.Random) -> int:
    """A random legal action, rarely folding or going all-in so that poker reaches showdowns."""
    calm = [a for a, text in legal.items() if "fold" not in text and "all-in" not in text]
    if calm and rng.random() < 0.9:
        return rng.choice(calm)
    return rng.choice(list(legal))


def expected_seat(state: cr.State, seat: int) -> dict[str, Any]:
    """What the engine says seat `seat` may see at `state`, in the response's terms."""
    current = state.current_player()
    may_act = current in (seat, -2)
    legal = (
        {a: state.action_to_string(seat, a) for a in state.legal_actions(seat)}
        if may_act and not state.is_terminal()
        else {}
    )
    return {
        "state": state.view(seat),
        "observation": np.asarray(state.observation(seat), dtype="<f4").tobytes(),
        "observation_text": state.observation_string(seat),
        "legal_actions": legal,
        "seat_return": state.returns()[seat],
        "current_player": current,
        "is_terminal": state.is_terminal(),
    }


def received_seat(view: View) -> dict[str, Any]:
    """The same fields of a seat's response."""
    assert view.observation is not None
    return {
        "state": view.state,
        "observation": view.raw.observation.data,
        "observation_text": view.observation_text,
        "legal_actions": view.legal_actions,
        "seat_return": view.seat_return,
        "current_player": view.current_player,
        "is_terminal": view.is_terminal,
    }


def assert_seat_response(
    view: View, state: cr.State, seat: int, submitted: bool, where: str
) -> None:
    """`view` (received by `seat`) is the engine's answer for that seat at `state` and at
    resamples from the seat's information state; nothing else is in it."""
    assert view.seat == seat, where
    assert view.observation is not None
    assert view.observation.shape == state.get_game().observation_shape(), where
    got = received_seat(view)
    if submitted:
        # At a simultaneous node after choosing: no legal actions until the others choose.
        assert view.action_submitted and not view.may_act, where
        assert got["legal_actions"] == {}, where
    candidates = [("replica", state)] + [
        (f"resample {s}", state.resample_from_infostate(seat, s)) for s in RESAMPLES
    ]
    for name, candidate in candidates:
        want = expected_seat(candidate, seat)
        if submitted:
            want["legal_actions"] = {}
        for key, value in want.items():
            assert got[key] == value, f"{where}: seat {seat}'s {key} differs from the {name}"
    assert view.returns == (tuple(state.returns()) if state.is_terminal() else None), where
    # The wire view_json parses to exactly the engine's dict (no extra keys), and the other
    # texts carry nothing beyond what was compared.
    assert json.loads(view.raw.view_json) == state.view(seat), where


def assert_spectator_response(view: View, state: cr.State, where: str) -> None:
    """A spectator's response is the public view: equal on the replica and on resamples from
    every seat's information state; no observation, no actions."""
    assert view.seat is None and view.observation is None, where
    assert view.observation_text == "" and view.legal_actions == {}, where
    assert view.current_player == state.current_player(), where
    public = state.view(None)
    assert view.state == public, f"{where}: spectator view differs from the replica"
    for seat in range(state.num_players()):
        for s in RESAMPLES:
            resampled = state.resample_from_infostate(seat, s).view(None)
            assert resampled == public, (
                f"{where}: the public view depends on what seat {seat} cannot see"
            )


class PlayedMatch:
    """A finished all-client match: its seats, the replica's state after every version, each
    version's own actions by seat, and the watch streams opened before the first action."""

    def __init__(self, match: Match, seats: list[Seat]) -> None:
        self.match = match
        self.seats = seats
        self.states: list[cr.State] = []
        self.own_actions: dict[int, dict[int, tuple[int, str]]] = {}
        self.seat_streams = [seat.watch() for seat in seats]
        self.spectator_stream = match.watch()


def play_all_client_match(
    client: Client, game: str, params: dict[str, Any], seed: int
) -> PlayedMatch:
    """Plays a whole match where every seat is a client of this test, mirroring it on a local
    `Env`, and checks every unary response (of every seat and the spectator, after every
    step) on the way."""
    players = client.game(game, **params).sizes.num_players
    match = client.create_match(game, seed=seed, seats=["human"] * players, **params)
    played = PlayedMatch(match, [match.join(s) for s in range(players)])
    seats, states, own_actions = played.seats, played.states, played.own_actions
    env = cr.Env(game, seed=seed, **params)
    states.append(env.state())
    rng = random.Random(seed * 7919 + players)
    where = f"{game} {params} seed {seed}"

    def check_everyone(submitted: set[int], version: int) -> None:
        state = states[-1]
        for seat in seats:
            view = seat.view()
            assert view.version == version, where
            assert_seat_response(
                view, state, seat.seat, seat.seat in submitted, f"{where} v{version}"
            )
        spectator = match.spectate()
        assert spectator.version == version
        assert_spectator_response(spectator, state, f"{where} v{version} spectator")

    check_everyone(set(), 0)
    version = 0
    while not env.is_terminal():
        if env.current_player() == -2:
            joint: list[int] = []
            submitted: set[int] = set()
            for seat in seats:
                view = seat.view()
                assert view.may_act, where
                action = choose(view.legal_actions, rng)
                joint.append(action)
                text = view.legal_actions[action]
                # By text or by id at random: both must work.
                reply = seat.act(text if rng.random() < 0.5 else action)
                submitted.add(seat.seat)
                if len(submitted) < players:
                    # Nothing moved: every viewer sees exactly what it saw before, except
                    # that this seat knows it has chosen.
                    assert reply.version == version, where
                    assert_seat_response(
                        reply,
                        states[-1],
                        seat.seat,
                        True,
                        f"{where} v{version} pending",
                    )
                    check_everyone(submitted, version)
            own = {s: (a, states[-1].action_to_string(s, a)) for s, a in enumerate(joint)}
            env.step_joint(joint)
        else:
            current = env.current_player()
            seat = seats[current]
            view = seat.view()
            action = choose(view.legal_actions, rng)
            text = view.legal_actions[action]
            reply = seat.act(text if rng.random() < 0.5 else action)
            own = {current: (action, text)}
            env.step(action)
            assert reply.version == version + 1, where
            assert_seat_response(reply, env.state(), current, False, f"{where} v{version}")
        version += 1
        own_actions[version] = own
        states.append(env.state())
        check_everyone(set(), version)
    return played


def assert_stream(
    events: list[Event],
    viewer: int | None,
    states: list[cr.State],
    own_actions: dict[int, dict[int, tuple[int, str]]],
    where: str,
) -> None:
    """A watch stream from the start: the view at version 0, then one event per version, in
    order, each equal to the engine's answer for the viewer; it ends at the terminal view."""
    assert [e.view.version for e in events] == list(range(len(states))), where
    assert events[0].actor == -1 and events[0].own_action is None
    assert events[-1].view.is_terminal
    for version, event in enumerate(events):
        state = states[version]
        at = f"{where} event v{version}"
        if viewer is None:
            assert_spectator_response(event.view, state, at)
        else:
            assert_seat_response(event.view, state, viewer, False, at)
        if version == 0:
            continue
        actors = own_actions[version]
        simultaneous = states[version - 1].current_player() == -2
        assert event.actor == (-2 if simultaneous else next(iter(actors))), at
        expected_own = actors.get(viewer) if viewer is not None else None
        assert event.own_action == expected_own, at


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(("game", "params"), CASES, ids=str)
def test_no_seat_is_ever_shown_what_it_may_not_see(client, game, params, seed):
    """Over a whole match: every unary response and every watch event, for every seat and
    the spectator, is a function of that viewer's information alone."""
    played = play_all_client_match(client, game, params, seed)
    where = f"{game} {params} seed {seed}"
    for seat, stream in zip(played.seats, played.seat_streams, strict=True):
        events = list(stream)
        assert_stream(events, seat.seat, played.states, played.own_actions, where)
    events = list(played.spectator_stream)
    assert_stream(events, None, played.states, played.own_actions, where)
    returns = tuple(played.states[-1].returns())
    assert all(seat.view().returns == returns for seat in played.seats)
    assert played.match.spectate().returns == returns
    if (game, params) in HIDDEN_HANDS:
        assert resampling_changes_hidden_cards(played.states), (
            "the resamples never differed from the replica, so comparing against them "
            "proved nothing"
        )


def resampling_changes_hidden_cards(states: list[cr.State]) -> bool:
    """Whether some resample from a seat's information differs from the replica in what
    another seat sees (so the resample comparisons have teeth)."""
    players = states[0].num_players()
    for state in states:
        for seat in range(players):
            for s in RESAMPLES:
                resampled = state.resample_from_infostate(seat, s)
                for other in range(players):
                    if other != seat and resampled.view(other) != state.view(other):
                        return True
    return False
