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
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from xml.sax.saxutils import escape, quoteattr

import numpy as np
import numpy.typing as npt

__all__ = ["Canvas", "Picture", "html", "picture", "rgb_array", "svg", "svg_from_view"]

# ---------------------------------------------------------------------------------------------
# Colours and sizes

_BACKGROUND = "#f7f5ef"
_INK = "#222222"
_MUTED = "#6b6b6b"
_FELT = "#2f6d4a"
_CARD_FACE = "#ffffff"
_CARD_EDGE = "#555555"
_CARD_BACK = "#2a4d8f"
_CARD_BACK_INNER = "#9fb6e0"
_RED_SUIT = "#c0392b"
_BLACK_SUIT = "#1b1b1b"
_HIGHLIGHT = "#f2b705"
_MY_MOVE = "#2e86de"
_DEATH = "#d63031"
_LIGHT_SQUARE = "#f0d9b5"
_DARK_SQUARE = "#b58863"
_SEAT_COLOURS = (
    "#d35400",
    "#2980b9",
    "#27ae60",
    "#8e44ad",
    "#c0392b",
    "#16a085",
    "#f39c12",
    "#7f8c8d",
    "#2c3e50",
    "#e84393",
)

_SUIT_SYMBOLS = {"c": "\u2663", "d": "\u2666", "h": "\u2665", "s": "\u2660"}
_PIECE_GLYPHS = {
    "k": "\u265a",
    "q": "\u265b",
    "r": "\u265c",
    "b": "\u265d",
    "n": "\u265e",
    "p": "\u265f",
}
_PIECE_NAMES = {"k": "king", "q": "queen", "r": "rook", "b": "bishop", "n": "knight", "p": "pawn"}
# What a raster font without these symbols draws instead.
_ASCII_FALLBACK = str.maketrans(
    {
        "\u2663": "c",
        "\u2666": "d",
        "\u2665": "h",
        "\u2660": "s",
        "\u265a": "K",
        "\u265b": "Q",
        "\u265c": "R",
        "\u265d": "B",
        "\u265e": "N",
        "\u265f": "P",
        "\u25b6": ">",
        "\u2713": "+",
        "\u2717": "x",
        "\u2192": "->",
        "\u2014": "-",
        "\u00d7": "x",
        "\u2605": "*",
    }
)

_CARD_W = 38
_CARD_H = 54
_MARGIN = 16
_HEADER_H = 56


def _seat_colour(seat: Any) -> str:
    """A stable colour per seat number (grey for anything else)."""
    if isinstance(seat, int) and seat >= 0:
        return _SEAT_COLOURS[seat % len(_SEAT_COLOURS)]
    return _MUTED


# ---------------------------------------------------------------------------------------------
# The shape list both back ends draw


@dataclass(frozen=True)
class _Rect:
    x: float
    y: float
    w: float
    h: float
    fill: str | None
    stroke: str | None
    stroke_width: float
    radius: float
    dashed: bool


@dataclass(frozen=True)
class _Text:
    x: float
    y: float
    text: str
    size: float
    fill: str
    anchor: str  # "start", "middle" or "end"; y is the baseline
    bold: bool
    mono: bool
    stroke: str | None


@dataclass(frozen=True)
class _Line:
    x1: float
    y1: float
    x2: float
    y2: float
    stroke: str
    width: float


@dataclass(frozen=True)
class _Circle:
    cx: float
    cy: float
    r: float
    fill: str | None
    stroke: str | None


@dataclass(frozen=True)
class _Card:
    """A playing card: ``card`` is its name (``Kd``, ``Th``, ``X1``), or None for face down."""

    x: float
    y: float
    w: float
    h: float
    card: str | None
    highlight: str | None
    back: str


_Shape = _Rect | _Text | _Line | _Circle | _Card


