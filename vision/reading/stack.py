"""Finding the cards in a zone's stack on the low-resolution view.

Cards are told from the mat by colour (``zones.not_mat``); the stack's extent
then gives two card tops for sure: the first is the stack's top, the last lies
one card height above its bottom. Covered cards show as horizontal colour steps
in between, and so do lines in a card's art: which of these candidate tops are
cards is decided by reading their bands (``vision.read``). What a top's band is
asked for with (``Ask``) follows from the stack here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Final

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.mat import Zone
from vision.profile import TPL_PX, DeckProfile
from vision.reading.zones import (
    LOW_PX,
    ZONE_MARGIN,
    holes_filled,
    turned,
    zone_crop,
    zone_view,
)
from vision.types import FloatImage, Image

MIN_GAP_MM: Final = 12.0  # closest two fanned card tops can be: the band (16 mm) shows,
# less what a crooked card hides at one corner
PEAK_SEPARATION_MM: Final = 3.0  # candidate edges closer than this are one edge
COVER_SLACK_MM: Final = 3.0  # a crooked covering card hides this much more at one corner
MIN_EDGE: Final = 5.0  # colour step (sum of BGR levels) of a covered card's top edge
FIRST_TRIES: Final = 2  # edges tried above a stack's outline that is shorter than a card
SHORT_MM: Final = 8.0  # how far a stack's outline may fall short of its cards: a card's
# edge printed as pale as the mat (a frame of fine grey lines), softened, passes for mat
BOTTOM_MM: Final = 3.0  # how far off one card height below its top a bottom edge is sought
BOTTOM_RATIO: Final = 5.0  # how much more a card's bottom edge steps than a read below it
BOTTOM_EDGE: Final = 15.0  # least step of a bottom edge that says no card covers it
PALE_BOTTOM_MM: Final = 3.0  # how far a pale outline's bottom may lie from the stack's


def edge_rows(img: FloatImage, q: float = 0.2, spread: int = 5) -> FloatImage:
    """Per row boundary, how strongly the colour changes across most of the width.

    A low percentile over the columns, not the mean: a card's edge changes every
    column, a line of text or pips only some of them. Each column's change is
    spread over ``spread`` rows first, so a slightly crooked edge still counts.
    """
    # Channels summed by OpenCV: numpy's sum over a 3-channel axis is ten times slower.
    d = cv2.transform(cv2.absdiff(img[1:], img[:-1]), np.ones((1, 3), np.float32))
    if spread > 1:
        d = cv2.blur(d, (1, spread))
    k = int(q * (d.shape[1] - 1))
    return np.asarray(np.partition(d, k, axis=1)[:, k], np.float32)


def sums(mask: Image, axis: int) -> NDArray[np.int32]:
    """A 0/1 mask's sums along ``axis`` (1: per row), by OpenCV: numpy's are several
    times slower on masks this small."""
    return np.asarray(cv2.reduce(mask, axis, cv2.REDUCE_SUM, dtype=cv2.CV_32S).ravel())


def mostly(mask: Image) -> NDArray[np.bool_]:
    """Per column of a 0/1 mask, whether more than half of it is set."""
    return 2 * sums(mask, 0) > mask.shape[0]


def card_shaped(fg: Image, top: float, bottom: float) -> bool:
    """Whether what a zone's mask (``fg``, card tops up) holds from row ``top`` to
    ``bottom`` is card-wide in most of its rows."""
    block = fg[int(top):int(bottom)]
    return bool(len(block) and (block.mean(axis=0) > 0.8).sum() > 40)


def card_centre(covered: NDArray[np.bool_], card_w: float, fallback: float) -> float:
    """Where a card-wide window covers the most ``covered`` columns: robust to a
    neighbour's edge."""
    cw = round(card_w * LOW_PX)
    if np.count_nonzero(covered) < 10 or len(covered) <= cw:
        return fallback
    # Every window's count of covered columns, as differences of a running count.
    run = np.concatenate([[0], np.cumsum(covered, dtype=np.int32)])
    window = run[cw:] - run[:-cw]
    first, last = int(np.argmax(window)), len(window) - 1 - int(np.argmax(window[::-1]))
    return (first + last) / 2 + cw / 2


