"""Drawing primitives for generated decks, all placed in millimetres.

Every size is given in mm and turned into pixels at the drawing scale, so a
design looks the same at any resolution. Icons and suit symbols are small
programs of filled polygons and strokes in a unit box ([-0.5, 0.5]², y down).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any, Final

import cv2
import numpy as np

from vision.types import Image

BGR = tuple[int, int, int]

# Hershey fonts and the ink height of their digits at scale 1 (measured).
FONTS: Final[dict[str, int]] = {
    "simplex": cv2.FONT_HERSHEY_SIMPLEX,
    "plain": cv2.FONT_HERSHEY_PLAIN,
    "duplex": cv2.FONT_HERSHEY_DUPLEX,
    "complex": cv2.FONT_HERSHEY_COMPLEX,
    "triplex": cv2.FONT_HERSHEY_TRIPLEX,
    "complex_small": cv2.FONT_HERSHEY_COMPLEX_SMALL,
    "script_simplex": cv2.FONT_HERSHEY_SCRIPT_SIMPLEX,
    "script_complex": cv2.FONT_HERSHEY_SCRIPT_COMPLEX,
}
_CAP: Final[dict[int, float]] = {0: 21.0, 1: 12.0, 2: 21.0, 3: 21.0, 4: 21.0, 5: 17.0,
                                  6: 19.5, 7: 19.5}
_REF: Final = 10.0  # px/mm at which layout is measured, so layout never depends on resolution


def _font(name: str, italic: bool) -> int:
    return FONTS[name] | (cv2.FONT_ITALIC if italic else 0)


def _scale_th(font: int, cap_px: float, weight: float) -> tuple[float, int]:
    """Scale and thickness putting the ink (strokes included) ``cap_px`` tall."""
    th = max(1, round(weight * cap_px))
    return max(cap_px - th, 1.0) / _CAP[font & 7], th


@functools.lru_cache(maxsize=4096)
def text_w_mm(txt: str, font: str, italic: bool, cap_mm: float, weight: float) -> float:
    """Ink width of ``txt`` at cap height ``cap_mm`` (resolution-independent)."""
    f = _font(font, italic)
    scale, th = _scale_th(f, cap_mm * _REF, weight)
    return cv2.getTextSize(txt, f, scale, th)[0][0] / _REF


def fit_cap(txt: str, font: str, italic: bool, cap_mm: float, weight: float,
            max_w_mm: float) -> float:
    """The cap height, at most ``cap_mm``, at which ``txt`` is no wider than ``max_w_mm``."""
    w = text_w_mm(txt, font, italic, cap_mm, weight)
    return cap_mm if w <= max_w_mm else cap_mm * max_w_mm / w


def text(img: Image, s: float, txt: str, x: float, y: float, cap_mm: float, colour: BGR,
         font: str, italic: bool, weight: float, anchor: str = "ct") -> None:
    """Text with its caps ``cap_mm`` tall; ``anchor`` is l/c/r then t (top) or m (middle)."""
    f = _font(font, italic)
    scale, th = _scale_th(f, cap_mm * s, weight)
    tw = cv2.getTextSize(txt, f, scale, th)[0][0]
    px = x * s - {"l": 0.0, "c": tw / 2, "r": tw}[anchor[0]]
    top = y * s if anchor[1] == "t" else y * s - cap_mm * s / 2
    org = (round(px + th / 2), round(top + cap_mm * s - th / 2))
    cv2.putText(img, txt, org, f, scale, colour, th, cv2.LINE_AA)


def pts(s: float, xy: Sequence[tuple[float, float]]) -> np.ndarray:
    return np.round(np.asarray(xy, np.float64) * s * 16).astype(np.int32)  # 4 fractional bits


def fill(img: Image, s: float, xy: Sequence[tuple[float, float]], colour: BGR) -> None:
    cv2.fillPoly(img, [pts(s, xy)], colour, cv2.LINE_AA, 4)


def stroke(img: Image, s: float, xy: Sequence[tuple[float, float]], colour: BGR, w_mm: float,
           closed: bool = False) -> None:
    cv2.polylines(img, [pts(s, xy)], closed, colour, max(1, round(w_mm * s)), cv2.LINE_AA, 4)


def disc(img: Image, s: float, x: float, y: float, r: float, colour: BGR,
         w_mm: float = -1.0) -> None:
    th = -1 if w_mm < 0 else max(1, round(w_mm * s))
    cv2.circle(img, (round(x * s * 16), round(y * s * 16)), round(r * s * 16), colour, th,
               cv2.LINE_AA, 4)


def rounded_rect(x0: float, y0: float, x1: float, y1: float, r: float,
                 n: int = 8) -> list[tuple[float, float]]:
    """The outline of a rounded rectangle as a polygon (mm)."""
    r = max(0.0, min(r, (x1 - x0) / 2, (y1 - y0) / 2))
    if r == 0:
        return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
    out: list[tuple[float, float]] = []
    for cx, cy, a0 in ((x1 - r, y0 + r, -90), (x1 - r, y1 - r, 0), (x0 + r, y1 - r, 90),
                       (x0 + r, y0 + r, 180)):
        for k in range(n + 1):
            a = math.radians(a0 + 90 * k / n)
            out.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return out


def _wave(y: float, x0: float = -0.45, x1: float = 0.45, amp: float = 0.07,
          n: int = 16) -> list[tuple[float, float]]:
    return [(x0 + (x1 - x0) * k / n, y + amp * math.sin(k / n * 4 * math.pi)) for k in range(n + 1)]


def _arc(cx: float, cy: float, rx: float, ry: float, a0: float, a1: float,
         n: int = 16) -> list[tuple[float, float]]:
    return [(cx + rx * math.cos(math.radians(a0 + (a1 - a0) * k / n)),
             cy + ry * math.sin(math.radians(a0 + (a1 - a0) * k / n))) for k in range(n + 1)]


def _star(n: int = 5, r0: float = 0.5, r1: float = 0.21) -> list[tuple[float, float]]:
    return [((r0 if k % 2 == 0 else r1) * math.sin(math.pi * k / n),
             -(r0 if k % 2 == 0 else r1) * math.cos(math.pi * k / n) + 0.04)
            for k in range(2 * n)]


_SHIELD: Final = [(-0.4, -0.45), (0.4, -0.45), (0.4, 0.0), *_arc(0.0, 0.0, 0.4, 0.48, 0, 180)[1:]]
_CROWN: Final = [(-0.45, 0.3), (-0.45, -0.3), (-0.22, 0.0), (0.0, -0.42), (0.22, 0.0),
                 (0.45, -0.3), (0.45, 0.3)]

# A program: (kind, points-or-args, filled). "poly" fills or strokes a polygon;
# "line" strokes an open line; "disc" is (cx, cy, r).
Prog = list[tuple[str, Any, bool]]

SYMBOLS: Final[dict[str, Prog]] = {
    "shield": [("poly", _SHIELD, True)],
    "star": [("poly", _star(), True)],
    "circle": [("disc", (0.0, 0.0, 0.45), True)],
    "diamond": [("poly", [(0.0, -0.5), (0.36, 0.0), (0.0, 0.5), (-0.36, 0.0)], True)],
    "crown": [("poly", _CROWN, True)],
    "triangle": [("poly", [(0.0, -0.45), (0.48, 0.4), (-0.48, 0.4)], True)],
}

_SUN: Prog = [("disc", (0.0, 0.0, 0.2), True)] + [
    ("line", [(0.28 * math.cos(a), 0.28 * math.sin(a)), (0.46 * math.cos(a), 0.46 * math.sin(a))],
     False) for a in np.linspace(0, 2 * math.pi, 9)[:-1]]
_ARROW_R: Final = [(-0.4, -0.2), (0.3, -0.2)]
ICONS: Final[dict[str, Prog]] = {
    # tactics
    "AL": [("poly", _CROWN, True), ("disc", (0.0, -0.42, 0.06), True)],
    "DA": _SUN,
    "CC": [("line", _arc(0.0, -0.02, 0.34, 0.36, 200, -20, 20), False),
           ("line", [(-0.32, 0.1), (-0.3, 0.42)], False), ("line", [(0.32, 0.1), (0.3, 0.42)], False)],
    "SB": [("poly", _SHIELD, False), ("line", [(0.0, -0.45), (0.0, 0.45)], False),
           ("line", [(-0.4, -0.1), (0.4, -0.1)], False)],
    "FOG": [("line", _wave(y), False) for y in (-0.28, 0.0, 0.28)],
    "MUD": [("poly", _arc(0.0, 0.3, 0.46, 0.16, 180, 360, 12), True),
            ("disc", (-0.25, -0.1, 0.09), True), ("disc", (0.05, -0.3, 0.09), True),
            ("disc", (0.28, -0.05, 0.09), True)],
    "SCOUT": [("poly", _arc(0.0, 0.3, 0.5, 0.55, 215, 325) + _arc(0.0, -0.3, 0.5, 0.55, 35, 145),
               False), ("disc", (0.0, 0.0, 0.13), True)],
    "REDEPLOY": [("line", _ARROW_R, False), ("poly", [(0.45, -0.2), (0.22, -0.36), (0.22, -0.04)], True),
                 ("line", [(0.4, 0.2), (-0.3, 0.2)], False),
                 ("poly", [(-0.45, 0.2), (-0.22, 0.04), (-0.22, 0.36)], True)],
    "DESERTER": [("line", [(0.05, -0.4), (-0.4, -0.4), (-0.4, 0.4), (0.05, 0.4)], False),
                 ("line", [(-0.2, 0.0), (0.3, 0.0)], False),
                 ("poly", [(0.5, 0.0), (0.25, -0.18), (0.25, 0.18)], True)],
    "TRAITOR": [("poly", [(0.42, -0.46), (0.46, -0.42), (-0.05, 0.12), (-0.12, 0.05)], True),
                ("line", [(-0.22, -0.02), (0.02, 0.22)], False),
                ("line", [(-0.1, 0.1), (-0.38, 0.38)], False)],
    # terrain
    "CASTLE": [("poly", [(-0.3, 0.4), (-0.3, -0.3), (-0.18, -0.3), (-0.18, -0.18), (-0.06, -0.18),
                         (-0.06, -0.3), (0.06, -0.3), (0.06, -0.18), (0.18, -0.18), (0.18, -0.3),
                         (0.3, -0.3), (0.3, 0.4)], True)],
    "MARSHES": [("line", [(-0.45, 0.35), (0.45, 0.35)], False)] + [
        ("line", [(x, 0.35), (x + 0.05, -0.2)], False) for x in (-0.25, 0.0, 0.25)] + [
        ("disc", (x + 0.05, -0.27, 0.06), True) for x in (-0.25, 0.0, 0.25)],
    "RIVER": [("line", [(0.12 * math.sin(k / 8 * 2 * math.pi) - 0.08, -0.45 + 0.9 * k / 16)
                        for k in range(17)], False),
              ("line", [(0.12 * math.sin(k / 8 * 2 * math.pi) + 0.14, -0.45 + 0.9 * k / 16)
                        for k in range(17)], False)],
    "WATCHTOWER": [("poly", [(-0.14, 0.45), (-0.14, -0.2), (-0.22, -0.2), (-0.22, -0.45),
                             (0.22, -0.45), (0.22, -0.2), (0.14, -0.2), (0.14, 0.45)], True)],
    "TOWN": [("poly", [(-0.45, 0.4), (-0.45, 0.0), (-0.25, -0.2), (-0.05, 0.0), (-0.05, 0.4)], True),
             ("poly", [(0.05, 0.4), (0.05, -0.1), (0.25, -0.35), (0.45, -0.1), (0.45, 0.4)], True)],
    "FIELDS": [("poly", [(-0.45, 0.35), (-0.2, -0.3), (0.45, -0.3), (0.2, 0.35)], False)] + [
        ("line", [(-0.2 + 0.13 * k, 0.35), (0.05 + 0.13 * k, -0.3)], False) for k in range(1, 4)],
    "FORTRESS": [("poly", [(-0.48, 0.4), (-0.48, -0.35), (-0.28, -0.35), (-0.28, -0.05),
                           (0.28, -0.05), (0.28, -0.35), (0.48, -0.35), (0.48, 0.4)], True)],
    "HILLS": [("poly", _arc(-0.15, 0.35, 0.33, 0.55, 180, 360, 12), True),
              ("poly", _arc(0.2, 0.35, 0.27, 0.38, 180, 360, 12), False)],
    "WOODLAND": [("poly", [(x - 0.16, 0.15), (x, -0.4), (x + 0.16, 0.15)], True) for x in (-0.3, 0.0, 0.3)]
    + [("line", [(x, 0.15), (x, 0.4)], False) for x in (-0.3, 0.0, 0.3)],
}


def draw_prog(img: Image, s: float, prog: Prog, cx: float, cy: float, size: float,
              colour: BGR, w_mm: float) -> None:
    """A symbol or icon centred on (cx, cy) mm, ``size`` mm tall; strokes ``w_mm`` wide."""
    def place(xy: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
        return [(cx + x * size, cy + y * size) for x, y in xy]
    for kind, arg, filled in prog:
        if kind == "disc":
            dx, dy, r = arg
            disc(img, s, cx + dx * size, cy + dy * size, r * size, colour, -1.0 if filled else w_mm)
        elif kind == "poly" and filled:
            fill(img, s, place(arg), colour)
        else:
            stroke(img, s, place(arg), colour, w_mm, closed=kind == "poly")


def pip_grid(img: Image, s: float, n: int, x: float, y: float, cols: int, d: float,
             colour: BGR, shape: Callable[[float, float], None] | None = None) -> None:
    """``n`` pips of diameter ``d`` in rows of ``cols``, the grid's top-left at (x, y)."""
    for i in range(n):
        r, c = divmod(i, cols)
        px, py = x + c * d * 1.4 + d / 2, y + r * d * 1.4 + d / 2
        if shape is None:
            disc(img, s, px, py, d / 2, colour)
        else:
            shape(px, py)
