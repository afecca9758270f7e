"""The card's outline located in a photo shrunk to a few hundred pixels: a
four-sided shape of the card's proportions whose sides stand out from both their
neighbours, among the regions edge maps and the table's colours cut out.
"""

from __future__ import annotations

from typing import Final

import cv2
import numpy as np

from companion.i18n import N_, _, ngettext
from vision.enrolment.edges import GROWN_CONTRAST, refine, side_contrast
from vision.profile import ProfileError
from vision.types import FloatImage, Image

EDGES: Final = (N_("top"), N_("right"), N_("bottom"), N_("left"))  # translated where said
# The colour step of a card's edge: SUPPORT_CONTRAST where the table is busy; on a plain
# one TABLE_TIMES the table's own steps, down to FAINTEST (a navy card on a black cloth
# steps some 15 levels, where the cloth steps 3).
SUPPORT_CONTRAST: Final = 30.0
FAINTEST: Final = 12.0
TABLE_TIMES: Final = 3.0
DIM: Final = 60  # a photo whose lightest tenth is darker than this (of 255) is too dark
CANNY: Final = ((40, 120), (20, 60))  # the edge maps' thresholds (gradient, low and high)
# Looked at only where those found no card on a plain table: a navy card's edge on a
# black cloth steps a few levels, below them (the tuning decks' phone photos on black:
# 13 of 80 refused, 5 with it; vision/ROUNDS.md).
FAINT_CANNY: Final = ((8, 24),)
LARGEST: Final = 0.8  # most of the photo a card's region may cover
PART: Final = 0.01  # least share of the photo a part of a card joined to another covers
JOIN_PX: Final = 7  # gap (px, at FIND_PX) between two parts of a card that joins them
REACHES: Final = (4.0, 2.0)  # px at FIND_PX an outline is refined within, in turn
WIDE_REACHES: Final = (8.0, 4.0, 2.0)  # and where that found no card


def _cyclic(quad: np.ndarray) -> np.ndarray:
    """A quadrilateral's corners clockwise (in image axes) from the one whose
    following side is the card's top: the shorter pair of sides are top and bottom."""
    c = quad.mean(axis=0)
    q = quad[np.argsort(np.arctan2(quad[:, 1] - c[1], quad[:, 0] - c[0]))]
    sides = np.linalg.norm(np.roll(q, -1, axis=0) - q, axis=1)
    start = 0 if sides[0] + sides[2] < sides[1] + sides[3] else 1
    mid_y = [(q[k, 1] + q[(k + 1) % 4, 1]) / 2 for k in (start, start + 2)]
    start += 2 if mid_y[1] < mid_y[0] else 0
    return np.roll(q, -start, axis=0).astype(np.float32)

def _card_shaped(q: np.ndarray, aspect: float) -> bool:
    """Whether a clockwise quad (card top first) may be a card of ``aspect`` seen
    tilted up to about 20°: opposite sides within a factor, corners near square."""
    sides = np.roll(q, -1, axis=0) - q
    lens = np.linalg.norm(sides, axis=1)
    if lens.min() < 12:
        return False
    if max(lens[0] / lens[2], lens[2] / lens[0], lens[1] / lens[3], lens[3] / lens[1]) > 1.6:
        return False
    if not 0.85 < (lens[0] + lens[2]) / (lens[1] + lens[3]) / aspect < 1.18:
        return False
    cos = [abs(float(sides[k] @ sides[k - 1])) / (lens[k] * lens[k - 1]) for k in range(4)]
    return max(cos) < 0.5


def _edge_bar(small: Image) -> float:
    """The colour step that makes a card's edge in ``small``: TABLE_TIMES the table's own
    steps (the 90th percentile of those 3 px apart along the photo's top rows, where
    the table shows), between FAINTEST and SUPPORT_CONTRAST."""
    top = cv2.GaussianBlur(small, (0, 0), 1.0)[:12, ::3].astype(np.float32)
    steps = np.abs(np.diff(top, axis=1)).sum(axis=2)
    if not steps.size:  # a photo a few pixels wide: no table to measure
        return SUPPORT_CONTRAST
    return float(np.clip(TABLE_TIMES * np.percentile(steps, 90), FAINTEST, SUPPORT_CONTRAST))


def _support(img: FloatImage, q: np.ndarray, contrast: float = SUPPORT_CONTRAST) -> float:
    """How much of a quad's outline is a sharp colour edge: the mean share of each
    side that stands out, 0 if a side barely does."""
    shares = [float((side_contrast(img, q[k], q[(k + 1) % 4], 1.5) > contrast).mean())
              for k in range(4)]
    return float(np.mean(shares)) if min(shares) >= 0.5 else 0.0