@dataclass(frozen=True)
class Ask:
    """A band a zone's reading asks to be read: where the zone view shows a card's
    top edge (row ``t``, centre ``cx``, zone-local low-res px), how much of the
    band shows, and whether the edge is certainly a card's."""

    zone: Zone
    t: float
    cx: float
    visible: float
    certain: bool


@dataclass(frozen=True)
class Stack:
    """The cards at a zone as its not-mat mask (``fg``, card tops up) shows them: the
    rows ``top`` to ``bottom``, the columns mostly covered there (``cols``, the first
    and last ``c0``, ``c1``), the strength of each row's edge (``grad``; empty with
    no room for a covered card) and the candidate tops (row, certainly a card's),
    first the stack's top."""

    zone: Zone
    fg: Image
    top: float
    bottom: float
    cols: NDArray[np.bool_]
    c0: int
    c1: int
    grad: FloatImage
    tops: list[tuple[float, bool]]
    profile: DeckProfile
    th: int  # a whole band's height in template px
    # Where else the stack's first top may lie, where its outline is shorter than a card:
    # all are read and the one that reads best as an index stands (``first_tops``).
    elsewhere: tuple[float, ...] = ()

    @property
    def middle(self) -> float:
        """The middle of the columns the stack covers."""
        return (self.c0 + self.c1 + 1) / 2

    def shown(self, t: float, below: float) -> tuple[float, int, int]:
        """All that the ask of the top at ``t`` (the next card found below it at
        ``below``) depends on: the top, where the rows its centre is taken over end,
        and its visible height in template px."""
        visible = min(self.profile.band_mm, below - t - COVER_SLACK_MM)
        return t, int(t + max(visible, 3)), min(self.th, max(int(visible * TPL_PX), 8))

    def ask(self, t: float, certain: bool, below: float) -> Ask:
        """The ask of the top at ``t``, the next card found below it at ``below``."""
        p = self.profile
        _, end, _ = self.shown(t, below)
        band_rows = self.fg[int(t) + 1:end]
        covered = mostly(band_rows) if len(band_rows) else self.cols
        return Ask(self.zone, t, card_centre(covered, p.card_w, self.middle),
                   min(p.band_mm, below - t - COVER_SLACK_MM), certain)

    def card_shaped(self, top: float) -> bool:
        """Whether what lies from ``top`` down is card-wide in most of its rows."""
        return card_shaped(self.fg, top, self.bottom)

    def bottom_edge(self, top: float) -> float | None:
        """How strongly the colour steps where the bottom edge of a card whose top is at
        ``top`` lies (one card height below it, give or take BOTTOM_MM); ``None`` where
        the view does not show all of that."""
        at = round(top + self.profile.card_h * LOW_PX)
        reach = round(BOTTOM_MM * LOW_PX)
        lo, hi = at - 1 - reach, at + reach  # grad[r - 1] steps into row r
        return float(self.grad[lo:hi].max()) if lo >= 0 and hi <= len(self.grad) else None

    def whole(self, above: float, last: float) -> bool:
        """Whether the card whose top is at ``above`` shows its bottom edge where a read
        below it, at ``last``, shows none: nothing covers that card, so the read below
        is a line in its art. Not said where the view does not show both."""
        edge, below = self.bottom_edge(above), self.bottom_edge(last)
        return (edge is not None and below is not None
                and edge >= max(BOTTOM_EDGE, BOTTOM_RATIO * below))

    def strongest_edges(self, lo: int, hi: int, k: int) -> list[float]:
        """Up to ``k`` top edges in rows ``lo`` to ``hi``, strongest first, one per edge;
        none beyond the zone's view (a card placed by its index may lie past it)."""
        # Row boundaries: grad[r - 1] steps into row r.
        rows = list(range(max(lo + 1, 1), min(hi + 2, len(self.grad) + 1)))
        return [float(r) for r in _one_per_edge(rows, self.grad, k)]


def _one_per_edge(rows: list[int], grad: FloatImage, k: int | None = None) -> list[int]:
    """The strongest of ``rows`` (row boundaries; ``grad[r - 1]`` their step), strongest
    first, each PEAK_SEPARATION_MM or more from a stronger one kept (one per edge);
    at most ``k``. Of equal steps the first row is kept."""
    strength = grad.tolist()
    chosen: list[int] = []
    for r in sorted(rows, key=lambda q: -strength[q - 1]):
        if all(abs(r - c) >= PEAK_SEPARATION_MM * LOW_PX for c in chosen):
            chosen.append(r)
            if len(chosen) == k:
                break
    return chosen


