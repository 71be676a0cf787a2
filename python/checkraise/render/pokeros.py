"""The Pokeros painter: the card grid, each seat's hand and points, the last play."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._canvas import (
    _CARD_H,
    _HIGHLIGHT,
    _MARGIN,
    _MUTED,
    Canvas,
    _cards_row,
    _draw_result,
    _header,
    _seat_colour,
    _to_act_marker,
)


def _draw_pokeros(canvas: Canvas, view: Mapping[str, Any]) -> None:
    top = _header(canvas, "Pokeros", view)
    moves = view["moves"]
    last = moves[-1] if moves else None
    last_at = (last["cell"]["x"], last["cell"]["y"]) if last is not None else None
    cells = {(cell["x"], cell["y"]): cell["card"] for cell in view["board"]}
    xs = [x for x, _ in cells] or [0]
    ys = [y for _, y in cells] or [0]
    min_x, max_x, min_y, max_y = min(xs) - 1, max(xs) + 1, min(ys) - 1, max(ys) + 1
    cw, ch, gap = 36, 50, 3
    left = _MARGIN + 24
    grid_top = top + 16
    for gx in range(min_x, max_x + 1):
        canvas.text(
            left + (gx - min_x) * (cw + gap) + cw / 2,
            grid_top - 4,
            str(gx),
            size=10,
            fill=_MUTED,
            anchor="middle",
        )
    for gy in range(max_y, min_y - 1, -1):
        row = max_y - gy
        cy = grid_top + row * (ch + gap)
        canvas.text(left - 6, cy + ch / 2 + 4, str(gy), size=10, fill=_MUTED, anchor="end")
        for gx in range(min_x, max_x + 1):
            cx = left + (gx - min_x) * (cw + gap)
            if (gx, gy) in cells:
                highlight = _HIGHLIGHT if last_at == (gx, gy) else None
                canvas.card(cx, cy, cells[(gx, gy)], cw, ch, highlight=highlight)
            else:
                canvas.rect(cx, cy, cw, ch, stroke="#cfcabb", radius=3, dashed=True)
    grid_bottom = grid_top + (max_y - min_y + 1) * (ch + gap)
    if not cells:
        canvas.text(left, grid_bottom + 14, "no card on the board yet", size=12, fill=_MUTED)
    panel_x = left + (max_x - min_x + 1) * (cw + gap) + 30
    y = top + 10
    for entry in view["seats"]:
        seat = entry["seat"]
        _to_act_marker(canvas, panel_x - 4, y + 12, view, seat)
        canvas.text(panel_x, y + 12, f"seat {seat}", size=13, bold=True, fill=_seat_colour(seat))
        canvas.text(panel_x + 60, y + 12, f"{entry['points']} points", size=13)
        cards = entry["cards"]
        end = _cards_row(canvas, panel_x, y + 20, cards)
        hidden = sum(1 for card in cards if card is None)
        if not cards:
            canvas.text(panel_x, y + 50, "(no cards)", size=11, fill=_MUTED)
        elif hidden:
            canvas.text(end + 4, y + 50, f"{hidden} hidden", size=11, fill=_MUTED)
        y += 20 + _CARD_H + 16
    canvas.text(panel_x, y + 10, f"deck: {view['deck_remaining']} cards", size=12)
    y += 28
    if last is not None:
        cell = last["cell"]
        scored = ", ".join(f"{h['name']} ({h['score']})" for h in last["hands"]) or "nothing"
        canvas.text(
            panel_x, y, f"last: s{last['seat']} {cell['card']}@{cell['x']},{cell['y']}", size=12
        )
        canvas.text(panel_x, y + 16, f"scored {last['points']}: {scored}", size=12)
        y += 36
    _draw_result(canvas, panel_x, y + 8, view)
    canvas.include(panel_x, grid_bottom)
