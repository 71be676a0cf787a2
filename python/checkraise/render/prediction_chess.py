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

_SIDES = ("white", "black")


def _move_text(move: Mapping[str, Any]) -> str:
    """A view's move as its action text: UCI, or ``pass``."""
    return move["uci"] if move["kind"] == "move" else "pass"


def _prediction_text(prediction: Mapping[str, Any]) -> str:
    """A view's prediction as its two squares (``e7e5``), or ``pass``."""
    return prediction["from"] + prediction["to"] if prediction["kind"] == "predict" else "pass"


def _draw_prediction_chess(canvas: Canvas, view: Mapping[str, Any]) -> None:
    top = _header(canvas, "Prediction Chess", view)
    turns = view["turns"]
    last = turns[-1] if turns else None
    highlights: dict[str, str] = {}
    deaths: list[str] = []
    if last is not None:
        for move in last["moves"]:
            for square in _squares_of(move):
                highlights[square] = _HIGHLIGHT
        deaths = [cell["square"] for cell in last["deaths"]]
    my_move = view["my_move"]
    for square in _squares_of(my_move):
        highlights[square] = _MY_MOVE
    board_x = _MARGIN + 20
    right, bottom = _draw_chessboard(
        canvas, board_x, top + 8, _board_pieces(view), view["viewer"] == 1, highlights, deaths
    )
    x = right + 28
    y = top + 20
    phase = view["phase"]
    canvas.text(x, y, f"turn {view['turn']}, phase: {phase}", size=13, bold=True)
    y += 18
    canvas.text(x, y, f"quiet turns: {view['quiet_turns']}", size=12, fill=_MUTED)
    y += 24
    if my_move:
        canvas.text(x, y, f"your move: {_move_text(my_move)}", size=13, fill=_MY_MOVE, bold=True)
        y += 20
    elif phase == "predict":
        canvas.text(x, y, "moves chosen, hidden until both predict", size=12, fill=_MUTED)
        y += 20
    if last is not None:
        canvas.text(x, y, f"last turn ({len(turns)}):", size=13, bold=True)
        y += 18
        for seat, side in enumerate(_SIDES):
            move = _move_text(last["moves"][seat])
            guess = _prediction_text(last["predictions"][seat])
            canvas.text(x, y, f"{side}: {move} (predicts {guess})", size=12)
            y += 16
            if last["predicted"][seat]:
                canvas.text(x + 12, y, f"\u2713 {side}'s move was predicted", size=12, fill=_DEATH)
                y += 16
        canvas.text(x, y, f"battles: {last['battles']}", size=12)
        y += 16
        died = [
            f"{_PIECE_NAMES[cell['piece'].lower()]} ({_SIDES[cell['owner']]}) on {cell['square']}"
            for cell in last["deaths"]
        ]
        for line in died or ["no deaths"]:
            canvas.text(
                x, y, ("\u2717 " if died else "") + line, size=12, fill=_DEATH if died else _MUTED
            )
            y += 16
        y += 8
    if view["terminal"]:
        winner = view["winner"]
        canvas.text(x, y, f"end: {view['end_reason']}", size=13)
        y += 18
        canvas.text(
            x,
            y,
            "a draw" if winner is None else f"winner: seat {winner} ({_SIDES[winner]})",
            size=13,
        )
        y += 20
    _draw_result(canvas, x, y + 4, view)
    canvas.include(right, bottom + 20)
