"""Which zones of the mat changed between two low-resolution frames.

A still table between two reads changes only where a card was laid, taken or
straightened: the live loop re-reads just those zones (and any it was unsure
of) and keeps the rest of its last read. Compared on the low-resolution
stream, in mat millimetres, so it costs about a millisecond.
"""

from __future__ import annotations

from collections.abc import Iterable

import cv2
import numpy as np

from vision.calibrate import Calibration
from vision.mat import MatLayout
from vision.read import ZONE_MARGIN
from vision.reading.result import CardRead, FrameRead
from vision.types import Image

PX_PER_MM = 0.5  # of the mat view the two frames are compared in
LEVEL = 30.0  # grey levels: far above sensor noise between two frames of a still table
SHARE = 0.004  # of a zone's area: a card's edge moved by a few millimetres
MOVED_MM = 2.0  # the calibration moved this much: the camera was bumped, read everything


def changed_zones(before: Image, after: Image, calib: Calibration, layout: MatLayout,
                  frame_width: int) -> set[str]:
    """Names of the zones where ``after`` differs from ``before`` (low-res BGR frames)."""
    if before.shape != after.shape:
        return {z.name for z in layout.zones}
    scale = after.shape[1] / frame_width
    to_mat = (np.diag([PX_PER_MM, PX_PER_MM, 1.0]) @ calib.frame_to_mat
              @ np.diag([1 / scale, 1 / scale, 1.0]))
    diff = cv2.absdiff(cv2.cvtColor(before, cv2.COLOR_BGR2GRAY),
                       cv2.cvtColor(after, cv2.COLOR_BGR2GRAY))
    size = (round(layout.width * PX_PER_MM), round(layout.height * PX_PER_MM))
    moved = cv2.warpPerspective((diff > LEVEL).astype(np.uint8), to_mat, size,
                                flags=cv2.INTER_NEAREST)
    out: set[str] = set()
    for z in layout.zones:
        r, m = z.rect, ZONE_MARGIN
        x0, y0 = max(round((r.x - m) * PX_PER_MM), 0), max(round((r.y - m) * PX_PER_MM), 0)
        x1, y1 = round((r.x + r.w + m) * PX_PER_MM), round((r.y + r.h + m) * PX_PER_MM)
        block = moved[y0:y1, x0:x1]
        if block.size and float(block.mean()) > SHARE:
            out.add(z.name)
    return out


def camera_moved(before: Calibration, after: Calibration, layout: MatLayout) -> bool:
    """Whether two calibrations put the mat's corners more than MOVED_MM apart."""
    corners = np.array([[0, 0], [layout.width, 0], [layout.width, layout.height],
                        [0, layout.height]], np.float64).reshape(-1, 1, 2)
    a = cv2.perspectiveTransform(corners, before.mat_to_frame)
    back = cv2.perspectiveTransform(a, after.frame_to_mat)
    return bool(np.abs(back - corners).max() > MOVED_MM)


def merge(last: FrameRead, fresh: FrameRead, zones: Iterable[str]) -> FrameRead:
    """The last read with ``zones`` replaced by a fresh read of just those zones."""
    redone = set(zones)
    cards: list[CardRead] = [c for c in last.cards if c.zone not in redone] + fresh.cards
    return FrameRead(cards, fresh.calibration, fresh.foreground, fresh.light, fresh.soft_mm)
