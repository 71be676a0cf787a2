"""The web page served by checkraise-server, in a real browser: Debian's headless Chromium
driven by Playwright. For every game: a whole match against bots played by clicking, a
spectator window following it, a bad move refused with a visible message, and a reload that
resumes the seat; a finished match replayed step by step (buttons and keys, and read a few
steps a request) and found in the list of recent matches; a practice deal (a chosen seed)
announced on every page of the match, a secret deal not; plus keyboard use and basic
accessibility (names, focus, contrast).

Screenshots go to tests/artifacts/web/ (ignored by git); with CHECKRAISE_WEB_DOCS=1 the final
one of each game also replaces docs/web/<game>.png (and a replay's, docs/web/replay.png)."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import grpc
import pytest
from playwright.sync_api import Page, expect

import checkraise as cr
from grpc_util import ROOT, packaged_stubs, web_context

ARTIFACTS = ROOT / "tests" / "artifacts" / "web"
DOCS = ROOT / "docs" / "web"

# Short matches with fixed seeds: (game, parameters, seat kinds after seat 0, seed).
MATCHES = [
    ("pokeros", {"players": "2", "deck": "stripped"}, ["heuristic"], 7),
    ("prediction_chess", {"max_turns": "8"}, ["heuristic"], 7),
    ("poker_chess", {}, ["random"], 7),
    ("holdem_chess", {}, ["heuristic"], 7),
    ("detective_poker", {"rounds": "1"}, ["heuristic", "random"], 7),
]
LISTED = {m[0] for m in MATCHES}
# Every other game the server's build has (a game added later, or one behind a feature): its
# default parameters, random players in the other seats. The page knows no game by name.
MATCHES += [
    (name, {}, ["random"] * (cr.make(name).num_players() - 1), 7)
    for name in cr.game_names()
    if name not in LISTED
]

# The only calls the page may make: the catalog, creating and joining, and seat-scoped or
# public match calls (never another seat's view).
ALLOWED_CALLS = {
    "checkraise.v1.Catalog/ListGames",
    "checkraise.v1.Catalog/GetGame",
    "checkraise.v1.Matches/CreateMatch",
    "checkraise.v1.Matches/JoinSeat",
    "checkraise.v1.Matches/GetView",
    "checkraise.v1.Matches/WatchSeat",
    "checkraise.v1.Matches/Act",
    "checkraise.v1.Matches/WatchSpectator",
    "checkraise.v1.Matches/ListMatches",
    "checkraise.v1.Matches/GetReplay",
}

# Replayed to the end and back: a card game with hidden cards and a chess game.
REPLAYS = [m for m in MATCHES if m[0] in ("pokeros", "prediction_chess")]


def open_page(context, url: str) -> tuple[Page, list[str], list[str]]:
    """A page at `url`, with the gRPC calls it makes and the errors it raises recorded."""
    page = context.new_page()
    calls: list[str] = []
    errors: list[str] = []
    page.on(
        "request",
        lambda r: calls.append(r.url.split("/", 3)[3]) if "checkraise.v1." in r.url else None,
    )
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(url)
    return page, calls, errors


def wait_version_change(page: Page, old: str) -> None:
    page.wait_for_function(
        "old => { const m = document.querySelector('main#play');"
        " return m && (m.dataset.version !== old"
        " || document.getElementById('message').textContent !== ''); }",
        arg=old,
        timeout=30_000,
    )
    message = page.locator("#message").text_content()
    assert message == "", message


def wait_turn_or_end(page: Page) -> bool:
    """Waits until the seat may act or the match is over; True when it may act."""
    page.wait_for_function(
        "() => { const m = document.querySelector('main#play');"
        " return m && (m.dataset.mayAct === 'true' || m.dataset.terminal === 'true'); }",
        timeout=30_000,
    )
    return page.locator("main#play").get_attribute("data-may-act") == "true"


def version(page: Page) -> str:
    return page.locator("main#play").get_attribute("data-version") or "-1"


PREFERRED = re.compile(r"^(check|call|done)")


def play_one_move(page: Page) -> None:
    """Plays the first legal choice on the page by clicking: a highlighted card or piece (then
    a highlighted cell or square); else an action button, check or call first."""
    before = version(page)
    sources = page.locator(".hand button.card-button, button.spot.source")
    buttons = page.locator(".actions .buttons button")
    texts = buttons.all_text_contents()
    preferred = [i for i, t in enumerate(texts) if PREFERRED.match(t)]
    if sources.count() > 0:
        plays_at_once = (sources.first.get_attribute("aria-label") or "").startswith("Play ")
        sources.first.click()
        if not plays_at_once:  # a card or piece that needs a target
            targets = page.locator("button.spot.target")
            assert targets.count() > 0, "a chosen card or piece has no highlighted target"
            targets.first.click()
            promote = page.locator('[aria-label="Promote to"] button')
            if version(page) == before and promote.count() > 0:
                promote.first.click()
    elif preferred:
        buttons.nth(preferred[0]).click()
    else:
        assert buttons.count() > 0, "the seat may act but the page offers nothing to click"
        buttons.first.click()
    wait_version_change(page, before)


SPATIAL = re.compile(
    r"^(?:place )?(?P<card>[2-9TJQKA][cdhs]|X[1-3])@(?P<x>-?\d+),(?P<y>-?\d+)$"
    r"|^(?:predict )?(?P<src>[a-h][1-8])(?P<dst>[a-h][1-8])[qrbn]?$"
)


def signed(n: float) -> str:
    n = int(n) if float(n).is_integer() else n
    return f"+{n}" if n > 0 else f"\u2212{-n}" if n < 0 else "0"


SUIT_SYMBOLS = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}


def card_short(card: str) -> str:
    """A card's text (`Td`, `X1`) as the page writes it in a line: `10♦`, `joker 1`."""
    if card.startswith("X"):
        return f"joker {card[1:]}"
    return ("10" if card[0] == "T" else card[0]) + SUIT_SYMBOLS[card[1]]


