"""A deck's cards share their layout: each card's outline squared to the others'.

Every card of a deck prints the same frame, border and index box in the same
place. A card whose outline was fitted a little off (a side taken on a line
printed inside it, or on the table's grain beyond it) shows that layout
displaced near that side. So each side is measured against the deck's median
card: near the top, say, the rows' horizontal edges are slid against the
median's until they line up, and the side moves by as much. A deck with no
shared lines near a side (a full-bleed picture) leaves that side where it was.

What a card prints of its own must not pull it: its art and title (kept out by
taking each place's median along the side), its suit's colours (each edge
counts by how clear it is, not how contrasted), a second line-up with the
layout somewhere else (taken over the outline's own only if clearly better).
(Exact cuts of tune designs 0-7 move 0.11 mm at most.)

Then each troop's corners are placed by its index, which prints its value alike in
every suit: a corner taken further out than squaring reaches, or on a face with no
shared lines, is put where the troop's index lines up with its value's other troops'.
"""

from __future__ import annotations

import math
from typing import Final

import cv2
import numpy as np

from companion.rules.cards import Tactic, Troop, parse_token
from companion.rules.errors import NotationError
from vision.reading.trust import troop_mark
from vision.types import FloatImage, Image

MARGIN_MM: Final = 4.0  # flattened beyond the outline, room for a side to move out
REACH_MM: Final = 3.0  # how far a side may move
REGION_MM: Final = 22.0  # the stretch inside each side whose lines place it
BEYOND_MM: Final = 1.0  # and beyond it: the card's own edge, whole (MARGIN_MM - REACH_MM at most)
PX_MM: Final = 4.0  # resolution the lines are compared at: a printed line's two edges apart
KNEE: Final = 60.0  # edge strength (Sobel, 8-bit) at which a line counts half: any
# clear line about alike, however contrasted (a yellow frame weighs its two edges unlike a red one)
SHARED: Final = 0.5  # correlation with the deck's lines under which a side is left alone
CLEARLY: Final = 0.2  # by how much a farther match must beat the outline's own peak: a
# title printed just under a card's edge, bolder than it, fits the layout's edge nearly as well
STILL: Final = 0.1  # mm: a side whose ends both measure nearer stays (about what a photo's
# shadow at the edge, or a suit's frame, shifts a measurement by)
NEAR: Final = 5  # px at PX_MM within which a peak is the outline's own (1.25 mm: a photo's
# outline lies that far inside a card's edge where the edge is faint against the table)
NEAR_TROOPS: Final = 8  # the same for troops (2 mm): a troop prints no title by its edge,
# and on a double frame its outline may lie on either line (vision/ROUNDS.md)
ROUNDS: Final = 2  # the median made again from the squared cards
LEAST: Final = 5  # cards printed alike from which their median says what they share
# An outline that lies off beyond what squaring moves (a corner taken on the table's
# pattern, the card flattened askew): half a side whose lines, squared, still match
# their layout's no better than ASTRAY, where the layout's cards match theirs at a
# median of WELL or more, and the card's other sides match it as well. Such a card
# would teach the reader a wrong picture of itself, so its photo is taken again.
ASTRAY: Final = 0.3
WELL: Final = 0.9
# A troop prints its layout all round, so a troop's side whose two halves both match
# it no better than LOOSE, where the layout's cards match at WELL and most troops of
# its value better than LOOSE, lies off whatever its other sides show: a card
# outlined round its picture panel (its header and footer cut off) matches its layout
# nowhere, one cut off its footer at that side alone. A deck's 10s may print a wider
# index box than its other numerals, unlike the layout at their ends (tune-142), and
# a tactic its own art at a side: only ASTRAY names those.
LOOSE: Final = 0.7
SIDES: Final = ("top", "bottom", "left", "right")  # as ``_profiles`` orders them, two halves each
# A troop's index prints its value alike in every suit: what a troop prints by each
# corner (INDEX_MM deep, half the card wide) is lined up with the median of its value's
# other troops there, where that matches clearly (phase correlation's response
# INDEX_CLEAR) and lies off by INDEX_STILL mm or more. It places a corner the outline put
# off further than squaring reaches, or on a face without shared lines (a full-bleed
# face). Art reaching into a centred index's corners, and each suit's own symbol beside
# it, matched at 0.35 to 0.55 and moved cards cut exactly (tune-252); corners truly off
# matched at 0.57 or more (vision/ROUNDS.md).
INDEX_MM: Final = 18.0
INDEX_CLEAR: Final = 0.5
INDEX_STILL: Final = 0.25
INDEX_ROUNDS: Final = 3


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


