"""An 8×8 chess board drawn from a view's ``board`` cells, shared by Prediction Chess and
Poker Chess."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ._canvas import (
    _DARK_SQUARE,
    _DEATH,
    _INK,
    _LIGHT_SQUARE,
    _MUTED,
    _PIECE_GLYPHS,
    Canvas,
)

_SQUARE = 44
_FILES = "abcdefgh"


def _board_pieces(view: Mapping[str, Any]) -> dict[str, str]:
    """Square name → FEN piece letter, from a chess view's ``board`` cells."""
    return {cell["square"]: cell["piece"] for cell in view["board"]}


def _squares_of(move: Mapping[str, Any] | None) -> list[str]:
    """The ``from`` and ``to`` squares of a view's move or prediction (nothing for a pass or
    no move)."""
    if not move or "from" not in move:
        return []
    return [move["from"], move["to"]]


def _draw_chessboard(
    canvas: Canvas,
    x: float,
    y: float,
    pieces: Mapping[str, str],
    flip: bool,
    highlights: Mapping[str, str],
    deaths: Sequence[str] = (),
) -> tuple[float, float]:
    """An 8×8 board, White at the bottom unless ``flip``; returns its (right, bottom)."""

    def origin(square: str) -> tuple[float, float]:
        file_index = _FILES.index(square[0])
        rank = int(square[1])
        col = 7 - file_index if flip else file_index
        row = rank - 1 if flip else 8 - rank
        return x + col * _SQUARE, y + row * _SQUARE

    for file_index in range(8):
        for rank in range(1, 9):
            square = f"{_FILES[file_index]}{rank}"
            sx, sy = origin(square)
            dark = (file_index + rank) % 2 == 1
            canvas.rect(sx, sy, _SQUARE, _SQUARE, fill=_DARK_SQUARE if dark else _LIGHT_SQUARE)
    for square, colour in highlights.items():
        sx, sy = origin(square)
        canvas.rect(sx + 2, sy + 2, _SQUARE - 4, _SQUARE - 4, stroke=colour, stroke_width=3)
    for square, piece in sorted(pieces.items()):
        sx, sy = origin(square)
        white = piece.isupper()
        canvas.text(
            sx + _SQUARE / 2,
            sy + _SQUARE * 0.8,
            _PIECE_GLYPHS[piece.lower()],
            size=_SQUARE * 0.8,
            fill="#ffffff" if white else "#111111",
            anchor="middle",
            stroke="#111111" if white else "#777777",
        )
    for square in deaths:
        sx, sy = origin(square)
        canvas.line(sx + 6, sy + 6, sx + _SQUARE - 6, sy + _SQUARE - 6, _DEATH, 3)
        canvas.line(sx + _SQUARE - 6, sy + 6, sx + 6, sy + _SQUARE - 6, _DEATH, 3)
    canvas.rect(x, y, 8 * _SQUARE, 8 * _SQUARE, stroke=_INK, stroke_width=1)
    for i in range(8):
        file_label = _FILES[7 - i] if flip else _FILES[i]
        rank_label = str(i + 1) if flip else str(8 - i)
        canvas.text(
            x + i * _SQUARE + _SQUARE / 2,
            y + 8 * _SQUARE + 14,
            file_label,
            size=11,
            fill=_MUTED,
            anchor="middle",
        )
        canvas.text(
            x - 6, y + i * _SQUARE + _SQUARE / 2 + 4, rank_label, size=11, fill=_MUTED, anchor="end"
        )
    return x + 8 * _SQUARE, y + 8 * _SQUARE
