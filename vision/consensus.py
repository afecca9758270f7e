"""A deck's cards share their layout: each card's outline squared to the others'.

Every card of a deck prints the same frame, border and index box in the same
place. A card whose outline was fitted a little off (a side taken on a line
printed inside it, or on the table's grain beyond it) shows that layout
displaced near that side. So each side is measured against the deck's median
card: near the top, say, the rows' horizontal edges are slid against the
median's until they line up, and the side moves by as much. A deck with no
shared lines near a side (a full-bleed picture) leaves that side where it was.
"""

from __future__ import annotations

from typing import Final

import cv2
import numpy as np

from companion.rules.cards import Tactic, Troop, parse_token
from companion.rules.errors import NotationError
from vision.types import FloatImage, Image

MARGIN_MM: Final = 4.0  # flattened beyond the outline, room for a side to move out
REACH_MM: Final = 3.0  # how far a side may move
REGION_MM: Final = 22.0  # the stretch inside each side whose lines place it
PX_MM: Final = 2.0  # resolution the lines are compared at
SHARED: Final = 0.5  # correlation with the deck's lines under which a side is left alone
ROUNDS: Final = 2  # the median made again from the squared cards
LEAST: Final = 5  # cards printed alike from which their median says what they share


def printed_alike(token: str, suits: bool = False) -> str:
    """The group of cards printed to one layout: the troops, the tactics, the terrain
    cards (a deck's own extra card stands alone). A tactic's frame need not be a
    troop's: squared to the troops' lines it would be squashed onto theirs. With
    ``suits``, a troop's colour and a tactic's kind stand apart too (printed alike
    down to their colours)."""
    try:
        card = parse_token(token)
    except NotationError:
        return token
    if isinstance(card, Troop):
        return f"troop {card.colour.name}" if suits else "troop"
    if isinstance(card, Tactic):
        return f"tactic {card.kind.name}" if suits else "tactic"
    return "terrain"


def _lines(card: Image) -> tuple[FloatImage, FloatImage]:
    """Horizontal and vertical edge strength of a card at PX_MM."""
    grey = cv2.GaussianBlur(cv2.cvtColor(card, cv2.COLOR_BGR2GRAY).astype(np.float32),
                            (0, 0), 0.7)
    return (np.abs(cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)),
            np.abs(cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)))


def _slide(card: FloatImage, deck: FloatImage, reach: int) -> tuple[int, float]:
    """The shift (px) that lines ``card``'s profile up with ``deck``'s (both the
    same length, ``reach`` px of room each end), and how well they then match."""
    ref = deck[reach:len(deck) - reach]
    ref = ref - ref.mean()
    best, best_c = 0, -1.0
    for d in range(-reach, reach + 1):
        seg = card[reach + d:len(card) - reach + d]
        seg = seg - seg.mean()
        den = float(np.linalg.norm(seg) * np.linalg.norm(ref))
        c = float(seg @ ref) / den if den > 1e-6 else -1.0
        if c > best_c:
            best, best_c = d, c
    return best, best_c


