"""A card's outline in a photo of it on any table, and the card flattened from it.

The outline is located at a few hundred pixels (``locate``); each side is then
refined at full resolution to the card's edge (``edges``), which is the
outermost strong step across it (a frame printed inside a card may step more).
"""

from __future__ import annotations

from typing import Final

import cv2
import numpy as np

from companion.i18n import _
from vision.enrolment.edges import GROWN_CONTRAST, refine, side_contrast
from vision.enrolment.locate import locate
from vision.profile import ProfileError
from vision.types import FloatImage, Image

WARP_PX: Final = 6.0  # px/mm of the flattened card


def order_corners(pts: np.ndarray) -> np.ndarray:
    """TL, TR, BR, BL of a portrait card photographed upright."""
    pts = pts[np.argsort(pts[:, 1])]
    top, bottom = pts[:2], pts[2:]
    tl, tr = top[np.argsort(top[:, 0])]
    bl, br = bottom[np.argsort(bottom[:, 0])]
    return np.array([tl, tr, br, bl], np.float32)


FIND_PX: Final = 800  # longer side of the image the outline is looked for in
REACH_MM: Final = 3.0  # how far beyond the outline located its edge is looked for at once
SEARCHES: Final = 3  # times looked for further out while a side moved by half as much
SQUARE: Final = 0.08  # how much squatter or taller than its card an outline may look: a card
# tilted 20° toward the phone looks up to 6 % so (the phone photos' poses, vision.simulated.photos)


