"""The web page's newer behaviours in a real browser (Debian's headless Chromium driven by
Playwright; helpers and fixtures from test_web.py): the last move marked and a bot's reply
paced, the Pokeros grid that only grows, Detective Poker's bets in a few controls, every page
at a phone's width, axe-core with nothing serious, parameters named in words, recent matches
with their result, each game's rules, help on cards and actions, histories in words. A file of
its own so that pytest's workers run it beside test_web.py."""

from __future__ import annotations

import itertools
import json
import time

import grpc
import pytest
from playwright.sync_api import Page

import checkraise as cr
from grpc_util import PAUSE_KEY, ROOT, Server, packaged_stubs, web_context
from test_web import (
    MATCHES,
    card_short,
    create_match,
    match_id_of,
    open_page,
    play_one_move,
    shot,
    signed,
    stored_token,
    version,
    wait_drawn,
    wait_step,
    wait_turn_or_end,
    wait_version_change,
)

# Every drawn version, with when it was drawn (performance.now(), ms), recorded in the page.
RECORD_DRAWS = """
window.__draws = [];
new MutationObserver(() => {
  const m = document.querySelector('main#play');
  const last = window.__draws[window.__draws.length - 1];
  if (m && (!last || last.v !== m.dataset.version)) {
    window.__draws.push({ v: m.dataset.version, t: performance.now() });
  }
}).observe(document, { subtree: true, childList: true, attributes: true,
                       attributeFilter: ['data-version'] });
"""


def seat_view(server, page: Page, match_id: str, seat: int = 0):
    """The seat's own view, asked of the server with the page's token."""
    pb2, pb2_grpc = packaged_stubs()
    with grpc.insecure_channel(server.address) as channel:
        return pb2_grpc.MatchesStub(channel).GetView(
            pb2.GetViewRequest(match_id=match_id, seat=seat),
            metadata=[("x-seat-token", stored_token(page, match_id, seat))],
        )


def expected_last_move(view: dict) -> set[str]:
    """The last move's squares or cells, from the view's own history."""
    if view["game"] == "pokeros":
        cell = view["moves"][-1]["cell"] if view["moves"] else None
        return {f"cell:{cell['x']},{cell['y']}"} if cell else set()
    if view["game"] == "poker_chess":
        moves = [event for event in view["events"] if event["kind"] == "move"]
        return {f"sq:{moves[-1]['from']}", f"sq:{moves[-1]['to']}"} if moves else set()
    moves = view["turns"][-1]["moves"] if view["turns"] else []
    return {f"sq:{m[end]}" for m in moves if m["kind"] == "move" for end in ("from", "to")}


LAST_MOVE = [m for m in MATCHES if m[0] in ("pokeros", "poker_chess", "prediction_chess")]


@pytest.mark.parametrize(
    ("game", "params", "others", "seed"), LAST_MOVE, ids=[m[0] for m in LAST_MOVE]
)
def test_the_last_move_is_highlighted_and_a_reply_waits(
    server, context, game, params, others, seed
):
    """The squares or cells of the last move are marked (and named) on the board, as the seat's
    own view records it; a bot's reply is drawn at least half a second after your own move."""
    context.add_init_script(RECORD_DRAWS)
    # The page's own pause (the tests' browsers otherwise choose none).
    context.add_init_script(f"localStorage.removeItem({PAUSE_KEY!r})")
    page, _, errors = open_page(context, f"http://{server.address}/")
    create_match(page, game, params, others, seed)
    match_id = match_id_of(page)
    marked_once = paced = 0
    for _ in range(6):
        if not wait_turn_or_end(page):
            break
        view = seat_view(server, page, match_id)
        assert str(view.version) == version(page)
        expected = expected_last_move(json.loads(view.view_json))
        marked = page.locator(".board .spot.last")
        shown = set(marked.evaluate_all("els => els.map(e => e.dataset.spot)"))
        assert shown == expected, (shown, expected)
        labels = marked.evaluate_all(
            "els => els.map(e => e.getAttribute('aria-label') || e.getAttribute('title'))"
        )
        assert all("(last move)" in label for label in labels), labels
        marked_once += bool(expected)
        drawn_before = page.evaluate("() => window.__draws.length")
        play_one_move(page)
        wait_turn_or_end(page)
        draws = page.evaluate("n => window.__draws.slice(n)", drawn_before)
        if game != "prediction_chess" and len(draws) >= 2:
            # Your move, then the bot's reply: two redraws, not one.
            gap = draws[1]["t"] - draws[0]["t"]
            assert gap >= 500, draws
            paced += 1
    assert marked_once, "no last move was ever marked"
    if game != "prediction_chess":
        assert paced, "a bot's reply was never drawn apart from your move"
    assert errors == [], errors


def test_the_pause_before_others_moves_is_chosen_and_kept(server, browser):
    """The play page offers the pause before drawing someone else's move: 0.6 s unless chosen;
    a choice is kept in the browser, for a reload and for the next match."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page, _, errors = open_page(context, f"http://{server.address}/")
        create_match(page, "poker_chess", {}, ["random"], 7)
        pause = page.locator("#pause")
        assert pause.input_value() == "600"
        labels = pause.locator("option").all_text_contents()
        assert labels == ["none", "short (0.3 s)", "normal (0.6 s)", "long (1.2 s)"], labels
        pause.select_option("1200")
        assert page.evaluate(f"() => localStorage.getItem({PAUSE_KEY!r})") == "1200"
        page.reload()
        page.wait_for_selector("#pause")
        assert page.locator("#pause").input_value() == "1200"
        # A value the page does not offer is not used: the default is.
        page.evaluate(f"() => localStorage.setItem({PAUSE_KEY!r}, '5')")
        page.reload()
        page.wait_for_selector("#pause")
        assert page.locator("#pause").input_value() == "600"
        assert errors == [], errors
    finally:
        context.close()


def grid_window(page: Page) -> tuple[set[int], set[int]]:
    files = page.locator(".board .coord.file").all_text_contents()
    ranks = page.locator(".board .coord.rank").all_text_contents()
    return {int(f) for f in files}, {int(r) for r in ranks}


def test_the_pokeros_grid_only_grows(server, context):
    """The drawn window of the Pokeros board never shrinks or re-centres during a match: after
    your move, while a bot thinks, and at your next turn, it holds every column and row drawn
    before."""
    game, params, others, seed = MATCHES[0]
    page, _, errors = open_page(context, f"http://{server.address}/")
    create_match(page, game, params, others, seed)
    seen: list[tuple[set[int], set[int]]] = []
    moves = 0
    while wait_turn_or_end(page) and moves < 8:
        seen.append(grid_window(page))
        before = version(page)
        play_one_move(page)
        page.wait_for_function(
            "v => document.querySelector('main#play')?.dataset.version !== v", arg=before
        )
        seen.append(grid_window(page))
        moves += 1
    for (files0, ranks0), (files1, ranks1) in itertools.pairwise(seen):
        assert files0 <= files1 and ranks0 <= ranks1, seen
    assert len(seen[-1][0]) > len(seen[0][0]) or len(seen[-1][1]) > len(seen[0][1]), seen
    assert errors == [], errors


def bet_words(parts: dict) -> str:
    """A Detective Poker bet as the page's button says it."""
    card = parts.get("action_card")
    name = card if card in (None, "+1") else card.capitalize()
    under = "with no action card" if card is None else f"with the {name} card"
    return f"Bet {parts['amount']} on seat {parts['target']}'s board {under}"