def _strongest(grad: FloatImage, lo: int, hi: int) -> float:
    """The row boundary in rows ``lo`` to ``hi`` of ``grad`` where the colour steps most."""
    return float(lo + np.argmax(grad[lo:hi + 1]) + 1)


def _grad(zone: Zone, colour_all: FloatImage, inner: slice) -> FloatImage:
    """Per row boundary of ``zone``'s view, how strongly its ``inner`` columns step."""
    grad = edge_rows(zone_view(zone, colour_all)[:, inner])
    return np.asarray(np.convolve(grad, [0.25, 0.5, 0.25], mode="same"), np.float32)


def outline(zone: Zone, fg_all: Image, profile: DeckProfile,
            holes: bool = False) -> tuple[Image, float, float] | None:
    """The zone's view of a not-mat mask (card tops up) and the first and last rows of
    its stack's outline, rows nearly half a card wide; ``None`` where there are too
    few such rows for a card's band. ``holes``: the view's holes no larger than a card
    filled (``zones.holes_filled``: a grey card on the grey mat shows in the pale mask
    as its light edge alone; the mat's printed zone outlines ring more)."""
    p = profile
    crop = zone_crop(zone, fg_all)
    # A stack shows at least two rows nearly half a card wide (below): with fewer
    # pixels set in the whole view, as most zones have, there is none to look for.
    if cv2.countNonZero(crop) < 2 * 0.45 * p.card_w * LOW_PX:
        return None
    if holes:
        crop = holes_filled(crop, p.card_w * p.card_h * LOW_PX ** 2)
    fg = turned(zone, crop)
    if zone.kind != "formation":
        # Beyond this zone's far end lies another zone's cards (a formation's
        # first card, the next pile): they are not part of this stack.
        fg = fg.copy()
        fg[round((ZONE_MARGIN + zone.rect.h + 1) * LOW_PX):] = 0
    rows = sums(fg, 1)
    ok = np.nonzero(rows >= 0.45 * p.card_w * LOW_PX)[0]
    if len(ok) == 0 or ok[-1] - ok[0] < p.band_mm * 0.8:
        return None
    return fg, float(ok[0]), float(ok[-1] + 1)


def find_stack(zone: Zone, fg_all: Image, colour_all: FloatImage, profile: DeckProfile,
               th: int, holes: bool = False) -> Stack | None:
    """The stack at ``zone`` in a frame's not-mat mask and true colours (top-down,
    ``zones``), or ``None`` where nothing there is card-shaped (``holes``: as
    ``outline`` takes it)."""
    p = profile
    found = outline(zone, fg_all, p, holes)
    if found is None:
        return None
    fg, top, bottom = found
    cols = mostly(fg[int(top):int(bottom)])
    ccols = np.nonzero(cols)[0]
    if len(ccols) < 10:
        return None
    c0, c1 = ccols[0], ccols[-1]
    inner = slice(int(c0 + 0.15 * (c1 - c0)), int(c1 - 0.15 * (c1 - c0)) + 1)
    # Tops: the stack's top, the last card one card height above the bottom, and
    # the horizontal edges in between.
    tops: list[tuple[float, bool]] = [(top, True)]
    last = bottom - p.card_h * LOW_PX
    grad: FloatImage = np.zeros(0, np.float32)
    short = SHORT_MM * LOW_PX
    if top + MIN_GAP_MM - short < last <= top + MIN_GAP_MM:
        # Longer than a card by more than its outline may fall short, yet too short
        # for two cards as the outline shows them: where the last card's top edge
        # steps most may be one (its band read says).
        grad = _grad(zone, colour_all, inner)
        lo, hi = int(top + MIN_GAP_MM), int(min(last + short, len(grad) - 1))
        if hi > lo:
            tops.append((_strongest(grad, lo, hi), False))
    elif last > top + MIN_GAP_MM:
        grad = _grad(zone, colour_all, inner)
        # The outline falls short of the last card's bottom edge as often as not.
        lo = int(max(last - 4, top + MIN_GAP_MM))
        hi = int(min(last + short, len(grad) - 1))
        last = _strongest(grad, lo, hi) if hi > lo else last
        between = grad[int(top + MIN_GAP_MM):int(last - MIN_GAP_MM + 1)]
        base = int(top + MIN_GAP_MM)
        mid = between[1:-1]
        peaks = (base + 2 + np.nonzero((mid >= between[:-2]) & (mid > between[2:])
                                       & (mid > MIN_EDGE))[0]).tolist()
        # Keep the strongest peaks, one per edge; which are cards is decided later.
        tops += [(float(c), False) for c in sorted(_one_per_edge(peaks, grad))]
        tops.append((last, True))
    elsewhere: tuple[float, ...] = ()
    if bottom - top < (p.card_h - SHORT_MM) * LOW_PX:
        grad = _grad(zone, colour_all, inner) if not len(grad) else grad
        elsewhere = first_tops(grad, top, bottom, p.card_h)
    return Stack(zone, fg, top, bottom, cols, c0, c1, grad, tops, p, th, elsewhere)


