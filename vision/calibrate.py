"""From the mat's ArUco markers to a homography: camera frame pixels -> mat millimetres.

The first calibration needs most markers in view and names the ones it cannot
see. Afterwards a hand or a card over a marker is harmless: the homography is
refitted from the markers still visible, and with too few of them the last
good one is kept (the camera and the mat do not move between two frames).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.aruco_compat import ArucoApi, api
from vision.mat import MatLayout, standard_mat
from vision.types import FloatImage, Image

Homography = FloatImage


class CalibrationError(RuntimeError):
    """The markers do not allow a calibration; the message says which are missing."""


@dataclass
class Calibration:
    frame_to_mat: Homography  # frame pixels -> mat mm
    seen: list[int]
    missing: list[int]
    fresh: bool  # False when the last good homography was reused
    reprojection_mm: float = 0.0

    @property
    def mat_to_frame(self) -> Homography:
        inv = np.linalg.inv(self.frame_to_mat)
        return np.asarray(inv / inv[2, 2], np.float64)


def detect_markers(image: Image, aruco: ArucoApi | None = None,
                   downscale: int = 2) -> dict[int, FloatImage]:
    """Marker id -> its four corners in full-frame pixels (TL, TR, BR, BL).

    Detection runs on a downscaled copy (markers are large), then the corners
    are refined on the full frame. A fast pass first; the thorough one only when
    it finds too few markers to calibrate on (glare, a hand, a dim corner).
    """
    det = aruco or api()
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    small = gray
    for _ in range(downscale.bit_length() - 1):
        small = cv2.pyrDown(small)
    factor = gray.shape[1] / small.shape[1]
    corners, ids = det.detect(small)
    if len(ids) < 4 and det.detect_thorough is not None:
        corners, ids = det.detect_thorough(small)
    if not ids and small is not gray:
        corners, ids = det.detect(gray)
        factor = 1.0
    found: dict[int, FloatImage] = {}
    for c, i in zip(corners, ids, strict=True):
        pts = (c * factor).astype(np.float32)
        if factor != 1.0:
            win = max(2, round(factor * 1.5))
            cv2.cornerSubPix(gray, pts.reshape(-1, 1, 2), (win, win), (-1, -1),
                             (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_COUNT, 20, 0.05))
        found[i] = pts.reshape(4, 2)
    return found


@dataclass
class Calibrator:
    layout: MatLayout = field(default_factory=standard_mat)
    min_first: int = 4
    min_update: int = 2
    max_error_mm: float = 3.0
    last: Calibration | None = None

    def update(self, image: Image, markers: dict[int, FloatImage] | None = None,
               ) -> Calibration:
        """Calibrate on this frame, or keep the last good calibration if it cannot."""
        found = detect_markers(image) if markers is None else markers
        known = {m.id for m in self.layout.markers}
        seen = sorted(i for i in found if i in known)
        missing = sorted(known - set(seen))
        need = self.min_first if self.last is None else self.min_update
        h, err = self._fit(found, seen) if len(seen) >= need else (None, float("inf"))
        if h is not None and err <= self.max_error_mm:
            self.last = Calibration(h, seen, missing, True, err)
            return self.last
        if self.last is None:
            names = ", ".join(str(i) for i in missing) or "none"
            raise CalibrationError(
                f"cannot calibrate: found {len(seen)} of {len(known)} mat markers "
                f"(need {need}); missing marker ids: {names}. "
                "Check that the whole mat is in view and nothing covers its corners."
            )
        return Calibration(self.last.frame_to_mat, seen, missing, False,
                           self.last.reprojection_mm)

    def _fit(self, found: dict[int, FloatImage],
             seen: list[int]) -> tuple[Homography | None, float]:
        src = np.concatenate([found[i] for i in seen]).astype(np.float64)
        dst = np.concatenate([np.array(self.layout.marker(i).corners(), np.float64) for i in seen])
        h, _ = cv2.findHomography(src, dst, 0)
        if h is None:
            return None, float("inf")
        proj = cv2.perspectiveTransform(src.reshape(-1, 1, 2), h).reshape(-1, 2)
        err = float(np.sqrt(np.mean(np.sum((proj - dst) ** 2, axis=1))))
        return np.asarray(h / h[2, 2], np.float64), err