@dataclass
class Canvas:
    """A list of shapes that grows its own bounding box; written out as SVG or pixels."""

    shapes: list[_Shape] = field(default_factory=list)
    width: float = 0.0
    height: float = 0.0

    def include(self, x: float, y: float) -> None:
        """Grows the picture to include the point (x, y)."""
        self.width = max(self.width, x)
        self.height = max(self.height, y)

    def rect(
        self,
        x: float,
        y: float,
        w: float,
        h: float,
        fill: str | None = None,
        stroke: str | None = None,
        stroke_width: float = 1.0,
        radius: float = 0.0,
        dashed: bool = False,
    ) -> None:
        """A rectangle with its top-left corner at (x, y)."""
        self.shapes.append(_Rect(x, y, w, h, fill, stroke, stroke_width, radius, dashed))
        self.include(x + w, y + h)

    def text(
        self,
        x: float,
        y: float,
        text: str,
        size: float = 13,
        fill: str = _INK,
        anchor: str = "start",
        bold: bool = False,
        mono: bool = False,
        stroke: str | None = None,
    ) -> float:
        """A line of text with its baseline at y; returns its estimated width."""
        text = str(text)
        width = _text_width(text, size, mono)
        self.shapes.append(_Text(x, y, text, size, fill, anchor, bold, mono, stroke))
        right = {"start": x + width, "middle": x + width / 2, "end": x}[anchor]
        self.include(right, y + size * 0.3)
        return width

    def line(
        self, x1: float, y1: float, x2: float, y2: float, stroke: str = _INK, width: float = 1.0
    ) -> None:
        """A straight line."""
        self.shapes.append(_Line(x1, y1, x2, y2, stroke, width))
        self.include(max(x1, x2), max(y1, y2))

    def circle(
        self, cx: float, cy: float, r: float, fill: str | None = None, stroke: str | None = None
    ) -> None:
        """A circle."""
        self.shapes.append(_Circle(cx, cy, r, fill, stroke))
        self.include(cx + r, cy + r)

    def card(
        self,
        x: float,
        y: float,
        card: str | None,
        w: float = _CARD_W,
        h: float = _CARD_H,
        highlight: str | None = None,
        back: str = _CARD_BACK,
    ) -> None:
        """A card face up (``card`` its name) or face down (``card`` None)."""
        self.shapes.append(_Card(x, y, w, h, card, highlight, back))
        self.include(x + w, y + h)


def _text_width(text: str, size: float, mono: bool) -> float:
    """A rough width for layout (the back ends measure nothing)."""
    return len(text) * size * (0.61 if mono else 0.58)


def _card_parts(card: str) -> tuple[str, str, str]:
    """(rank text, suit symbol, colour) of a card name; jokers are ``X1``… (a star)."""
    card = str(card)
    if card[:1] in ("X", "x") and card[1:].isdigit():
        return "J" + card[1:], "\u2605", "#6c3483"
    if len(card) == 2 and card[1] in _SUIT_SYMBOLS:
        rank = "10" if card[0] == "T" else card[0]
        colour = _RED_SUIT if card[1] in "dh" else _BLACK_SUIT
        return rank, _SUIT_SYMBOLS[card[1]], colour
    return card, "", _INK


# ---------------------------------------------------------------------------------------------
# SVG back end

_SANS = "DejaVu Sans, Verdana, Arial, sans-serif"
_MONO = "DejaVu Sans Mono, Menlo, Consolas, monospace"


_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _xml(text: str) -> str:
    """Text escaped for an SVG element, characters XML forbids replaced."""
    return escape(_XML_INVALID.sub("\ufffd", str(text)))


def _attr(text: str) -> str:
    """A quoted, escaped XML attribute value."""
    return quoteattr(_XML_INVALID.sub("\ufffd", str(text)))