def test_detective_poker_bets_in_a_few_controls(server, context):
    """A Detective Poker bet is chosen with a control per part (the board, the amount, the
    action card) and one button, not a button per bet; every legal bet can be chosen, and one
    is played with the keyboard."""
    game, params, others, seed = next(m for m in MATCHES if m[0] == "detective_poker")
    page, _, errors = open_page(context, f"http://{server.address}/")
    create_match(page, game, params, others, seed)
    assert wait_turn_or_end(page)
    view = seat_view(server, page, match_id_of(page))
    assert len(view.legal_actions) > 10
    assert page.locator(".actions .buttons button").count() <= 3
    for action in view.legal_actions:
        parts = json.loads(action.action_json)
        for field in ("target", "amount", "action_card"):
            if field in parts:
                select = f"#compose-{field.replace('_', '-')}"
                page.select_option(select, json.dumps(parts[field], separators=(",", ":")))
        assert page.locator("#compose-act").text_content() == bet_words(parts), action.text
    before = version(page)
    page.focus("#compose-target")
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.id") == "compose-act"
    page.keyboard.press("Enter")
    wait_version_change(page, before)
    assert errors == [], errors


def bot_match(server, game: str, params: dict, seats: list[str]) -> str:
    pb2, pb2_grpc = packaged_stubs()
    with grpc.insecure_channel(server.address) as channel:
        reply = pb2_grpc.MatchesStub(channel).CreateMatch(
            pb2.CreateMatchRequest(game=game, parameters=params, seats=seats, seed=3)
        )
    return reply.match_id


def every_page(server, context):
    """Yields (name, page) for the setup page, a seat of each game at its first turn (with a
    card or piece chosen where one can be), a spectator, and a replay at its last step."""
    page, _, errors = open_page(context, f"http://{server.address}/")
    page.wait_for_selector("#start")
    page.click("details#rules summary")
    yield "setup", page
    for game, params, others, seed in MATCHES:
        page.goto(f"http://{server.address}/#")
        page.wait_for_selector("#start")
        create_match(page, game, params, others, seed)
        wait_turn_or_end(page)
        # The rules open, so that the phone and axe checks see them too.
        rules = page.locator("details#rules summary")
        if rules.count() > 0:
            rules.click()
        sources = page.locator(".hand button.card-button[aria-pressed], button.spot.source")
        if sources.count() > 0:
            sources.first.click()
        yield game, page
    watched = match_id_of(page)
    page.goto(f"http://{server.address}/#watch={watched}")
    wait_drawn(page)
    yield "spectator", page
    finished = bot_match(server, "pokeros", {"players": "2"}, ["random", "heuristic"])
    page.goto(f"http://{server.address}/#replay={finished}")
    page.wait_for_function("() => Number(document.querySelector('main#play')?.dataset.steps) > 0")
    wait_step(page, 0)
    page.click("#replay-end")
    page.wait_for_selector("#replay-end:disabled")
    yield "replay", page
    assert errors == [], errors


def test_every_page_fits_a_phone(server, browser):
    """At 390 × 844 no page scrolls sideways, and every control (links on their own too) is at
    least 44 × 44 px."""
    context = web_context(browser, viewport={"width": 390, "height": 844}, has_touch=True)
    try:
        problems = {}
        for name, page in every_page(server, context):
            found = page.evaluate(
                """() => {
                const out = [];
                const width = document.documentElement.scrollWidth;
                if (width > 390) {
                  out.push('page ' + width + ' px wide');
                  for (const el of document.querySelectorAll('body *')) {
                    const r = el.getBoundingClientRect();
                    if (r.right > 391 && getComputedStyle(el).position !== 'fixed') {
                      out.push('wide: ' + el.tagName + '.' + el.className + ' ' + r.right);
                      if (out.length > 6) break;
                    }
                  }
                }
                for (const el of document.querySelectorAll('button, select, input, a')) {
                  const r = el.getBoundingClientRect();
                  if (r.width === 0 && r.height === 0) continue;
                  // A link inside a sentence is sized by its text (WCAG's inline exception).
                  const p = el.closest('p');
                  const inline = el.tagName === 'A' && p && !el.closest('header, footer, li')
                    && p.textContent.trim() !== el.textContent.trim();
                  if (inline) continue;
                  if (r.width < 43.5 || r.height < 43.5) {
                    const what = el.id || el.dataset.key || el.textContent.trim().slice(0, 20);
                    out.push(`small ${el.tagName} ${what}: ${r.width}x${r.height}`);
                  }
                }
                return out;
              }"""
            )
            shot(page, f"phone-{name}")
            if found:
                problems[name] = found
        assert problems == {}, problems
    finally:
        context.close()


AXE = ROOT / "web" / "node_modules" / "axe-core" / "axe.min.js"


def test_axe_finds_nothing_serious(server, context):
    """axe-core finds no serious or critical violation on the setup page, a seat of each game,
    a spectator and a replay."""
    assert AXE.exists(), f"{AXE} is missing: run npm ci --prefix web"
    problems = {}
    for name, page in every_page(server, context):
        page.add_script_tag(path=str(AXE))
        found = page.evaluate(
            """async () => {
            const result = await axe.run(document);
            return result.violations
              .filter(v => v.impact === 'serious' || v.impact === 'critical')
              .map(v => v.id + ': ' + v.nodes.slice(0, 4).map(n =>
                n.target.join(' ') + ' (' + n.failureSummary.slice(0, 160) + ')').join('; '));
          }"""
        )
        if found:
            problems[name] = found
    assert problems == {}, problems


