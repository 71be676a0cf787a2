"""Pictures of states (checkraise.render): every game, every node kind, and information hiding.

A picture is drawn from ``state.view(seat)`` only. These tests check that it always draws (the
Jupyter hooks must never raise), that it is a valid SVG and a non-blank RGB array, that a
seat's picture is the same on every state consistent with what the seat knows
(``resample_from_infostate``), and that a seat's own cards are face up and others' face down.
"""

import random
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import checkraise as cr
from checkraise import render

GAMES = cr.game_names()
SVG_NS = "{http://www.w3.org/2000/svg}"


def step_random(state, rng, seed):
    """One random step: chance by the engine's sampler, seats by a seeded random choice."""
    if state.is_chance_node():
        state.sample_chance(seed)
    elif state.is_simultaneous_node():
        state.apply_actions(
            [rng.choice(state.legal_actions(seat)) for seat in range(state.num_players())]
        )
    else:
        state.apply_action(rng.choice(state.legal_actions()))


def random_states(name, seed, **params):
    """Every state of one random game of ``name``, from the bare initial state to the end."""
    game = cr.make(name, **params)
    state = game.new_initial_state()
    rng = random.Random(seed)
    states = [state.clone()]
    while not state.is_terminal():
        step_random(state, rng, seed * 100_000 + len(states))
        states.append(state.clone())
    return states


def parse(svg_text):
    root = ET.fromstring(svg_text)
    assert root.tag == f"{SVG_NS}svg"
    return root


def face_up_cards(svg_text):
    """Names of the face-up cards drawn in a picture."""
    return [
        g.get("data-card") for g in parse(svg_text).iter(f"{SVG_NS}g") if g.get("class") == "card"
    ]


def face_down_count(svg_text):
    return sum(1 for g in parse(svg_text).iter(f"{SVG_NS}g") if g.get("class") == "card-back")


def assert_picture(state, seat, with_html=False, with_pixels=False):
    text = render.svg(state, seat)
    root = parse(text)
    # A game with a painter of its own never falls back to the generic picture; a game without
    # one (added later, or behind a feature) is drawn as its view.
    game = state.view(seat)["game"]
    painted = game if game in render._RENDERERS else "generic"
    assert root.get("data-renderer") == painted, "fell back to the generic view"
    assert root.get("data-viewer") == ("spectator" if seat is None else str(seat))
    assert int(root.get("width")) > 100 and int(root.get("height")) > 100
    if with_html:
        page = render.html(state, seat)
        assert page.startswith("<figure") and text in page and "</figcaption>" in page
    if with_pixels:
        pixels = render.rgb_array(state, seat)
        assert pixels.dtype == np.uint8 and pixels.ndim == 3 and pixels.shape[2] == 3
        assert pixels.shape[:2] == (int(root.get("height")), int(root.get("width")))
        assert len(np.unique(pixels.reshape(-1, 3), axis=0)) > 10, "blank picture"


