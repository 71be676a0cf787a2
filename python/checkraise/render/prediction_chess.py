"""The Prediction Chess painter: the board, the last turn's moves, predictions and deaths."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._canvas import (
    _DEATH,
    _HIGHLIGHT,
    _MARGIN,
    _MUTED,
    _MY_MOVE,
    _PIECE_NAMES,
    Canvas,
    _draw_result,
    _header,
)
from ._chessboard import _board_pieces, _draw_chessboard, _squares_of


def _draw_prediction_chess(canvas: Canvas, view: Mapping[str, Any]) -> None:
    top = _header(canvas, "Prediction Chess", view)
    viewer = view.get("viewer")
    turns = view.get("turns") or []
    last = turns[-1] if turns else None
    highlights: dict[str, str] = {}
    deaths: list[str] = []
    if isinstance(last, dict):
        for move in last.get("moves") or []:
            for square in _squares_of(move):
                highlights[square] = _HIGHLIGHT
        deaths = [str(d.get("square")) for d in last.get("deaths") or [] if isinstance(d, dict)]
    my_move = view.get("my_move")
    for square in _squares_of(my_move):
        highlights[square] = _MY_MOVE
    board_x = _MARGIN + 20
    right, bottom = _draw_chessboard(
        canvas, board_x, top + 8, _board_pieces(view), viewer == 1, highlights, deaths
    )
    x = right + 28
    y = top + 20
    phase = view.get("phase")
    canvas.text(x, y, f"turn {view.get('turn', '?')}, phase: {phase}", size=13, bold=True)
    y += 18
    canvas.text(x, y, f"quiet turns: {view.get('quiet_turns', 0)}", size=12, fill=_MUTED)
    y += 24
    if my_move:
        canvas.text(x, y, f"your move: {my_move}", size=13, fill=_MY_MOVE, bold=True)
        y += 20
    elif phase == "predict":
        canvas.text(x, y, "moves chosen, hidden until both predict", size=12, fill=_MUTED)
        y += 20
    if isinstance(last, dict):
        canvas.text(x, y, f"last turn ({len(turns)}):", size=13, bold=True)
        y += 18
        moves = last.get("moves") or []
        predictions = last.get("predictions") or []
        predicted = last.get("predicted") or []
        for seat, colour_name in enumerate(("white", "black")):
            move = moves[seat] if seat < len(moves) else "?"
            guess = predictions[seat] if seat < len(predictions) else "?"
            was_predicted = seat < len(predicted) and bool(predicted[seat])
            canvas.text(x, y, f"{colour_name}: {move} (predicts {guess})", size=12)
            y += 16
            if was_predicted:
                canvas.text(
                    x + 12, y, f"\u2713 {colour_name}'s move was predicted", size=12, fill=_DEATH
                )
                y += 16
        canvas.text(x, y, f"battles: {last.get('battles', 0)}", size=12)
        y += 16
        died = [
            f"{_PIECE_NAMES.get(str(d.get('piece', '?')).lower(), '?')} "
            f"({'white' if str(d.get('piece', '')).isupper() else 'black'}) on {d.get('square')}"
            for d in last.get("deaths") or []
            if isinstance(d, dict)
        ]
        for line in died or ["no deaths"]:
            canvas.text(
                x, y, ("\u2717 " if died else "") + line, size=12, fill=_DEATH if died else _MUTED
            )
            y += 16
        y += 8
    if view.get("terminal"):
        reason = view.get("end_reason")
        winner = view.get("winner")
        canvas.text(x, y, f"end: {reason}", size=13)
        y += 18
        canvas.text(
            x,
            y,
            "a draw"
            if winner is None
            else f"winner: seat {winner} ({'white' if winner == 0 else 'black'})",
            size=13,
        )
        y += 20
    _draw_result(canvas, x, y + 4, view)
    canvas.include(right, bottom + 20)
