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


def _action_card(canvas: Canvas, x: float, y: float, name: str | None) -> None:
    """A small action card: its name, or face down when ``name`` is None."""
    if name is None:
        canvas.card(x, y, None, 18, 24, back="#7d3c98")
        return
    canvas.rect(x, y, 18, 24, fill="#f5eef8", stroke="#7d3c98", radius=2)
    canvas.text(
        x + 9,
        y + 16,
        _ACTION_CARD_LABELS[name],
        size=8,
        fill="#7d3c98",
        anchor="middle",
        bold=True,
    )


def _draw_detective_poker(canvas: Canvas, view: Mapping[str, Any]) -> None:
    top = _header(canvas, "Detective Poker", view)
    dealer = view["dealer"]
    canvas.text(
        _MARGIN,
        top + 10,
        f"hand {view['hand_number']}/{view['hands']}, "
        f"dealer s{dealer}, {view['street'] or 'scored'}",
        size=13,
        bold=True,
    )
    y = top + 22
    panel_w = 168
    for i, entry in enumerate(view["seats"]):
        seat = entry["seat"]
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
        canvas.text(px + panel_w - 8, y + 18, f"{entry['points']} pts", size=12, anchor="end")
        # A seat's cards are [private, shown], as far as they are dealt.
        for j, label in enumerate(("private", "shown")):
            cx = px + 10 + j * 48
            canvas.text(cx + _CARD_W / 2, y + 34, label, size=9, fill=_MUTED, anchor="middle")
            if j < entry["count"]:
                canvas.card(cx, y + 38, entry["cards"][j])
            else:
                canvas.rect(cx, y + 38, _CARD_W, _CARD_H, stroke="#cfcabb", radius=3, dashed=True)
        chips = entry["chips"]
        canvas.text(px + 110, y + 34, f"chips {chips}", size=9, fill=_MUTED)
        for k in range(chips):
            canvas.circle(
                px + 114 + (k % 5) * 10, y + 44 + (k // 5) * 10, 4, fill="#e1b12c", stroke="#8c6d1f"
            )
        action_cards = entry["action_cards"]
        canvas.text(px + 10, y + 110, f"action cards ({len(action_cards)}):", size=9, fill=_MUTED)
        for k, name in enumerate(action_cards):
            _action_card(canvas, px + 10 + k * 22, y + 116, name)
    y += 170
    community = view["community"]
    canvas.text(_MARGIN, y + 12, "burns", size=10, fill=_MUTED)
    for k in range(view["burns"]):
        canvas.card(_MARGIN + k * 14, y + 18, None, _CARD_W * 0.8, _CARD_H * 0.8)
    bx = _MARGIN + 90
    canvas.text(bx, y + 12, "community cards", size=10, fill=_MUTED)
    for k in range(5):
        if k < len(community):
            canvas.card(bx + k * (_CARD_W + 6), y + 18, community[k])
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
    y += 14
    current_street = None
    bets = view["bets"]
    for bet in bets:
        if bet["street"] != current_street:
            current_street = bet["street"]
            canvas.text(_MARGIN, y + 17, current_street, size=11, fill=_MUTED)
        bettor, amount = bet["seat"], bet["amount"]
        canvas.text(
            _MARGIN + 60,
            y + 17,
            f"s{bettor} \u2192 s{bet['target']}: {amount}",
            size=12,
            fill=_seat_colour(bettor),
        )
        for k in range(amount):
            canvas.circle(_MARGIN + 150 + k * 10, y + 13, 4, fill="#e1b12c", stroke="#8c6d1f")
        if "action_card" in bet:  # absent when the bet has no action card; null: face down
            _action_card(canvas, _MARGIN + 150 + max(amount, 1) * 10 + 4, y + 1, bet["action_card"])
        y += 27
    if not bets:
        canvas.text(_MARGIN, y + 12, "no bets yet in this hand", size=11, fill=_MUTED)
        y += 12
    y += 20
    scored = view["last_scored_hand"]
    if scored is not None:
        canvas.text(
            _MARGIN,
            y,
            f"last scored hand ({scored['hand_number']}): points {_format_list(scored['points'])}",
            size=12,
            bold=True,
        )
        y += 16
        for entry in scored["seats"]:
            canvas.text(_MARGIN + 8, y, f"s{entry['seat']}: {' '.join(entry['cards'])}", size=11)
            y += 14
        canvas.text(_MARGIN + 8, y, "board: " + " ".join(scored["community"]), size=11)
        y += 18
    _draw_result(canvas, _MARGIN, y + 6, view)