def _num(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _svg_text(shape: _Text) -> str:
    attrs = [
        f'x="{_num(shape.x)}"',
        f'y="{_num(shape.y)}"',
        f'font-size="{_num(shape.size)}"',
        f"font-family={_attr(_MONO if shape.mono else _SANS)}",
        f'fill="{shape.fill}"',
        f'text-anchor="{shape.anchor}"',
    ]
    if shape.bold:
        attrs.append('font-weight="bold"')
    if shape.stroke:
        attrs.append(f'stroke="{shape.stroke}" stroke-width="1" paint-order="stroke"')
    if shape.mono:
        attrs.append('xml:space="preserve"')
    return f"<text {' '.join(attrs)}>{_xml(shape.text)}</text>"


def _svg_card(shape: _Card) -> list[str]:
    x, y, w, h = shape.x, shape.y, shape.w, shape.h
    edge = shape.highlight or _CARD_EDGE
    edge_width = 3 if shape.highlight else 1
    radius = max(2.0, w / 10)
    if shape.card is None:
        return [
            '<g class="card-back">',
            (
                f'<rect x="{_num(x)}" y="{_num(y)}" width="{_num(w)}" height="{_num(h)}" '
                f'rx="{_num(radius)}" fill="{shape.back}" stroke="{edge}" '
                f'stroke-width="{edge_width}"/>'
            ),
            (
                f'<rect x="{_num(x + 4)}" y="{_num(y + 4)}" width="{_num(w - 8)}" '
                f'height="{_num(h - 8)}" rx="{_num(radius / 2)}" fill="none" '
                f'stroke="{_CARD_BACK_INNER}" stroke-width="1"/>'
            ),
            (
                f'<line x1="{_num(x + 4)}" y1="{_num(y + 4)}" x2="{_num(x + w - 4)}" '
                f'y2="{_num(y + h - 4)}" stroke="{_CARD_BACK_INNER}" stroke-width="1"/>'
            ),
            (
                f'<line x1="{_num(x + w - 4)}" y1="{_num(y + 4)}" x2="{_num(x + 4)}" '
                f'y2="{_num(y + h - 4)}" stroke="{_CARD_BACK_INNER}" stroke-width="1"/>'
            ),
            "</g>",
        ]
    rank, suit, colour = _card_parts(shape.card)
    parts = [
        f'<g class="card" data-card={_attr(str(shape.card))}>',
        f"<title>{_xml(str(shape.card))}</title>",
        (
            f'<rect x="{_num(x)}" y="{_num(y)}" width="{_num(w)}" height="{_num(h)}" '
            f'rx="{_num(radius)}" fill="{_CARD_FACE}" stroke="{edge}" stroke-width="{edge_width}"/>'
        ),
    ]
    for text in _card_texts(shape, rank, suit, colour):
        parts.append(_svg_text(text))
    parts.append("</g>")
    return parts


def _card_texts(shape: _Card, rank: str, suit: str, colour: str) -> list[_Text]:
    """The rank and suit lines printed on a face-up card (shared by both back ends)."""
    size = shape.h * 0.36
    cx = shape.x + shape.w / 2
    texts = [_Text(cx, shape.y + shape.h * 0.44, rank, size, colour, "middle", True, False, None)]
    if suit:
        texts.append(
            _Text(cx, shape.y + shape.h * 0.86, suit, size, colour, "middle", False, False, None)
        )
    return texts


def _to_svg(canvas: Canvas, game: str, renderer: str, viewer: Any, title: str) -> str:
    width = math.ceil(canvas.width + _MARGIN)
    height = math.ceil(canvas.height + _MARGIN)
    viewer_attr = "spectator" if viewer is None else str(viewer)
    out = [
        (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" class="checkraise" data-game={_attr(game)} '
            f"data-renderer={_attr(renderer)} data-viewer={_attr(viewer_attr)}>"
        ),
        f"<title>{_xml(title)}</title>",
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="{_BACKGROUND}"/>',
    ]
    for shape in canvas.shapes:
        if isinstance(shape, _Rect):
            attrs = [
                (
                    f'x="{_num(shape.x)}" y="{_num(shape.y)}" width="{_num(shape.w)}" '
                    f'height="{_num(shape.h)}"'
                ),
                f'fill="{shape.fill or "none"}"',
            ]
            if shape.radius:
                attrs.append(f'rx="{_num(shape.radius)}"')
            if shape.stroke:
                attrs.append(f'stroke="{shape.stroke}" stroke-width="{_num(shape.stroke_width)}"')
            if shape.dashed:
                attrs.append('stroke-dasharray="4 3"')
            out.append(f"<rect {' '.join(attrs)}/>")
        elif isinstance(shape, _Text):
            out.append(_svg_text(shape))
        elif isinstance(shape, _Line):
            out.append(
                f'<line x1="{_num(shape.x1)}" y1="{_num(shape.y1)}" x2="{_num(shape.x2)}" '
                f'y2="{_num(shape.y2)}" stroke="{shape.stroke}" '
                f'stroke-width="{_num(shape.width)}"/>'
            )
        elif isinstance(shape, _Circle):
            out.append(
                f'<circle cx="{_num(shape.cx)}" cy="{_num(shape.cy)}" r="{_num(shape.r)}" '
                f'fill="{shape.fill or "none"}"'
                + (f' stroke="{shape.stroke}"' if shape.stroke else "")
                + "/>"
            )
        else:
            out.extend(_svg_card(shape))
    out.append("</svg>")
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------
# Pillow back end


class _Fonts:
    """Pillow fonts by (size, bold, mono): DejaVu when installed, else Pillow's own font."""

    def __init__(self, image_font: Any) -> None:
        self._image_font = image_font
        self._cache: dict[tuple[int, bool, bool], tuple[Any, bool]] = {}

    def get(self, size: float, bold: bool, mono: bool) -> tuple[Any, bool]:
        """(font, whether it has the card and chess symbols)."""
        key = (max(6, round(size)), bold, mono)
        if key not in self._cache:
            names = (
                ["DejaVuSansMono-Bold.ttf", "DejaVuSansMono.ttf"]
                if mono and bold
                else ["DejaVuSansMono.ttf"]
                if mono
                else ["DejaVuSans-Bold.ttf", "DejaVuSans.ttf"]
                if bold
                else ["DejaVuSans.ttf"]
            )
            found = None
            for name in names:
                try:
                    found = (self._image_font.truetype(name, key[0]), True)
                    break
                except OSError:
                    continue
            if found is None:
                try:
                    found = (self._image_font.load_default(key[0]), False)
                except TypeError:  # Pillow without sized default fonts
                    found = (self._image_font.load_default(), False)
            self._cache[key] = found
        return self._cache[key]


_FONTS: _Fonts | None = None


def _pillow() -> tuple[Any, Any, _Fonts]:
    global _FONTS
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError as error:  # pragma: no cover - exercised only without Pillow
        raise ImportError(
            "checkraise.render.rgb_array draws with Pillow, which is not installed: "
            "pip install pillow (or pip install 'checkraise[render]')"
        ) from error
    if _FONTS is None:
        _FONTS = _Fonts(ImageFont)
    return Image, ImageDraw, _FONTS


def _rgb(colour: str) -> tuple[int, int, int]:
    colour = colour.lstrip("#")
    return int(colour[0:2], 16), int(colour[2:4], 16), int(colour[4:6], 16)


def _draw_text(draw: Any, fonts: _Fonts, shape: _Text) -> None:
    font, has_symbols = fonts.get(shape.size, shape.bold, shape.mono)
    text = shape.text if has_symbols else shape.text.translate(_ASCII_FALLBACK)
    text = text.encode("latin-1", "replace").decode("latin-1") if not has_symbols else text
    anchor = {"start": "ls", "middle": "ms", "end": "rs"}[shape.anchor]
    kwargs: dict[str, Any] = {}
    if shape.stroke:
        kwargs = {"stroke_width": 1, "stroke_fill": _rgb(shape.stroke)}
    draw.text((shape.x, shape.y), text, fill=_rgb(shape.fill), font=font, anchor=anchor, **kwargs)


def _dashed_rect(draw: Any, shape: _Rect) -> None:
    colour = _rgb(shape.stroke or _MUTED)
    x0, y0, x1, y1 = shape.x, shape.y, shape.x + shape.w, shape.y + shape.h
    for a, b, fixed, horizontal in ((x0, x1, y0, True), (x0, x1, y1, True)) + (
        (y0, y1, x0, False),
        (y0, y1, x1, False),
    ):
        pos = a
        while pos < b:
            end = min(pos + 4, b)
            if horizontal:
                draw.line([(pos, fixed), (end, fixed)], fill=colour, width=1)
            else:
                draw.line([(fixed, pos), (fixed, end)], fill=colour, width=1)
            pos += 7


def _to_rgb(canvas: Canvas) -> npt.NDArray[np.uint8]:
    image_module, draw_module, fonts = _pillow()
    width = math.ceil(canvas.width + _MARGIN)
    height = math.ceil(canvas.height + _MARGIN)
    image = image_module.new("RGB", (width, height), _rgb(_BACKGROUND))
    draw = draw_module.Draw(image)
    for shape in canvas.shapes:
        if isinstance(shape, _Rect):
            box = [shape.x, shape.y, shape.x + shape.w, shape.y + shape.h]
            fill = _rgb(shape.fill) if shape.fill else None
            outline = _rgb(shape.stroke) if shape.stroke and not shape.dashed else None
            width_px = max(1, round(shape.stroke_width))
            if shape.radius:
                draw.rounded_rectangle(
                    box, radius=shape.radius, fill=fill, outline=outline, width=width_px
                )
            else:
                draw.rectangle(box, fill=fill, outline=outline, width=width_px)
            if shape.dashed:
                _dashed_rect(draw, shape)
        elif isinstance(shape, _Text):
            _draw_text(draw, fonts, shape)
        elif isinstance(shape, _Line):
            draw.line(
                [(shape.x1, shape.y1), (shape.x2, shape.y2)],
                fill=_rgb(shape.stroke),
                width=max(1, round(shape.width)),
            )
        elif isinstance(shape, _Circle):
            draw.ellipse(
                [shape.cx - shape.r, shape.cy - shape.r, shape.cx + shape.r, shape.cy + shape.r],
                fill=_rgb(shape.fill) if shape.fill else None,
                outline=_rgb(shape.stroke) if shape.stroke else None,
            )
        else:
            box = [shape.x, shape.y, shape.x + shape.w, shape.y + shape.h]
            radius = max(2.0, shape.w / 10)
            edge = _rgb(shape.highlight or _CARD_EDGE)
            edge_width = 3 if shape.highlight else 1
            if shape.card is None:
                draw.rounded_rectangle(
                    box, radius=radius, fill=_rgb(shape.back), outline=edge, width=edge_width
                )
                inner = [shape.x + 4, shape.y + 4, shape.x + shape.w - 4, shape.y + shape.h - 4]
                draw.rounded_rectangle(inner, radius=radius / 2, outline=_rgb(_CARD_BACK_INNER))
                draw.line([(inner[0], inner[1]), (inner[2], inner[3])], fill=_rgb(_CARD_BACK_INNER))
                draw.line([(inner[2], inner[1]), (inner[0], inner[3])], fill=_rgb(_CARD_BACK_INNER))
            else:
                draw.rounded_rectangle(
                    box, radius=radius, fill=_rgb(_CARD_FACE), outline=edge, width=edge_width
                )
                rank, suit, colour = _card_parts(shape.card)
                for text in _card_texts(shape, rank, suit, colour):
                    _draw_text(draw, fonts, text)
    return np.asarray(image, dtype=np.uint8).copy()


# ---------------------------------------------------------------------------------------------
# Shared pieces of the pictures


def _seat_label(seat: Any) -> str:
    return f"s{seat}" if isinstance(seat, int) else "?"


def _turn_text(view: Mapping[str, Any]) -> str:
    """Whose turn, in words, from a view."""
    player = view.get("current_player")
    viewer = view.get("viewer")
    if view.get("terminal") or player == -4:
        return "game over"
    if player == -1:
        return "chance to act (dealing)"
    if player == -2:
        return "all seats choose at once"
    if isinstance(player, int) and player >= 0:
        return f"seat {player} to act" + (" (you)" if viewer == player else "")
    return "to act: unknown"


def _viewer_text(view: Mapping[str, Any]) -> str:
    viewer = view.get("viewer")
    return "spectator view" if viewer is None else f"seat {viewer}'s view"


def _format_number(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, float):
        return f"{value:.3g}"
    return str(value)


def _format_list(values: Any) -> str:
    if not isinstance(values, (list, tuple)):
        return str(values)
    return "[" + ", ".join(_format_number(v) for v in values) + "]"


def _header(canvas: Canvas, title: str, view: Mapping[str, Any]) -> float:
    """Title, viewer and whose turn across the top; returns the y where the body starts."""
    canvas.text(_MARGIN, 24, title, size=18, bold=True)
    canvas.text(
        _MARGIN, 44, f"{_viewer_text(view)}  \u2014  {_turn_text(view)}", size=12, fill=_MUTED
    )
    return _HEADER_H + 8


def _result_lines(view: Mapping[str, Any]) -> list[str]:
    """The final result as lines of text (empty while the game runs)."""
    if not view.get("terminal"):
        return []
    lines = ["Game over"]
    returns = view.get("returns")
    if (
        isinstance(returns, list)
        and returns
        and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in returns)
    ):
        lines.append(f"returns {_format_list(returns)}")
        best = max(returns)
        winners = [seat for seat, value in enumerate(returns) if value == best]
        if len(winners) == len(returns):
            lines.append("a draw")
        else:
            lines.append("won by " + ", ".join(f"seat {s}" for s in winners))
    return lines


