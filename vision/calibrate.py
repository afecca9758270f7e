"""From the mat's ArUco markers to a homography: camera frame pixels -> mat millimetres.

The first calibration needs most markers in view and names the ones it cannot
see. Afterwards a hand or a card over a marker is harmless: the homography is
refitted from the markers still visible, and with too few of them the last
good one is kept (the camera and the mat do not move between two frames).

A plain homography is all the reader uses (it warps with it everywhere), so a
fit that misses is refused, never bent to fit: one marker far off the others'
fit is left out (``suspect``: a misdetection, or a marker-like pattern with
a mat id); otherwise the refusal says whether the markers bend as through a
strongly distorting lens or simply do not lie as on a flat mat.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from companion.i18n import _, ngettext
from vision.aruco_compat import ArucoApi, api
from vision.mat import MatLayout, standard_mat
from vision.types import FloatImage, Image

Homography = FloatImage


class CalibrationError(RuntimeError):
    """The markers do not allow a calibration; the message says why, for the player.

    ``reason`` is ``"missing"`` (too few of the mat's markers found), ``"lens"``
    (they bend as a distorting lens bends straight lines) or ``"misfit"`` (they
    do not lie as on a flat mat, no lens explains it). ``seen`` of ``total`` markers
    were found (for a short headline; the message says the rest).
    """

    def __init__(self, message: str, reason: str = "missing", seen: int = 0,
                 total: int = 0) -> None:
        super().__init__(message)
        self.reason = reason
        self.seen, self.total = seen, total


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
    reprojection_mm: float = 0.0  # RMS over the corners of the markers in ``seen``
    # Found, but far from where the other markers' fit puts them: left out of the fit.
    suspect: list[int] = field(default_factory=list)
    # Marker-like patterns whose id is none of the mat's: ignored.
    stray: list[int] = field(default_factory=list)
    worst_marker_mm: float = 0.0  # the worst of ``seen``'s markers, RMS over its corners
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
        for _step in range(downscale.bit_length() - 2):
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
class _Fit:
    h: Homography | None
    rms: float  # mm, over all the corners fitted
    per_marker: dict[int, float]  # mm, RMS over each marker's corners

    @property
    def worst(self) -> tuple[int, float]:
        i = max(self.per_marker, key=self.per_marker.__getitem__)
        return i, self.per_marker[i]


# A marker is only left out when the others fit well without it and it lies this
# many times further off than the worst of them: a lens bending the whole set
# moves the marker left out by only a few times the others' (lens_explains).
OUTLIER_RATIO = 4.0


def _ids(ids: list[int]) -> str:
    return ", ".join(str(i) for i in ids)


@dataclass
class Calibrator:
    layout: MatLayout = field(default_factory=standard_mat)
    min_first: int = 4
    min_update: int = 2
    max_error_mm: float = 3.0
    last: Calibration | None = None

    def update(self, image: Image, markers: dict[int, FloatImage] | None = None,
               ) -> Calibration:
        """Calibrate on this frame, or keep the last good calibration if it cannot.

        With no good calibration yet, ``CalibrationError`` says why it cannot.
        """
        half = half_size(image) if markers is None else None  # shared with the reader
        found = _detect(image, half, api(), 2) if markers is None else markers
        known = {m.id for m in self.layout.markers}
        seen = sorted(i for i in found if i in known)
        missing = sorted(known - set(seen))
        stray = sorted(i for i in found if i not in known)
        need = self.min_first if self.last is None else self.min_update
        fit = self._fit(found, seen) if len(seen) >= need else None
        used, suspect, lens = seen, [], None
        # A marker off by more than the limit pulls the others' fit even when the
        # whole set is within it: look for an outlier then too.
        if fit is not None and max(fit.rms, fit.worst[1]) > self.max_error_mm:
            # A lens bending the whole set first: leaving one marker out would then
            # hide the bend (four markers fit nearly any smooth bend) and blame it.
            lens = self._lens(found, seen, fit, image.shape[:2])
            odd = None if lens is not None else self._outlier(found, seen, need)
            if odd is not None:
                fit, used, suspect = odd[1], [i for i in seen if i != odd[0]], [odd[0]]
        if fit is not None and fit.h is not None and fit.rms <= self.max_error_mm:
            cal = Calibration(fit.h, used, missing, True, fit.rms, suspect, stray,
                              fit.worst[1])
            self.last = self._made_on(cal, image, half)
            return self.last
        if self.last is None:
            raise self._refusal(seen, missing, stray, need, fit, lens)
        return self._made_on(Calibration(self.last.frame_to_mat, seen, missing, False,
                                         self.last.reprojection_mm, [], stray,
                                         self.last.worst_marker_mm), image, half)

    @staticmethod
    def _made_on(calib: Calibration, image: Image, half: Image | None) -> Calibration:
        if half is not None and image.ndim == 3:  # the reader reads colour frames
            calib._frame, calib._half = weakref.ref(image), half
        return calib

    def _fit(self, found: dict[int, FloatImage], seen: list[int]) -> _Fit:
        src = np.concatenate([found[i] for i in seen]).astype(np.float64)
        return self._fit_points(src, seen)

    def _fit_points(self, src: FloatImage, seen: list[int]) -> _Fit:
        """The least-squares homography of ``seen``'s corners at frame points ``src``."""
        dst = np.concatenate([np.array(self.layout.marker(i).corners(), np.float64) for i in seen])
        h = cv2.findHomography(src, dst, 0)[0]
        if h is None:
            return _Fit(None, float("inf"), {i: float("inf") for i in seen})
        proj = cv2.perspectiveTransform(src.reshape(-1, 1, 2), h).reshape(-1, 2)
        sq = np.sum((proj - dst) ** 2, axis=1)
        per = {i: float(np.sqrt(sq[4 * k:4 * k + 4].mean())) for k, i in enumerate(seen)}
        return _Fit(np.asarray(h / h[2, 2], np.float64), float(np.sqrt(sq.mean())), per)

    def _outlier(self, found: dict[int, FloatImage], seen: list[int],
                 need: int) -> tuple[int, _Fit] | None:
        """The one marker whose leaving out makes the others fit, and the fit without
        it; None unless there is one, clearly (five markers at least: four to fit,
        one to be judged by them)."""
        if len(seen) < max(5, need + 1):
            return None
        best: tuple[int, _Fit] | None = None
        for i in seen:
            rest = [j for j in seen if j != i]
            fit = self._fit(found, rest)
            if fit.h is None or (best is not None and fit.rms >= best[1].rms):
                continue
            best = i, fit
        if best is None or best[1].rms > self.max_error_mm:
            return None
        i, fit = best
        assert fit.h is not None
        src = found[i].astype(np.float64).reshape(-1, 1, 2)
        dst = np.array(self.layout.marker(i).corners(), np.float64)
        off = float(np.sqrt(np.mean(np.sum(
            (cv2.perspectiveTransform(src, fit.h).reshape(-1, 2) - dst) ** 2, axis=1))))
        if off < max(self.max_error_mm, OUTLIER_RATIO * fit.worst[1]):
            return None
        return best

    def lens_explains(self, found: dict[int, FloatImage], seen: list[int],
                      frame_size: tuple[int, int]) -> tuple[float, float]:
        """The radial distortion ``k1`` about the frame's centre that best straightens
        ``seen``'s corners onto a flat mat, and the fit's RMS error (mm) once undone.

        Undistorted ``p_u = c + d (1 + k1 |d / w|^2)`` for ``d = p_d - c`` and a frame
        ``w`` pixels wide: ``k1 > 0`` is barrel distortion, ``k1 < 0`` pincushion.
        Only to say why a fit misses: the reader warps with the plain homography.
        """
        fh, fw = frame_size
        centre = np.array([fw / 2, fh / 2])
        d = np.concatenate([found[i] for i in seen]).astype(np.float64) - centre
        r2 = np.sum((d / fw) ** 2, axis=1, keepdims=True)

        def rms(k1: float) -> float:
            return self._fit_points(centre + d * (1 + k1 * r2), seen).rms

        # Golden-section search: the residual is unimodal in k1 over a sane range.
        lo, hi = -1.5, 1.5
        g = (np.sqrt(5) - 1) / 2
        a, b = hi - g * (hi - lo), lo + g * (hi - lo)
        fa, fb = rms(a), rms(b)
        for _step in range(40):
            if fa < fb:
                hi, b, fb = b, a, fa
                a = hi - g * (hi - lo)
                fa = rms(a)
            else:
                lo, a, fa = a, b, fb
                b = lo + g * (hi - lo)
                fb = rms(b)
        k1 = (lo + hi) / 2
        return k1, rms(k1)

    def _lens(self, found: dict[int, FloatImage], seen: list[int], fit: _Fit,
              frame_size: tuple[int, ...]) -> float | None:
        """``k1`` when a radial distortion explains a fit that misses (the markers then
        fit well within the limit once it is undone), else None."""
        k1, bent = self.lens_explains(found, seen, (frame_size[0], frame_size[1]))
        return k1 if bent <= self.max_error_mm / 2 and bent < fit.rms / 3 else None

    def _refusal(self, seen: list[int], missing: list[int], stray: list[int], need: int,
                 fit: _Fit | None, lens: float | None) -> CalibrationError:
        """Why the first calibration fails, in the player's words (whole sentences for
        the translators, each chosen by its count)."""
        total = len(self.layout.markers)
        tail = ""
        if stray:
            tail = " " + ngettext(
                "(a marker-like pattern in view, id {ids}, is not one of the mat's: is "
                "another printed marker lying near the mat?)",
                "(marker-like patterns in view, ids {ids}, are not the mat's: is another "
                "printed marker lying near the mat?)", len(stray)).format(ids=_ids(stray))
        if fit is None:
            return CalibrationError(ngettext(
                "cannot calibrate: marker {ids} not found (need {need} of {total}) — is "
                "the whole mat in view, nothing covering its corners?",
                "cannot calibrate: markers {ids} not found (need {need} of {total}) — is "
                "the whole mat in view, nothing covering its corners?", len(missing)).format(
                    ids=_ids(missing), need=need, total=total) + tail, "missing",
                len(seen), total)
        worst, worst_mm = fit.worst
        # Never "3.0 mm off" against a 3 mm limit.
        off = f"{fit.rms:.1f}" if round(fit.rms, 1) > self.max_error_mm else f"{fit.rms:.2f}"
        values = {"n": len(seen), "off": off, "worst": worst, "worst_mm": f"{worst_mm:.1f}",
                  "limit": f"{self.max_error_mm:g}"}
        if missing:
            values["not_found"] = ngettext("marker {ids} not found", "markers {ids} not found",
                                           len(missing)).format(ids=_ids(missing))
            head = ngettext(
                "cannot calibrate: the {n} marker found ({not_found}) does not lie where a "
                "flat mat puts it ({off} mm off, worst marker {worst} at {worst_mm} mm)",
                "cannot calibrate: the {n} markers found ({not_found}) do not lie where a "
                "flat mat puts them ({off} mm off, worst marker {worst} at {worst_mm} mm)",
                len(seen))
        else:
            head = ngettext(
                "cannot calibrate: the {n} marker found does not lie where a flat mat puts "
                "it ({off} mm off, worst marker {worst} at {worst_mm} mm)",
                "cannot calibrate: the {n} markers found do not lie where a flat mat puts "
                "them ({off} mm off, worst marker {worst} at {worst_mm} mm)", len(seen))
        if lens is not None:
            values["kind"] = _("barrel distortion") if lens > 0 else _("pincushion distortion")
            why = _("they bend as the camera's lens bends straight lines ({kind}), more than "
                    "the reader can follow — move the camera back so the mat fills less of the "
                    "picture, or use a lens with less distortion (the limit is {limit} mm)")
            reason = "lens"
        else:
            why = _("is the mat flat and the camera's lens distortion mild? Is a marker "
                    "damaged, or a copy of one lying elsewhere in view? (the limit is "
                    "{limit} mm)")
            reason = "misfit"
        return CalibrationError(_("{refusal}: {why}").format(
            refusal=head.format(**values), why=why.format(**values)) + tail, reason,
            len(seen), total)