def test_parameters_are_named_in_words_with_their_help(server, context):
    """Each parameter's label is its name in words, and its input is described by the
    Catalog's description of it (and its default)."""
    pb2, pb2_grpc = packaged_stubs()
    with grpc.insecure_channel(server.address) as channel:
        games = pb2_grpc.CatalogStub(channel).ListGames(pb2.ListGamesRequest()).games
    page, _, errors = open_page(context, f"http://{server.address}/")
    page.wait_for_selector("#start")
    for game in games:
        page.select_option("#game", game.name)
        for spec in game.parameters:
            field = page.locator(f"#param-{spec.name}")
            label = page.locator(f'label[for="param-{spec.name}"]').text_content()
            words = spec.name.replace("_", " ")
            assert label.startswith(words[0].upper() + words[1:]), label
            help_id = field.get_attribute("aria-describedby")
            assert help_id, spec.name
            help_text = page.locator(f"#{help_id}").text_content()
            assert spec.description in help_text and spec.default_value in help_text
    assert errors == [], errors


def test_recent_matches_say_when_who_and_the_result(server, context):
    """A finished match in the list of recent ones: when it was created, each seat's player and
    how it ended (every seat's return)."""
    match_id = bot_match(server, "pokeros", {"players": "2"}, ["random", "heuristic"])
    pb2, pb2_grpc = packaged_stubs()
    with grpc.insecure_channel(server.address) as channel:
        stub = pb2_grpc.MatchesStub(channel)
        for _ in range(100):
            listed = stub.ListMatches(pb2.ListMatchesRequest()).matches
            summary = next(m for m in listed if m.match_id == match_id)
            if summary.status == pb2.MATCH_STATUS_FINISHED:
                break
            time.sleep(0.1)
    page, _, errors = open_page(context, f"http://{server.address}/")
    entry = page.locator(f'#recent li[data-match="{match_id}"]')
    entry.wait_for()
    assert entry.get_attribute("data-status") == "finished"
    assert entry.locator("time").get_attribute("datetime")
    assert entry.locator(".players").text_content() == "seat 0 random, seat 1 heuristic"
    result = entry.locator(".result").text_content()
    for seat, r in enumerate(summary.returns):
        assert f"seat {seat} {signed(r)}" in result, result
    assert errors == [], errors


def test_recent_matches_resume_the_seats_this_browser_plays(server, context):
    """A live match in the list of recent ones links back to the seat this browser plays (with
    the token it keeps, never in the address); another browser's list has no such link."""
    page, _, errors = open_page(context, f"http://{server.address}/")
    create_match(page, "poker_chess", {}, ["random"], None)
    match_id = match_id_of(page)
    wait_turn_or_end(page)
    page.goto(f"http://{server.address}/#")
    page.reload()
    entry = page.locator(f'#recent li[data-match="{match_id}"]')
    entry.wait_for()
    assert entry.get_attribute("data-status") == "live"
    resume = entry.locator("a.resume")
    assert resume.all_text_contents() == ["Resume seat 0"]
    href = resume.get_attribute("href")
    assert href.endswith(f"#match={match_id}&seat=0") and "token" not in href, href
    resume.click()
    page.wait_for_selector("p.who")
    assert "You play seat 0" in page.locator("p.who").text_content()
    # The header is drawn at once; the seat's view follows from the server.
    page.wait_for_function("document.querySelector('main#play').dataset.version !== '-1'")
    assert errors == [], errors
    other = web_context(context.browser)
    try:
        stranger, _, _ = open_page(other, f"http://{server.address}/")
        listed = stranger.locator(f'#recent li[data-match="{match_id}"]')
        listed.wait_for()
        assert listed.locator("a.resume").count() == 0
        assert listed.locator("a").all_text_contents() == ["Watch"]
    finally:
        other.close()


def test_the_last_placed_card_is_marked_on_the_holdem_grid(server, context):
    """Hold'em Poker Chess keeps no list of placements: the cell a card was just placed on (the
    board's change since the view drawn before) is the one marked."""
    game, params, others, seed = next(m for m in MATCHES if m[0] == "holdem_chess")
    page, _, errors = open_page(context, f"http://{server.address}/")
    create_match(page, game, params, others, seed)
    placed = 0
    for _ in range(12):
        if not wait_turn_or_end(page):
            break
        sources = page.locator(".hand button.card-button[aria-pressed]")
        if sources.count() == 0:
            play_one_move(page)
            continue
        before = version(page)
        sources.first.click()
        target = page.locator("button.spot.target").first
        cell = target.get_attribute("data-key")
        target.click()
        wait_version_change(page, before)
        marked = page.locator(".board .spot.last").evaluate_all(
            "els => els.map(e => e.dataset.spot)"
        )
        assert marked == [cell], (marked, cell)
        placed += 1
        if placed == 2:
            break
    assert placed, "no card was placed"
    # Every cell a face-up placed card attacks is marked with the attacking seats (at the
    # seat's turn, when the page shows the server's latest view).
    attacked = 0
    while wait_turn_or_end(page) and not attacked:
        reply = seat_view(server, page, match_id_of(page))
        if str(reply.version) == version(page):
            drawn = page.locator(".board [data-attacked-by]").evaluate_all(
                "els => Object.fromEntries(els.map(e => [e.dataset.spot, e.dataset.attackedBy]))"
            )
            want = holdem_attacks(json.loads(reply.view_json))
            assert drawn == want, (drawn, want)
            if want:
                spot = page.locator(f'.board [data-spot="{next(iter(want))}"]')
                named = spot.get_attribute("aria-label") or spot.get_attribute("title")
                assert "attacked by seat " in named, named
                attacked += 1
        play_one_move(page)
    assert attacked, "no attacked cell was checked"
    assert errors == [], errors


def holdem_attacks(view: dict) -> dict[str, str]:
    """The cells the view says its face-up placed cards attack (the engine's own attack rule),
    as "cell:x,y" to the attacking seats ("0,1")."""
    out: dict[str, set[int]] = {}
    for a in view["attacks"]:
        for c in a["cells"]:
            out.setdefault(f"cell:{c['x']},{c['y']}", set()).add(a["owner"])
    return {k: ",".join(map(str, sorted(v))) for k, v in out.items()}


# Words each game's rules must hold (docs/games/<game>.md states them fully).
RULE_TERMS = {
    "pokeros": ["its own row and its own column", "pair (1 point)", "straight", "flush", "× 2"],
    "prediction_chess": ["prediction", "battle", "king cannot fight", "predicted dies"],
    "poker_chess": [
        "Black cards (♣ ♠) move pawns",
        "Red cards (♦ ♥) move other pieces",
        "9 any rook move",
        "10 any knight move",
        "joker",
        "discarded",
    ],
    "holdem_chess": ["raise to", "fold", "face down", "attack", "showdown", "cannot fold"],
    "detective_poker": [
        "private card",
        "shown card",
        "your own second card is face down",
        "+1 scores one more point",
        "Clockwise",
        "Bluff",
        "Empty",
    ],
}
LISTED_MATCHES = [m for m in MATCHES if m[0] in RULE_TERMS]