def _draw_result(canvas: Canvas, x: float, y: float, view: Mapping[str, Any]) -> float:
    lines = _result_lines(view)
    for i, line in enumerate(lines):
        canvas.text(
            x,
            y + 16 * i,
            line,
            size=14 if i == 0 else 13,
            bold=i == 0,
            fill=_DEATH if i == 0 else _INK,
        )
    return y + 16 * len(lines)


def _to_act_marker(canvas: Canvas, x: float, y: float, view: Mapping[str, Any], seat: Any) -> None:
    """A triangle before the label of the seat to act."""
    if view.get("current_player") == seat and not view.get("terminal"):
        canvas.text(x, y, "\u25b6", size=12, fill=_HIGHLIGHT, anchor="end")


def _cards_row(
    canvas: Canvas,
    x: float,
    y: float,
    cards: Sequence[Any] | None,
    count: int = 0,
    w: float = _CARD_W,
    h: float = _CARD_H,
    gap: float = 4,
    back: str = _CARD_BACK,
) -> float:
    """Face-up ``cards``, or ``count`` face-down cards when ``cards`` is None; returns the end x."""
    if cards is None:
        faces: list[Any] = [None] * max(0, int(count or 0))
    else:
        faces = list(cards)
    for i, card in enumerate(faces):
        canvas.card(x + i * (w + gap), y, card, w, h, back=back)
    return x + len(faces) * (w + gap)