def _gradients(card: Image) -> tuple[FloatImage, FloatImage]:
    """How the lightly blurred grey of ``card`` steps down (y) and across (x)."""
    grey = cv2.GaussianBlur(cv2.cvtColor(card, cv2.COLOR_BGR2GRAY).astype(np.float32),
                            (0, 0), 0.7)
    return (cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3),
            cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3))


def _lines(card: Image) -> tuple[FloatImage, FloatImage]:
    """Horizontal and vertical edges of a card at PX_MM, each as strong as it is clear
    (saturating), not as contrasted."""
    rows, cols = (np.abs(g) for g in _gradients(card))
    return rows / (rows + KNEE), cols / (cols + KNEE)


def _slide(card: FloatImage, deck: FloatImage, reach: int, near: int = NEAR,
           ) -> tuple[float, float]:
    """The shift (px, to a fraction of one) that lines ``card``'s profile up with
    ``deck``'s (both the same length, ``reach`` px of room each end), and how well
    they then match (a peak within ``near`` px of no shift the outline's own)."""
    ref = deck[reach:len(deck) - reach]
    ref = ref - ref.mean()
    match = np.full(2 * reach + 1, -1.0)
    for i in range(len(match)):
        seg = card[i:len(card) - 2 * reach + i]
        seg = seg - seg.mean()
        den = float(np.linalg.norm(seg) * np.linalg.norm(ref))
        match[i] = float(seg @ ref) / den if den > 1e-6 else -1.0
    i = _peak(match, reach, near)
    if not 0 < i < len(match) - 1:
        return float(i - reach), float(match[i])
    # The peak between samples: a parabola through the best and its neighbours.
    a, b, c = match[i - 1:i + 2]
    curve = a - 2 * b + c
    frac = 0.5 * (a - c) / curve if curve < 0 else 0.0
    return float(i - reach + frac), float(b)


def _peak(match: FloatImage, home: int, near: int = NEAR) -> int:
    """The best of ``match``, unless a peak within ``near`` of ``home`` (no shift)
    matches nearly as well: a card's art may line up with the layout elsewhere too,
    and the outline is most often right."""
    best = int(np.argmax(match))
    peaks = [k for k in range(home - near, home + near + 1)
             if 0 < k < len(match) - 1 and match[k] >= max(match[k - 1], match[k + 1])]
    if not peaks:
        return best
    own = max(peaks, key=lambda k: match[k])
    return best if match[best] >= match[own] + CLEARLY else own