def check_outcome(page: Page, server, match_id: str, game: str) -> None:
    """The end explained from the public view, as the server has it: the winner with every
    seat's return, and the game's own account (why a chess game ended, the last Hold'em hand's
    showdown named with its cards, each Detective Poker bet judged)."""
    pb2, pb2_grpc = packaged_stubs()
    with grpc.insecure_channel(server.address) as channel:
        end = pb2_grpc.MatchesStub(channel).GetSpectatorView(
            pb2.GetSpectatorViewRequest(match_id=match_id)
        )
    view = json.loads(end.view_json)
    text = page.locator("#outcome").text_content()
    returns = view["returns"]
    everyone = ", ".join(f"seat {s} {signed(r)}" for s, r in enumerate(returns))
    best = max(returns)
    winners = [s for s, r in enumerate(returns) if r == best]
    if len(winners) == len(returns):
        assert f"A draw ({everyone})." in text, text
    elif len(winners) == 1:
        assert f"Seat {winners[0]} won ({everyone})." in text, text
    if game == "prediction_chess":
        reason = view["end_reason"]
        words = {
            "king_captured": "king was captured",
            "both_kings": "Both kings died",
            "max_turns": "turn limit was reached",
            "fifty_move": "Fifty turns passed",
        }[reason]
        assert words in text, (reason, text)
    elif game == "holdem_chess":
        last = view["results"][-1]
        assert f"Hand {last['hand_number']}:" in text, text
        for hand in last["showdown"]:
            cards = " ".join(card_short(c) for c in hand["cards"])
            # The hand's ranks as its cards show them: "A K 10" kickers, never "A K T".
            name = re.sub(r"\bT\b", "10", hand["name"])
            assert f"Seat {hand['seat']} showed {name} ({cards})" in text, text
            assert not re.search(r"\bT\b", text), text
        if not last["showdown"]:
            assert "No showdown" in text
    elif game == "detective_poker":
        hand = view["last_scored_hand"]
        assert f"Hand {hand['hand_number']} scored." in text, text
        assert text.count(": right,") == sum(b["correct"] for b in hand["bets"]), text
        assert text.count(": wrong,") == sum(not b["correct"] for b in hand["bets"]), text
    elif game in ("pokeros", "poker_chess"):
        points = ", ".join(f"seat {seat['seat']} {seat['points']}" for seat in view["seats"])
        assert f"Points: {points}." in text, text
    elif isinstance(view.get("outcome"), str):
        # A game the page has no words for shows its view's own summary.
        assert view["outcome"] in text, text


def check_highlights(page: Page, server, match_id: str, game: str) -> None:
    source = page.locator("[data-source]").first
    if page.locator("[data-source]").count() == 0:
        return
    key = source.get_attribute("data-source")
    if (source.get_attribute("aria-label") or "").startswith("Play "):
        return
    source.click()
    shown = set(
        page.locator("button.spot.target").evaluate_all("els => els.map(e => e.dataset.key)")
    )
    token = page.evaluate(f"() => localStorage.getItem('checkraise:token:{match_id}:0')")
    pb2, pb2_grpc = packaged_stubs()
    with grpc.insecure_channel(server.address) as channel:
        view = pb2_grpc.MatchesStub(channel).GetView(
            pb2.GetViewRequest(match_id=match_id, seat=0),
            metadata=[("x-seat-token", token)],
        )
    legal = set()
    for action in view.legal_actions:
        m = SPATIAL.match(action.text)
        if m and m["card"] and key == f"card:{m['card']}":
            legal.add(f"cell:{m['x']},{m['y']}")
        elif m and m["src"] and key == f"sq:{m['src']}":
            legal.add(f"sq:{m['dst']}")
    assert shown and shown == legal, (game, key, shown, legal)
    source.click()  # chosen again: unchosen
    assert page.locator("button.spot.target").count() == 0


