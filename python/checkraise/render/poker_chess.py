"""The Poker Chess painter: the board between the two hands, the played card and the piles."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ._canvas import (
    _HIGHLIGHT,
    _MARGIN,
    _MUTED,
    Canvas,
    _cards_row,
    _draw_result,
    _header,
    _to_act_marker,
)
from ._chessboard import _board_pieces, _draw_chessboard, _squares_of


def _draw_poker_chess(canvas: Canvas, view: Mapping[str, Any]) -> None:
    top = _header(canvas, "Poker Chess", view)
    viewer = view.get("viewer")
    flip = viewer == 1
    hands = {h.get("seat"): h for h in view.get("hands") or [] if isinstance(h, dict)}
    points = view.get("points") or []
    small_w, small_h = 30, 42

    def hand_row(seat: int, y: float) -> None:
        hand = hands.get(seat, {})
        colour_name = hand.get("color", "white" if seat == 0 else "black")
        pts = points[seat] if seat < len(points) else "?"
        _to_act_marker(canvas, _MARGIN + 16, y + 13, view, seat)
        canvas.text(
            _MARGIN + 20, y + 13, f"seat {seat} ({colour_name})  {pts} points", size=13, bold=True
        )
        cards = hand.get("cards")
        count = int(hand.get("count") or 0)
        end = _cards_row(canvas, _MARGIN + 20, y + 20, cards, count, small_w, small_h)
        if cards is None:
            canvas.text(end + 4, y + 20 + small_h - 4, f"{count} hidden", size=11, fill=_MUTED)
        elif not cards:
            canvas.text(_MARGIN + 20, y + 20 + small_h - 14, "(no cards)", size=11, fill=_MUTED)

    top_seat, bottom_seat = (0, 1) if flip else (1, 0)
    hand_row(top_seat, top)
    board_y = top + 20 + small_h + 16
    highlights: dict[str, str] = {}
    last_move = None
    for event in view.get("events") or []:
        match = re.match(r"s(\d+) ([a-h][1-8][a-h][1-8][a-z]*)", str(event))
        if match:
            last_move = (int(match.group(1)), match.group(2))
    if last_move is not None:
        for square in _squares_of(last_move[1]):
            highlights[square] = _HIGHLIGHT
    right, bottom = _draw_chessboard(
        canvas, _MARGIN + 20, board_y, _board_pieces(view), flip, highlights
    )
    hand_row(bottom_seat, bottom + 22)
    x = right + 28
    y = top + 20
    step = view.get("step")
    canvas.text(x, y, f"step: {step or '-'}", size=13, bold=True)
    y += 10
    played = view.get("played_card")
    if played:
        canvas.text(x, y + 14, "played:", size=12)
        canvas.card(x + 56, y, played, small_w, small_h, highlight=_HIGHLIGHT)
        y += small_h + 8
    else:
        y += 12
    if last_move is not None:
        canvas.text(x, y + 14, f"last move: s{last_move[0]} {last_move[1]}", size=12)
        y += 22
    canvas.text(x, y + 14, f"draw pile: {view.get('pile_remaining', '?')}", size=12)
    canvas.card(x + 110, y, None, small_w * 0.7, small_h * 0.7)
    y += 40
    discards = list(view.get("discards") or [])
    canvas.text(x, y + 10, f"discards ({len(discards)}):", size=12)
    y += 16
    per_row, dw, dh = 9, 24, 34
    for i, card in enumerate(discards):
        canvas.card(x + (i % per_row) * (dw + 2), y + (i // per_row) * (dh + 3), card, dw, dh)
    y += ((len(discards) + per_row - 1) // per_row) * (dh + 3) + 12
    _draw_result(canvas, x, y + 8, view)