def check_rules(page: Page, game: str) -> None:
    """The page's rules panel is the game's, opens, and holds the game's key rules."""
    rules = page.locator("details#rules")
    assert rules.get_attribute("data-game") == game
    summary = rules.locator("summary")
    assert summary.text_content().startswith("How to play ")
    if rules.get_attribute("open") is None:
        summary.click()
    assert rules.get_attribute("open") is not None
    text = rules.text_content()
    for term in RULE_TERMS[game]:
        assert term in text, (game, term)
    assert rules.locator("li").count() >= 5


def test_every_game_has_its_rules_on_the_setup_and_play_pages(server, context):
    """The setup page shows the chosen game's rules ("How to play …"), and so does each game's
    play page, where the panel stays open while the match goes on."""
    page, _, errors = open_page(context, f"http://{server.address}/")
    page.wait_for_selector("#start")
    for game in RULE_TERMS:
        page.select_option("#game", game)
        title = page.locator("#game option:checked").text_content()
        assert page.locator("details#rules summary").text_content() == f"How to play {title}"
        assert page.locator("details#rules").get_attribute("open") is None
        check_rules(page, game)
    for game, params, others, seed in LISTED_MATCHES:
        page.goto(f"http://{server.address}/#")
        page.wait_for_selector("#start")
        create_match(page, game, params, others, seed)
        may_act = wait_turn_or_end(page)
        check_rules(page, game)
        if may_act:
            play_one_move(page)
            assert page.locator("details#rules").get_attribute("open") is not None, game
    assert errors == [], errors


def history_lines(page: Page) -> dict[int, str]:
    """The history as drawn, by its number in the list (the list shows the latest lines)."""
    return page.evaluate(
        """() => {
        const ol = document.querySelector('section.history ol');
        if (!ol) return {};
        const out = {};
        [...ol.querySelectorAll('li')].forEach((li, i) => { out[ol.start + i] = li.textContent; });
        return out;
      }"""
    )


def test_pokeros_history_in_words(server, context):
    """Each Pokeros placement reads "Seat N places K♦ at (x, y)" with its points, from the
    seat's own view; the centre card comes first."""
    game, params, others, seed = MATCHES[0]
    page, _, errors = open_page(context, f"http://{server.address}/")
    create_match(page, game, params, others, seed)
    for _ in range(3):
        assert wait_turn_or_end(page)
        play_one_move(page)
    wait_turn_or_end(page)
    view = json.loads(seat_view(server, page, match_id_of(page)).view_json)
    lines = list(history_lines(page).values())
    centre = next(c for c in view["board"] if (c["x"], c["y"]) == (0, 0))
    expected = [f"The centre card: {card_short(centre['card'])}"]
    for move in view["moves"]:
        cell = move["cell"]
        card = card_short(cell["card"])
        text = f"Seat {move['seat']} places {card} at ({cell['x']}, {cell['y']}): "
        if move["points"] == 0:
            text += "no points"
        else:
            hands = ", ".join(f"{x['name']} {x['score']}" for x in move["hands"])
            unit = "point" if move["points"] == 1 else "points"
            text += f"{move['points']} {unit}" + (f" ({hands})" if hands else "")
        expected.append(text)
    assert len(view["moves"]) >= 5
    assert lines == expected[-len(lines) :], (lines, expected)
    assert errors == [], errors


def detective_bet_words(bet: dict) -> str:
    """A Detective Poker bet as the page words it, from the view's struct."""
    text = f"Seat {bet['seat']} bets {bet['amount']} on seat {bet['target']}'s board"
    if "action_card" not in bet:
        return text
    card = bet["action_card"]
    if card is None:
        return text + " with a face-down action card"
    return text + " with " + ("+1" if card == "+1" else card.capitalize())


def test_detective_poker_history_in_words(server, context):
    """Who bet what on whose board, by betting round, with the community cards of the round;
    an action card is named only under the viewer's own bets (others' lie face down)."""
    game, params, others, seed = next(m for m in MATCHES if m[0] == "detective_poker")
    page, _, errors = open_page(context, f"http://{server.address}/")
    create_match(page, game, params, others, seed)
    # Bets with every action card, so that one lies under the seat's own bets.
    for card in ["+1", "bluff", "clockwise"]:
        assert wait_turn_or_end(page)
        page.select_option("#compose-action-card", json.dumps(card))
        before = version(page)
        page.click("#compose-act")
        wait_version_change(page, before)
    wait_turn_or_end(page)
    view = json.loads(seat_view(server, page, match_id_of(page)).view_json)
    lines = list(history_lines(page).values())
    hand = view["hand_number"]
    expected = [f"Hand {hand} {b['street']}: {detective_bet_words(b)}" for b in view["bets"]]
    bets = [line for line in lines if " bets " in line]
    assert bets and bets == expected[-len(bets) :], (lines, expected)
    own = [b for b in view["bets"] if b["seat"] == 0]
    assert any(b.get("action_card") for b in own), own
    others_cards = [b for b in view["bets"] if b["seat"] != 0 and "action_card" in b]
    assert all(b["action_card"] is None for b in others_cards), others_cards
    if len(view["community"]) >= 3:
        flop = " ".join(card_short(c) for c in view["community"][:3])
        assert f"Hand {hand} flop: {flop}" in lines, lines
    # The seat's own shown card is hidden from it, and named nowhere on the page.
    assert view["seats"][0]["cards"][1] is None
    assert errors == [], errors