def create_match(page: Page, game: str, params: dict, others: list[str], seed: int | None) -> None:
    page.select_option("#game", game)
    for name, value in params.items():
        field = page.locator(f"#param-{name}")
        if field.evaluate("e => e.tagName") == "SELECT":
            field.select_option(value)
        else:
            field.fill(value)
            field.dispatch_event("change")
    page.wait_for_selector(f"#seat-{len(others)}")
    page.wait_for_function("() => !document.getElementById('start').disabled")
    page.select_option("#seat-0", "you")
    for seat, kind in enumerate(others, start=1):
        page.select_option(f"#seat-{seat}", kind)
    if seed is not None:
        page.fill("#seed", str(seed))
    page.click("#start")
    page.wait_for_selector("main#play")


def shot(page: Page, name: str) -> Path:
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def check_accessibility(page: Page) -> None:
    """Every control is named and focusable, clickable board parts are buttons, and text has
    a contrast of 4.5:1 (3:1 for large text and chess pieces) against what is behind it."""
    problems = page.evaluate(
        """() => {
        const out = [];
        const named = el => (el.getAttribute('aria-label') || el.textContent.trim()
            || (el.labels && el.labels.length && el.labels[0].textContent.trim()));
        for (const el of document.querySelectorAll('button, input, select, a[href]')) {
          if (!named(el)) out.push('unnamed ' + el.outerHTML.slice(0, 80));
          if (el.tabIndex < 0) out.push('not focusable ' + el.outerHTML.slice(0, 80));
        }
        for (const el of document.querySelectorAll('.source, .target, .card-button')) {
          if (el.tagName !== 'BUTTON') out.push('clickable but not a button ' + el.className);
        }
        const rgb = s => (s.match(/[\\d.]+/g) || []).map(Number);
        const lum = c => {
          const [r, g, b] = c.slice(0, 3).map(v => {
            v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
          return 0.2126 * r + 0.7152 * g + 0.0722 * b;
        };
        const background = el => {
          for (; el; el = el.parentElement) {
            const c = rgb(getComputedStyle(el).backgroundColor);
            if (c.length === 3 || (c.length === 4 && c[3] > 0.5)) return c;
          }
          return [255, 255, 255];
        };
        const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
          const el = n.parentElement;
          if (!n.textContent.trim() || !el || !el.offsetParent) continue;
          const style = getComputedStyle(el);
          const a = lum(rgb(style.color)), b = lum(background(el));
          const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
          const size = parseFloat(style.fontSize), bold = Number(style.fontWeight) >= 700;
          const large = size >= 24 || (bold && size >= 18.66) || el.closest('.piece');
          if (ratio < (large ? 3 : 4.5)) {
            out.push(`contrast ${ratio.toFixed(2)} for "${n.textContent.trim().slice(0, 20)}"`);
          }
        }
        return out;
      }"""
    )
    assert problems == [], problems


