"""From the mat's ArUco markers to a homography: camera frame pixels -> mat millimetres.

The first calibration needs most markers in view and names the ones it cannot
see. Afterwards a hand or a card over a marker is harmless: the homography is
refitted from the markers still visible, and with too few of them the last
good one is kept (the camera and the mat do not move between two frames).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from vision.aruco_compat import ArucoApi, api
from vision.mat import MatLayout, standard_mat
from vision.types import FloatImage, Image

Homography = FloatImage


class CalibrationError(RuntimeError):
    """The markers do not allow a calibration; the message says which are missing."""


def half_size(image: Image) -> Image:
    """``image`` at half size by 2x2 means: markers are looked for at this size, and
    it holds as much detail as the reader's 1 px/mm view needs."""
    return cv2.resize(image, ((image.shape[1] + 1) // 2, (image.shape[0] + 1) // 2),
                      interpolation=cv2.INTER_AREA)


@dataclass
class Calibration:
    frame_to_mat: Homography  # frame pixels -> mat mm
    seen: list[int]
    missing: list[int]
    fresh: bool  # False when the last good homography was reused
    reprojection_mm: float = 0.0
    # The frame this was calibrated on (weakly) and its half size, for half_frame.
    _frame: weakref.ref[Any] | None = field(default=None, init=False, repr=False,
                                            compare=False)
    _half: Image | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def mat_to_frame(self) -> Homography:
        inv = np.linalg.inv(self.frame_to_mat)
        return np.asarray(inv / inv[2, 2], np.float64)

    def half_frame(self, frame: Image) -> Image:
        """``frame`` at half size (``half_size``): the copy calibration made when it
        was made on this very array (changed in place since, it would be stale)."""
        if self._half is not None and self._frame is not None and self._frame() is frame:
            return self._half
        return half_size(frame)


def detect_markers(image: Image, aruco: ArucoApi | None = None,
                   downscale: int = 2) -> dict[int, FloatImage]:
    """Marker id -> its four corners in full-frame pixels (TL, TR, BR, BL).

    Detection runs on a downscaled copy (markers are large), then the corners
    are refined on the full frame. A fast pass first; the thorough one only when
    it finds too few markers to calibrate on (glare, a hand, a dim corner).
    """
    half = half_size(image) if downscale > 1 else None
    return _detect(image, half, aruco or api(), downscale)


def _gray(image: Image) -> Image:
    return image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


def _detect(image: Image, half: Image | None, det: ArucoApi,
            downscale: int) -> dict[int, FloatImage]:
    """``detect_markers`` given ``image`` at half size (None: look at full size)."""
    if half is None:
        small, scale, shift = _gray(image), 1.0, 0.0
    else:
        # Halved by 2x2 means, then by pyramid steps: a pixel of ``small`` lies at
        # ``pyr`` half-size pixels, and half-size pixel i covers frame pixels 2i, 2i+1.
        small = _gray(half)
        pyr = 1
        for _ in range(downscale.bit_length() - 2):
            small = cv2.pyrDown(small)
            pyr *= 2
        fx = image.shape[1] / half.shape[1]
        scale, shift = pyr * fx, (fx - 1) / 2
    corners, ids = det.detect(small)
    if len(ids) < 4 and det.detect_thorough is not None:
        corners, ids = det.detect_thorough(small)
    if not ids and half is not None:
        corners, ids = det.detect(_gray(image))
        scale, shift = 1.0, 0.0
    found: dict[int, FloatImage] = {}
    for c, i in zip(corners, ids, strict=True):
        pts = (c * scale + shift).astype(np.float32)
        if scale != 1.0:
            _refine(image, pts, max(2, round(scale * 1.5)))
        found[i] = pts.reshape(4, 2)
    return found


def _refine(image: Image, pts: FloatImage, win: int) -> None:
    """Subpixel corners in place, on the full frame. Only a patch around the marker
    is made grey: a corner that wanders off it is too far to keep anyway."""
    pad = 2 * win + 8
    h, w = image.shape[:2]
    (x0, y0), (x1, y1) = pts.min(axis=0).astype(int) - pad, pts.max(axis=0).astype(int) + pad + 1
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    origin = np.array([x0, y0], np.float32)
    local = (pts - origin).reshape(-1, 1, 2)
    cv2.cornerSubPix(_gray(image[y0:y1, x0:x1]), local, (win, win), (-1, -1),
                     (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_COUNT, 20, 0.05))
    pts[:] = local.reshape(pts.shape) + origin


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
        half = half_size(image) if markers is None else None  # shared with the reader
        found = _detect(image, half, api(), 2) if markers is None else markers
        known = {m.id for m in self.layout.markers}
        seen = sorted(i for i in found if i in known)
        missing = sorted(known - set(seen))
        need = self.min_first if self.last is None else self.min_update
        h, err = self._fit(found, seen) if len(seen) >= need else (None, float("inf"))
        if h is not None and err <= self.max_error_mm:
            self.last = self._made_on(Calibration(h, seen, missing, True, err), image, half)
            return self.last
        if self.last is None:
            names = ", ".join(str(i) for i in missing) or "none"
            raise CalibrationError(
                f"cannot calibrate: found {len(seen)} of {len(known)} mat markers "
                f"(need {need}); missing marker ids: {names}. "
                "Check that the whole mat is in view and nothing covers its corners."
            )
        return self._made_on(Calibration(self.last.frame_to_mat, seen, missing, False,
                                         self.last.reprojection_mm), image, half)

    @staticmethod
    def _made_on(calib: Calibration, image: Image, half: Image | None) -> Calibration:
        if half is not None and image.ndim == 3:  # the reader reads colour frames
            calib._frame, calib._half = weakref.ref(image), half
        return calib

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