def holdem_expected(server, match_id: str, final: dict) -> list[tuple[str, str]]:
    """Each seat action of a finished Hold'em Poker Chess match in the page's words, from the
    replay's history entries played again in the engine: as the line read while the hand was
    played (another seat's placed card face down) and at the end (a placed card named as the
    seat's final view shows it: face down where it never was revealed)."""
    pb2, pb2_grpc = packaged_stubs()
    entries = []
    with grpc.insecure_channel(server.address) as channel:
        stub = pb2_grpc.MatchesStub(channel)
        start = 0
        while True:
            reply = stub.GetReplay(pb2.GetReplayRequest(match_id=match_id, from_version=start))
            entries += [e for step in reply.steps for e in step.entries]
            if not reply.HasField("next_version"):
                break
            start = reply.next_version
    shown = {(c["x"], c["y"]): c.get("card") for c in final["board"]}
    state = cr.make("holdem_chess").new_initial_state()
    lines = []
    for entry in entries:
        if entry.player >= 0:
            act = state.action_struct(entry.action)
            view = state.view(int(entry.player))
            seat = f"Seat {entry.player}"
            kind = act["kind"]
            if kind == "place":
                card = shown.get((act["x"], act["y"]))
                face = card_short(card) if card else "a face-down card"
                where = f"at ({act['x']}, {act['y']})"
                hidden = face if entry.player == 0 else "a face-down card"
                lines.append((f"{seat} places {hidden} {where}", f"{seat} places {face} {where}"))
                state.apply_action(entry.action)
                continue
            elif kind == "done":
                lines.append(f"{seat} is done placing")
            elif kind in ("fold", "check"):
                lines.append(f"{seat} {kind}s")
            elif kind == "call":
                all_in = act["amount"] >= view["seats"][entry.player]["chips"]
                lines.append(f"{seat} calls {act['amount']}" + (" (all-in)" if all_in else ""))
            else:
                verb = "bets" if view["current_bet"] == 0 else "raises to"
                all_in = " (all-in)" if act.get("all_in") else ""
                lines.append(f"{seat} {verb} {act['amount']}{all_in}")
        state.apply_action(entry.action)
    return [line if isinstance(line, tuple) else (line, line) for line in lines]


def test_holdem_history_in_words(server, context):
    """A Hold'em Poker Chess hand's bets and placements in words ("Seat 1 raises to 6", "Seat 0
    places 9♣ at (1, 1)"), read from the seat's views in a row: each seat action of the hand in
    order, the community cards of each street, and the hand's result; another seat's placed card
    is named only once the showdown shows it."""
    game, params, others, seed = next(m for m in MATCHES if m[0] == "holdem_chess")
    page, _, errors = open_page(context, f"http://{server.address}/")
    create_match(page, game, params, others, seed)
    seen: dict[int, str] = {}
    face_down_while_playing = []
    while wait_turn_or_end(page):
        drawn = history_lines(page)
        seen.update({int(k): v for k, v in drawn.items()})
        face_down_while_playing += [v for v in drawn.values() if v.startswith("Seat 1 places")]
        play_one_move(page)
    at_end = {int(k): v for k, v in history_lines(page).items()}
    seen.update(at_end)
    lines = [seen[n] for n in sorted(seen)]
    assert sorted(seen) == list(range(1, len(seen) + 1)), seen
    final = json.loads(seat_view(server, page, match_id_of(page)).view_json)
    expected = holdem_expected(server, match_id_of(page), final)
    # Each line as the page drew it last: at the end if it was still in the list then.
    actions = [
        (n, line)
        for n, line in sorted(seen.items())
        if line.startswith("Seat ") and " showed " not in line
    ]
    drawn = [line for _, line in actions]
    assert len(actions) == len(expected), (drawn, expected)
    wanted = [
        end if n in at_end else playing
        for (n, _), (playing, end) in zip(actions, expected, strict=True)
    ]
    assert drawn == wanted, (drawn, expected)
    assert any(" places " in end for _, end in expected), expected
    assert any(" calls " in end or " raises " in end or " bets " in end for _, end in expected)
    # Before the showdown another seat's placed card is never named.
    hidden = face_down_while_playing
    assert all("a face-down card" in line for line in hidden), hidden
    for street, cards in (("Flop", final["community"][:3]), ("Turn", final["community"][3:4])):
        if cards:
            assert f"{street}: {' '.join(card_short(c) for c in cards)}" in lines, lines
    assert lines[-1].startswith(f"Hand {final['results'][-1]['hand_number']}:"), lines
    assert errors == [], errors


FILES = "abcdefgh"


def poker_chess_allows(card: str) -> str:
    """Words that the help on a Poker Chess card must hold (the card table)."""
    if card.startswith("X"):
        return "an enemy piece attacks"
    rank, red = card[0], card[1] in "dh"
    if rank == "A" or rank in "2345678":
        file = FILES[0 if rank == "A" else int(rank) - 1]
        return f"{'other than a pawn' if red else 'a pawn move'} ending on the {file}-file"
    if red:
        return {"9": "rook", "T": "knight", "J": "bishop", "Q": "queen", "K": "king"}[rank]
    return {"9": "a-, c-, e- or g-file", "T": "b-, d-, f- or h-file"}.get(rank, "pawn capture")


def described_by(page: Page, locator) -> str:
    """The text of the element a control's aria-describedby names (it must exist)."""
    ids = locator.get_attribute("aria-describedby")
    assert ids, locator
    return " ".join(page.locator(f"#{i}").text_content() for i in ids.split())