def _profiles(lines: tuple[FloatImage, FloatImage], w: int, h: int, m: int) -> FloatImage:
    """The lines across each side (top, bottom, left, right), on each of its two halves
    ((8, n)): REGION_MM inside the side and BEYOND_MM out, with REACH_MM of room each
    end. At each place across the side, the median along the half: the layout's
    lines run all along it, art crossing it here and there (a stroke, a numeral)
    drops out."""
    rows, cols = lines
    r, reach, out = (round(v * PX_MM) for v in (REGION_MM, REACH_MM, BEYOND_MM))
    halves_x = (slice(m + w // 10, m + w // 2 - w // 20), slice(m + w // 2 + w // 20, m + w - w // 10))
    halves_y = (slice(m + h // 10, m + h // 2 - h // 20), slice(m + h // 2 + h // 20, m + h - h // 10))
    starts = ((m - out, m + h - r), (m - out, m + w - r))  # top, bottom; left, right
    n = r + out + 2 * reach
    got = [np.median(rows[a - reach:a - reach + n, hx], axis=1)
           for a in starts[0] for hx in halves_x]
    got += [np.median(cols[hy, a - reach:a - reach + n], axis=0)
            for a in starts[1] for hy in halves_y]
    return np.stack(got).astype(np.float32)


def _offsets(card: FloatImage, deck: FloatImage, near: int = NEAR) -> FloatImage:
    """How far (px, image axes) each corner's side lies from where the outline put
    it, from the card's ``_profiles`` and its layout's: per corner (TL, TR, BR, BL)
    the shift across the top or bottom (y) and across the left or right side (x).
    Each side is measured on its two halves, so a card flattened turned is squared
    too; a side whose lines do not match the layout's stays."""
    reach = round(REACH_MM * PX_MM)
    centre = (0.3, 0.7)  # where along the side each half's middle lies
    out = np.zeros((4, 2), np.float32)  # per corner: (x shift, y shift)
    for k, (first, second, axis) in enumerate(((0, 1, 1), (3, 2, 1), (0, 3, 0), (1, 2, 0))):
        got = [_slide(card[2 * k + j], deck[2 * k + j], reach, near) for j in (0, 1)]
        ends = _ends(got[0][0], got[1][0], centre)
        if min(c for _, c in got) >= SHARED and max(map(abs, ends)) >= STILL * PX_MM:
            out[first, axis], out[second, axis] = ends
    return out


def _ends(g0: float, g1: float, at: tuple[float, float]) -> tuple[float, float]:
    """A side's shift at its two ends, from the shifts ``at`` two places along it."""
    slope = (g1 - g0) / (at[1] - at[0])
    return g0 - slope * at[0], g0 + slope * (1 - at[0])


def square_deck(cards: dict[str, Image], px_per_mm: float, card_w: float, card_h: float,
                sides: dict[str, FloatImage] | None = None) -> dict[str, Image]:
    """Each card (flattened with MARGIN_MM around its outline, at ``px_per_mm``) cut
    out where the deck's shared layout says its sides lie (``sides``: as ``deck_sides``
    measured them)."""
    if sides is None:
        sides = deck_sides(cards, px_per_mm, card_w, card_h)
    return {t: _cut(c, sides[t], px_per_mm, card_w, card_h) for t, c in cards.items()}


def astray(cards: dict[str, Image], sides: dict[str, FloatImage], px_per_mm: float,
           card_w: float, card_h: float) -> dict[str, str]:
    """The cards (flattened as for ``square_deck``, squared by ``sides``) whose outline
    lies off where their layout's lines agree, each with the side it lies off on. Only
    a layout of LEAST cards or more says so: a few cards' median says little."""
    profiles = _squared_profiles(_small(cards, px_per_mm), sides, card_w, card_h)
    reach = round(REACH_MM * PX_MM)
    out: dict[str, str] = {}
    for members in _layouts(cards).values():
        if len(members) < LEAST:
            continue
        layout = np.median(np.stack([profiles[t] for t in members]), axis=0)
        match = np.array([[_slide(profiles[t][k], layout[k], reach)[1] for k in range(8)]
                          for t in members])
        shared = np.median(match, axis=0) >= WELL
        troops = printed_alike(members[0]) == "troop"
        # Per value, the half-sides most of its troops match better than LOOSE.
        values = [troop_mark(t)[1] if troops else 0 for t in members]
        alike = {v: np.median(match[np.array(values) == v], axis=0) > LOOSE
                 for v in set(values)} if troops else {}
        for t, row, value in zip(members, match, values, strict=True):
            # A card unlike its layout all round may print its own art there (a
            # tactic); one that matches it on the rest of its sides was cut off at this
            # one. A troop prints its layout all round (LOOSE), as its value's do.
            off = shared & (row <= ASTRAY)
            if not off.any() or np.median(row) < WELL:
                if not troops:
                    continue
                loose = shared & alike[value] & (row <= LOOSE)
                off = np.repeat(loose.reshape(4, 2).all(axis=1), 2)
            if off.any():
                out[t] = SIDES[int(np.argmin(np.where(off, row, np.inf))) // 2]
    return out


def _small(cards: dict[str, Image], px_per_mm: float) -> dict[str, Image]:
    """The cards at PX_MM, where their lines are compared."""
    s = PX_MM / px_per_mm
    return {t: cv2.resize(c, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
            for t, c in cards.items()}


def _squared_profiles(small: dict[str, Image], sides: dict[str, FloatImage], card_w: float,
                      card_h: float) -> dict[str, FloatImage]:
    """Each card (at PX_MM) squared by its ``sides``, as ``_profiles`` of its lines."""
    m = round(MARGIN_MM * PX_MM)
    w, h = round(card_w * PX_MM), round(card_h * PX_MM)
    return {t: _profiles(_lines(_cut(c, sides[t], PX_MM, card_w, card_h, margin=True)),
                         w, h, m)
            for t, c in small.items()}


def _layouts(cards: dict[str, Image]) -> dict[str, list[str]]:
    """The deck's tokens by the layout they are printed to (``printed_alike``)."""
    groups: dict[str, list[str]] = {}
    for t in cards:
        groups.setdefault(printed_alike(t), []).append(t)
    return groups


def deck_sides(cards: dict[str, Image], px_per_mm: float, card_w: float, card_h: float,
               ) -> dict[str, FloatImage]:
    """Per card (flattened as for ``square_deck``), how far (mm, image axes) each of
    its corners (TL, TR, BR, BL) lies from where its outline put it."""
    small = _small(cards, px_per_mm)
    sides = {t: np.zeros((4, 2), np.float32) for t in cards}
    groups = _layouts(cards)
    # A median of a few cards says little of what they share: a layout of too few
    # is squared to the whole deck's, a deck of too few is left alone.
    alone = [t for v in groups.values() if len(v) < LEAST for t in v]
    refs = [v for v in groups.values() if len(v) >= LEAST]
    for _ in range(ROUNDS if len(cards) >= LEAST else 0):
        profiles = _squared_profiles(small, sides, card_w, card_h)
        for members, ref in [(v, v) for v in refs] + ([(alone, list(cards))] if alone else []):
            deck = np.median(np.stack([profiles[t] for t in ref]), axis=0)
            near = NEAR_TROOPS if members is not alone and printed_alike(members[0]) == "troop" \
                else NEAR
            for t in members:
                sides[t] = (sides[t] + _offsets(profiles[t], deck, near) / PX_MM).astype(np.float32)
    return _by_index(small, sides, card_w, card_h) if len(cards) >= LEAST else sides


def _by_index(small: dict[str, Image], sides: dict[str, FloatImage], card_w: float,
              card_h: float) -> dict[str, FloatImage]:
    """``sides`` with each troop's corners moved where what it prints by each (INDEX_MM
    deep, half the card wide) lines up with its value's other troops'."""
    values: dict[int, list[str]] = {}
    for t in small:
        colour, value = troop_mark(t)
        if colour >= 0:
            values.setdefault(value, []).append(t)
    rows, half = round(INDEX_MM * PX_MM), round(card_w * PX_MM) // 2
    height = round(card_h * PX_MM)
    # Per corner (TL, TR, BR, BL) the rows and columns of its quarter.
    quarters = [(slice(0, rows), slice(0, half)), (slice(0, rows), slice(half, 2 * half)),
                (slice(height - rows, height), slice(half, 2 * half)),
                (slice(height - rows, height), slice(0, half))]
    window = cv2.createHanningWindow((half, rows), cv2.CV_32F)
    out = dict(sides)
    for members in values.values():
        if len(members) < 3:  # the others' median needs two
            continue
        # A corner moved turns the quarters beside it a little too: measured again. A
        # corner stays within the flattened photo's margin (what lies beyond, it lacks).
        for _ in range(INDEX_ROUNDS):
            steps = {t: _edges(_cut(small[t], out[t], PX_MM, card_w, card_h))
                     for t in members}
            still = True
            for t in members:
                ref = np.median(np.stack([steps[o] for o in members if o != t]), axis=0)
                moved = out[t].copy()
                for k, at in enumerate(quarters):
                    (dx, dy), clear = cv2.phaseCorrelate(np.ascontiguousarray(ref[at]),
                                                         np.ascontiguousarray(steps[t][at]),
                                                         window)
                    dx, dy = dx / PX_MM, dy / PX_MM
                    if (clear >= INDEX_CLEAR and math.hypot(dx, dy) >= INDEX_STILL
                            and np.abs(moved[k] + (dx, dy)).max() < MARGIN_MM):
                        moved[k] += (dx, dy)
                        still = False
                out[t] = moved
            if still:
                break
    return out


def _edges(card: Image) -> FloatImage:
    """How strongly the grey of ``card`` steps at each pixel, over its mean: the index's
    strokes whatever their suit's colours (light on dark or dark on light)."""
    down, across = _gradients(card)
    step = cv2.magnitude(across, down)
    return np.asarray(step / (float(step.mean()) + 1e-6), np.float32)


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
