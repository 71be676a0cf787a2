"""The drawing primitives every painter shares: colours, the shape list (:class:`Canvas`),
its two back ends (SVG text and Pillow pixels) and the pieces most pictures have in common
(the header, the final result, a row of cards).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from xml.sax.saxutils import escape, quoteattr

import numpy as np
import numpy.typing as npt

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
    """A playing card: ``card`` is its text (``Kd``, ``Th``, ``X1``), or None for face down."""

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
    for a, b, fixed, horizontal in (
        (x0, x1, y0, True),
        (x0, x1, y1, True),
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
    cards: Sequence[str | None],
    w: float = _CARD_W,
    h: float = _CARD_H,
    gap: float = 4,
    back: str = _CARD_BACK,
) -> float:
    """A row of cards as views list them (a card's text, None face down); returns the end x."""
    for i, card in enumerate(cards):
        canvas.card(x + i * (w + gap), y, card, w, h, back=back)
    return x + len(cards) * (w + gap)