# ---------------------------------------------------------------------------------------------
# Pokeros


def _draw_pokeros(canvas: Canvas, view: Mapping[str, Any]) -> None:
    top = _header(canvas, "Pokeros", view)
    board = view.get("board") or []
    moves = view.get("moves") or []
    last = moves[-1] if moves else None
    cells = {(int(b["x"]), int(b["y"])): b.get("card") for b in board}
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
                highlight = None
                if last is not None and (last.get("x"), last.get("y")) == (gx, gy):
                    highlight = _HIGHLIGHT
                canvas.card(cx, cy, cells[(gx, gy)], cw, ch, highlight=highlight)
            else:
                canvas.rect(cx, cy, cw, ch, stroke="#cfcabb", radius=3, dashed=True)
    grid_bottom = grid_top + (max_y - min_y + 1) * (ch + gap)
    if not cells:
        canvas.text(left, grid_bottom + 14, "no card on the board yet", size=12, fill=_MUTED)
    panel_x = left + (max_x - min_x + 1) * (cw + gap) + 30
    y = top + 10
    points = view.get("points") or []
    for hand in view.get("hands") or []:
        seat = hand.get("seat")
        pts = points[seat] if isinstance(seat, int) and seat < len(points) else "?"
        _to_act_marker(canvas, panel_x - 4, y + 12, view, seat)
        canvas.text(panel_x, y + 12, f"seat {seat}", size=13, bold=True, fill=_seat_colour(seat))
        canvas.text(panel_x + 60, y + 12, f"{pts} points", size=13)
        cards = hand.get("cards")
        count = int(hand.get("count") or 0)
        end = _cards_row(canvas, panel_x, y + 20, cards, count)
        if cards is not None and not cards and count == 0:
            canvas.text(panel_x, y + 50, "(no cards)", size=11, fill=_MUTED)
        elif cards is None:
            canvas.text(end + 4, y + 50, f"{count} hidden", size=11, fill=_MUTED)
        y += 20 + _CARD_H + 16
    canvas.text(panel_x, y + 10, f"deck: {view.get('deck_remaining', '?')} cards", size=12)
    y += 28
    if last is not None:
        scored = (
            ", ".join(f"{h.get('hand')} ({h.get('score')})" for h in last.get("hands") or [])
            or "nothing"
        )
        canvas.text(
            panel_x,
            y,
            f"last: s{last.get('seat')} {last.get('card')}@{last.get('x')},{last.get('y')}",
            size=12,
        )
        canvas.text(panel_x, y + 16, f"scored {last.get('points', 0)}: {scored}", size=12)
        y += 36
    _draw_result(canvas, panel_x, y + 8, view)
    canvas.include(panel_x, grid_bottom)