@pytest.mark.parametrize("name", GAMES)
def test_every_state_of_random_games_draws(name):
    """The spectator picture (what Jupyter shows) at every state of a random game; seats'
    pictures at many."""
    for seed in range(1):
        states = random_states(name, seed)
        n = states[0].num_players()
        last = len(states) - 1
        pixel_states = {0, last // 3, 2 * last // 3, last}
        for index, state in enumerate(states):
            assert_picture(state, None, with_html=index % 5 == 0, with_pixels=index in pixel_states)
            if index % 4 == 0 or index == last:
                for seat in range(n):
                    assert_picture(state, seat, with_pixels=index in pixel_states and seat == 0)
        deterministic = cr.make(name).info["chance"] == "deterministic"
        assert deterministic or states[0].is_chance_node()  # the bare state drew too
        assert states[-1].is_terminal()


@pytest.mark.parametrize(
    "name, params",
    [
        ("pokeros", {"players": 4}),
        ("pokeros", {"players": 3, "hand_size": 0, "wildcards": 2}),
        ("holdem_chess", {"players": 10}),
        ("holdem_chess", {"players": 3, "hands": 3, "grid": "-2..6:-2..2", "allin_place": True}),
        ("detective_poker", {"players": 2}),
        ("detective_poker", {"players": 6, "rounds": 1}),
        ("poker_chess", {"jokers": 0, "hand_size": 8}),
        ("prediction_chess", {"max_turns": 5}),
    ],
)
def test_other_player_counts_and_parameters_draw(name, params):
    states = random_states(name, 7, **params)
    for index, state in enumerate(states):
        if index % 3 and index != len(states) - 1:
            continue
        assert_picture(state, None, with_html=True, with_pixels=index == len(states) - 1)
        assert_picture(state, state.num_players() - 1)


def states_with_hidden_information(name, seeds=range(2)):
    """Decision states mid-game where resampling changes what the viewer cannot see."""
    found = []
    for seed in seeds:
        states = random_states(name, seed)
        middle = [s for s in states if not s.is_terminal()][1:]
        found.extend(middle[len(middle) // 3 :: max(1, len(middle) // 4)][:3])
    return found


@pytest.mark.parametrize("name", GAMES)
def test_a_seats_picture_depends_only_on_what_it_knows(name):
    checked = 0
    changed = 0
    for state in states_with_hidden_information(name):
        truth = str(state)
        for seat in range(state.num_players()):
            mine = render.svg(state, seat)
            spectator = render.svg(state, None)
            pixels = render.rgb_array(state, seat)
            for resample_seed in range(3):
                other = state.resample_from_infostate(seat, resample_seed)
                changed += str(other) != truth
                assert render.svg(other, seat) == mine
                assert render.svg(other, None) == spectator
                if resample_seed == 0:
                    assert np.array_equal(render.rgb_array(other, seat), pixels)
                checked += 1
    assert checked > 0
    # Otherwise the test could not fail: some resample must differ in what is hidden.
    assert changed > 0, f"no resample of {name} changed anything hidden"


def decision_state(name, moves, seed=3, **params):
    """A state after ``moves`` random steps, at a seat's decision."""
    game = cr.make(name, **params)
    state = game.new_initial_state()
    rng = random.Random(seed)
    for i in range(moves):
        step_random(state, rng, seed * 1000 + i)
    while state.is_chance_node():
        state.sample_chance(seed)
    assert state.current_player() >= 0
    return state


def test_pokeros_own_hand_face_up_opponents_face_down():
    state = decision_state("pokeros", 9)
    mine = state.view(0)["seats"][0]["cards"]
    theirs = state.view(1)["seats"][1]["cards"]
    assert mine and theirs and None not in mine + theirs
    assert state.view(0)["seats"][1]["cards"] == [None] * len(theirs)
    seat0 = render.svg(state, 0)
    up = face_up_cards(seat0)
    assert all(card in up for card in mine)
    assert not any(card in up for card in theirs)
    assert face_down_count(seat0) >= len(theirs)
    spectator = render.svg(state)
    up = face_up_cards(spectator)
    assert not any(card in up for card in mine + theirs)
    assert face_down_count(spectator) >= len(mine) + len(theirs)
    # The board is public: every board card is face up for everyone.
    for card in (b["card"] for b in state.view(None)["board"]):
        assert card in up


def test_poker_chess_hands_and_played_card():
    state = decision_state("poker_chess", 14)
    mine = state.view(0)["seats"][0]["cards"]
    theirs = state.view(1)["seats"][1]["cards"]
    assert mine and theirs and None not in mine + theirs
    seat0, seat1, spectator = (render.svg(state, s) for s in (0, 1, None))
    assert set(mine) <= set(face_up_cards(seat0)) and not set(theirs) & set(face_up_cards(seat0))
    assert set(theirs) <= set(face_up_cards(seat1)) and not set(mine) & set(face_up_cards(seat1))
    assert not (set(mine) | set(theirs)) & set(face_up_cards(spectator))
    for card in state.view(None)["discards"]:
        assert card in face_up_cards(spectator)


def test_holdem_chess_hole_cards_and_placed_cards():
    game = cr.make("holdem_chess")
    state = game.new_initial_state()
    bot = cr.Bot(game, "heuristic", seed=1)
    seed = 0
    # Play until some card is placed face down on the grid.
    while not state.is_terminal():
        if state.is_chance_node():
            state.sample_chance(seed)
            seed += 1
            continue
        if any("owner" in c for c in state.view(None)["board"]):
            break
        state.apply_action(bot.act(state))
    spectator_view = state.view(None)
    placed = [c for c in spectator_view["board"] if "owner" in c]
    assert placed and all(c["card"] is None for c in placed)
    for seat in range(2):
        own = state.view(seat)["seats"][seat]["cards"]
        other = state.view(1 - seat)["seats"][1 - seat]["cards"]
        assert None not in own + other
        up = face_up_cards(render.svg(state, seat))
        assert set(own) <= set(up)
        assert not set(other) & set(up)
    spectator = render.svg(state)
    assert face_down_count(spectator) >= len(placed) + sum(
        s["count"] for s in spectator_view["seats"]
    )
    assert set(spectator_view["community"]) <= set(face_up_cards(spectator))


def test_detective_poker_private_shown_and_action_cards():
    state = decision_state("detective_poker", 12)
    views = [state.view(s) for s in range(3)]
    # A seat's cards are [private, shown]: its owner sees the first, the others the second.
    private = [views[s]["seats"][s]["cards"][0] for s in range(3)]
    shown = [views[(s + 1) % 3]["seats"][s]["cards"][1] for s in range(3)]
    assert all(private) and all(shown)
    for seat in range(3):
        up = set(face_up_cards(render.svg(state, seat)))
        assert private[seat] in up and shown[seat] not in up
        for other in range(3):
            if other != seat:
                assert private[other] not in up and shown[other] in up
    spectator = render.svg(state)
    assert not (set(private) | set(shown)) & set(face_up_cards(spectator))
    # Action cards under bets are face down for a spectator.
    bets = state.view(None)["bets"]
    hidden = sum(1 for b in bets if "action_card" in b and b["action_card"] is None)
    assert face_down_count(spectator) >= 6 + hidden  # 3 private + 3 shown + hidden action cards


def test_prediction_chess_pending_move_only_for_its_owner():
    game = cr.make("prediction_chess")
    state = game.new_initial_state()
    state.apply_actions(
        [
            game.new_initial_state().string_to_action(0, "e2e4"),
            game.new_initial_state().string_to_action(1, "d7d5"),
        ]
    )
    assert state.view(0)["phase"] == "predict"
    seat0 = render.svg(state, 0)
    seat1 = render.svg(state, 1)
    spectator = render.svg(state)
    assert "your move: e2e4" in seat0 and "d7d5" not in seat0
    assert "your move: d7d5" in seat1 and "e2e4" not in seat1
    assert "e2e4" not in spectator and "d7d5" not in spectator
    state.apply_actions(
        [state.string_to_action(0, "predict d7d5"), state.string_to_action(1, "predict e2e3")]
    )
    revealed = render.svg(state)
    assert "white: e2e4 (predicts d7d5)" in revealed
    assert "black: d7d5 (predicts e2e3)" in revealed
    assert "predicted" in revealed


class FakeState:
    """Anything with a ``view`` method renders."""

    def __init__(self, view):
        self._view = view

    def view(self, seat=None):
        return dict(self._view, viewer=seat)


def test_generic_fallback_for_an_unknown_game():
    state = FakeState(
        {
            "game": "tic_tac_toe",
            "current_player": 1,
            "terminal": False,
            "board": ["x<o", "&..", "..."],
            "note": 'a "quoted" <tag> & more',
        }
    )
    text = render.svg(state)
    root = parse(text)
    assert root.get("data-renderer") == "generic" and root.get("data-game") == "tic_tac_toe"
    body = "".join(root.itertext())
    assert "x<o" in body and "<tag> & more" in body  # escaped in the file, intact when parsed
    assert "seat 1 to act" in body
    assert render.svg(state, 0) != text
    pixels = render.rgb_array(state, 1)
    assert pixels.dtype == np.uint8 and pixels.shape[2] == 3
    assert len(np.unique(pixels.reshape(-1, 3), axis=0)) > 2
    page = render.html(state)
    assert "tic_tac_toe" in page and "&lt;tag&gt;" in page


def test_characters_xml_forbids_do_not_break_the_picture():
    state = FakeState(
        {
            "game": "bell\x07game",
            "current_player": -4,
            "terminal": True,
            "returns": ["not", "numbers"],
        }
    )
    root = parse(render.svg(state))
    assert root.get("data-game") == "bell\ufffdgame"
    assert "bell" in render.html(state)


def test_a_malformed_view_of_a_known_game_still_draws():
    state = FakeState({"game": "pokeros", "board": "not a list", "hands": 3})
    root = parse(render.svg(state))
    assert root.get("data-renderer") == "generic"
    assert render.html(state)
    assert render.rgb_array(state).shape[2] == 3


def test_picture_displays_a_seats_side():
    state = decision_state("pokeros", 5)
    pic = render.picture(state, 0)
    assert pic._repr_svg_() == render.svg(state, 0)
    assert pic._repr_html_() == render.html(state, 0)
    assert np.array_equal(pic.rgb_array(), render.rgb_array(state, 0))
    assert "pokeros" in repr(pic) and "seat 0" in repr(pic)
    assert cr.render.picture(state)._repr_svg_() == render.svg(state)


def test_a_bad_seat_is_an_error():
    state = decision_state("pokeros", 3)
    with pytest.raises(cr.InvalidSeatError):
        render.svg(state, 5)
    with pytest.raises(cr.InvalidSeatError):
        render.rgb_array(state, -3)


def test_missing_pillow_names_the_fix(monkeypatch):
    state = decision_state("pokeros", 3)
    monkeypatch.setitem(sys.modules, "PIL", None)
    with pytest.raises(ImportError, match="pip install pillow"):
        render.rgb_array(state)
    assert render.svg(state)  # SVG needs no Pillow


@pytest.mark.parametrize("name", cr.game_names())
def test_states_render_in_jupyter_from_the_spectator_side(name: str) -> None:
    """`State._repr_svg_` / `_repr_html_` (what Jupyter calls) are the spectator's picture."""
    state = cr.make(name).new_initial_state()
    state.sample_chance(seed=3)
    assert state._repr_svg_() == cr.render.svg(state)
    assert state._repr_html_() == cr.render.html(state)
    ET.fromstring(state._repr_svg_())
