"""The Detective Poker painter: each seat's panel, the community cards and the bets."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._canvas import (
    _CARD_H,
    _CARD_W,
    _MARGIN,
    _MUTED,
    Canvas,
    _draw_result,
    _format_list,
    _header,
    _seat_colour,
    _to_act_marker,
)

_ACTION_CARD_LABELS = {"+1": "+1", "clockwise": "CW", "bluff": "BL", "empty": "EM"}


def _action_card(canvas: Canvas, x: float, y: float, name: Any) -> None:
    """A small action card: its name, or face down when ``hidden``."""
    if name == "hidden" or name is None:
        canvas.card(x, y, None, 18, 24, back="#7d3c98")
        return
    canvas.rect(x, y, 18, 24, fill="#f5eef8", stroke="#7d3c98", radius=2)
    canvas.text(
        x + 9,
        y + 16,
        _ACTION_CARD_LABELS.get(str(name), str(name)[:2]),
        size=8,
        fill="#7d3c98",
        anchor="middle",
        bold=True,
    )


def _draw_detective_poker(canvas: Canvas, view: Mapping[str, Any]) -> None:
    top = _header(canvas, "Detective Poker", view)
    dealer = view.get("dealer")
    street = view.get("street")
    canvas.text(
        _MARGIN,
        top + 10,
        f"hand {view.get('hand', '?')}/{view.get('hands', '?')}, "
        f"dealer s{dealer}, {street or 'scored'}",
        size=13,
        bold=True,
    )
    y = top + 22
    panel_w = 168
    seats = [s for s in view.get("seats") or [] if isinstance(s, dict)]
    for i, seat_entry in enumerate(seats):
        seat = seat_entry.get("seat")
        px = _MARGIN + i * (panel_w + 10)
        colour = _seat_colour(seat)
        canvas.rect(px, y, panel_w, 156, fill="#ffffff", stroke=colour, radius=6)
        _to_act_marker(canvas, px + 14, y + 18, view, seat)
        canvas.text(
            px + 16,
            y + 18,
            f"seat {seat}" + (" (D)" if seat == dealer else ""),
            size=13,
            bold=True,
            fill=colour,
        )
        canvas.text(
            px + panel_w - 8, y + 18, f"{seat_entry.get('points', 0)} pts", size=12, anchor="end"
        )
        for j, (key, label) in enumerate((("private", "private"), ("shown", "shown"))):
            cx = px + 10 + j * 48
            canvas.text(cx + _CARD_W / 2, y + 34, label, size=9, fill=_MUTED, anchor="middle")
            if seat_entry.get(f"{key}_dealt"):
                canvas.card(cx, y + 38, seat_entry.get(key))
            else:
                canvas.rect(cx, y + 38, _CARD_W, _CARD_H, stroke="#cfcabb", radius=3, dashed=True)
        chips = int(seat_entry.get("chips") or 0)
        canvas.text(px + 110, y + 34, f"chips {chips}", size=9, fill=_MUTED)
        for k in range(chips):
            canvas.circle(
                px + 114 + (k % 5) * 10, y + 44 + (k // 5) * 10, 4, fill="#e1b12c", stroke="#8c6d1f"
            )
        action_cards = seat_entry.get("action_cards")
        left_count = int(seat_entry.get("action_cards_left") or 0)
        canvas.text(px + 10, y + 110, f"action cards ({left_count}):", size=9, fill=_MUTED)
        names = action_cards if isinstance(action_cards, list) else ["hidden"] * left_count
        for k, name in enumerate(names):
            _action_card(canvas, px + 10 + k * 22, y + 116, name)
    y += 170
    board = list(view.get("board") or [])
    burns = view.get("burns")
    if not isinstance(burns, int):  # views from before the engine counted burns
        burns = {0: 0, 1: 1, 2: 1, 3: 1, 4: 2}.get(len(board), 3)
    canvas.text(_MARGIN, y + 12, "burns", size=10, fill=_MUTED)
    for k in range(burns):
        canvas.card(_MARGIN + k * 14, y + 18, None, _CARD_W * 0.8, _CARD_H * 0.8)
    bx = _MARGIN + 90
    canvas.text(bx, y + 12, "community cards", size=10, fill=_MUTED)
    for k in range(5):
        if k < len(board):
            canvas.card(bx + k * (_CARD_W + 6), y + 18, board[k])
        else:
            canvas.rect(
                bx + k * (_CARD_W + 6),
                y + 18,
                _CARD_W,
                _CARD_H,
                stroke="#cfcabb",
                radius=3,
                dashed=True,
            )
    y += 18 + _CARD_H + 18
    canvas.text(_MARGIN, y, "bets", size=13, bold=True)
    y += 6
    current_street = None
    y += 8
    for bet in view.get("bets") or []:
        if not isinstance(bet, dict):
            continue
        if bet.get("street") != current_street:
            current_street = bet.get("street")
            canvas.text(_MARGIN, y + 17, str(current_street), size=11, fill=_MUTED)
        bettor, target, amount = bet.get("bettor"), bet.get("board"), int(bet.get("amount") or 0)
        canvas.text(
            _MARGIN + 60,
            y + 17,
            f"s{bettor} \u2192 s{target}: {amount}",
            size=12,
            fill=_seat_colour(bettor),
        )
        for k in range(amount):
            canvas.circle(_MARGIN + 150 + k * 10, y + 13, 4, fill="#e1b12c", stroke="#8c6d1f")
        if bet.get("action_card") is not None:
            _action_card(
                canvas, _MARGIN + 150 + max(amount, 1) * 10 + 4, y + 1, bet.get("action_card")
            )
        y += 27
    if not view.get("bets"):
        canvas.text(_MARGIN, y + 12, "no bets yet in this hand", size=11, fill=_MUTED)
        y += 12
    y += 20
    scored = view.get("last_scored_hand")
    if isinstance(scored, dict):
        canvas.text(
            _MARGIN,
            y,
            f"last scored hand ({scored.get('hand')}): points {_format_list(scored.get('points'))}",
            size=12,
            bold=True,
        )
        y += 16
        private = scored.get("private") or []
        shown = scored.get("shown") or []
        for seat in range(max(len(private), len(shown))):
            cards = [
                private[seat] if seat < len(private) else "?",
                shown[seat] if seat < len(shown) else "?",
            ]
            canvas.text(_MARGIN + 8, y, f"s{seat}: {' '.join(map(str, cards))}", size=11)
            y += 14
        canvas.text(
            _MARGIN + 8, y, "board: " + " ".join(map(str, scored.get("board") or [])), size=11
        )
        y += 18
    _draw_result(canvas, _MARGIN, y + 6, view)
