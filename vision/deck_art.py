"""Card faces drawn with OpenCV, in two art styles.

``companion`` is the deck we print: a big index band at the top (and, turned
round, at the bottom) holding the value as a numeral and as a pip bar on the
troop colour, so a covered card shows everything a reader needs.

``classic`` imitates a different physical deck (parchment face, coloured
frame, serif corner values, a unit name and a picture). The benchmark reads it
only through a profile enrolled from photos, proving the reader does not
depend on our own art.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Final, Literal, Protocol

import cv2
import numpy as np

from companion.rules.cards import (
    ALL_CARDS,
    UNIT_NAMES,
    Card,
    Colour,
    Tactic,
    Terrain,
    Troop,
    card_name,
)
from vision.mat import CARD_H, CARD_W
from vision.types import Image

Style = Literal["companion", "classic"]
STYLES: Final[tuple[Style, ...]] = ("companion", "classic")
BAND_MM: Final = 16.0  # the index band every covered card must leave visible

Face = Card | Terrain
ALL_FACES: Final[tuple[Face, ...]] = (*ALL_CARDS, *Terrain)

_BOLD: Final[dict[Colour, tuple[int, int, int]]] = {  # BGR
    Colour.RED: (40, 40, 215),
    Colour.ORANGE: (10, 130, 250),
    Colour.YELLOW: (20, 215, 250),
    Colour.GREEN: (60, 160, 30),
    Colour.BLUE: (195, 95, 15),
    Colour.PURPLE: (150, 40, 135),
}
_MUTED: Final[dict[Colour, tuple[int, int, int]]] = {
    Colour.RED: (45, 45, 160),
    Colour.ORANGE: (45, 115, 215),
    Colour.YELLOW: (70, 185, 215),
    Colour.GREEN: (70, 125, 55),
    Colour.BLUE: (140, 85, 35),
    Colour.PURPLE: (115, 55, 105),
}
_TACTIC_BAND: Final = (40, 40, 40)
_TERRAIN_BAND: Final = (40, 85, 120)

F_SANS: Final = cv2.FONT_HERSHEY_DUPLEX
F_SERIF: Final = cv2.FONT_HERSHEY_TRIPLEX


def face_token(face: Face) -> str:
    return face.token


def _text(img: Image, text: str, center: tuple[float, float], height_px: float,
          colour: tuple[int, int, int], font: int = F_SANS, thick: float = 0.12,
          max_w: float | None = None) -> None:
    """Text centred on ``center`` with cap height about ``height_px``."""
    th = max(1, round(height_px * thick))
    scale = height_px / 21.0
    (tw, tht), _ = cv2.getTextSize(text, font, scale, th)
    if max_w is not None and tw > max_w:
        scale *= max_w / tw
        (tw, tht), _ = cv2.getTextSize(text, font, scale, th)
    org = (round(center[0] - tw / 2), round(center[1] + tht / 2))
    cv2.putText(img, text, org, font, scale, colour, th, cv2.LINE_AA)


def _ink_for(bg: tuple[int, int, int]) -> tuple[int, int, int]:
    lum = 0.11 * bg[0] + 0.59 * bg[1] + 0.3 * bg[2]
    return (20, 20, 20) if lum > 150 else (255, 255, 255)


def _short(face: Face) -> str:
    if isinstance(face, Troop):
        return str(face.value)
    return face.token if len(face.token) <= 5 else face.token[:5]


def _companion_band(face: Face, w: int, h: int) -> Image:
    if isinstance(face, Troop):
        bg = _BOLD[face.colour]
    elif isinstance(face, Tactic):
        bg = _TACTIC_BAND
    else:
        bg = _TERRAIN_BAND
    ink = _ink_for(bg)
    band = np.empty((h, w, 3), np.uint8)
    band[:] = bg
    if isinstance(face, Troop):
        _text(band, str(face.value), (h * 0.85, h * 0.5), h * 0.62, ink, thick=0.16,
              max_w=h * 1.5)
        _text(band, face.colour.letter, (w - h * 0.55, h * 0.5), h * 0.55, ink, thick=0.16)
        # Pip bar, two rows of five: value v fills v cells, readable even when blurred.
        x0, x1 = h * 1.65, w - h * 1.1
        cell = (x1 - x0) / 5
        for i in range(face.value):
            row, col = divmod(i, 5)
            a = (round(x0 + col * cell + cell * 0.14), round(h * (0.2 + 0.34 * row)))
            b = (round(x0 + (col + 1) * cell - cell * 0.14), round(h * (0.46 + 0.34 * row)))
            cv2.rectangle(band, a, b, ink, -1)
    else:
        _text(band, face.token, (w / 2, h * 0.5), h * 0.5, ink, thick=0.14, max_w=w * 0.9)
    return band


def _companion(face: Face, s: float) -> Image:
    w, h = round(CARD_W * s), round(CARD_H * s)
    img = np.full((h, w, 3), 248, np.uint8)
    bh = round(BAND_MM * s)
    band = _companion_band(face, w, bh)
    img[:bh] = band
    img[h - bh:] = band[::-1, ::-1]
    name = card_name(face)
    _text(img, name.split(" (")[0], (w / 2, h * 0.42), 5 * s, (40, 40, 40), max_w=w * 0.85)
    sub = UNIT_NAMES[face.value] if isinstance(face, Troop) else "tactic"
    if isinstance(face, Terrain):
        sub = "terrain"
    _text(img, sub, (w / 2, h * 0.56), 3.2 * s, (90, 90, 90), max_w=w * 0.85)
    cv2.rectangle(img, (0, 0), (w - 1, h - 1), (60, 60, 60), max(1, round(0.4 * s)))
    return img


def _classic(face: Face, s: float) -> Image:
    w, h = round(CARD_W * s), round(CARD_H * s)
    img = np.empty((h, w, 3), np.uint8)
    img[:] = (196, 222, 236)  # parchment
    if isinstance(face, Troop):
        frame = _MUTED[face.colour]
    elif isinstance(face, Tactic):
        frame = (30, 30, 110)
    else:
        frame = (50, 100, 90)
    fw = round(3.5 * s)
    cv2.rectangle(img, (0, 0), (w - 1, h - 1), frame, fw * 2)
    # A picture: a seeded tangle of shapes in the card's colour family.
    rng = np.random.default_rng(zlib.crc32(face.token.encode()))
    pic = (round(8 * s), round(30 * s), w - round(8 * s), h - round(12 * s))
    cv2.rectangle(img, pic[:2], pic[2:], (150, 180, 200), -1)
    for _ in range(9):
        c = tuple(int(v) for v in np.clip(np.array(frame) + rng.integers(-60, 60, 3), 0, 255))
        p = (int(rng.integers(pic[0], pic[2])), int(rng.integers(pic[1], pic[3])))
        r = int(rng.integers(round(3 * s), round(10 * s)))
        cv2.circle(img, p, r, c, -1, cv2.LINE_AA)
    cv2.rectangle(img, pic[:2], pic[2:], frame, max(1, round(0.6 * s)))
    # Corner values in circles, name between them.
    label = _short(face)
    r = round(7.2 * s)
    for cx in (fw + r + round(1 * s), w - fw - r - round(1 * s)):
        cv2.circle(img, (cx, fw + r + round(1 * s)), r, frame, -1, cv2.LINE_AA)
        _text(img, label, (cx, fw + r + round(1 * s)), r * 1.1, (235, 245, 250), F_SERIF,
              thick=0.11, max_w=r * 1.7)
    if isinstance(face, Troop):
        _text(img, UNIT_NAMES[face.value], (w / 2, fw + r + round(1 * s)), 2.6 * s,
              (30, 30, 30), cv2.FONT_HERSHEY_COMPLEX_SMALL | cv2.FONT_ITALIC,
              max_w=w - 4 * r - 2 * fw)
    else:  # tactics and terrain carry their name big, in two lines if need be
        words = card_name(face).split()
        lines = [" ".join(words[: (len(words) + 1) // 2]), " ".join(words[(len(words) + 1) // 2:])]
        lines = [ln for ln in lines if ln]
        for i, ln in enumerate(lines):
            y = fw + r + round(1 * s) + (i - (len(lines) - 1) / 2) * 4.6 * s
            _text(img, ln.upper(), (w / 2, y), 3.6 * s, (30, 30, 30), F_SERIF, thick=0.14,
                  max_w=w - 2 * (fw + 2 * r + 2 * s))
    return img


def render_card(face: Face, style: Style = "companion", px_per_mm: float = 4.0) -> Image:
    """The card face, upright (index band at the top), BGR.

    Always drawn at print resolution and then scaled, so that strokes keep
    their proportions at any size, as a printed card's do.
    """
    draw_px = max(px_per_mm, 8.0)
    img = _companion(face, draw_px) if style == "companion" else _classic(face, draw_px)
    if draw_px == px_per_mm:
        return img
    size = (round(CARD_W * px_per_mm), round(CARD_H * px_per_mm))
    return cv2.resize(img, size, interpolation=cv2.INTER_AREA)


class CardArt(Protocol):
    """A deck's look: every face drawn upright (index at the top) at any resolution.

    Our two styles and the bench's generated designs (``vision.designs``) are
    all one to the scene renderer and the bench.
    """

    @property
    def name(self) -> str: ...

    @property
    def card_mm(self) -> tuple[float, float]:
        """(width, height) of a card in millimetres."""
        ...

    def render(self, face: Face, px_per_mm: float) -> Image:
        """The face upright, BGR, ``round(w * px_per_mm)`` x ``round(h * px_per_mm)``."""
        ...


@dataclass(frozen=True)
class StyleArt:
    """One of our own two styles as a ``CardArt``."""

    style: Style = "companion"

    @property
    def name(self) -> str:
        return self.style

    @property
    def card_mm(self) -> tuple[float, float]:
        return CARD_W, CARD_H

    def render(self, face: Face, px_per_mm: float) -> Image:
        return render_card(face, self.style, px_per_mm)


def as_art(art: Style | CardArt) -> CardArt:
    """A style name or an art, as an art."""
    return StyleArt(art) if isinstance(art, str) else art


def card_sheet(faces: tuple[Face, ...], style: Style | CardArt, px_per_mm: float,
               cols: int = 10) -> Image:
    """All faces side by side: a contact sheet for looking at a style."""
    art = as_art(style)
    cards = [art.render(f, px_per_mm) for f in faces]
    h, w = cards[0].shape[:2]
    rows = -(-len(cards) // cols)
    sheet = np.full((rows * (h + 4), cols * (w + 4), 3), 255, np.uint8)
    for i, c in enumerate(cards):
        y, x = divmod(i, cols)
        sheet[y * (h + 4):y * (h + 4) + h, x * (w + 4):x * (w + 4) + w] = c
    return sheet