def flatten(img: Image, corners: np.ndarray, card_w: float, card_h: float,
            margin_mm: float = 0.0) -> Image:
    """The card inside ``corners`` (TL, TR, BR, BL) warped flat at WARP_PX px/mm, with
    ``margin_mm`` of what lies around it."""
    out_w, out_h = round(card_w * WARP_PX), round(card_h * WARP_PX)
    px_mm = float(np.linalg.norm(corners[3] - corners[0])) / card_h
    reach = 2 + margin_mm * px_mm
    x0, y0 = np.floor(corners.min(axis=0) - reach).astype(int)
    x1, y1 = np.ceil(corners.max(axis=0) + reach + 1).astype(int)
    x0, y0 = max(x0, 0), max(y0, 0)
    crop, pts = img[y0:y1, x0:x1], corners - np.array([x0, y0], np.float32)
    if px_mm > 1.5 * WARP_PX:  # area-average first: a 12 MP card is far finer than the warp
        f = 1.5 * WARP_PX / px_mm
        crop = cv2.resize(crop, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
        pts = pts * f
    m = margin_mm * WARP_PX
    dst = np.array([[m, m], [m + out_w, m], [m + out_w, m + out_h], [m, m + out_h]],
                   np.float32)
    return cv2.warpPerspective(crop, cv2.getPerspectiveTransform(pts.astype(np.float32), dst),
                               (round(out_w + 2 * m), round(out_h + 2 * m)),
                               flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def find_outline(img: Image, card_w: float, card_h: float, name: str = "photo",
                 ) -> tuple[np.ndarray, float]:
    """The card's corners (TL, TR, BR, BL, full-resolution px) in a photo of it on
    any table, and how wide its edges are (px: how blurred the photo is)."""
    h, w = img.shape[:2]
    s = min(1.0, FIND_PX / max(h, w))
    small = cv2.resize(img, None, fx=s, fy=s, interpolation=cv2.INTER_AREA) if s < 1 else img
    corners = locate(small, card_w / card_h, name) / s
    # The located outline may be a frame printed inside the card: look for the
    # card's edge up to REACH_MM beyond it, then again close by.
    px_mm = float(np.linalg.norm(corners[3] - corners[0])) / card_h
    reach = max(2.5 / s + 2, REACH_MM * px_mm)
    for _search in range(SEARCHES):
        # A thick frame of several lines may lie further in than one search:
        # a side found near the end of it may have the card's edge beyond.
        moved, (corners, width) = corners, refine(img, corners, reach)
        if float(np.abs(corners - moved).max()) < 0.5 * reach:
            break
    corners, width = refine(img, corners, 4.0)
    return _whole(img, corners, card_w, card_h, name), width


def _mean_in(img: Image, quad: np.ndarray) -> FloatImage:
    """The mean colour of ``img`` inside ``quad``."""
    x0, y0 = np.maximum(np.floor(quad.min(axis=0)).astype(int), 0)
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 1
    crop = img[y0:y1, x0:x1]
    mask = np.zeros(crop.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, np.round(quad - [x0, y0]).astype(np.int32), 1)
    return np.array(cv2.mean(crop, mask)[:3])


def proportion(q: np.ndarray) -> float:
    """A quad's (TL, TR, BR, BL) width over its height, each the mean of two sides."""
    lens = np.linalg.norm(np.roll(q, -1, axis=0) - q, axis=1)
    return float((lens[0] + lens[2]) / (lens[1] + lens[3]))


def _whole(img: Image, q: np.ndarray, card_w: float, card_h: float, name: str) -> np.ndarray:
    """The whole card's outline where ``q`` looks squatter or narrower than any card
    of ``card_w`` x ``card_h`` mm tilted up to 20°: a strip at one end printed like the
    table around it (a navy header on dark checks) was taken for the table, and the
    card flattened from it would be stretched, its index lost. Each of the two ends
    is moved out by what the outline lacks and refined onto the edge there; where
    the card then has its proportions and that end lies on an edge, the end that
    adds what is most unlike the table beyond it stands. Else a ``ProfileError``
    saying what to change."""
    r = proportion(q) / (card_w / card_h)
    if abs(r - 1.0) <= SQUARE:
        return q
    lens = np.linalg.norm(np.roll(q, -1, axis=0) - q, axis=1)
    # Too squat: the top or the bottom lacks; too narrow: the right or the left.
    ends, lack = (((0, 2), (lens[1] + lens[3]) / 2 * (r - 1)) if r > 1
                  else ((1, 3), (lens[0] + lens[2]) / 2 * (1 / r - 1)))
    best: tuple[float, np.ndarray] | None = None
    for k in ends:
        a, b = k, (k + 1) % 4
        moved = q.copy()
        # Each of the end's corners slides on along the side it ends.
        for c, prev in ((a, (a - 1) % 4), (b, (b + 1) % 4)):
            along = q[c] - q[prev]
            moved[c] = q[c] + along / float(np.linalg.norm(along)) * lack
        whole, _w = refine(img, moved, 0.25 * lack + 3.0)
        # The moved end must lie on an edge along most of it (a side no edge was found
        # for stays where it was put) and make the card's proportions.
        edge = side_contrast(img, whole[a], whole[b], 1.5) > GROWN_CONTRAST
        if (edge.mean() < 0.5
                or abs(proportion(whole) / (card_w / card_h) - 1.0) > SQUARE):
            continue
        # What the end adds is card, unlike the table beyond it; at the wrong end it is
        # more of that table.
        beyond = whole[[a, b]] + (whole[[a, b]] - q[[a, b]])
        added = np.array([q[a], whole[a], whole[b], q[b]])
        outside = np.array([whole[a], beyond[0], beyond[1], whole[b]])
        unlike = float(np.linalg.norm(_mean_in(img, added) - _mean_in(img, outside)))
        if best is None or unlike > best[0]:
            best = (unlike, whole)
    if best is None:
        says = (_("{name}: the card's outline is squatter than a card of {w:g} x {h:g} mm: "
                  "its top or bottom passes for the table (printed like it); lay the card on "
                  "a plain surface unlike its edge, photograph it from straight above, or "
                  "give the deck's card size")
                if r > 1 else
                _("{name}: the card's outline is narrower than a card of {w:g} x {h:g} mm: "
                  "a side of it passes for the table (printed like it); lay the card on a "
                  "plain surface unlike its edge, photograph it from straight above, or "
                  "give the deck's card size"))
        raise ProfileError(says.format(name=name, w=card_w, h=card_h))
    return best[1]
