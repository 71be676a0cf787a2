"""Pictures of checkraise states: SVG for Jupyter and the web, RGB arrays for PettingZoo.

Every picture is drawn from ``state.view(seat)`` and nothing else, so a seat's picture shows
exactly what that seat may know: its own cards face up, everything it may not see face down.
``seat=None`` is a spectator (public information only)::

    import checkraise as cr
    state = cr.make("pokeros").new_initial_state()
    state.sample_chance(seed=0)
    cr.render.svg(state)              # the spectator's picture, an SVG document as text
    cr.render.picture(state, seat=0)  # seat 0's side; displays itself in Jupyter
    cr.render.rgb_array(state, 0)     # (H, W, 3) uint8, drawn with Pillow

Each game has a renderer keyed on the view's ``"game"`` field; a game without one (say, one
registered later) is drawn as its view's JSON in a monospace box. Both paths draw into one
list of shapes (:class:`Canvas`), which is written out as SVG or rasterized with Pillow, so
the two outputs show the same content.

The package follows one module per game: ``_canvas`` holds the shapes, both back ends and the
pieces every picture shares; ``pokeros``, ``prediction_chess``, ``poker_chess`` (both chess
games draw their board with ``_chessboard``), ``holdem_chess`` and ``detective_poker`` each
hold one game's painter; this module picks the painter and is the public API.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from ._canvas import (
    _MARGIN,
    _MUTED,
    Canvas,
    _draw_result,
    _header,
    _text_width,
    _to_rgb,
    _to_svg,
    _turn_text,
    _viewer_text,
    _xml,
)
from .detective_poker import _draw_detective_poker
from .holdem_chess import _draw_holdem_chess
from .poker_chess import _draw_poker_chess
from .pokeros import _draw_pokeros
from .prediction_chess import _draw_prediction_chess

__all__ = ["Canvas", "Picture", "html", "picture", "rgb_array", "svg", "svg_from_view"]

# ---------------------------------------------------------------------------------------------
# Any other game


def _draw_generic(canvas: Canvas, view: Mapping[str, Any]) -> None:
    """The view's JSON in a monospace box: enough for a game that has no renderer yet."""
    title = str(view.get("game", "unknown game"))
    top = _header(canvas, title, view)
    try:
        text = json.dumps(view, indent=1, sort_keys=True, default=str)
    except (TypeError, ValueError):
        text = repr(view)
    lines: list[str] = []
    for raw in text.splitlines():
        while len(raw) > 96:
            lines.append(raw[:96])
            raw = "  " + raw[96:]
        lines.append(raw)
    if len(lines) > 400:
        lines = [*lines[:400], f"... ({len(lines) - 400} more lines)"]
    height = 14 * len(lines) + 12
    width = max([_text_width(line, 11, True) for line in lines] + [200]) + 16
    canvas.rect(_MARGIN, top, width, height, fill="#ffffff", stroke=_MUTED, radius=4)
    for i, line in enumerate(lines):
        canvas.text(_MARGIN + 8, top + 16 + 14 * i, line, size=11, mono=True)
    _draw_result(canvas, _MARGIN, top + height + 20, view)


_RENDERERS: dict[str, Callable[[Canvas, Mapping[str, Any]], None]] = {
    "pokeros": _draw_pokeros,
    "prediction_chess": _draw_prediction_chess,
    "poker_chess": _draw_poker_chess,
    "holdem_chess": _draw_holdem_chess,
    "detective_poker": _draw_detective_poker,
}


# ---------------------------------------------------------------------------------------------
# Public API


def _draw_view(view: Mapping[str, Any]) -> tuple[Canvas, str]:
    """Draws a view with its game's renderer, or the generic one; never raises."""
    game = str(view.get("game", "")) if isinstance(view, Mapping) else ""
    renderer = _RENDERERS.get(game)
    if renderer is not None:
        canvas = Canvas()
        drawn = True
        try:
            renderer(canvas, view)
        except Exception:  # noqa: BLE001 - a picture must never fail; show the raw view
            drawn = False
        if drawn:
            return canvas, game
    canvas = Canvas()
    _draw_generic(canvas, view if isinstance(view, Mapping) else {"view": repr(view)})
    return canvas, "generic"


def _title(view: Mapping[str, Any]) -> str:
    return f"{view.get('game', 'unknown game')}: {_viewer_text(view)}, {_turn_text(view)}"


def svg_from_view(view: Mapping[str, Any]) -> str:
    """An SVG document drawn from a view dict (as ``state.view(seat)`` returns)."""
    canvas, renderer = _draw_view(view)
    return _to_svg(canvas, str(view.get("game", "")), renderer, view.get("viewer"), _title(view))


def svg(state: Any, seat: int | None = None) -> str:
    """A self-contained SVG picture of ``state`` as seat ``seat`` sees it (None: spectator).

    Only ``state.view(seat)`` is read, so nothing the seat may not see can appear. A bad seat
    raises the engine's ``InvalidSeatError``; any reachable state of any game draws.
    """
    return svg_from_view(state.view(seat))


def _caption(view: Mapping[str, Any]) -> str:
    return f"{view.get('game', 'unknown game')} \u2014 {_turn_text(view)}, {_viewer_text(view)}"


def _html_from_view(view: Mapping[str, Any]) -> str:
    return (
        '<figure class="checkraise-picture" style="margin:0">'
        + svg_from_view(view)
        + '<figcaption style="font-family:sans-serif;font-size:12px;color:#555">'
        + _xml(_caption(view))
        + "</figcaption></figure>"
    )


def html(state: Any, seat: int | None = None) -> str:
    """The SVG picture plus a caption (game, whose turn, whose view) as an HTML fragment."""
    return _html_from_view(state.view(seat))


def rgb_array(state: Any, seat: int | None = None) -> npt.NDArray[np.uint8]:
    """The picture as pixels, ``(height, width, 3)`` uint8, drawn with Pillow.

    Shows the same shapes as :func:`svg` (fonts and antialiasing differ). Needs Pillow
    (``pip install pillow``); raises ``ImportError`` saying so when it is missing.
    """
    view = state.view(seat)
    canvas, _ = _draw_view(view)
    return _to_rgb(canvas)


class Picture:
    """A state's picture for one seat (None: spectator) that displays itself in Jupyter.

    The view is read once, when the picture is made, so it keeps showing that moment.
    """

    def __init__(self, state: Any, seat: int | None = None) -> None:
        self.seat = seat
        self.view: dict[str, Any] = state.view(seat)

    @property
    def svg(self) -> str:
        """The SVG document."""
        return svg_from_view(self.view)

    def rgb_array(self) -> npt.NDArray[np.uint8]:
        """The picture as ``(height, width, 3)`` uint8 pixels (needs Pillow)."""
        canvas, _ = _draw_view(self.view)
        return _to_rgb(canvas)

    def _repr_svg_(self) -> str:
        """Jupyter's SVG display hook."""
        return self.svg

    def _repr_html_(self) -> str:
        """Jupyter's HTML display hook: the SVG with a caption."""
        return _html_from_view(self.view)

    def __repr__(self) -> str:
        return f"<checkraise picture: {_caption(self.view)}>"


def picture(state: Any, seat: int | None = None) -> Picture:
    """A :class:`Picture` of ``state`` for ``seat``; ``picture(state, 0)`` shows seat 0's side."""
    return Picture(state, seat)
