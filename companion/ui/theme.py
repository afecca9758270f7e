"""Colours, fonts and text drawing shared by every screen.

The players' colours and the status colours are the lights' own
(``hardware.looks``), so a flag on screen looks like the flag on the table.
Text uses the font shipped in ``fonts/`` (DejaVu Sans Condensed Bold, its
licence beside it): Latin Extended and Cyrillic, so Hungarian ő/ű, Czech ř/ě
and Russian render on a bare Pi OS Lite, the same as in the golden tests.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Final

import pygame

from companion.rules.cards import Colour
from hardware import looks
from hardware.states import FlagState

RGB = tuple[int, int, int]

BACKGROUND: Final[RGB] = (24, 28, 34)
PANEL: Final[RGB] = (38, 44, 54)
PANEL_LIGHT: Final[RGB] = (56, 64, 78)
LINE: Final[RGB] = (78, 88, 104)
TEXT: Final[RGB] = (236, 238, 242)
MUTED: Final[RGB] = (160, 168, 180)
GOOD: Final[RGB] = (92, 200, 120)
BAD: Final[RGB] = (236, 96, 88)
ACCENT: Final[RGB] = (96, 160, 240)
ENROL: Final[RGB] = (250, 204, 80)  # the zone and the card the enrolment asks for
FONT: Final = Path(__file__).parent / "fonts" / "DejaVuSansCondensed-Bold.ttf"
# Sizes are given as for pygame's default font, which renders at 0.6875 of the size
# asked; the same factor keeps every screen's text as large as it was designed.
FONT_SCALE: Final = 0.6875
LEGIBLE: Final = 0.7  # a text shrunk below this share of its size to fit does not fit

# Troop card faces: the six colours of the deck, dark enough for white figures.
CARD_COLOURS: Final[dict[Colour, RGB]] = {
    Colour.RED: (200, 40, 44),
    Colour.ORANGE: (232, 120, 24),
    Colour.YELLOW: (222, 184, 28),
    Colour.GREEN: (40, 150, 72),
    Colour.BLUE: (36, 96, 200),
    Colour.PURPLE: (128, 60, 170),
}
TACTIC_FACE: Final[RGB] = (44, 40, 36)
TACTIC_EDGE: Final[RGB] = (214, 178, 92)


def player_colour(player: str, colours: dict[str, RGB] | None = None) -> RGB:
    """A player's colour as the lights show it (claimed: full strength)."""
    table = colours or looks.DEFAULT_COLOURS
    rgb = table[player]
    return (int(rgb[0]), int(rgb[1]), int(rgb[2]))


def status_colour(state: FlagState, colours: dict[str, RGB] | None = None) -> RGB | None:
    """The colour a flag's light shows in ``state`` (None: off); dim is the lights' dim."""
    table = colours or looks.DEFAULT_COLOURS
    if state is FlagState.OFF:
        return None
    if state is FlagState.ATTENTION:
        return player_colour("attention", table)
    if state is FlagState.UNCERTAIN:
        return player_colour("uncertain", table)
    who = "north" if state in (FlagState.CLAIMED_NORTH, FlagState.CLAIMABLE_NORTH) else "south"
    return player_colour(who, table)


def is_dim(state: FlagState) -> bool:
    return state in (FlagState.CLAIMABLE_NORTH, FlagState.CLAIMABLE_SOUTH)


def mix(a: RGB, b: RGB, t: float) -> RGB:
    return (
        int(a[0] + (b[0] - a[0]) * t),
        int(a[1] + (b[1] - a[1]) * t),
        int(a[2] + (b[2] - a[2]) * t),
    )


def readable_on(rgb: RGB) -> RGB:
    """Black or white, whichever reads better on ``rgb``."""
    luminance = 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]
    return (16, 16, 16) if luminance > 150 else (255, 255, 255)


# Every text that did not fit its box since the last clear: cut short with "…", shrunk
# below LEGIBLE of its size, lines of a wrapped text left out, or drawn past the screen's
# edge. A screen is laid out for the longest language; the fit test draws every screen
# in every language and reads this.
unfit: list[str] = []