@pytest.mark.parametrize(("game", "params", "others", "seed"), MATCHES, ids=[m[0] for m in MATCHES])
def test_a_whole_match_by_clicking(server, context, browser, game, params, others, seed):
    page, calls, errors = open_page(context, f"http://{server.address}/")
    create_match(page, game, params, others, seed)
    match = re.search(r"#match=([^&]+)&seat=0$", page.url)
    assert match, page.url
    assert "token=" not in page.url
    check_accessibility(page)
    # Coordinates beside the board: files under a chessboard and ranks to its left; columns
    # and rows (0 at the centre) beside a card grid, one per column and row drawn.
    # Read from one drawing of the board (a bot's reply may redraw it at any moment): its
    # columns, files and ranks together, once it has a file label per column.
    read = (
        "() => { const b = document.querySelector('.board'); if (!b) return null;"
        " const text = sel => [...b.querySelectorAll(sel)].map(e => e.textContent);"
        " return { columns: getComputedStyle(b).getPropertyValue('--columns'),"
        " files: text('.coord.file'), ranks: text('.coord.rank') }; }"
    )
    # Once the first view is drawn: before it ("Connecting…") no game has a board to read.
    page.wait_for_function(
        "() => !['-1', undefined].includes(document.querySelector('main#play')?.dataset.version)"
        f" && (() => {{ const r = ({read})(); return !r || !r.columns"
        " || r.files.length === Number(r.columns); })()",
        timeout=10_000,
    )
    board = page.evaluate(read)
    files, ranks = (board["files"], board["ranks"]) if board else ([], [])
    if game in ("poker_chess", "prediction_chess"):
        assert sorted(files) == list("abcdefgh"), files
        assert sorted(ranks, key=int) == [str(r) for r in range(1, 9)], ranks
    elif board:
        assert len(files) == int(board["columns"]) and ranks, board
        assert all(re.fullmatch(r"-?\d+", t) for t in files + ranks), board

    # The spectator is someone else, in a window of their own (a tab in the background of the
    # player's window would have its animation frames, and so Playwright's checks, throttled).
    spectator_context = web_context(browser, viewport={"width": 1280, "height": 900})
    spectator, spectator_calls, spectator_errors = open_page(
        spectator_context, f"http://{server.address}/#watch={match.group(1)}"
    )
    spectator.wait_for_selector("#status")
    assert spectator.locator("#action-text").count() == 0
    assert spectator.locator(".hand").count() == 0

    # A bad move, typed: the server's refusal is shown, and nothing changes.
    assert wait_turn_or_end(page)
    before = version(page)
    page.fill("#action-text", "not a move")
    page.press("#action-text", "Enter")
    message = page.locator("#message")
    message.wait_for(state="visible")
    page.wait_for_function("() => document.getElementById('message').textContent !== ''")
    assert "Move refused" in message.text_content()
    assert "Invalid argument" in message.text_content()
    assert version(page) == before
    shot(page, f"{game}-refused")
    page.locator("#action-text").fill("")

    # Only legal choices can be clicked: the highlighted targets of the first highlighted card
    # or piece are exactly its legal actions (asked of the server with the page's own token),
    # and a square or cell that is not highlighted does nothing.
    check_highlights(page, server, match.group(1), game)
    inert = page.locator("div.spot")
    if inert.count() > 0:
        said = page.locator("#message").text_content()
        inert.first.click()
        assert version(page) == before
        assert page.locator("#message").text_content() == said

    moves = 0
    reloaded = False
    # The reload comes after two moves, with a history to restore; in a game the page has no
    # fixed match for (it may end before the seat's third turn), at the seat's first turn.
    reload_after, look_after = (2, 3) if game in LISTED else (0, 1)
    while wait_turn_or_end(page):
        if moves == reload_after and not reloaded:
            # A reload resumes the seat from the token kept in the browser.
            at = version(page)
            page.reload()
            page.wait_for_function(
                "v => document.querySelector('main#play')?.dataset.version === v", arg=at
            )
            assert "You play seat 0" in page.locator(".who").text_content()
            reloaded = True
            if not wait_turn_or_end(page):
                break
        play_one_move(page)
        moves += 1
        if moves == look_after:
            shot(page, f"{game}-playing")
            check_accessibility(page)
            # The spectator follows live, and sees no seat's hidden card.
            at = version(page)
            spectator.wait_for_function(
                "v => Number(document.querySelector('main#play')?.dataset.version) >= Number(v)",
                arg=at,
            )
            if spectator.locator("main#play").get_attribute("data-terminal") == "false":
                # A table's cards column, or each seat's cards around a poker table.
                hidden = spectator.locator(
                    ".seats td.cards [aria-label], .seats .hole [aria-label]"
                )
                faces = hidden.evaluate_all("els => els.map(e => e.getAttribute('aria-label'))")
                assert set(faces) <= {"face-down card"}, faces
                assert faces or game == "prediction_chess", "no hand drawn for the spectator"
        assert moves < 400, "the match does not end"
    assert reloaded, "the match ended before the reload"

    status = page.locator("#status").text_content()
    assert status.startswith("Game over.")
    final = version(page)
    spectator.wait_for_function(
        "v => document.querySelector('main#play')?.dataset.version === v", arg=final
    )
    spectator_status = spectator.locator("#status").text_content()
    assert spectator_status == status.split(" You ")[0]
    check_outcome(page, server, match.group(1), game)
    check_outcome(spectator, server, match.group(1), game)
    path = shot(page, game)
    shot(spectator, f"{game}-spectator")
    check_accessibility(page)
    if os.environ.get("CHECKRAISE_WEB_DOCS"):
        DOCS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, DOCS / f"{game}.png")

    assert set(calls) <= ALLOWED_CALLS, calls
    assert "checkraise.v1.Matches/WatchSpectator" not in calls
    # A spectator's page watches the match and, for its footer, reads the server's version.
    assert set(spectator_calls) == {
        "checkraise.v1.Matches/WatchSpectator",
        "checkraise.v1.Catalog/ListGames",
    }, spectator_calls
    assert errors == [] and spectator_errors == [], errors + spectator_errors
    spectator_context.close()


