"""The Hold'em Poker Chess painter: the card grid, the betting state and each seat's hole
cards."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._canvas import (
    _CARD_BACK,
    _FELT,
    _INK,
    _MARGIN,
    _MUTED,
    Canvas,
    _draw_result,
    _format_list,
    _header,
    _seat_colour,
    _seat_label,
    _to_act_marker,
)

_STREETS = {0: "preflop", 1: "flop", 2: "turn", 3: "river", 4: "game over"}


def _draw_holdem_chess(canvas: Canvas, view: Mapping[str, Any]) -> None:
    top = _header(canvas, "Hold'em Poker Chess", view)
    window = view.get("window") or {}
    x0, x1 = int(window.get("x0", -4)), int(window.get("x1", 8))
    y0, y1 = int(window.get("y0", -4)), int(window.get("y1", 4))
    cw, ch, gap = 32, 44, 3
    left = _MARGIN + 24
    grid_top = top + 18
    cards = {(int(c["x"]), int(c["y"])): c for c in view.get("grid") or [] if isinstance(c, dict)}
    for gx in range(x0, x1 + 1):
        canvas.text(
            left + (gx - x0) * (cw + gap) + cw / 2,
            grid_top - 4,
            str(gx),
            size=9,
            fill=_MUTED,
            anchor="middle",
        )
    community_cells = {(i, 0) for i in range(5)}
    for gy in range(y1, y0 - 1, -1):
        cy = grid_top + (y1 - gy) * (ch + gap)
        canvas.text(left - 6, cy + ch / 2 + 4, str(gy), size=9, fill=_MUTED, anchor="end")
        for gx in range(x0, x1 + 1):
            cx = left + (gx - x0) * (cw + gap)
            entry = cards.get((gx, gy))
            if entry is None:
                if (gx, gy) in community_cells:
                    canvas.rect(cx, cy, cw, ch, fill="#e3efe6", stroke=_FELT, radius=3, dashed=True)
                else:
                    canvas.rect(cx, cy, cw, ch, stroke="#d8d3c4", radius=3, dashed=True)
                continue
            owner = entry.get("owner")
            colour = _seat_colour(owner) if owner is not None else None
            canvas.card(
                cx, cy, entry.get("card"), cw, ch, highlight=colour, back=colour or _CARD_BACK
            )
            if owner is not None:
                canvas.text(
                    cx + cw - 2,
                    cy + ch - 2,
                    _seat_label(owner),
                    size=8,
                    fill=colour or _INK,
                    anchor="end",
                    bold=True,
                )
    grid_right = left + (x1 - x0 + 1) * (cw + gap)
    grid_bottom = grid_top + (y1 - y0 + 1) * (ch + gap)
    street = view.get("street")
    street_name = _STREETS.get(street, str(street)) if isinstance(street, int) else str(street)
    info_y = grid_bottom + 14
    hand, hands = view.get("hand"), view.get("hands")  # hand: 1-based
    canvas.text(
        left,
        info_y,
        f"hand {hand}/{hands}, "
        f"{street_name}, pot {view.get('pot', 0)}, bet {view.get('current_bet', 0)}, "
        f"min raise {view.get('min_raise', 0)}",
        size=13,
        bold=True,
    )
    community = view.get("community") or []
    canvas.text(
        left,
        info_y + 18,
        "community: " + (" ".join(map(str, community)) or "-"),
        size=12,
        fill=_MUTED,
    )
    if view.get("placement_turn"):
        canvas.text(
            left,
            info_y + 34,
            f"placement turn, {view.get('placed_this_turn', 0)} placed",
            size=12,
            fill=_MUTED,
        )
    x = grid_right + 28
    y = top + 8
    button = view.get("button")
    for seat_entry in view.get("seats") or []:
        seat = seat_entry.get("seat")
        colour = _seat_colour(seat)
        _to_act_marker(canvas, x - 4, y + 13, view, seat)
        label = f"seat {seat}" + (" (button)" if seat == button else "")
        canvas.text(x, y + 13, label, size=13, bold=True, fill=colour)
        status = []
        if not seat_entry.get("dealt", True):
            status.append("sitting out")
        if seat_entry.get("folded"):
            status.append("folded")
        if seat_entry.get("all_in"):
            status.append("all-in")
        canvas.text(
            x,
            y + 29,
            f"chips {seat_entry.get('chips', 0)}, bet "
            f"{seat_entry.get('street_bet', 0)}/{seat_entry.get('total_bet', 0)}"
            + (f", {', '.join(status)}" if status else ""),
            size=12,
        )
        hx = x
        for hole in seat_entry.get("hole") or []:
            if not isinstance(hole, dict):
                continue
            if hole.get("kept"):
                canvas.card(hx, y + 36, hole.get("card"), 28, 38, back=colour)
            else:
                canvas.rect(hx, y + 36, 28, 38, stroke=colour, radius=3, dashed=True)
                canvas.text(hx + 14, y + 59, "placed", size=7, fill=colour, anchor="middle")
            hx += 32
        y += 36 + 38 + 12
    results = view.get("results") or []
    if results and isinstance(results[-1], dict):
        result = results[-1]
        canvas.text(
            x,
            y + 12,
            f"hand {len(results)} result: won {_format_list(result.get('won'))}",
            size=12,
            bold=True,
        )
        y += 18
        for showdown in result.get("showdown") or []:
            canvas.text(x, y + 12, f"s{showdown.get('seat')}: {showdown.get('hand')}", size=11)
            canvas.text(
                x + 8, y + 26, " ".join(map(str, showdown.get("cards") or [])), size=11, fill=_MUTED
            )
            y += 30
        if not result.get("showdown"):
            canvas.text(x, y + 12, "won without a showdown", size=11, fill=_MUTED)
            y += 16
        y += 6
    _draw_result(canvas, x, y + 14, view)
    canvas.include(grid_right, info_y + 40)