def did_not_fit(text: str) -> None:
    unfit.append(text)


@lru_cache(maxsize=64)
def font(size: int) -> pygame.font.Font:
    if not pygame.font.get_init():
        pygame.font.init()
    return pygame.font.Font(FONT, max(1, round(size * FONT_SCALE)))


@lru_cache(maxsize=2048)
def _rendered(text: str, size: int, colour: RGB) -> pygame.Surface:
    return font(size).render(text, True, colour)


def text_size(text: str, size: int) -> tuple[int, int]:
    w, h = font(size).size(text)
    return int(w), int(h)


def fit_size(text: str, size: int, width: int, smallest: int = 14) -> int:
    """The largest font size <= ``size`` at which ``text`` fits ``width``."""
    while size > smallest and text_size(text, size)[0] > width:
        size -= 2
    return size


def draw_text(
    surface: pygame.Surface,
    text: str,
    pos: tuple[int, int],
    size: int,
    colour: RGB = TEXT,
    *,
    anchor: str = "topleft",
    width: int | None = None,
) -> pygame.Rect:
    """Text at ``pos`` (``anchor`` as a pygame.Rect attribute); shrunk, then cut, to ``width``."""
    if width is not None:
        asked, size = size, fit_size(text, size, width)
        if text_size(text, size)[0] > width or size < asked * LEGIBLE:
            did_not_fit(text)
        while text and text_size(text, size)[0] > width:
            text = text[:-2] + "…" if len(text) > 2 else ""
    image = _rendered(text, size, colour)
    rect = image.get_rect(**{anchor: pos})
    if not surface.get_rect().contains(rect) and text.strip():
        did_not_fit(text)
    surface.blit(image, rect)
    return rect


def _pieces(word: str, size: int, width: int) -> list[str]:
    """A word too wide for ``width`` in pieces that fit, each but the last ending in "-"."""
    pieces: list[str] = []
    while text_size(word, size)[0] > width and len(word) > 2:
        cut = len(word) - 1
        while cut > 1 and text_size(word[:cut] + "-", size)[0] > width:
            cut -= 1
        pieces.append(word[:cut] + "-")
        word = word[cut:]
    return [*pieces, word]


def wrap(text: str, size: int, width: int, *, break_words: bool = False) -> list[str]:
    """``text`` in lines that fit ``width``; ``break_words`` hyphenates a word wider than
    a line (a card's name on a narrow card) where it would otherwise be cut."""
    lines: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        words = paragraph.split()
        if break_words:
            words = [piece for word in words for piece in _pieces(word, size, width)]
        for word in words:
            candidate = f"{line} {word}".strip()
            if text_size(candidate, size)[0] <= width or not line:
                line = candidate
            else:
                lines.append(line)
                line = word
        lines.append(line)
    return lines


def draw_wrapped(
    surface: pygame.Surface, text: str, rect: pygame.Rect, size: int, colour: RGB = TEXT
) -> int:
    """Text wrapped into ``rect``; returns the y below the last line drawn."""
    y = rect.top
    line_h = int(size * 0.9)
    for line in wrap(text, size, rect.width):
        if y + line_h > rect.bottom:
            did_not_fit(text)
            break
        draw_text(surface, line, (rect.left, y), size, colour, width=rect.width)
        y += line_h
    return y


def button(
    surface: pygame.Surface,
    rect: pygame.Rect,
    label: str,
    *,
    fill: RGB = PANEL_LIGHT,
    colour: RGB | None = None,
    size: int = 26,
    outline: RGB | None = None,
) -> pygame.Rect:
    pygame.draw.rect(surface, fill, rect, border_radius=10)
    if outline is not None:
        pygame.draw.rect(surface, outline, rect, width=3, border_radius=10)
    draw_text(surface, label, rect.center, size, colour or readable_on(fill), anchor="center",
              width=rect.width - 12)
    return rect