def test_cards_and_actions_explain_themselves(server, context):
    """A Poker Chess card says which move it allows, a Hold'em Poker Chess card what it attacks
    once placed and each bet button what it does (to call, to raise to), Detective Poker's bet
    controls what the board, the amount, the action card and the chosen bet mean: as a title
    and as visible text that describes the control."""
    page, _, errors = open_page(context, f"http://{server.address}/")
    create_match(page, "poker_chess", {}, ["random"], 7)
    assert wait_turn_or_end(page)
    view = json.loads(seat_view(server, page, match_id_of(page)).view_json)
    hand = view["seats"][0]["cards"]
    cards = page.locator(".hand .cards > *")
    assert cards.count() == len(hand)
    for i, card in enumerate(hand):
        shown = cards.nth(i)
        title = shown.get_attribute("title")
        assert title.startswith(card_short(card) + ": "), title
        assert poker_chess_allows(card) in title, (card, title)
        assert described_by(page, shown) == title

    page.goto(f"http://{server.address}/#")
    page.wait_for_selector("#start")
    create_match(page, "holdem_chess", {}, ["heuristic"], 7)
    assert wait_turn_or_end(page)
    view = json.loads(seat_view(server, page, match_id_of(page)).view_json)
    for i, card in enumerate(view["seats"][0]["cards"]):
        shown = page.locator(".hand .cards > *").nth(i)
        assert "attacks like a" in shown.get_attribute("title"), card
        assert described_by(page, shown).startswith(card_short(card))
    drawn = page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('.actions .buttons button')]
            .map(b => [b.textContent, [b.title, (b.getAttribute('aria-describedby') || '')
              .split(' ').map(id => document.getElementById(id)?.textContent).join(' ')]]))"""
    )
    to_call = view["current_bet"] - view["seats"][0]["street_bet"]
    legal = seat_view(server, page, match_id_of(page)).legal_actions
    kinds = set()
    # Hold'em's raises are one slider and one button (a kind with more than three amounts).
    slider, slid = page.locator("#amount-raise"), page.locator("#amount-act-raise")
    raises = sorted(
        (json.loads(a.action_json) for a in legal if a.text not in drawn),
        key=lambda struct: struct["amount"],
    )
    assert all(struct["kind"] == "raise" for struct in raises), raises
    assert not raises or slider.count() == 1, raises
    for action in legal:
        kind = json.loads(action.action_json)["kind"]
        if action.text in drawn:
            title, general = drawn[action.text]
        else:
            slider.fill(str(raises.index(json.loads(action.action_json))))
            assert slid.text_content() == action.text
            title, general = slid.get_attribute("title"), described_by(page, slid)
        kinds.add(kind)
        assert general.startswith(kind.capitalize()), (action.text, general)
        if kind == "call":
            assert f"put in {to_call} more" in title, title
        if kind == "raise":
            amount = json.loads(action.action_json)["amount"]
            assert title.startswith(f"Raise to {amount}") and "chips" in title, title
    assert {"call", "raise"} <= kinds, kinds

    page.goto(f"http://{server.address}/#")
    page.wait_for_selector("#start")
    game, params, others, seed = next(m for m in MATCHES if m[0] == "detective_poker")
    create_match(page, game, params, others, seed)
    assert wait_turn_or_end(page)
    assert "best hand" in described_by(page, page.locator("#compose-target"))
    assert "point per chip" in described_by(page, page.locator("#compose-amount"))
    page.select_option("#compose-action-card", json.dumps("bluff"))
    assert "weakest hand" in described_by(page, page.locator("#compose-action-card"))
    act = page.locator("#compose-act")
    text = act.text_content()  # "Bet 2 on seat 1's board with the Bluff card"
    assert "bet " not in text and " s1 " not in text and text.endswith("with the Bluff card"), text
    amount, target = text.split()[1], text.split()[4].removesuffix("'s")
    title = act.get_attribute("title")
    assert title.startswith(f"{amount} chip"), title
    assert f"on seat {target}'s board with Bluff" in title and "weakest" in title, title
    assert title in described_by(page, act)
    assert errors == [], errors


RANK_WORDS = {"T": "10", "J": "jack", "Q": "queen", "K": "king", "A": "ace"}
SUIT_WORDS = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}


def card_words(card: str | None) -> str:
    """A card as the page names it for screen readers (`king of spades`, `face-down card`)."""
    if card is None:
        return "face-down card"
    if card.startswith("X"):
        return f"joker {card[1:]}"
    return f"{RANK_WORDS.get(card[0], card[0])} of {SUIT_WORDS[card[1]]}"


# The poker table as drawn: each seat's texts, markers, cards and box, the pot, the community
# cards and the middle's box.
READ_TABLE = """() => {
  const box = el => { const r = el.getBoundingClientRect();
    return { left: r.left, right: r.right, top: r.top, bottom: r.bottom }; };
  const text = (el, sel) => el.querySelector(sel)?.textContent.trim() ?? null;
  const labels = el => [...el.querySelectorAll('[aria-label]')]
    .map(e => e.getAttribute('aria-label'));
  const table = document.querySelector('section.seats.poker');
  if (!table) return null;
  return {
    version: document.querySelector('main#play').dataset.version,
    tables: document.querySelectorAll('.seats table').length,
    felt: box(table.querySelector('.felt')),
    pot: text(table, '#pot dd'),
    community: labels(table.querySelector('.felt .community')),
    // The panel beside the table: what it lists besides the table's middle.
    side: [...document.querySelectorAll('section.facts dt, section.facts .row-label')]
      .map(e => e.textContent.trim()),
    seats: [...table.querySelectorAll('.seat')].map(el => ({
      seat: Number(el.dataset.seat),
      heading: text(el, 'h3'),
      stack: text(el, '.stack dd'),
      total: text(el, '.total dd'),
      bet: text(el, '.bet .amount'),
      states: [...el.querySelectorAll('.state')].map(e => e.textContent.trim()),
      toAct: el.classList.contains('to-act'),
      marker: text(el, '.turn-marker'),
      // The button as seen ("D") and as read ("Dealer button").
      dealer: el.querySelector('.dealer') && [text(el, '.dealer [aria-hidden]'),
                                              text(el, '.dealer .sr-only')],
      hole: labels(el.querySelector('.hole')),
      // Detective Poker: points, action cards and the bets on the seat's board.
      points: text(el, '.points dd'),
      actionCards: text(el, '.action-cards'),
      boardBets: [...el.querySelectorAll('.board-bet')].map(e => e.textContent.trim()),
      box: box(el),
    })),
  };
}"""


def check_poker_table(page: Page, view: dict) -> dict:
    """The table drawn as `view` says: every seat with its stack, bets and state, the turn
    marker on the seat to act, the dealer button on the button seat, the viewer's hole cards
    face up and the others' only as the view gives them, the pot and the community cards."""
    drawn = page.evaluate(READ_TABLE)
    assert drawn is not None, "no poker table"
    assert drawn["tables"] == 0, "the seats are also drawn as a table"
    assert drawn["pot"] == str(view["pot"]), (drawn["pot"], view["pot"])
    assert drawn["community"] == [card_words(c) for c in view["community"]]
    # Drawn once: the panel beside the table does not repeat the middle's pot, street, hand
    # or community cards.
    repeated = {"Pot", "Street", "Hand", "Hands in the match", "Bet to match", "Community:"}
    assert not repeated & set(drawn["side"]), drawn["side"]
    seats = {s["seat"]: s for s in drawn["seats"]}
    assert sorted(seats) == [s["seat"] for s in view["seats"]]
    to_act = view["current_player"] if not view["terminal"] else None
    for want in view["seats"]:
        got = seats[want["seat"]]
        you = " (you)" if want["seat"] == view["viewer"] else ""
        assert got["heading"] == f"Seat {want['seat']}{you}", got
        assert got["stack"] == str(want["chips"]), (got, want)
        assert got["bet"] == str(want["street_bet"]), (got, want)
        assert got["total"] == str(want["total_bet"]), (got, want)
        states = [
            name
            for name, on in (
                ("Sitting out", not want["dealt"]),
                ("Folded", want["folded"]),
                ("All-in", want["all_in"]),
            )
            if on
        ]
        assert got["states"] == states, (got, want)
        assert got["toAct"] == (want["seat"] == to_act), (got, view["current_player"])
        assert (got["marker"] is not None) == (want["seat"] == to_act), got
        if got["marker"]:
            assert got["marker"].startswith("▶"), got
        button = ["D", "Dealer button"] if want["seat"] == view["button"] else None
        assert got["dealer"] == button, (got, view["button"])
        # Only what the view gives: the viewer's own cards face up, hidden ones face down.
        assert got["hole"] == [card_words(c) for c in want["cards"]], (got, want)
        if want["seat"] == view["viewer"]:
            assert None not in want["cards"], want
        elif not view["terminal"]:
            # (A card placed on the grid leaves the seat's hand.)
            assert set(got["hole"]) <= {"face-down card"}, got
    return drawn