# ---------------------------------------------------------------------------------------------
# Chess boards (Prediction Chess, Poker Chess)

_SQUARE = 44
_FILES = "abcdefgh"


def _fen_pieces(fen: str) -> dict[str, str]:
    """Square name → FEN piece letter, from a FEN's placement field."""
    pieces: dict[str, str] = {}
    placement = str(fen).split()[0] if fen else ""
    for rank_index, row in enumerate(placement.split("/")[:8]):
        file_index = 0
        for char in row:
            if char.isdigit():
                file_index += int(char)
            elif char.lower() in _PIECE_GLYPHS and file_index < 8:
                pieces[f"{_FILES[file_index]}{8 - rank_index}"] = char
                file_index += 1
    return pieces


def _board_pieces(view: Mapping[str, Any]) -> dict[str, str]:
    """The pieces of a chess view: its ``board`` field when present, else its FEN."""
    board = view.get("board")
    pieces: dict[str, str] = {}
    if isinstance(board, list) and board and isinstance(board[0], dict):
        for entry in board:
            square, piece = str(entry.get("square", "")), str(entry.get("piece", ""))
            if re.fullmatch(r"[a-h][1-8]", square) and piece.lower() in _PIECE_GLYPHS:
                pieces[square] = piece
        return pieces
    if isinstance(board, list) and len(board) == 8 and all(isinstance(r, str) for r in board):
        for rank_index, row in enumerate(board):
            for file_index, char in enumerate(row[:8]):
                if char.lower() in _PIECE_GLYPHS:
                    pieces[f"{_FILES[file_index]}{8 - rank_index}"] = char
        return pieces
    return _fen_pieces(str(view.get("fen") or ""))


