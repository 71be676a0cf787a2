"""checkraise.notebook: the widgets' kernel side (every game played to its end through the
messages the browser sends, refusals, replays, a server's replay checked through the engine,
each frame sent once, and that nothing sent to the browser holds a card the seat may not see),
and the widget in real front ends: JupyterLab and Jupyter Notebook 7 in headless Chromium
driven by Playwright (a `play` cell clicked to the end of its game, the drawn hand checked
against the seat's view; two widgets on one page kept apart), and `watch` against the real
server."""

from __future__ import annotations

import dataclasses
import json
import re
import time

import comm
import pytest

import checkraise as cr
from checkraise.notebook import PlayWidget, ReplayMismatchError, play, replay, watch
from conftest import WEB_ARTIFACTS
from jupyter_util import (
    LAB,
    assert_hands_drawn,
    by_id,
    card_name,
    click_to_end,
    jupyter_server,
    open_notebook,
    run_cell,
    table_of,
    widget_of,
    written,
)

CARD = re.compile(r"^(?:[2-9TJQKA][cdhs]|X\d)$")


def cards_in(value: object) -> set[str]:
    """Every card text in a JSON value (strings that are exactly a card)."""
    if isinstance(value, str):
        return {value} if CARD.match(value) else set()
    if isinstance(value, dict):
        return set().union(*(cards_in(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(cards_in(v) for v in value)) if value else set()
    return set()


def frame_copies(message: object) -> int:
    """How many frames a message holds (a frame: a dict with a version, a view and legal
    actions), wherever in it they are."""
    if isinstance(message, dict):
        own = 1 if {"version", "view", "legal_actions"} <= message.keys() else 0
        return own + sum(frame_copies(value) for value in message.values())
    if isinstance(message, list):
        return sum(frame_copies(value) for value in message)
    return 0


@pytest.fixture
def comm_messages(monkeypatch):
    """Every message the widgets send over their comms from now on (the comm's opening with
    the model's state, state updates, custom messages), as (message type, data): outside a
    kernel a widget's comm is comm's DummyComm, whose publish_msg is where each one goes out."""
    sent: list[tuple[str, object]] = []

    def publish(self, msg_type, data=None, metadata=None, buffers=None, **keys):
        sent.append((msg_type, data))

    monkeypatch.setattr(comm.DummyComm, "publish_msg", publish)
    return sent


def custom(comm_messages) -> list[dict]:
    """The custom messages among the comm's (anywidget's ``send``), their contents."""
    return [
        data["content"]
        for _, data in comm_messages
        if isinstance(data, dict) and data.get("method") == "custom"
    ]


def drawn(widget) -> None:
    """What a view of the widget does as it is drawn: asks for the frames so far."""
    widget._on_message(widget, {"type": "sync", "from": 0}, [])


def played(widget: PlayWidget, choose=lambda legal: legal[0]) -> list[dict]:
    """Plays the widget's seat to the end as the browser would, by messages; the custom
    messages the widget sent meanwhile (each still sent on over its comm)."""
    replies: list[dict] = []
    send = widget.send

    def kept(message, buffers=None):
        replies.append(message)
        send(message, buffers)

    widget.send = kept
    for request in range(1000):
        frame = widget.frames[-1]
        if frame["is_terminal"]:
            return replies
        assert frame["may_act"] and frame["legal_actions"], frame
        widget._on_message(
            widget,
            {"type": "act", "request": request, "id": choose(frame["legal_actions"])["id"]},
            [],
        )
        acted = [r for r in replies if r.get("type") != "frames"]
        assert acted[-1]["type"] == "acted", acted[-1]
    raise AssertionError("the game did not end")


def answers(replies: list[dict]) -> list[dict]:
    """The widget's answers to clicks among its messages (not its frames)."""
    return [r for r in replies if r.get("type") != "frames"]


def hidden_from(state: cr.State, seat: int) -> set[str]:
    """The cards some seat held or saw (everyone's view, at the end) that `seat` never saw."""
    steps = replay(state, seat=seat)._states
    seen = set().union(*(cards_in(s.view(seat)) for _, s in steps))
    return cards_in(steps[-1][1].everyone_view()) - seen


@pytest.mark.parametrize("name", cr.game_names())
def test_play_reaches_the_end_of_every_game_and_only_the_seats_side_is_sent(name, comm_messages):
    seat = 1
    widget = play(name, opponents="random", seat=seat, seed=7)
    drawn(widget)
    replies = answers(played(widget))
    final = widget.state
    assert final.is_terminal()
    last = widget.frames[-1]
    assert last["returns"] == list(final.returns()) and last["current_player"] == -4
    if replies:  # (a bot may end a poker game before the seat's first turn)
        assert replies[-1]["version"] == last["version"]
    # The frames are the seat's views, version by version, each version one step.
    assert [f["version"] for f in widget.frames] == list(range(len(widget.frames)))
    assert last["view"] == final.view(seat)
    # No card the seat never saw is anywhere in what went to the browser: the model's state
    # and every message.
    hidden = hidden_from(final, seat)
    sent = json.loads(json.dumps([widget.get_state(), comm_messages], default=str))
    assert frame_copies(sent) >= len(widget.frames)
    assert not cards_in(sent) & hidden
    # Nor the game itself: its state is the kernel's.
    text = json.dumps(sent, default=str)
    assert final.serialize() not in text


def test_each_frame_is_sent_once_and_a_late_view_gets_the_whole_game(comm_messages):
    """A 9-frame game: once the table's view has asked for the frames, each new one goes over
    the comm once (a synced list sent whole at each step sent 49 copies, quadratic in the
    game's length); a view drawn after the end is sent the whole game once."""
    widget = play("pokeros(board_size=3)", seat=0, seed=5)
    assert isinstance(widget.comm, comm.DummyComm)
    drawn(widget)
    replies = played(widget)
    frames = widget.frames
    assert len(frames) == 9
    copies = sum(frame_copies(data) for _, data in comm_messages)
    assert copies == len(frames), f"{copies} frame copies sent for a {len(frames)}-frame game"
    # A click's answer names the version it led to; the frames came before it.
    for answer in answers(replies):
        assert "frame" not in answer and answer["version"] <= frames[-1]["version"]
    # Sent in order: the game so far at the view's request, then one message per new frame.
    sent = [m for m in custom(comm_messages) if m["type"] == "frames"]
    made_before = len(frames) - (len(sent) - 1)  # the frames there as the view asked
    assert [m["start"] for m in sent] == [0, *range(made_before, len(frames))]
    assert [f for m in sent for f in m["frames"]] == frames
    # A view drawn late (a notebook opened again, the widget shown twice) asks from the start
    # and is sent every frame once more; one that missed some, from its first missing.
    before = len(comm_messages)
    drawn(widget)
    widget._on_message(widget, {"type": "sync", "from": 7}, [])
    late = custom(comm_messages[before:])
    assert late == [
        {"type": "frames", "start": 0, "frames": frames},
        {"type": "frames", "start": 7, "frames": frames[7:]},
    ]
    widget._on_message(widget, {"type": "sync", "from": -1}, [])
    assert "a sync starts at a frame's index" in widget.error


def test_no_frame_is_sent_before_a_view_asks(comm_messages):
    # Seat 2 acts last: the bots' first moves are frames made before any view is drawn.
    widget = play("detective_poker", opponents="random", seat=2, seed=3)
    assert len(widget.frames) > 1
    assert sum(frame_copies(data) for _, data in comm_messages) == 0
    drawn(widget)
    assert sum(frame_copies(data) for _, data in comm_messages) == len(widget.frames)


def test_refusals_are_answered_never_raised():
    widget = play("pokeros", seat=0, seed=1)
    replies: list[dict] = []
    widget.send = lambda message, buffers=None: replies.append(message)
    for request, content in enumerate(
        [{"id": 99_999}, {"text": "nonsense"}, {"id": True}, {"id": None}]
    ):
        widget._on_message(widget, {"type": "act", "request": request, **content}, [])
        assert replies[-1]["type"] == "refused" and replies[-1]["request"] == request
        assert replies[-1]["message"]
    assert "not legal" in replies[0]["message"] and "expected CARD@X,Y" in replies[1]["message"]
    assert len(widget.frames) == 1  # nothing was played
    widget._on_message(widget, "not a dict", [])


def test_bad_input_is_said_clearly():
    with pytest.raises(cr.UnknownGameError):
        play("chess")
    with pytest.raises(
        cr.InvalidSeatError, match="seat 2 does not exist; this game has seats 0 to 1"
    ):
        play("pokeros", seat=2)
    with pytest.raises(ValueError, match="opponents names 2 bots; pokeros has 1 other seat"):
        play("pokeros", opponents=["random", "random"])
    with pytest.raises(cr.ParameterError):
        play("pokeros", opponents="alphazero")
    with pytest.raises(TypeError, match="needs its game"):
        replay([(0, 1)])
    with pytest.raises(ValueError, match="needs the seat's token"):
        watch("127.0.0.1:1", "m", seat=0)


def test_opponents_one_per_seat_and_bots_replies_are_frames_of_their_own():
    widget = play("detective_poker", opponents=[None, "random", "heuristic"], seat=0, seed=2)
    assert widget.frames[0]["seats"][0]["kind"] == "human"
    played(widget)
    actors = {f["actor"] for f in widget.frames}
    assert {0, 1, 2} <= actors  # every bot's move drawn as its own step


def test_replay_from_each_side():
    widget = play("holdem_chess", opponents="random", seat=0, seed=4)
    played(widget, choose=lambda legal: legal[-1])
    state = widget.state
    r = replay(state, seat=1)
    assert r.perspective == "1" and r.seat == 1
    assert [s["view"] for s in r.steps][-1] == state.view(1)
    assert not cards_in(r.steps) & hidden_from(state, 1)
    r._perspective("everyone")
    assert r.steps[-1]["view"] == state.everyone_view() and r.seat is None
    named = widget.replay(seat=0)
    assert named.seat_kinds == ["human", "random"] and named.perspective == "0"
    with pytest.raises(ValueError, match="players names 1 seats"):
        replay(state, players=["human"])
    r2 = replay(state.full_history(), game=state.get_game())
    assert r2.perspective == "everyone" and len(r2.steps) == len(r.steps)
    # Before the end there is no everyone's view.
    live = cr.make("pokeros").new_initial_state()
    live.sample_chance(seed=0)
    early = replay(live)
    assert early.perspective == "spectator"
    assert "everyone" not in [value for value, _ in early.perspectives]
    with pytest.raises(cr.CheckraiseError, match="once the game is over"):
        early._perspective("everyone")
    # Asked from the browser, the refusal is said in the widget.
    early._on_message(early, {"type": "perspective", "value": "everyone"}, [])
    assert "once the game is over" in early.error and early.perspective == "spectator"


@pytest.mark.parametrize("name", cr.game_names())
def test_replay_of_a_server_match_is_checked_through_the_engine(client, name):
    players = cr.make(name).num_players()
    match = client.create_match(name, seats=["random"] * players, seed=11)
    whole = match.replay()
    assert whole.revealed and whole.next_version is None
    r = replay(whole)
    assert r.perspective == "everyone" and r.seat_kinds == list(whole.match.seats)
    assert [s["actor"] for s in r.steps] == [s.actor for s in whole.steps]
    assert [s["view"] for s in r.steps] == [s.state for s in whole.steps]
    # The states are the engine's: a seat's side is drawn from them as for a local game.
    assert r._states[-1][1].is_terminal()
    r._perspective("0")
    assert r.steps[-1]["view"] == r._states[-1][1].view(0)


def test_a_tampered_server_replay_is_refused_naming_the_step(client):
    match = client.create_match("pokeros", seats=["random", "random"], seed=12, board_size=3)
    whole = match.replay()
    states = replay(whole)._states
    steps = list(whole.steps)

    def tampered(index: int, **changes) -> object:
        changed = [
            *steps[:index],
            dataclasses.replace(steps[index], **changes),
            *steps[index + 1 :],
        ]
        return dataclasses.replace(whole, steps=tuple(changed))

    # Another legal action than the one played, written as the engine writes it.
    before = states[2][1]
    played_entry = steps[3].entries[0]
    other = next(a for a in before.legal_actions() if a != played_entry.action)
    entry = dataclasses.replace(
        played_entry, action=other, text=before.action_to_string(played_entry.player, other)
    )
    with pytest.raises(
        ReplayMismatchError, match=r"^step 3 of the replay of match .* view of every seat"
    ) as e:
        replay(tampered(3, entries=(entry, *steps[3].entries[1:])))
    assert e.value.version == 3
    # An entry's text that is not the engine's.
    renamed = dataclasses.replace(played_entry, text="Kd@9,9")
    with pytest.raises(ReplayMismatchError, match=r"step 3 .* entry says 'Kd@9,9'"):
        replay(tampered(3, entries=(renamed, *steps[3].entries[1:])))
    # A view that is not the engine's.
    view = {**steps[1].state, "terminal": not steps[1].state["terminal"]}
    with pytest.raises(
        ReplayMismatchError, match=r"^step 1 .* differs from the engine's in terminal$"
    ):
        replay(tampered(1, state=view))
    # Who acted.
    with pytest.raises(ReplayMismatchError, match=r"step 2 .* its actor is 5"):
        replay(tampered(2, actor=5))
    # A step left out.
    dropped = dataclasses.replace(whole, steps=(*steps[:2], *steps[3:]))
    with pytest.raises(ReplayMismatchError, match=r"step 3 .* its version would be 2"):
        replay(dropped)
    # The last step left out.
    with pytest.raises(ReplayMismatchError, match="the match is at version"):
        replay(dataclasses.replace(whole, steps=tuple(steps[:-1])))


def test_a_server_replay_the_engine_cannot_check_is_refused(client):
    live = client.create_match("pokeros", seats=["human", "random"])
    with pytest.raises(ValueError, match="public views only, no history"):
        replay(live.replay())
    done = client.create_match("pokeros", seats=["random", "random"], board_size=3)
    page = client.get_replay(done.match_id, page_size=2)
    assert page.next_version is not None
    with pytest.raises(
        ValueError, match=r"one page of the replay of match .* \(steps 0 to 1 of \d+\)"
    ):
        replay(page)
    with pytest.raises(TypeError, match="not int"):
        replay(3)


def test_watch_follows_a_server_match_as_spectator_and_as_seat(client):
    match = client.create_match("pokeros", seats=["human", "heuristic"])
    seat = match.join(0)
    spectator = watch(client.address, match.match_id)
    player = watch(client.address, match.match_id, seat=0, token=seat.token)
    try:
        replies: list[dict] = []
        player.send = lambda message, buffers=None: replies.append(message)
        for request in range(100):
            frame = player.frames[-1]
            if frame["is_terminal"]:
                break
            if not frame["may_act"]:
                time.sleep(0.05)
                continue
            player._on_message(
                player,
                {"type": "act", "request": request, "id": frame["legal_actions"][0]["id"]},
                [],
            )
            assert replies[-1]["type"] == "acted", replies[-1]
            deadline = time.monotonic() + 10
            while player.frames[-1]["version"] < replies[-1]["version"]:
                assert time.monotonic() < deadline, "the stream did not bring the move"
                time.sleep(0.02)
        assert player.frames[-1]["is_terminal"]
        deadline = time.monotonic() + 10
        while not spectator.frames[-1]["is_terminal"]:
            assert time.monotonic() < deadline, "the spectator's stream did not end"
            time.sleep(0.05)
        assert spectator.game == "pokeros" and spectator.long_name
        player._on_message(player, {"type": "act", "request": 999, "id": 0}, [])
        assert replies[-1]["type"] == "refused" and replies[-1]["message"]
        # The spectator's model holds no seat's hand while the match ran.
        for frame in spectator.frames[:-1]:
            assert all(
                s.get("cards") in (None, []) or set(s["cards"]) == {None}
                for s in frame["view"]["seats"]
            ), frame
    finally:
        spectator.close()
        player.close()


def test_watch_of_an_unknown_match_says_so_in_the_widget(client):
    widget = watch(client.address, "no-such-match")
    try:
        assert widget.frames == []
        assert widget.error.startswith("The match's stream stopped: NOT_FOUND")
    finally:
        widget.close()


# ---------------------------------------------------------------------------------------------
# In JupyterLab


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab on a free loopback port with a token, its root a fresh directory, the kernel
    this interpreter; one for the module's tests."""
    with jupyter_server(LAB, tmp_path_factory.mktemp("lab")) as server:
        yield server


def test_play_in_jupyterlab(context, lab):
    game = "pokeros(board_size=3)"
    playing = f"from checkraise.notebook import play, _json\nw = play({game!r}, seat=0, seed=5)\nw"
    saving = (
        "open('model.json', 'w').write(_json(w))\nopen('state.txt', 'w').write(w.state.serialize())"
    )
    replaying = "r = w.replay(seat=1)\nr"
    page, errors = open_notebook(context, lab, "play.ipynb", [playing, saving, replaying])
    table = table_of(run_cell(page, 0))
    drawn, clicks = click_to_end(page, table)
    assert clicks >= 2
    page.screenshot(path=str(WEB_ARTIFACTS / "notebook-play.png"))
    outcome = by_id(table, "outcome")
    assert "How it ended" in outcome.inner_text()
    status = by_id(table, "status").inner_text()
    assert status.startswith("Game over.")

    run_cell(page, 1)
    model_text, state_text = written(lab, "model.json", "state.txt")
    model = json.loads(model_text)
    state = cr.make(game).deserialize_state(state_text)
    assert state.is_terminal()
    frames = model["frames"]
    assert_hands_drawn(drawn, frames)
    # The model has no card the seat never saw, nor does anything the browser received.
    hidden = hidden_from(state, 0)
    assert hidden and not cards_in(model) & hidden
    wire = "".join(f if isinstance(f, str) else f.decode("utf-8", "replace") for f in page.received)
    on_the_wire = set(re.findall(r'"((?:[2-9TJQKA][cdhs]|X\d))"', wire))
    assert set(frames[0]["view"]["seats"][0]["cards"]) <= on_the_wire  # the seat's own hand
    assert not on_the_wire & hidden, on_the_wire & hidden

    # The game replayed from seat 1's side, then everyone's: the slider steps, the side changes.
    replayed = table_of(run_cell(page, 2))
    steps = len(model["frames"])
    page.wait_for_function("el => el.dataset.steps !== '0'", arg=replayed.element_handle())
    assert replayed.get_attribute("data-steps") == str(steps)
    slider = by_id(replayed, "replay-slider")
    slider.fill(str(steps - 1))
    page.wait_for_function(
        "([el, n]) => el.dataset.step === String(n)", arg=[replayed.element_handle(), steps - 1]
    )
    assert "seat 1's view" in by_id(replayed, "status").inner_text()
    widget = widget_of(replayed)
    by_id(replayed, "replay-perspective").select_option("everyone")
    page.wait_for_function(
        "el => el.querySelector('main')?.innerText.includes(\"everyone's view\")",
        arg=widget.element_handle(),
    )
    # Everyone's view keeps the step shown.
    again = widget.locator("main")
    assert again.get_attribute("data-step") == str(steps - 1)
    again.scroll_into_view_if_needed()
    page.screenshot(path=str(WEB_ARTIFACTS / "notebook-replay.png"))
    assert not errors, errors


def test_watch_in_jupyterlab(context, lab, client):
    match = client.create_match("pokeros", seats=["human", "heuristic"], board_size=3)
    seat = match.join(0)
    where = f"{client.address!r}, {match.match_id!r}"
    as_seat = f"w = watch({where}, seat=0, token={seat.token!r})\nw"
    as_spectator = f"s = watch({where})\ns"
    as_seat = "from checkraise.notebook import watch\n" + as_seat
    page, errors = open_notebook(context, lab, "watch.ipynb", [as_seat, as_spectator])
    first = seat.view()
    played = table_of(run_cell(page, 0))
    watched = table_of(run_cell(page, 1))
    assert "Watching as a spectator" in watched.inner_text()
    drawn, clicks = click_to_end(page, played)
    assert clicks >= 2
    # The hand drawn at the start is the server's view of the seat, card for card.
    legal = set(first.legal_actions.values())
    hand = first.state["seats"][0]["cards"]
    assert drawn[first.version] == [
        c if any(t.startswith(f"{c}@") for t in legal) else card_name(c) for c in hand
    ]
    # The spectator's widget follows the match to its end.
    page.wait_for_function(
        "el => el.dataset.terminal === 'true'", arg=watched.element_handle(), timeout=30_000
    )
    assert seat.view().is_terminal
    assert "How it ended" in by_id(played, "outcome").inner_text()
    assert not errors, errors


def test_bet_amounts_are_a_slider_in_jupyterlab(context, lab):
    game = "holdem_chess(bet_sizes=all)"
    cells = [f"from checkraise.notebook import play\nw = play({game!r}, seat=0, seed=2)\nw"]
    page, errors = open_notebook(context, lab, "bets.ipynb", cells)
    table = table_of(run_cell(page, 0))
    page.wait_for_function("el => el.dataset.mayAct === 'true'", arg=table.element_handle())
    version = int(table.get_attribute("data-version"))
    slider = by_id(table, "amount-raise")
    button = by_id(table, "amount-act-raise")
    lowest = button.inner_text()
    assert lowest.startswith("raise to ")
    slider.fill(slider.get_attribute("max"))
    highest = button.inner_text()
    assert highest.startswith("raise to ") and highest != lowest
    # Every amount is one slider, not a button of its own (but the all-in raise, a kind apart).
    assert table.locator("section.actions button.legal", has_text="raise to").count() <= 2
    button.click()
    page.wait_for_function(
        "([el, v]) => Number(el.dataset.version) > v", arg=[table.element_handle(), version]
    )
    assert by_id(table, "message").inner_text() == ""
    assert not errors, errors


# The ids of every element in a widget's box that appear more than once in the whole page, and
# each label's or description's target that is not in the same box.
ID_CLASHES = """() => {
  const all = [...document.querySelectorAll('[id]')].map((e) => e.id);
  const boxes = [...document.querySelectorAll('.checkraise-widget')];
  const ids = boxes.flatMap((box) => [...box.querySelectorAll('[id]')].map((e) => e.id));
  const twice = ids.filter((id) => all.indexOf(id) !== all.lastIndexOf(id));
  const elsewhere = boxes.flatMap((box) =>
    [...box.querySelectorAll('[for], [aria-describedby]')]
      .flatMap((e) => [e.getAttribute('for'),
                       ...(e.getAttribute('aria-describedby') ?? '').split(' ')])
      .filter((id) => id && !box.querySelector(`[id="${id}"]`)));
  return { widgets: boxes.length, ids: ids.length, twice, elsewhere };
}"""


def play_once(page, table) -> int:
    """Clicks one move (a legal card, then a highlighted cell) in a Pokeros table that may act;
    the version it led to."""
    page.wait_for_function("el => el.dataset.mayAct === 'true'", arg=table.element_handle())
    version = int(table.get_attribute("data-version"))
    table.locator("section.hand button[data-source]").first.click()
    table.locator("button.spot.target").first.click()
    page.wait_for_function(
        "([el, v]) => Number(el.dataset.version) > v", arg=[table.element_handle(), version]
    )
    return int(table.get_attribute("data-version"))


def test_widgets_sharing_a_page_keep_their_ids_and_clicks_apart_in_jupyterlab(context, lab):
    game = "pokeros(board_size=3)"
    cells = [
        f"from checkraise.notebook import play, replay\na = play({game!r}, seat=0, seed=1)\na",
        f"b = play({game!r}, seat=0, seed=2)\nb",
        # The same widget shown a second time, after a move: a late view of a game under way.
        "a",
        # Two replays in one output, of a game the bots played to its end.
        (
            "import checkraise as cr\n"
            f"s = cr.make({game!r}).new_initial_state()\n"
            "bot = cr.Bot(s.get_game(), 'random', seed=3)\n"
            "while not s.is_terminal():\n"
            "    if s.is_chance_node():\n"
            "        s.sample_chance(seed=len(s.full_history()))\n"
            "    else:\n"
            "        s.apply_action(bot.act(s))\n"
            "display(replay(s, seat=0), replay(s, seat=1))"
        ),
    ]
    page, errors = open_notebook(context, lab, "two.ipynb", cells)
    first = table_of(run_cell(page, 0))
    second = table_of(run_cell(page, 1))
    page.wait_for_function("el => el.dataset.mayAct === 'true'", arg=second.element_handle())
    untouched = second.get_attribute("data-version")
    # A move clicked in the first widget is played there only.
    moved = play_once(page, first)
    page.wait_for_timeout(500)
    assert second.get_attribute("data-version") == untouched
    assert second.get_attribute("data-may-act") == "true"
    # A label clicked in the second focuses the second's own field.
    second.locator("label", has_text="Type an action").click()
    assert page.evaluate(
        "el => el.contains(document.activeElement) && document.activeElement.tagName === 'INPUT'",
        second.element_handle(),
    )
    assert page.evaluate("el => !el.contains(document.activeElement)", first.element_handle())

    # A second view of the first widget draws the game so far, then follows it with the first.
    again = table_of(run_cell(page, 2))
    page.wait_for_function(
        "([el, v]) => el.dataset.version === String(v)", arg=[again.element_handle(), moved]
    )
    assert by_id(again, "status").inner_text() == by_id(first, "status").inner_text()
    later = play_once(page, again)
    page.wait_for_function(
        "([el, v]) => Number(el.dataset.version) >= v", arg=[first.element_handle(), later]
    )
    assert second.get_attribute("data-version") == untouched

    # Two replays in one output: the keys step the one that has the focus only.
    replays = run_cell(page, 3).locator(".checkraise-widget main")
    replays.nth(1).wait_for(timeout=60_000)
    one, other = replays.nth(0), replays.nth(1)
    for table in (one, other):
        page.wait_for_function("el => el.dataset.steps !== '0'", arg=table.element_handle())
    by_id(one, "replay-forward").click()
    page.keyboard.press("ArrowRight")
    page.wait_for_function("el => el.dataset.step === '2'", arg=one.element_handle())
    page.wait_for_timeout(300)
    assert other.get_attribute("data-step") == "0"

    clashes = page.evaluate(ID_CLASHES)
    assert clashes["widgets"] == 5 and clashes["ids"] > 5 * 5, clashes
    assert clashes["twice"] == [] and clashes["elsewhere"] == [], clashes
    page.screenshot(path=str(WEB_ARTIFACTS / "notebook-two-widgets.png"), full_page=True)
    assert not errors, errors