def test_holdem_seats_around_a_poker_table(server, context):
    """Hold'em Poker Chess draws its seats around an oval table, as the seat's own view says at
    each of its turns and at the end: the viewer at the bottom, the others clockwise in seat
    order, the pot and community cards in the middle; on a phone nothing overflows."""
    page, _, errors = open_page(context, f"http://{server.address}/")
    create_match(page, "holdem_chess", {"players": "3"}, ["heuristic", "random"], 7)
    match_id = match_id_of(page)
    turns = face_up = face_down = 0
    while wait_turn_or_end(page):
        reply = seat_view(server, page, match_id)
        assert str(reply.version) == version(page)
        drawn = check_poker_table(page, json.loads(reply.view_json))
        turns += 1
        own = next(s["hole"] for s in drawn["seats"] if s["seat"] == 0)
        face_up += bool(own) and "face-down card" not in own
        others = [s["hole"] for s in drawn["seats"] if s["seat"] != 0]
        face_down += any(others)
        if turns == 1:
            # Around the table: seat 0 (the viewer) under the middle, seats 1 and 2 above it,
            # clockwise (1 on the left, 2 on the right); no two seats overlap.
            felt = drawn["felt"]
            boxes = {s["seat"]: s["box"] for s in drawn["seats"]}
            assert boxes[0]["top"] >= felt["bottom"], (boxes, felt)
            assert boxes[1]["bottom"] <= felt["top"] and boxes[2]["bottom"] <= felt["top"], boxes
            assert boxes[1]["right"] <= boxes[2]["left"], boxes
        play_one_move(page)
    final = seat_view(server, page, match_id)
    assert str(final.version) == version(page)
    end = json.loads(final.view_json)
    assert end["terminal"]
    check_poker_table(page, end)
    assert turns >= 2, turns
    # Seen at some turn: your hole cards face up, another seat's face down.
    assert face_up and face_down, (face_up, face_down)
    # A phone: the middle on top, the seats in two columns under it, nothing wider than it.
    page.set_viewport_size({"width": 390, "height": 844})
    drawn = page.evaluate(READ_TABLE)
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, width
    boxes = [s["box"] for s in drawn["seats"]]
    assert all(b["top"] >= drawn["felt"]["bottom"] and b["right"] <= 390 for b in boxes), boxes
    assert len({round(b["left"]) for b in boxes}) == 2, boxes
    shot(page, "phone-holdem-table")
    assert errors == [], errors


def check_detective_table(page: Page, view: dict) -> dict:
    """Detective Poker's table drawn as `view` says: every seat with its cards (face down where
    the view hides them), chips, points, action cards and the bets on its board, the turn
    marker and the dealer button; the round, the hand and the community cards in the middle."""
    drawn = page.evaluate(READ_TABLE)
    assert drawn is not None, "no poker table"
    assert drawn["tables"] == 0, "the seats are also drawn as a table"
    assert drawn["community"] == [card_words(c) for c in view["community"]]
    repeated = {"Street", "Hand", "Hands in the match", "Burned cards", "Community:"}
    assert not repeated & set(drawn["side"]), drawn["side"]
    seats = {s["seat"]: s for s in drawn["seats"]}
    assert sorted(seats) == [s["seat"] for s in view["seats"]]
    to_act = view["current_player"] if not view["terminal"] else None
    for want in view["seats"]:
        got = seats[want["seat"]]
        you = " (you)" if want["seat"] == view["viewer"] else ""
        assert got["heading"] == f"Seat {want['seat']}{you}", got
        assert got["stack"] == str(want["chips"]) and got["points"] == str(want["points"]), got
        assert got["toAct"] == (want["seat"] == to_act), (got, view["current_player"])
        button = ["D", "Dealer button"] if want["seat"] == view["dealer"] else None
        assert got["dealer"] == button, (got, view["dealer"])
        assert got["hole"] == [card_words(c) for c in want["cards"]], (got, want)
        hidden = want["action_cards"].count(None)
        names = [c for c in want["action_cards"] if c is not None]
        if not want["action_cards"]:
            assert got["actionCards"] == "Action cards: none left", got
        for name in names:
            assert (name if name == "+1" else name.capitalize()) in got["actionCards"], got
        assert (f"{hidden} face down" in got["actionCards"]) == (hidden > 0), got
        on_board = [b for b in view["bets"] if b["target"] == want["seat"]]
        assert len(got["boardBets"]) == len(on_board), (got, on_board)
        for line, bet in zip(got["boardBets"], on_board, strict=True):
            assert line.startswith(bet["street"].capitalize() + ": "), line
            assert f"bets {bet['amount']} on seat {want['seat']}'s board" in line, line
    return drawn


def test_detective_poker_seats_around_a_poker_table(server, context):
    """Detective Poker draws its seats around a table too, as the seat's own view says at each
    of its turns and at the end: its own private card face up and its shown card face down
    (the others' the other way round), the bets lying on each seat's board, the dealer button;
    on a phone nothing overflows."""
    game, params, others, seed = next(m for m in MATCHES if m[0] == "detective_poker")
    page, _, errors = open_page(context, f"http://{server.address}/")
    create_match(page, game, params, others, seed)
    match_id = match_id_of(page)
    turns = bets_drawn = 0
    while wait_turn_or_end(page):
        reply = seat_view(server, page, match_id)
        assert str(reply.version) == version(page)
        drawn = check_detective_table(page, json.loads(reply.view_json))
        turns += 1
        bets_drawn += sum(len(s["boardBets"]) for s in drawn["seats"])
        if turns == 1:
            felt = drawn["felt"]
            boxes = {s["seat"]: s["box"] for s in drawn["seats"]}
            assert boxes[0]["top"] >= felt["bottom"], (boxes, felt)
            assert all(boxes[s]["bottom"] <= felt["top"] for s in boxes if s != 0), boxes
        play_one_move(page)
    final = seat_view(server, page, match_id)
    assert str(final.version) == version(page)
    end = json.loads(final.view_json)
    assert end["terminal"]
    check_detective_table(page, end)
    assert turns >= 2 and bets_drawn > 0, (turns, bets_drawn)
    page.set_viewport_size({"width": 390, "height": 844})
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, width
    shot(page, "phone-detective-table")
    assert errors == [], errors


# Where a control lies: its box, and the play area's (the table: the poker ring, hand, board).
BOXES = """sel => {
  const box = el => { if (!el) return null; const r = el.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, left: r.left, right: r.right }; };
  return { control: box(document.querySelector(sel)),
           area: box(document.querySelector('.play-area')), height: window.innerHeight };
}"""