def _offsets(lines: tuple[FloatImage, FloatImage], deck: tuple[FloatImage, FloatImage],
             w: int, h: int, m: int) -> FloatImage:
    """How far (px, image axes) each corner's side lies from where the outline put
    it: per corner (TL, TR, BR, BL) the shift across the top or bottom (y) and
    across the left or right side (x). Each side is measured on its two halves,
    so a card flattened turned is squared too."""
    rows, cols = lines
    d_rows, d_cols = deck
    r, reach = round(REGION_MM * PX_MM), round(REACH_MM * PX_MM)
    halves_x = (slice(m + w // 10, m + w // 2 - w // 20), slice(m + w // 2 + w // 20, m + w - w // 10))
    halves_y = (slice(m + h // 10, m + h // 2 - h // 20), slice(m + h // 2 + h // 20, m + h - h // 10))
    centre = (0.3, 0.7)  # where along the side each half's middle lies
    out = np.zeros((4, 2), np.float32)  # per corner: (x shift, y shift)

    def shift(card: FloatImage, ref: FloatImage, a: int, b: int) -> float | None:
        d, c = _slide(card[a - reach:b + reach], ref[a - reach:b + reach], reach)
        return float(d) if c >= SHARED else None

    # Top and bottom: rows' profiles on the left and right halves.
    for (a, b), (first, second) in (((m, m + r), (0, 1)), ((m + h - r, m + h), (3, 2))):
        got = [shift(rows[:, hx].mean(axis=1), d_rows[:, hx].mean(axis=1), a, b)
               for hx in halves_x]
        if got[0] is not None and got[1] is not None:
            out[first, 1], out[second, 1] = _ends(got[0], got[1], centre)
    # Left and right: columns' profiles on the upper and lower halves.
    for (a, b), (first, second) in (((m, m + r), (0, 3)), ((m + w - r, m + w), (1, 2))):
        got = [shift(cols[hy].mean(axis=0), d_cols[hy].mean(axis=0), a, b) for hy in halves_y]
        if got[0] is not None and got[1] is not None:
            out[first, 0], out[second, 0] = _ends(got[0], got[1], centre)
    return out


def _ends(g0: float, g1: float, at: tuple[float, float]) -> tuple[float, float]:
    """A side's shift at its two ends, from the shifts ``at`` two places along it."""
    slope = (g1 - g0) / (at[1] - at[0])
    return g0 - slope * at[0], g0 + slope * (1 - at[0])


def square_deck(cards: dict[str, Image], px_per_mm: float, card_w: float, card_h: float,
                ) -> dict[str, Image]:
    """Each card (flattened with MARGIN_MM around its outline, at ``px_per_mm``) cut
    out where the deck's shared layout says its sides lie."""
    sides = deck_sides(cards, px_per_mm, card_w, card_h)
    return {t: _cut(c, sides[t], px_per_mm, card_w, card_h) for t, c in cards.items()}


def deck_sides(cards: dict[str, Image], px_per_mm: float, card_w: float, card_h: float,
               ) -> dict[str, FloatImage]:
    """Per card (flattened as for ``square_deck``), how far (mm, image axes) each of
    its corners (TL, TR, BR, BL) lies from where its outline put it."""
    s = PX_MM / px_per_mm
    m = round(MARGIN_MM * PX_MM)
    w, h = round(card_w * PX_MM), round(card_h * PX_MM)
    small = {t: cv2.resize(c, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
             for t, c in cards.items()}
    sides = {t: np.zeros((4, 2), np.float32) for t in cards}
    groups: dict[str, list[str]] = {}
    for t in cards:
        groups.setdefault(printed_alike(t), []).append(t)
    # A median of a few cards says little of what they share: a layout of too few
    # is squared to the whole deck's, a deck of too few is left alone.
    alone = [t for v in groups.values() if len(v) < LEAST for t in v]
    refs = [v for v in groups.values() if len(v) >= LEAST]
    for _ in range(ROUNDS if len(cards) >= LEAST else 0):
        squared = {t: _cut(c, sides[t], PX_MM, card_w, card_h, margin=True)
                   for t, c in small.items()}
        lines = {t: _lines(c) for t, c in squared.items()}
        for members, ref in [(v, v) for v in refs] + ([(alone, list(cards))] if alone else []):
            deck = (np.median(np.stack([lines[t][0] for t in ref]), axis=0),
                    np.median(np.stack([lines[t][1] for t in ref]), axis=0))
            for t in members:
                sides[t] = (sides[t] + _offsets(lines[t], deck, w, h, m) / PX_MM).astype(
                    np.float32)
    return sides


def _cut(card: Image, corners_mm: FloatImage, px_per_mm: float, card_w: float,
         card_h: float, margin: bool = False) -> Image:
    """The card within its corners moved by ``corners_mm`` ((4, 2): TL, TR, BR, BL,
    x and y in image axes, mm), upright, with MARGIN_MM around it if ``margin``."""
    m = MARGIN_MM * px_per_mm
    w, h = card_w * px_per_mm, card_h * px_per_mm
    at = np.array([[m, m], [m + w, m], [m + w, m + h], [m, m + h]], np.float32)
    src = (at + np.asarray(corners_mm, np.float32) * px_per_mm).astype(np.float32)
    extra = m if margin else 0.0
    dst = np.array([[extra, extra], [extra + w, extra], [extra + w, extra + h],
                    [extra, extra + h]], np.float32)
    size = (round(w + 2 * extra), round(h + 2 * extra))
    return cv2.warpPerspective(card, cv2.getPerspectiveTransform(src, dst), size,
                               flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