def replay_state(page: Page) -> tuple[int, str, str]:
    """The replay's step, its counter's text and everything drawn for the step."""
    step = int(page.locator("main#play").get_attribute("data-step") or "-1")
    return step, page.locator("#step-counter").text_content(), page.locator(".table").inner_html()


def wait_step(page: Page, step: int) -> None:
    page.wait_for_function(
        "s => document.querySelector('main#play')?.dataset.step === s", arg=str(step)
    )


@pytest.mark.parametrize(("game", "params", "others", "seed"), REPLAYS, ids=[m[0] for m in REPLAYS])
def test_a_finished_match_replayed(server, context, game, params, others, seed):
    page, calls, errors = open_page(context, f"http://{server.address}/")
    create_match(page, game, params, others, seed)
    found = re.search(r"#match=([^&]+)&seat=0$", page.url)
    assert found, page.url
    match_id = found.group(1)
    assert page.locator("#replay-link").count() == 0  # no replay link before the end
    moves = 0
    while wait_turn_or_end(page):
        play_one_move(page)
        moves += 1
        assert moves < 400, "the match does not end"
    final = version(page)

    # The finished match's page links to its replay, which opens at the deal.
    page.click("#replay-link")
    page.wait_for_function("() => Number(document.querySelector('main#play')?.dataset.steps) > 0")
    steps = int(page.locator("main#play").get_attribute("data-steps"))
    last = steps - 1
    assert last >= 2, steps
    wait_step(page, 0)
    assert page.url.endswith(f"#replay={match_id}")
    assert page.locator("#replay-back").is_disabled()
    assert page.locator("#replay-start").is_disabled()
    assert page.locator("#step-text").text_content() != ""

    # Forward through every step: the counter follows, and every step draws something new.
    drawn = [replay_state(page)]
    texts = [page.locator("#step-text").text_content()]
    assert drawn[0][:2] == (0, f"Step 0 of {last}")
    for i in range(1, steps):
        page.click("#replay-forward")
        wait_step(page, i)
        state = replay_state(page)
        assert state[:2] == (i, f"Step {i} of {last}"), state[:2]
        assert state[2] != drawn[-1][2], f"step {i} draws the same as step {i - 1}"
        # A finished match's replay shows every card a seat held, at every step.
        assert page.locator("main#play .card.back").count() == 0, f"a card face down at step {i}"
        texts.append(page.locator("#step-text").text_content())
        drawn.append(state)
    assert page.locator("#replay-forward").is_disabled()
    assert page.locator("#replay-end").is_disabled()
    assert page.locator("main#play").get_attribute("data-version") == final
    assert page.locator("main#play").get_attribute("data-terminal") == "true"
    # A finished match's steps name every action, and (Pokeros) every card dealt.
    # In words: "Seat 1: places K♦ at (1, 0)", "Dealt 7♥" (the cards as the board draws them).
    assert all(t.startswith(("Seat ", "Dealt ", "Chance: ")) for t in texts[1:]), texts
    assert not any(re.search(r"\b[2-9TJQKA][cdhs]\b|@", t) for t in texts), texts
    if game == "pokeros":
        assert any(t.startswith("Dealt ") for t in texts), texts
    path = shot(page, f"{game}-replay")
    if os.environ.get("CHECKRAISE_WEB_DOCS") and game == "pokeros":
        DOCS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, DOCS / "replay.png")
    check_accessibility(page)

    # Back through every step: each draws what it drew on the way forward.
    for i in range(last - 1, -1, -1):
        page.click("#replay-back")
        wait_step(page, i)
        assert replay_state(page) == drawn[i], f"step {i} drawn differently on the way back"

    # The keys: End, Home, and the arrows.
    page.locator("main#play").click(position={"x": 5, "y": 5})
    page.keyboard.press("End")
    wait_step(page, last)
    assert replay_state(page) == drawn[last]
    page.keyboard.press("ArrowRight")  # past the end: nothing moves
    page.keyboard.press("Home")
    wait_step(page, 0)
    page.keyboard.press("ArrowLeft")  # before the start: nothing moves
    for i in (1, 2):
        page.keyboard.press("ArrowRight")
        wait_step(page, i)
        assert replay_state(page) == drawn[i]
    page.keyboard.press("ArrowLeft")
    wait_step(page, 1)
    assert replay_state(page) == drawn[1]

    # The new-match page lists the match among the recent ones, with a link to its replay.
    page.goto(f"http://{server.address}/#")
    entry = page.locator(f'#recent li[data-match="{match_id}"]')
    entry.wait_for()
    assert entry.get_attribute("data-status") == "finished"
    entry.get_by_role("link", name="Replay").click()
    wait_step(page, 0)
    assert page.url.endswith(f"#replay={match_id}")
    assert replay_state(page) == drawn[0]

    assert "checkraise.v1.Matches/GetReplay" in calls
    assert "checkraise.v1.Matches/ListMatches" in calls
    assert set(calls) <= ALLOWED_CALLS, calls
    assert errors == [], errors

    # Read two steps a request: the page reads the next page as it steps past the ones it has,
    # and the views it rebuilds from the patches draw as the whole replay did.
    paged, paged_calls, paged_errors = open_page(
        context, f"http://{server.address}/#replay={match_id}&page_size=2"
    )
    paged.wait_for_function(
        "n => document.querySelector('main#play')?.dataset.steps === n", arg=str(steps)
    )
    wait_step(paged, 0)
    assert replay_state(paged) == drawn[0]
    for i in range(1, steps):
        paged.click("#replay-forward")
        wait_step(paged, i)
        assert replay_state(paged) == drawn[i], f"step {i} drawn differently in pages of 2"
    assert paged.locator("main#play").get_attribute("data-terminal") == "true"
    assert paged_calls.count("checkraise.v1.Matches/GetReplay") == (steps + 1) // 2
    paged.keyboard.press("Home")
    wait_step(paged, 0)
    paged.keyboard.press("End")
    wait_step(paged, last)
    assert replay_state(paged) == drawn[last]
    assert paged_errors == [], paged_errors