def test_the_controls_are_in_the_first_screenful(server, browser):
    """At 1280 × 800 the setup's Start button is above the fold for every game, and the
    actions sit beside the table (Hold'em Poker Chess's bets, Detective Poker's bet) inside
    the window; at 390 px they follow the table and are scrolled into the window on the seat's
    turn."""
    context = web_context(browser, viewport={"width": 1280, "height": 800})
    try:
        page, _, errors = open_page(context, f"http://{server.address}/")
        page.wait_for_selector("#start")
        for game in page.locator("#game option").evaluate_all("os => os.map(o => o.value)"):
            page.select_option("#game", game)
            page.wait_for_selector("#seat-1")
            top = page.locator("#start").bounding_box()["y"]
            assert top + 40 < 800, (game, top)
        for game, params, others, control in [
            # Every raise-to amount: one slider and its button (the page's, as the widget's).
            ("holdem_chess", {"bet_sizes": "all"}, ["heuristic"], "#amount-act-raise"),
            ("detective_poker", {"rounds": "1"}, ["heuristic", "random"], "#compose-act"),
        ]:
            page.goto(f"http://{server.address}/")
            page.wait_for_selector("#start")
            create_match(page, game, params, others, 7)
            assert wait_turn_or_end(page)
            page.wait_for_selector(control)
            boxes = page.evaluate(BOXES, control)
            assert boxes["control"]["bottom"] <= 800, (game, boxes)
            assert boxes["control"]["left"] >= boxes["area"]["right"], (game, boxes)
        assert errors == []
    finally:
        context.close()
    context = web_context(browser, viewport={"width": 390, "height": 800}, has_touch=True)
    try:
        page, _, errors = open_page(context, f"http://{server.address}/")
        create_match(page, "holdem_chess", {}, ["heuristic"], 7)
        while wait_turn_or_end(page):
            page.wait_for_timeout(100)
            boxes = page.evaluate(BOXES, ".actions .legal, .hand .legal")
            control = boxes["control"]
            assert control and control["top"] >= 0 and control["bottom"] <= 800, boxes
            if page.locator(".actions .legal").count() > 0:
                bet = page.evaluate(BOXES, ".actions")["control"]
                assert bet["top"] >= boxes["area"]["bottom"], boxes
                break
            play_one_move(page)
        assert errors == []
    finally:
        context.close()


DOWN = "The server cannot be reached; retrying…"
GONE = "This match is no longer on the server."


def test_the_page_says_when_the_server_is_gone(browser):
    """With the server down the page stops offering the turn: no "Your turn.", nothing
    clickable, the server's absence said in words, and a click on the board keeps saying it; a
    match the server does not have is said to be gone."""
    own = Server()
    context = web_context(browser, viewport={"width": 1280, "height": 800})
    try:
        page, _, _ = open_page(context, f"http://{own.address}/")
        create_match(page, "poker_chess", {}, ["random"], 7)
        assert wait_turn_or_end(page)
        assert own.stop() == 0
        page.wait_for_function(
            "() => document.querySelector('main#play').dataset.link !== 'ok'"
            " && document.getElementById('message').dataset.link === 'down'"
        )
        assert page.locator("#message").text_content() == DOWN
        assert "Your turn" not in page.locator("#status").text_content()
        assert page.locator("main#play").get_attribute("data-may-act") == "false"
        clickable = "button.spot.source, .hand button.card-button, .actions button.legal"
        assert page.locator(clickable).count() == 0
        page.locator(".board .spot").first.click()
        assert page.locator("#message").text_content() == DOWN
        server = Server()
        try:
            page.goto(f"http://{server.address}/#watch=no-such-match")
            page.wait_for_function(
                "() => document.getElementById('message').dataset.link === 'stopped'"
            )
            assert page.locator("#message").text_content() == GONE
        finally:
            assert server.stop() == 0
    finally:
        context.close()
        own.stop()


def test_the_table_panel_speaks_in_words(server, context):
    """The panel beside the table names the view's fields in words ("Cards placed this turn",
    "How it ended: a king was captured"), never by their names in the view."""
    page, _, errors = open_page(context, f"http://{server.address}/")
    create_match(page, "holdem_chess", {}, ["heuristic"], 7)
    assert wait_turn_or_end(page)
    page.wait_for_selector("section.facts dt")
    facts = page.locator("section.facts dl").text_content()
    assert "Cards placed this turn" in facts and "Smallest raise" in facts, facts
    assert "_" not in facts and "placed this turn 0" not in facts, facts
    labels = page.locator("section.facts dt").all_text_contents()
    assert all(label[:1].isupper() for label in labels), labels
    assert errors == []


def test_prediction_chess_shows_the_chosen_move_and_the_last_one_apart(server, context):
    """While the seat predicts, the move it chose this turn is said and ringed on the board;
    the last move is drawn in its own style (a dashed ring), not the yellow of legal pieces."""
    page, _, errors = open_page(context, f"http://{server.address}/")
    create_match(page, "prediction_chess", {"max_turns": "8"}, ["heuristic"], 7)
    chosen = last = 0
    while (not chosen or not last) and wait_turn_or_end(page):
        reply = seat_view(server, page, match_id_of(page))
        view = json.loads(reply.view_json)
        if str(reply.version) == version(page):
            move = view["my_move"]
            if view["phase"] == "predict" and move and move["kind"] == "move":
                ringed = page.locator(".board .spot.chosen").evaluate_all(
                    "els => els.map(e => e.dataset.spot).sort()"
                )
                assert ringed == sorted([f"sq:{move['from']}", f"sq:{move['to']}"]), ringed
                said = page.locator("#chosen-move").text_content()
                assert f"{move['from']}–{move['to']}" in said, said
                chosen += 1
            styles = page.locator(".board .spot.last").evaluate_all(
                "els => els.map(e => [getComputedStyle(e).outlineStyle,"
                " getComputedStyle(e).boxShadow, e.classList.contains('source')])"
            )
            for outline, shadow, legal in styles:
                assert outline == "dashed", styles
                # The yellow ring is a legal piece's only.
                yellow = any(y in shadow for y in ("255, 212, 0", "251, 191, 36"))
                assert legal or not yellow, styles
            last += bool(styles)
        play_one_move(page)
    assert chosen and last, (chosen, last)
    # The seats table and the history in words.
    assert "Colour" in page.locator(".seats thead").text_content()
    history = page.locator(".history li").first.text_content()
    assert history.startswith("Turn 1: White ") and "predicted: White " in history, history
    assert errors == []