def _squares_of(move: Any) -> list[str]:
    """The from and to squares of a UCI move string (nothing for ``pass``)."""
    match = re.match(r"([a-h][1-8])([a-h][1-8])", str(move or ""))
    return [match.group(1), match.group(2)] if match else []


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
        if re.fullmatch(r"[a-h][1-8]", square):
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
        if re.fullmatch(r"[a-h][1-8]", square):
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


# ---------------------------------------------------------------------------------------------
# Hold'em Poker Chess

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


# ---------------------------------------------------------------------------------------------
# Detective Poker

_ACTION_CARD_LABELS = {"+1": "+1", "clockwise": "CW", "bluff": "BL", "empty": "EM"}


def _action_card(canvas: Canvas, x: float, y: float, name: Any) -> None:
    """A small action card: its name, or face down when ``hidden``."""
    if name == "hidden" or name is None:
        canvas.card(x, y, None, 18, 24, back="#7d3c98")
        return
    canvas.rect(x, y, 18, 24, fill="#f5eef8", stroke="#7d3c98", radius=2)
    canvas.text(
        x + 9,
        y + 16,
        _ACTION_CARD_LABELS.get(str(name), str(name)[:2]),
        size=8,
        fill="#7d3c98",
        anchor="middle",
        bold=True,
    )


