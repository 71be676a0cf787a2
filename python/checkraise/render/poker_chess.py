"""The Poker Chess painter: the board between the two hands, the played card and the piles."""

from __future__ import annotations

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
    flip = view["viewer"] == 1
    seats = {entry["seat"]: entry for entry in view["seats"]}
    small_w, small_h = 30, 42

    def hand_row(seat: int, y: float) -> None:
        entry = seats[seat]
        _to_act_marker(canvas, _MARGIN + 16, y + 13, view, seat)
        canvas.text(
            _MARGIN + 20,
            y + 13,
            f"seat {seat} ({entry['color']})  {entry['points']} points",
            size=13,
            bold=True,
        )
        cards = entry["cards"]
        end = _cards_row(canvas, _MARGIN + 20, y + 20, cards, small_w, small_h)
        hidden = sum(1 for card in cards if card is None)
        if not cards:
            canvas.text(_MARGIN + 20, y + 20 + small_h - 14, "(no cards)", size=11, fill=_MUTED)
        elif hidden:
            canvas.text(end + 4, y + 20 + small_h - 4, f"{hidden} hidden", size=11, fill=_MUTED)

    top_seat, bottom_seat = (0, 1) if flip else (1, 0)
    hand_row(top_seat, top)
    board_y = top + 20 + small_h + 16
    highlights: dict[str, str] = {}
    moves = [event for event in view["events"] if event["kind"] == "move"]
    last_move = moves[-1] if moves else None
    if last_move is not None:
        for square in _squares_of(last_move):
            highlights[square] = _HIGHLIGHT
    right, bottom = _draw_chessboard(
        canvas, _MARGIN + 20, board_y, _board_pieces(view), flip, highlights
    )
    hand_row(bottom_seat, bottom + 22)
    x = right + 28
    y = top + 20
    canvas.text(x, y, f"phase: {view['phase']}", size=13, bold=True)
    y += 10
    played = view.get("played_card")  # absent when no card waits for its move
    if played is not None:
        canvas.text(x, y + 14, "played:", size=12)
        canvas.card(x + 56, y, played, small_w, small_h, highlight=_HIGHLIGHT)
        y += small_h + 8
    else:
        y += 12
    if last_move is not None:
        canvas.text(x, y + 14, f"last move: s{last_move['seat']} {last_move['uci']}", size=12)
        y += 22
    canvas.text(x, y + 14, f"draw pile: {view['deck_remaining']}", size=12)
    canvas.card(x + 110, y, None, small_w * 0.7, small_h * 0.7)
    y += 40
    discards = view["discards"]
    canvas.text(x, y + 10, f"discards ({len(discards)}):", size=12)
    y += 16
    per_row, dw, dh = 9, 24, 34
    for i, card in enumerate(discards):
        canvas.card(x + (i % per_row) * (dw + 2), y + (i // per_row) * (dh + 3), card, dw, dh)
    y += ((len(discards) + per_row - 1) // per_row) * (dh + 3) + 12
    _draw_result(canvas, x, y + 8, view)
