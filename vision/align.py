"""The flattened cards of one deck, put in register with each other.

An outline found in a photo may be off by a millimetre or more (a pattern on
the table, a soft shadow, a frame printed close to the edge), and a card's
index band then lies off where the reader looks for it. What every card of a
deck shares (its frame, the place of its indices, its border) says where each
card truly lies: each card is moved onto the deck's median card by OpenCV's
ECC alignment, a small perspective correction at most.
"""

from __future__ import annotations

from typing import Final

import cv2
import numpy as np

from vision.types import Image

ALIGN_PX: Final = 3.0  # px/mm the cards are compared at
MOST_MM: Final = 4.0  # a correction moving a corner further than this is not taken
ROUNDS: Final = 2  # median, align, median of the aligned, align again


def _grey(card: Image, size: tuple[int, int]) -> np.ndarray:
    g = cv2.cvtColor(cv2.resize(card, size, interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2GRAY)
    return cv2.GaussianBlur(g.astype(np.float32), (0, 0), 1.0)


def align_deck(cards: dict[str, Image], card_w: float, card_h: float) -> dict[str, Image]:
    """``cards`` (flattened, upright, all one size) each moved onto the deck's shared
    layout; a card that does not converge, or would move too far, stays as it is."""
    if len(cards) < 3:
        return dict(cards)
    h, w = next(iter(cards.values())).shape[:2]
    size = (round(card_w * ALIGN_PX), round(card_h * ALIGN_PX))
    grey = {t: _grey(c, size) for t, c in cards.items()}
    warps = {t: np.eye(3, dtype=np.float32) for t in cards}
    corners = np.array([[0, 0], [size[0], 0], [size[0], size[1]], [0, size[1]]],
                       np.float32).reshape(-1, 1, 2)
    criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 60, 1e-5)
    for _ in range(ROUNDS):
        moved = [cv2.warpPerspective(grey[t], warps[t], size,
                                     flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                     borderMode=cv2.BORDER_REPLICATE) for t in cards]
        median = np.median(np.stack(moved), axis=0).astype(np.float32)
        for t in cards:
            warp = warps[t].copy()
            try:
                _, warp = cv2.findTransformECC(  # type: ignore[call-overload]
                    median, grey[t], warp, cv2.MOTION_HOMOGRAPHY, criteria, None, 5)
            except cv2.error:
                continue  # did not converge: the card keeps its last place
            shift = np.abs(cv2.perspectiveTransform(corners, warp) - corners).max()
            if shift <= MOST_MM * ALIGN_PX:
                warps[t] = warp
    out = {}
    scale = np.diag([w / size[0], h / size[1], 1.0]).astype(np.float64)
    for t, card in cards.items():
        full = scale @ warps[t].astype(np.float64) @ np.linalg.inv(scale)
        out[t] = cv2.warpPerspective(card, full, (w, h),
                                     flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                     borderMode=cv2.BORDER_REPLICATE)
    return out
