"""Every view the engine writes matches its game's published JSON Schema
(docs/views/<game>.schema.json, generated from the view structs; docs/views.md describes them).

Seeded random games of every game, with several parameter sets (3 or more seats where a game
allows), are played to the end; at every state each seat's view and the spectator's are
validated against the committed schema, and against a strict copy of it that allows no
property the schema does not name. Views also hide what they must: a seat's view (and the
spectator's) is the same on every state the seat cannot tell apart, and a spectator sees no
card face that a seat cannot see.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import checkraise as cr

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = ROOT / "docs" / "views"

# (game, parameters): the defaults, and other seat counts and rule variants.
CASES: list[tuple[str, dict[str, Any]]] = [
    ("pokeros", {}),
    ("pokeros", {"players": 3}),
    ("pokeros", {"players": 4, "hand_size": 0, "wildcards": 2}),
    ("prediction_chess", {}),
    ("prediction_chess", {"max_turns": 6}),
    ("poker_chess", {}),
    ("poker_chess", {"jokers": 0, "hand_size": 8}),
    ("holdem_chess", {}),
    ("holdem_chess", {"players": 3, "hands": 3, "grid": "-2..6:-2..2", "allin_place": True}),
    ("holdem_chess", {"players": 6, "hands": 2}),
    ("detective_poker", {}),
    ("detective_poker", {"players": 2}),
    ("detective_poker", {"players": 5, "rounds": 1}),
]


def _strict(schema: Any) -> Any:
    """A copy of ``schema`` where no object may have a property its schema does not name."""
    if isinstance(schema, dict):
        out = {key: _strict(value) for key, value in schema.items()}
        if "properties" in out and "additionalProperties" not in out:
            out["additionalProperties"] = False
        return out
    if isinstance(schema, list):
        return [_strict(value) for value in schema]
    return schema


@cache
def validators(name: str, folder: Path = SCHEMAS) -> tuple[jsonschema.Draft202012Validator, ...]:
    """The published schema of ``name`` in ``folder`` (views by default), and its strict copy."""
    schema = json.loads((folder / f"{name}.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return tuple(
        jsonschema.Draft202012Validator(s, format_checker=None)
        for s in (schema, _strict(copy.deepcopy(schema)))
    )


def random_game(name: str, seed: int, **params: Any) -> Iterator[cr.State]:
    """Every state of one seeded random game of ``name``, from the initial state to the end."""
    state = cr.make(name, **params).new_initial_state()
    rng = random.Random(seed)
    yield state
    while not state.is_terminal():
        if state.is_chance_node():
            state.sample_chance(rng.randrange(1 << 30))
        elif state.is_simultaneous_node():
            state.apply_actions(
                [rng.choice(state.legal_actions(seat)) for seat in range(state.num_players())]
            )
        else:
            state.apply_action(rng.choice(state.legal_actions()))
        yield state


def assert_valid(view: dict[str, Any], name: str, where: str) -> None:
    schema, strict = validators(name)
    if strict.is_valid(view):  # the strict schema only adds constraints
        return
    for validator, what in ((schema, "does not match"), (strict, "has a property not in")):
        errors = sorted(validator.iter_errors(view), key=lambda e: list(e.absolute_path))
        assert not errors, f"{where}: the view {what} docs/views/{name}.schema.json: " + "; ".join(
            f"{list(e.absolute_path)}: {e.message}" for e in errors[:5]
        )


def test_every_game_has_a_committed_schema():
    assert sorted(p.name for p in SCHEMAS.glob("*.schema.json")) == sorted(
        f"{name}.schema.json" for name in cr.game_names()
    )
    for name in cr.game_names():
        validators(name)  # each is a valid draft 2020-12 schema
    assert {name for name, _ in CASES} == set(cr.game_names())


@pytest.mark.parametrize(
    "name, params", CASES, ids=[f"{n}-{json.dumps(p, sort_keys=True)}" for n, p in CASES]
)
def test_every_view_of_random_games_matches_the_schema(name, params):
    checked = 0
    seed = 0
    # One game at least, more while they are short (a hold'em hand may end at once).
    while seed < 1 or checked < 200:
        seed += 1
        validated: dict[Any, list[Any]] = {}  # each viewer's events validated so far
        for index, state in enumerate(random_game(name, seed, **params)):
            n = state.num_players()
            for viewer in [None, *range(n)]:
                view = state.view(viewer)
                where = f"{name} {params} seed {seed} state {index} viewer {viewer}"
                # Validating every whole view cost the square of a game's length (the event
                # list grows with it). Where the events validated before are unchanged at the
                # front of the list, only the new ones are validated with the rest of the
                # view; any other change (a card revealed in an earlier event), and the last
                # state, validate the whole view.
                events = view.get("events")
                before = validated.get(viewer, [])
                if isinstance(events, list):
                    validated[viewer] = events
                    if not state.is_terminal() and events[: len(before)] == before:
                        view = {**view, "events": events[len(before) :]}
                assert_valid(view, name, where)
                assert view["game"] == name and view["viewer"] == viewer, where
                assert view["current_player"] == state.current_player(), where
                assert view["terminal"] == state.is_terminal(), where
                assert view["returns"] == (state.returns() if state.is_terminal() else None)
                checked += 1
            if index % 10 == 0 or state.is_terminal():
                # The view of everyone (a finished match's replay) has the same schema.
                everyone = state.everyone_view()
                assert_valid(everyone, name, f"{name} {params} seed {seed} state {index} everyone")
                assert everyone["everyone"] is True and everyone["viewer"] is None


def face_up_cards(value: Any) -> set[str]:
    """Every card text a view shows face up (keys named ``card``/``cards``/``community``…)."""
    found: set[str] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ("card", "played_card") and isinstance(item, str):
                found.add(item)
            elif key in ("cards", "community", "discards", "revealed") and isinstance(item, list):
                found.update(card for card in item if isinstance(card, str))
            else:
                found |= face_up_cards(item)
    elif isinstance(value, list):
        for item in value:
            found |= face_up_cards(item)
    return found


@pytest.mark.parametrize(
    "name, params", CASES, ids=[f"{n}-{json.dumps(p, sort_keys=True)}" for n, p in CASES]
)
def test_views_hide_what_the_viewer_cannot_see(name, params):
    """A seat's view depends only on its information; a spectator's only on public facts."""
    states = [s.clone() for s in random_game(name, 11, **params)]
    decisions = [s for s in states if not s.is_terminal() and not s.is_chance_node()]
    changed = 0
    for state in [*decisions[:: max(1, len(decisions) // 6)], states[-1]]:
        n = state.num_players()
        public = state.view(None)
        for seat in range(n):
            mine = state.view(seat)
            # What a spectator sees face up, every seat sees face up.
            assert face_up_cards(public) <= face_up_cards(mine)
            for resample_seed in range(3):
                other = state.resample_from_infostate(seat, resample_seed)
                changed += str(other) != str(state)
                assert other.view(seat) == mine, f"{name}: seat {seat}'s view leaks"
                assert other.view(None) == public, f"{name}: the public view leaks"
    # Otherwise the test could not fail: with the default rules some resample must differ.
    assert changed > 0 or params


ACTION_SCHEMAS = ROOT / "docs" / "actions"


@pytest.mark.parametrize(
    "name, params", CASES, ids=[f"{n}-{json.dumps(p, sort_keys=True)}" for n, p in CASES]
)
def test_every_legal_action_has_a_struct_that_matches_the_schema_and_names_it(name, params):
    """The structs of the legal actions of seeded random games (docs/actions.md) match the
    published schema (strictly), are distinct, and `action_from_struct` gives each id back."""
    assert sorted(p.name for p in ACTION_SCHEMAS.glob("*.schema.json")) == sorted(
        f"{g}.schema.json" for g in cr.game_names()
    )
    checked = 0
    seed = 0
    # Two games at least, more while they are short (a hold'em hand may end at once).
    while seed < 2 or checked < 50:
        seed += 1
        for index, state in enumerate(random_game(name, seed, **params)):
            if state.is_terminal() or state.is_chance_node():
                continue
            seats = (
                range(state.num_players())
                if state.is_simultaneous_node()
                else [state.current_player()]
            )
            for seat in seats:
                structs = {}
                for action in state.legal_actions(seat):
                    struct = state.action_struct(action, seat)
                    where = f"{name} {params} seed {seed} state {index} seat {seat} {action}"
                    for validator in validators(name, ACTION_SCHEMAS):
                        errors = [e.message for e in validator.iter_errors(struct)]
                        assert not errors, f"{where}: {struct}: {errors[:3]}"
                    structs[json.dumps(struct, sort_keys=True)] = action
                    assert state.action_from_struct(struct, seat) == action, where
                    checked += 1
                assert len(structs) == len(state.legal_actions(seat))
    game = cr.make(name, **params)
    state = game.new_initial_state()
    assert state.action_struct(game.num_distinct_actions() + 5, 0) is None


def test_an_action_struct_with_some_fields_names_the_action():
    env = cr.Env("pokeros", seed=3)
    state = env.state()
    action = state.legal_actions()[0]
    struct = state.action_struct(action)
    assert set(struct) == {"card", "slot", "x", "y"}
    partial = {"card": struct["card"], "x": struct["x"], "y": struct["y"]}
    assert state.action_from_struct(partial) == action
    with pytest.raises(cr.ActionStringError, match="no legal action here has a field 'colour'"):
        state.action_from_struct({"colour": "red"})
    with pytest.raises(cr.ActionStringError, match="legal actions match it"):
        state.action_from_struct({"card": struct["card"]})
    with pytest.raises(cr.ActionStringError, match="a JSON object"):
        state.action_from_struct([1, 2])  # type: ignore[arg-type]
    holdem = cr.Env("holdem_chess", seed=1).state()
    kinds = {holdem.action_struct(a)["kind"] for a in holdem.legal_actions()}
    assert kinds <= {"place", "done", "fold", "check", "call", "raise"}