def wait_drawn(page: Page) -> None:
    page.wait_for_function(
        "() => Number(document.querySelector('main#play')?.dataset.version) >= 0"
    )


NOTICE = "#practice-deal"


def test_a_practice_deal_is_announced_and_a_secret_deal_is_not(server, context):
    game, params, others, _ = MATCHES[0]
    page, calls, errors = open_page(context, f"http://{server.address}/")
    page.wait_for_selector("#start")
    # The seed's hint says what choosing one means.
    assert page.locator("#seed").get_attribute("aria-describedby") == "seed-help"
    hint = page.locator("#seed-help").text_content()
    assert "practice deal" in hint and "secret deal" in hint, hint

    # No seed: a secret deal, and nothing said of it, to the seat or to a spectator.
    create_match(page, game, params, others, None)
    secret = re.search(r"#match=([^&]+)&seat=0$", page.url).group(1)
    wait_drawn(page)
    assert page.locator(NOTICE).count() == 0
    watcher, _, watcher_errors = open_page(context, f"http://{server.address}/#watch={secret}")
    wait_drawn(watcher)
    assert watcher.locator(NOTICE).count() == 0

    # A chosen seed: a practice deal, said to the seat and to a spectator.
    page.goto(f"http://{server.address}/#")
    page.wait_for_selector("#start")
    create_match(page, game, params, others, 5)
    practice = re.search(r"#match=([^&]+)&seat=0$", page.url).group(1)
    wait_drawn(page)
    notice = page.locator(NOTICE)
    assert notice.is_visible() and notice.text_content().startswith("Practice deal:")
    assert "chose the seed" in notice.text_content()
    check_accessibility(page)
    watcher.goto(f"http://{server.address}/#watch={practice}")
    watcher.wait_for_selector(NOTICE)

    # Replays of finished matches: the notice for the chosen seed only.
    pb2, pb2_grpc = packaged_stubs()
    with grpc.insecure_channel(server.address) as channel:
        stub = pb2_grpc.MatchesStub(channel)
        bots = ["random", "heuristic"]
        created = {
            chosen: stub.CreateMatch(
                pb2.CreateMatchRequest(game=game, parameters=params, seats=bots, **seed)
            )
            for chosen, seed in ((True, {"seed": 9}), (False, {}))
        }
    assert created[True].seed == 9 and created[False].seed == 0
    for chosen, reply in created.items():
        replay, _, replay_errors = open_page(
            context, f"http://{server.address}/#replay={reply.match_id}"
        )
        wait_step(replay, 0)
        wait_drawn(replay)
        assert replay.locator(NOTICE).count() == (1 if chosen else 0), chosen
        assert replay_errors == [], replay_errors
    assert set(calls) <= ALLOWED_CALLS, calls
    assert errors == [] and watcher_errors == [], errors + watcher_errors


def test_the_footer_names_the_server_version(server, context):
    import checkraise

    page, _, errors = open_page(context, f"http://{server.address}/")
    footer = page.locator("footer#version")
    page.wait_for_function("() => document.getElementById('version').textContent !== ''")
    assert footer.text_content() == f"checkraise-server {checkraise.__version__}"
    assert errors == []