def pale_above(stack: Stack, pale: tuple[Image, float, float] | None) -> tuple[Stack, float]:
    """A formation's stack with its pale outline (``outline`` of the pale mask) as well,
    and the row above which a card shows in the pale mask only (such a card stands
    where it is named: glare and shadows show there too, and would read as cards that
    ask). Where the pale outline starts MIN_GAP_MM or more above the stack's, down to
    the same bottom, a pale card (a tactic under the first card that shows) may lie
    there: its top is tried first."""
    if pale is not None:
        _, top, bottom = pale
        if (top <= stack.top - MIN_GAP_MM * LOW_PX
                and abs(bottom - stack.bottom) <= PALE_BOTTOM_MM * LOW_PX):
            return (replace(stack, tops=[(top, False), *stack.tops]),
                    stack.top - MIN_GAP_MM * LOW_PX / 2)
    return stack, -math.inf


def stack_in_masks(zone: Zone, fg_all: Image, colour_all: FloatImage, profile: DeckProfile,
                   band_px: int, pale_all: Image | None = None) -> tuple[Stack | None, float]:
    """A zone's stack (``find_stack`` in the not-mat mask ``fg_all``), and the row above
    which a read shows in the pale mask ``pale_all`` only (none: not looked at): such a
    read stands where it is named (``pale_above``). A pale card is sought alone in a zone
    that shows nothing else (a formation's lone leader too), or as a formation's first
    card above those that show."""
    st = find_stack(zone, fg_all, colour_all, profile, band_px)
    if pale_all is None:
        return st, -math.inf
    if st is None:
        # Glare and shadows on an empty slot show in the pale mask too, but as blots,
        # not card-shaped; a ring may be a grey card's light edge: filled, it is the card.
        pale, ring = outline(zone, pale_all, profile), False
        if pale is not None and not card_shaped(*pale):
            pale, ring = outline(zone, pale_all, profile, holes=True), True
        if pale is not None and card_shaped(*pale):
            return find_stack(zone, pale_all, colour_all, profile, band_px, ring), math.inf
        return None, -math.inf
    if st is not None and zone.kind == "formation":
        return pale_above(st, outline(zone, pale_all, profile))
    return st, -math.inf


def first_tops(grad: FloatImage, top: float, bottom: float, card_h: float) -> tuple[float, ...]:
    """Where else the top of a stack outlined from ``top`` to ``bottom``, shorter than a
    card, may lie: a card's top or bottom printed as pale as the mat (a tactic's
    light title strip) passes for mat, and its outline starts at its picture. So one
    card height above the bottom, and where the colour steps most across the card
    above the outline (up to SHORT_MM beyond that height); ``grad``: each row
    boundary's step."""
    above = bottom - card_h * LOW_PX
    lo = int(max(0.0, above - SHORT_MM * LOW_PX))
    hi = int(top - PEAK_SEPARATION_MM * LOW_PX)
    found = [max(0.0, above)]
    if hi > lo:
        found += [float(r) for r in _one_per_edge(list(range(lo + 1, hi + 1)), grad, FIRST_TRIES)]
    out: list[float] = []
    for t in found:
        if abs(t - top) >= PEAK_SEPARATION_MM * LOW_PX and all(
                abs(t - o) >= PEAK_SEPARATION_MM * LOW_PX for o in out):
            out.append(t)
    return tuple(out)