def _draw_detective_poker(canvas: Canvas, view: Mapping[str, Any]) -> None:
    top = _header(canvas, "Detective Poker", view)
    dealer = view.get("dealer")
    street = view.get("street")
    canvas.text(
        _MARGIN,
        top + 10,
        f"hand {view.get('hand', '?')}/{view.get('hands', '?')}, "
        f"dealer s{dealer}, {street or 'scored'}",
        size=13,
        bold=True,
    )
    y = top + 22
    panel_w = 168
    seats = [s for s in view.get("seats") or [] if isinstance(s, dict)]
    for i, seat_entry in enumerate(seats):
        seat = seat_entry.get("seat")
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
        canvas.text(
            px + panel_w - 8, y + 18, f"{seat_entry.get('points', 0)} pts", size=12, anchor="end"
        )
        for j, (key, label) in enumerate((("private", "private"), ("shown", "shown"))):
            cx = px + 10 + j * 48
            canvas.text(cx + _CARD_W / 2, y + 34, label, size=9, fill=_MUTED, anchor="middle")
            if seat_entry.get(f"{key}_dealt"):
                canvas.card(cx, y + 38, seat_entry.get(key))
            else:
                canvas.rect(cx, y + 38, _CARD_W, _CARD_H, stroke="#cfcabb", radius=3, dashed=True)
        chips = int(seat_entry.get("chips") or 0)
        canvas.text(px + 110, y + 34, f"chips {chips}", size=9, fill=_MUTED)
        for k in range(chips):
            canvas.circle(
                px + 114 + (k % 5) * 10, y + 44 + (k // 5) * 10, 4, fill="#e1b12c", stroke="#8c6d1f"
            )
        action_cards = seat_entry.get("action_cards")
        left_count = int(seat_entry.get("action_cards_left") or 0)
        canvas.text(px + 10, y + 110, f"action cards ({left_count}):", size=9, fill=_MUTED)
        names = action_cards if isinstance(action_cards, list) else ["hidden"] * left_count
        for k, name in enumerate(names):
            _action_card(canvas, px + 10 + k * 22, y + 116, name)
    y += 170
    board = list(view.get("board") or [])
    burns = view.get("burns")
    if not isinstance(burns, int):  # views from before the engine counted burns
        burns = {0: 0, 1: 1, 2: 1, 3: 1, 4: 2}.get(len(board), 3)
    canvas.text(_MARGIN, y + 12, "burns", size=10, fill=_MUTED)
    for k in range(burns):
        canvas.card(_MARGIN + k * 14, y + 18, None, _CARD_W * 0.8, _CARD_H * 0.8)
    bx = _MARGIN + 90
    canvas.text(bx, y + 12, "community cards", size=10, fill=_MUTED)
    for k in range(5):
        if k < len(board):
            canvas.card(bx + k * (_CARD_W + 6), y + 18, board[k])
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
    y += 6
    current_street = None
    y += 8
    for bet in view.get("bets") or []:
        if not isinstance(bet, dict):
            continue
        if bet.get("street") != current_street:
            current_street = bet.get("street")
            canvas.text(_MARGIN, y + 17, str(current_street), size=11, fill=_MUTED)
        bettor, target, amount = bet.get("bettor"), bet.get("board"), int(bet.get("amount") or 0)
        canvas.text(
            _MARGIN + 60,
            y + 17,
            f"s{bettor} \u2192 s{target}: {amount}",
            size=12,
            fill=_seat_colour(bettor),
        )
        for k in range(amount):
            canvas.circle(_MARGIN + 150 + k * 10, y + 13, 4, fill="#e1b12c", stroke="#8c6d1f")
        if bet.get("action_card") is not None:
            _action_card(
                canvas, _MARGIN + 150 + max(amount, 1) * 10 + 4, y + 1, bet.get("action_card")
            )
        y += 27
    if not view.get("bets"):
        canvas.text(_MARGIN, y + 12, "no bets yet in this hand", size=11, fill=_MUTED)
        y += 12
    y += 20
    scored = view.get("last_scored_hand")
    if isinstance(scored, dict):
        canvas.text(
            _MARGIN,
            y,
            f"last scored hand ({scored.get('hand')}): points {_format_list(scored.get('points'))}",
            size=12,
            bold=True,
        )
        y += 16
        private = scored.get("private") or []
        shown = scored.get("shown") or []
        for seat in range(max(len(private), len(shown))):
            cards = [
                private[seat] if seat < len(private) else "?",
                shown[seat] if seat < len(shown) else "?",
            ]
            canvas.text(_MARGIN + 8, y, f"s{seat}: {' '.join(map(str, cards))}", size=11)
            y += 14
        canvas.text(
            _MARGIN + 8, y, "board: " + " ".join(map(str, scored.get("board") or [])), size=11
        )
        y += 18
    _draw_result(canvas, _MARGIN, y + 6, view)


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
        lines = lines[:400] + [f"... ({len(lines) - 400} more lines)"]
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