def _grow(img: FloatImage, small: Image, q: np.ndarray, aspect: float) -> np.ndarray | None:
    """The outline just outside a card-shaped quad, if each of its sides has a sharp
    straight edge beyond it: a frame printed inside a card found before the card."""
    lines = []
    for k in range(4):
        a, b = q[k], q[(k + 1) % 4]
        length = float(np.linalg.norm(b - a))
        n = np.array([(b - a)[1], -(b - a)[0]], np.float32) / length
        offs = np.arange(3, max(6, round(0.1 * length)), dtype=np.float32)
        t = np.linspace(0.15, 0.85, 24, dtype=np.float32)
        base = a + (b - a) * t[:, None]
        pts = base[:, None, None] + (offs[None, :, None, None] + np.array(
            [-1.5, 1.5], np.float32)[None, None, :, None]) * n
        vals = cv2.remap(img, pts[..., 0].reshape(len(t), -1), pts[..., 1].reshape(len(t), -1),
                         cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).reshape(
                             len(t), len(offs), 2, -1)
        share = (np.abs(vals[:, :, 0] - vals[:, :, 1]).sum(axis=2) > GROWN_CONTRAST).mean(axis=0)
        # Past the quad's own edge, the middle of the next run of sharp edge.
        hit = share >= 0.75
        past = np.nonzero(~hit)[0]
        run = np.nonzero(hit[past[0]:])[0] + past[0] if len(past) else []
        if not len(run):
            return None
        end = run[0] + int(np.argmin(np.append(hit[run[0]:], False)))
        lines.append((a + offs[(run[0] + end - 1) // 2] * n, (b - a) / length))
    corners = []
    for k in range(4):
        (p, u), (r, v) = lines[k - 1], lines[k]
        m = np.array([u, -v]).T
        if abs(np.linalg.det(m)) < 1e-6:
            return None
        corners.append(p + np.linalg.solve(m, r - p)[0] * u)
    grown = np.array(corners, np.float32)
    for reach in (3.0, 2.0):
        grown, _ = refine(small, grown, reach)
    return grown if _card_shaped(grown, aspect) else None


def _quads(contour: np.ndarray) -> list[np.ndarray]:
    hull = cv2.convexHull(contour)
    out = [cv2.boxPoints(cv2.minAreaRect(contour)).astype(np.float32)]
    for eps in (0.01, 0.02, 0.04, 0.07):
        quad = cv2.approxPolyDP(hull, eps * cv2.arcLength(hull, True), True).reshape(-1, 2)
        if len(quad) == 4:
            out.append(quad.astype(np.float32))
    return out


def _regions(small: Image, steps: tuple[tuple[int, int], ...] = CANNY,
             colours: bool = True) -> list[np.ndarray]:
    """Outlines of regions that may be the card: holes in edge maps (the card's
    outline encloses it whatever lies around it; ``steps``: their Canny thresholds)
    and, with ``colours``, parts unlike the table's colours (``unlike_border``)."""
    h, w = small.shape[:2]
    out: list[np.ndarray] = []
    blur = cv2.GaussianBlur(small, (0, 0), 1.2)
    for lo, hi in steps:
        edges: Image = np.zeros((h, w), np.uint8)
        for ch in cv2.split(blur):
            edges |= cv2.Canny(ch, lo, hi)
        edges = cv2.dilate(edges, np.ones((3, 3), np.uint8))
        edges[0, :], edges[-1, :], edges[:, 0], edges[:, -1] = 255, 255, 255, 255
        found, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        out.extend(found)
        # The card's outline with its print filled in, the thin lines that touch it
        # (seams, a pattern's lines) opened away: when print crosses the card's
        # frame, no single hole is bounded by the outline.
        edges[0, :], edges[-1, :], edges[:, 0], edges[:, -1] = 0, 0, 0, 0
        found, _ = cv2.findContours(edges, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        solid = cv2.drawContours(np.zeros((h, w), np.uint8), found, -1, 255, -1)
        k = max(5, min(h, w) // 50)
        solid = cv2.morphologyEx(solid, cv2.MORPH_OPEN,
                                 cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
        found, _ = cv2.findContours(solid, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        out.extend(found)
    if not colours:
        return out
    found, _ = cv2.findContours(unlike_border(small), cv2.RETR_EXTERNAL,
                                cv2.CHAIN_APPROX_SIMPLE)
    out.extend(found)
    return out


def unlike_border(small: Image) -> Image:
    """Where a photo shows none of the colours its border shows (the table: plain,
    wood or a print): 255 there, else 0. A histogram of the border, projected back."""
    h, w = small.shape[:2]
    lab = cv2.cvtColor(cv2.GaussianBlur(small, (0, 0), 2.5), cv2.COLOR_BGR2Lab)
    ring = np.zeros((h, w), np.uint8)
    cv2.rectangle(ring, (0, 0), (w - 1, h - 1), 255, 12)
    bins = 16
    hist = cv2.calcHist([lab], [0, 1, 2], ring, [bins] * 3, [0, 256] * 3)
    # Neighbouring bins too: the light changes across a table.
    hist = cv2.dilate(hist.reshape(bins, -1), np.ones((3, 3), np.float32)).reshape(hist.shape)
    hist = np.maximum(hist, np.maximum(np.roll(hist, 1, 0), np.roll(hist, -1, 0)))
    # Looked up by hand: cv2.calcBackProject takes a 3-D histogram from Python for a
    # 2-D one of 16 channels and matches nothing (opencv/opencv#29938).
    seen = hist > 0.0005 * ring.sum() / 255
    at = lab // (256 // bins)
    mask: Image = np.where(seen[at[..., 0], at[..., 1], at[..., 2]], 0, 255).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    return cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))


def _joined(contours: list[np.ndarray], shape: tuple[int, ...]) -> list[np.ndarray]:
    """The outlines of each two neighbouring regions among ``contours`` taken together
    (regions of PART of the photo or more, and under LARGEST of it): the gap of a few
    pixels between them (the edge map's line) closed. Each pair is drawn in the box
    round it only: a busy photo has dozens of such regions."""
    h, w = shape[:2]
    parts = [c for c in contours if PART * h * w < cv2.contourArea(c) < LARGEST * h * w]
    boxes = [cv2.boundingRect(c) for c in parts]
    kernel = np.ones((JOIN_PX, JOIN_PX), np.uint8)
    out: list[np.ndarray] = []
    for i, (xa, ya, wa, ha) in enumerate(boxes):
        for j in range(i + 1, len(parts)):
            xb, yb, wb, hb = boxes[j]
            if (max(xa, xb) > min(xa + wa, xb + wb) + JOIN_PX
                    or max(ya, yb) > min(ya + ha, yb + hb) + JOIN_PX):
                continue  # their boxes lie apart: no neighbours
            # The box with room for the closing, but not past the photo's edge (where
            # the closing stops as it does on the whole photo).
            x0, y0 = max(0, min(xa, xb) - JOIN_PX), max(0, min(ya, yb) - JOIN_PX)
            size = (min(h, max(ya + ha, yb + hb) + JOIN_PX) - y0,
                    min(w, max(xa + wa, xb + wb) + JOIN_PX) - x0)
            a = cv2.drawContours(np.zeros(size, np.uint8), [parts[i]], -1, 255, -1,
                                 offset=(-x0, -y0))
            b = cv2.drawContours(np.zeros(size, np.uint8), [parts[j]], -1, 255, -1,
                                 offset=(-x0, -y0))
            if not cv2.countNonZero(cv2.bitwise_and(cv2.dilate(a, kernel), cv2.dilate(b, kernel))):
                continue  # not neighbours
            both = cv2.morphologyEx(cv2.bitwise_or(a, b), cv2.MORPH_CLOSE, kernel)
            found, _ = cv2.findContours(both, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE,
                                        offset=(x0, y0))
            out.append(max(found, key=cv2.contourArea))
    return out


class _Found:
    """What the regions weighed so far showed: the upright card-shaped outlines (their
    support, area and corners), the largest sideways one's area, and per photo edge
    the largest region it cut off."""

    def __init__(self) -> None:
        self.best: list[tuple[float, float, np.ndarray]] = []
        self.seen: list[np.ndarray] = []
        self.sideways = 0.0
        self.cut: dict[tuple[str, ...], float] = {}

    def card(self) -> np.ndarray | None:
        """The card's outline, not a frame printed inside it: the largest that fits,
        unless a larger card lies sideways."""
        good = [b for b in self.best if b[0] >= 0.75]
        if good and max(b[1] for b in good) > self.sideways:
            return max(good, key=lambda b: b[1])[2]
        return None


def _weigh(found: _Found, contours: list[np.ndarray], small: Image, img: FloatImage,
           aspect: float, bar: float, reaches: tuple[float, ...] = REACHES) -> None:
    """Each region's card-shaped outlines, refined (within each of ``reaches`` px in
    turn) and judged by their edges' support (``bar``: the colour step of a card's
    edge), added to ``found``."""
    h, w = small.shape[:2]
    for contour in contours:
        area = cv2.contourArea(contour)
        if not 0.015 * h * w < area < LARGEST * h * w:
            continue
        x, y, bw, bh = cv2.boundingRect(contour)
        touch = tuple(e for e, t in zip(EDGES, (y <= 2, x + bw >= w - 2, y + bh >= h - 2,
                                                 x <= 2), strict=True) if t)
        if touch:
            # Part of something cut off by the frame: the card, if its
            # sides away from the frame are straight and stand out.
            if len(touch) <= 2 and {"top", "bottom"} - set(touch) and {"left", "right"} - set(
                    touch):
                # Its hull, not the region: print inside a card splits its inside.
                hull = cv2.convexHull(contour)
                rect = cv2.minAreaRect(hull)
                hull_area = cv2.contourArea(hull)
                if hull_area > 0.04 * h * w and hull_area > 0.85 * rect[1][0] * rect[1][1]:
                    found.cut[touch] = max(found.cut.get(touch, 0.0), hull_area)
            continue
        for quad in _quads(contour):
            q = _cyclic(quad)
            top = q[1] - q[0]
            upright = _card_shaped(q, aspect) and abs(top[0]) > abs(top[1])
            if not _card_shaped(q, aspect):  # (card-shaped but not upright: sideways)
                continue
            if any(np.abs(q - o).max() < 2 for o in found.seen):
                continue
            found.seen.append(q)
            # Each side moved onto the sharpest edge near it first: an outline
            # taken round a shadow, or a few pixels off, is judged where it belongs.
            for reach in reaches:
                q, _shift = refine(small, q, reach)
            s = _support(img, q, bar)
            if upright and _card_shaped(q, aspect):
                found.best.append((s, cv2.contourArea(q), q))
                g = q
                for _frame in range(2):  # a card may print two frames
                    grown = _grow(img, small, g, aspect) if s >= 0.75 else None
                    if grown is None:
                        break
                    # Fainter will do: a straight edge just outside a card-shaped one.
                    g, s = grown, _support(img, grown, min(GROWN_CONTRAST, bar))
                    found.best.append((s, cv2.contourArea(g), g))
            elif not upright and s >= 0.75:
                found.sideways = max(found.sideways, cv2.contourArea(q))


def locate(small: Image, aspect: float, name: str) -> np.ndarray:
    """The card's corners (clockwise from top-left) in a small image, or a
    ProfileError that says what to change."""
    img = cv2.GaussianBlur(small, (0, 0), 1.0).astype(np.float32)
    bar = _edge_bar(small)
    found = _Found()
    regions = _regions(small)
    _weigh(found, regions, small, img, aspect, bar)
    card = found.card()
    if card is None and bar < SUPPORT_CONTRAST:
        # A plain table: a card whose edge steps less than those maps see is looked
        # for in a fainter one (only here: where they found a card, it stands).
        _weigh(found, _regions(small, FAINT_CANNY, colours=False), small, img, aspect, bar)
        card = found.card()
    if card is None:
        # A card its print splits into parts, none card-shaped alone, one of them like
        # the table (a red header over a cream body on a light check cloth): two
        # neighbouring parts, joined.
        _weigh(found, _joined(regions, small.shape[:2]), small, img, aspect, bar)
        card = found.card()
    if card is None:
        # An outline a few pixels off at one end (a rounded corner's hull pulled in, a
        # flower beside the card) lies beyond the usual reach of its edge: refined
        # from further out.
        wider = _Found()
        _weigh(wider, regions, small, img, aspect, bar, WIDE_REACHES)
        card = wider.card()
    if card is not None:
        return card
    if found.sideways:
        raise ProfileError(_("{name}: the card lies sideways; turn it (or the phone) so "
                             "that it stands upright, index at the top").format(name=name))
    if found.cut:
        edges = max(found.cut, key=lambda k: found.cut[k])
        which = _(" and ").join(_(e) for e in edges)
        raise ProfileError(ngettext(
            "{name}: the card's {edges} edge is outside the photo: step back or move the "
            "phone so that the whole card is in view",
            "{name}: the card's {edges} edges are outside the photo: step back or move the "
            "phone so that the whole card is in view", len(edges)).format(name=name, edges=which))
    # A dark card on a dark cloth in a dim room shows its edge by a few levels only.
    level = round(float(np.percentile(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), 90)))
    if level < DIM:
        raise ProfileError(_("{name}: no card found in a photo this dark (its lightest "
                             "parts {level} of 255): light the card better, or lay it on a "
                             "surface lighter than its edge").format(name=name, level=level))
    raise ProfileError(_("{name}: no card found (no card-shaped outline: lay the card flat, "
                         "the whole card in view, on a surface unlike the card's edge)").format(
                             name=name))