def test_parameters_are_validated_by_the_server(server, context):
    page, _, errors = open_page(context, f"http://{server.address}/")
    page.select_option("#game", "pokeros")
    page.fill("#param-players", "9")
    page.dispatch_event("#param-players", "change")
    error = page.locator("#form-error")
    page.wait_for_function("() => document.getElementById('form-error').textContent !== ''")
    assert "Invalid argument" in error.text_content()
    assert "players" in error.text_content()
    assert page.locator("#start").is_disabled()
    shot(page, "setup-refused")
    page.fill("#param-players", "3")
    page.dispatch_event("#param-players", "change")
    page.wait_for_selector("#seat-2")
    assert page.locator("#form-error").text_content() == ""
    check_accessibility(page)
    assert errors == []


def test_keyboard_only(server, context):
    """A match is created and a move played with the keyboard alone (Tab and Enter)."""
    page, _, errors = open_page(context, f"http://{server.address}/")
    page.wait_for_selector("#start")
    page.fill("#seed", "3")

    def tab_to(selector: str, limit: int = 80) -> None:
        for _ in range(limit):
            page.keyboard.press("Tab")
            if page.evaluate(f"() => document.activeElement?.matches({selector!r})"):
                return
        raise AssertionError(f"Tab never reaches {selector}")

    tab_to("#start")
    page.keyboard.press("Enter")
    page.wait_for_selector("main#play")
    assert wait_turn_or_end(page)
    before = version(page)
    tab_to(".hand button.card-button")
    page.keyboard.press("Enter")
    tab_to("button.spot.target")
    page.keyboard.press("Enter")
    wait_version_change(page, before)
    assert errors == []


def test_a_friend_joins_by_link(server, context, browser):
    """Seat 1 is a friend's: the creator's page shows a link with the seat's token, which
    opens the seat in another browser (a fresh context: no shared storage); the creator's page
    says whether the friend is there."""
    page, _, _ = open_page(context, f"http://{server.address}/")
    page.select_option("#game", "detective_poker")
    page.wait_for_selector("#seat-2")
    page.select_option("#seat-1", "friend")
    page.fill("#seed", "5")
    page.click("#start")
    page.wait_for_selector("a.invite")
    link = page.locator("a.invite").get_attribute("href")
    assert "&seat=1&token=" in link
    presence = page.locator('.presence[data-seat="1"]')
    expect(presence).to_have_text("· not here")
    friend_context = web_context(browser)
    try:
        friend, _, errors = open_page(friend_context, link)
        friend.wait_for_selector("#status")
        assert "You play seat 1" in friend.locator(".who").text_content()
        assert "token=" not in friend.url
        assert errors == []
        # The creator sees the friend arrive, pushed by the server (SeatStatus.connected).
        expect(presence).to_have_text("· here now")
        expect(presence).to_have_attribute("data-connected", "true")
    finally:
        friend_context.close()
    # ... and leave, once the friend's page is gone.
    expect(presence).to_have_text("· not here", timeout=15_000)


def stored_token(page: Page, match_id: str, seat: int) -> str | None:
    return page.evaluate(f"() => localStorage.getItem('checkraise:token:{match_id}:{seat}')")


def match_id_of(page: Page) -> str:
    return re.search(r"match=([^&]+)", page.url).group(1)


def test_a_wrong_seat_link_never_replaces_the_browsers_token(server, context, browser):
    """A link with a wrong token for a seat this browser holds: the server refuses it, the
    page says so, plays on with its own token, and storage keeps that token. In a browser
    that holds none, the refusal is said and nothing is stored. The creator sees its own seat's
    link, which opens the seat in another browser."""
    page, _, errors = open_page(context, f"http://{server.address}/")
    create_match(page, "poker_chess", {}, ["random"], 3)
    page.wait_for_selector("#status")
    match_id = match_id_of(page)
    good = stored_token(page, match_id, 0)
    assert good

    own = page.locator("#own-seat-link").get_attribute("href")
    assert own.endswith(f"&seat=0&token={good}")

    bad = f"http://{server.address}/#match={match_id}&seat=0&token=not-the-token"
    wrong, _, wrong_errors = open_page(context, bad)
    notice = wrong.locator("#link-notice")
    notice.wait_for()
    assert "refused for seat 0" in notice.text_content()
    assert "own token for the seat is kept" in notice.text_content()
    wrong.wait_for_selector("#status")
    assert "You play seat 0" in wrong.locator(".who").text_content()
    assert "token=" not in wrong.url
    assert stored_token(wrong, match_id, 0) == good
    wrong.reload()
    wrong.wait_for_selector("#status")
    assert wrong.locator("#link-notice").count() == 0
    assert stored_token(wrong, match_id, 0) == good

    other_context = web_context(browser)
    try:
        stranger, _, _ = open_page(other_context, bad)
        alert = stranger.locator("#link-notice")
        alert.wait_for()
        assert "refused for seat 0" in alert.text_content()
        assert "no token for seat 0" in stranger.locator("main").text_content()
        assert stored_token(stranger, match_id, 0) is None

        mine, _, mine_errors = open_page(other_context, own)
        mine.wait_for_selector("#status")
        assert "You play seat 0" in mine.locator(".who").text_content()
        assert stored_token(mine, match_id, 0) == good
        assert mine_errors == []
    finally:
        other_context.close()
    assert [e for e in errors + wrong_errors if "Failed to load resource" not in e] == []


