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


def _draw_holdem_chess(canvas: Canvas, view: Mapping[str, Any]) -> None:
    top = _header(canvas, "Hold'em Poker Chess", view)
    window = view["window"]
    x0, x1, y0, y1 = window["x0"], window["x1"], window["y0"], window["y1"]
    cw, ch, gap = 32, 44, 3
    left = _MARGIN + 24
    grid_top = top + 18
    cells = {(cell["x"], cell["y"]): cell for cell in view["board"]}
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
            cell = cells.get((gx, gy))
            if cell is None:
                if (gx, gy) in community_cells:
                    canvas.rect(cx, cy, cw, ch, fill="#e3efe6", stroke=_FELT, radius=3, dashed=True)
                else:
                    canvas.rect(cx, cy, cw, ch, stroke="#d8d3c4", radius=3, dashed=True)
                continue
            owner = cell.get("owner")  # absent on a community card
            colour = _seat_colour(owner) if owner is not None else None
            canvas.card(cx, cy, cell["card"], cw, ch, highlight=colour, back=colour or _CARD_BACK)
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
    info_y = grid_bottom + 14
    canvas.text(
        left,
        info_y,
        f"hand {view['hand_number']}/{view['hands']}, {view['street'] or 'game over'}, "
        f"pot {view['pot']}, bet {view['current_bet']}, min raise {view['min_raise']}",
        size=13,
        bold=True,
    )
    canvas.text(
        left,
        info_y + 18,
        "community: " + (" ".join(view["community"]) or "-"),
        size=12,
        fill=_MUTED,
    )
    if view["phase"] == "place":
        canvas.text(
            left,
            info_y + 34,
            f"placement turn, {view['placed_this_turn']} placed",
            size=12,
            fill=_MUTED,
        )
    x = grid_right + 28
    y = top + 8
    button = view["button"]
    for entry in view["seats"]:
        seat = entry["seat"]
        colour = _seat_colour(seat)
        _to_act_marker(canvas, x - 4, y + 13, view, seat)
        label = f"seat {seat}" + (" (button)" if seat == button else "")
        canvas.text(x, y + 13, label, size=13, bold=True, fill=colour)
        status = []
        if not entry["dealt"]:
            status.append("sitting out")
        if entry["folded"]:
            status.append("folded")
        if entry["all_in"]:
            status.append("all-in")
        canvas.text(
            x,
            y + 29,
            f"chips {entry['chips']}, bet {entry['street_bet']}/{entry['total_bet']}"
            + (f", {', '.join(status)}" if status else ""),
            size=12,
        )
        hx = x
        for card in entry["cards"]:
            canvas.card(hx, y + 36, card, 28, 38, back=colour)
            hx += 32
        for _ in range(2 - entry["count"] if entry["dealt"] else 0):
            canvas.rect(hx, y + 36, 28, 38, stroke=colour, radius=3, dashed=True)
            canvas.text(hx + 14, y + 59, "placed", size=7, fill=colour, anchor="middle")
            hx += 32
        y += 36 + 38 + 12
    results = view["results"]
    if results:
        result = results[-1]
        canvas.text(
            x,
            y + 12,
            f"hand {result['hand_number']} result: won {_format_list(result['won'])}",
            size=12,
            bold=True,
        )
        y += 18
        for showdown in result["showdown"]:
            canvas.text(x, y + 12, f"s{showdown['seat']}: {showdown['name']}", size=11)
            canvas.text(x + 8, y + 26, " ".join(showdown["cards"]), size=11, fill=_MUTED)
            y += 30
        if not result["showdown"]:
            canvas.text(x, y + 12, "won without a showdown", size=11, fill=_MUTED)
            y += 16
        y += 6
    _draw_result(canvas, x, y + 14, view)
    canvas.include(grid_right, info_y + 40)
