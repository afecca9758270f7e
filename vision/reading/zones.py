"""The mat seen from above at 1 px/mm, and each zone cut out of that view.

The stack at a zone is found on this low-resolution view (the full frame is only
warped band by band, later): it is made once per frame, what is not mat is marked
in it, and each zone is cut out turned so that card tops point up. A card's place
is then zone-local (mm from the cut-out's corner) and turned back to mat mm here.
"""

from __future__ import annotations

from typing import Any, Final

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.calibrate import Calibration
from vision.mat import Zone
from vision.types import FloatImage, Image

LOW_PX: Final = 1.0  # px/mm of the low-resolution top-down view
ZONE_MARGIN: Final = 6.0  # mm around a zone where a crooked card may stick out
FG_THRESHOLD: Final = 38.0  # colour distance from the printed mat that means "not mat"
# A pale card (a grey tactic on a grey mat) lies nearer the mat than FG_THRESHOLD; from
# PALE_THRESHOLD its face shows, and so do glare and shadows: what shows only there
# stands only where it is named (``fan.read_fan``, ``stack.pale_above``).
PALE_THRESHOLD: Final = 20.0


def top_down(frame: Image, calib: Calibration, size: tuple[int, int]) -> Image:
    """The mat from above at LOW_PX (``size``: its width and height in px)."""
    # Half size by 2x2 means (as much detail as 1 px/mm needs; calibrating on this
    # frame made it already), then top-down.
    half = calib.half_frame(frame)
    to_low = (np.diag([LOW_PX, LOW_PX, 1.0]) @ calib.frame_to_mat
              @ np.diag([frame.shape[1] / half.shape[1], frame.shape[0] / half.shape[0], 1.0]))
    # Warped as four channels: OpenCV's bilinear warp has a vector path for four
    # channels, none for three (same values, less than half the time).
    low: Image = cv2.cvtColor(cv2.warpPerspective(
        cv2.cvtColor(half, cv2.COLOR_BGR2BGRA), to_low, size,
        flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE), cv2.COLOR_BGRA2BGR)
    return low


def not_mat(corrected: FloatImage, mat: Image, threshold: float = FG_THRESHOLD) -> Image:
    """A 0/1 mask of what is not the printed ``mat`` in a top-down view in true
    colours (any channel further from it than ``threshold``), specks opened away and
    small holes closed."""
    diff = cv2.convertScaleAbs(corrected)
    cv2.absdiff(diff, mat, dst=diff)
    # Not mat: any channel further from the printed mat than the threshold. Such a
    # channel set to 255 alone leaves a grey above 0 (half inRange's time).
    cv2.threshold(diff, threshold, 255, cv2.THRESH_BINARY, dst=diff)
    fg: Image = cv2.cvtColor(diff, cv2.COLOR_BGR2GRAY)
    cv2.threshold(fg, 0, 1, cv2.THRESH_BINARY, dst=fg)
    fg = cv2.morphologyEx(fg, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    return cv2.morphologyEx(fg, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))


def holes_filled(mask: Image, most_px: float) -> Image:
    """A 0/1 mask with its holes set: regions of 0 that touch no side of it, each
    ``most_px`` pixels or fewer. A grey card on the grey mat shows in the pale mask
    as its light edge alone, a ring around a face as grey as the mat."""
    _, labels, stats, _ = cv2.connectedComponentsWithStats(1 - mask, connectivity=4)
    h, w = mask.shape
    x, y, bw, bh, area = stats.T  # OpenCV's CC_STAT_* order
    hole = (x > 0) & (y > 0) & (x + bw < w) & (y + bh < h) & (area <= most_px)
    hole[0] = False  # label 0: the mask's own pixels
    out = mask.copy()
    out[hole[labels]] = 1
    return out


def zone_crop(zone: Zone, img: NDArray[Any]) -> NDArray[Any]:
    """The zone and ZONE_MARGIN around it, cut out of a low-res view as it lies."""
    r, m = zone.rect, ZONE_MARGIN
    x0, y0 = round((r.x - m) * LOW_PX), round((r.y - m) * LOW_PX)
    x1, y1 = round((r.x + r.w + m) * LOW_PX), round((r.y + r.h + m) * LOW_PX)
    return img[max(y0, 0):y1, max(x0, 0):x1]


def turned(zone: Zone, crop: NDArray[Any]) -> NDArray[Any]:
    """A zone cut out of a low-res view (``zone_crop``), turned card tops up."""
    # Turned by OpenCV: numpy's reversed view makes every later step many times slower.
    return crop if zone.up == "up" else cv2.flip(crop, -1)


def zone_view(zone: Zone, img: NDArray[Any]) -> NDArray[Any]:
    """The zone (and ZONE_MARGIN around it) of a low-res view, card tops up."""
    return turned(zone, zone_crop(zone, img))


def to_mat(zone: Zone, u: float, v: float) -> tuple[float, float]:
    """Zone-local mm (tops up, origin at the margin's corner) -> mat mm."""
    r, m = zone.rect, ZONE_MARGIN
    if zone.up == "up":
        return r.x - m + u, r.y - m + v
    return r.x + r.w + m - u, r.y + r.h + m - v


def zone_matrix(zone: Zone) -> FloatImage:
    """Zone-local mm (tops up, origin at the margin's corner) -> mat mm, as a matrix."""
    r, m = zone.rect, ZONE_MARGIN
    if zone.up == "up":
        return np.array([[1, 0, r.x - m], [0, 1, r.y - m], [0, 0, 1]], np.float64)
    return np.array([[-1, 0, r.x + r.w + m], [0, -1, r.y + r.h + m], [0, 0, 1]], np.float64)