def test_an_error_is_cleared_when_the_match_moves_on(server, context):
    """A move that failed (the call never reached the server) is said; once a later move goes
    through, the page no longer shows that stale error."""
    page, _, _ = open_page(context, f"http://{server.address}/")
    create_match(page, "poker_chess", {}, ["random"], 3)
    assert wait_turn_or_end(page)
    page.route("**/checkraise.v1.Matches/Act", lambda route: route.abort())
    sources = page.locator(".hand button.card-button, button.spot.source")
    sources.first.click()
    targets = page.locator("button.spot.target")
    if targets.count() > 0:
        targets.first.click()
    page.wait_for_function("() => document.getElementById('message').textContent !== ''")
    page.unroute("**/checkraise.v1.Matches/Act")
    assert wait_turn_or_end(page)
    play_one_move(page)  # asserts the message is empty once the version moved on
    assert page.locator("#message").text_content() == ""


def test_bots_of_every_kind_and_search_budget_can_be_chosen(server, context):
    """The seat menus offer the trained policy and IS-MCTS at two budgets, named in words; a
    match against IS-MCTS at 200 iterations is created with that spec and plays."""
    page, _, errors = open_page(context, f"http://{server.address}/")
    page.select_option("#game", "poker_chess")
    page.wait_for_selector("#seat-1")
    options = dict(
        zip(
            page.locator("#seat-1 option").evaluate_all("os => os.map(o => o.value)"),
            page.locator("#seat-1 option").all_text_contents(),
            strict=True,
        )
    )
    assert options["policy"] == "Bot: trained policy"
    assert options["br"] == "Bot: search that exploits the trained policy, 1,000 iterations"
    assert "cfr" not in options  # Poker Chess is far too large to solve
    assert options["ismcts(iterations=200)"] == "Bot: IS-MCTS search, 200 iterations"
    assert options["ismcts(iterations=1000)"] == "Bot: IS-MCTS search, 1,000 iterations"
    assert "ismcts" not in options
    # The search that reads the bets is offered only where it was measured to beat the heuristic.
    assert not any("belief" in value for value in options)
    create_match(page, "poker_chess", {}, ["ismcts(iterations=200)"], 3)
    page.wait_for_selector("#status")
    assert "ismcts(iterations=200," in page.locator(".seats").text_content()
    if wait_turn_or_end(page):
        play_one_move(page)
    assert errors == []


def test_detective_poker_offers_the_search_that_reads_the_bets(server, context):
    """Detective Poker's seat menus add IS-MCTS reading the other seats' bets with the heuristic
    as their model (the bot that beats the heuristic there); a match with it is created with
    that spec and plays."""
    page, _, errors = open_page(context, f"http://{server.address}/")
    page.select_option("#game", "detective_poker")
    page.wait_for_selector("#seat-1")
    reading = "ismcts(iterations=1000,rollout=random,belief=heuristic)"
    options = dict(
        zip(
            page.locator("#seat-1 option").evaluate_all("os => os.map(o => o.value)"),
            page.locator("#seat-1 option").all_text_contents(),
            strict=True,
        )
    )
    assert options[reading] == "Bot: IS-MCTS reading the bets, 1,000 iterations"
    assert options["ismcts(iterations=1000)"] == "Bot: IS-MCTS search, 1,000 iterations"
    create_match(page, "detective_poker", {}, [reading, "heuristic"], 3)
    page.wait_for_selector("#status")
    assert "belief=heuristic" in page.locator(".seats").text_content()
    if wait_turn_or_end(page):
        play_one_move(page)
    assert errors == []


def test_a_seat_without_its_token_is_explained(server, context):
    page, _, _ = open_page(context, f"http://{server.address}/#match=nope&seat=0")
    alert = page.locator("[role=alert]")
    alert.wait_for()
    assert "no token for seat 0" in alert.text_content()


def test_no_web_serves_grpc_only():
    from grpc_util import Server

    srv = Server("--no-web")
    try:
        import urllib.error
        import urllib.request

        with pytest.raises((urllib.error.URLError, ConnectionError)):
            urllib.request.urlopen(f"http://{srv.address}/", timeout=5)
    finally:
        assert srv.stop() == 0, srv.log()
