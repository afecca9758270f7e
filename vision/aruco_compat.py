"""One face over the two OpenCV ArUco APIs.

OpenCV 4.7 replaced the free functions (``detectMarkers``,
``DetectorParameters_create``, ``Dictionary_get``, ``drawMarker``) with the
``ArucoDetector`` class and ``generateImageMarker``. Raspberry Pi OS ships 4.6
from apt; the venv has 5.x. ``select_api`` picks by what the module offers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import cv2
import numpy as np

from vision.types import FloatImage, Image

Corners = list[FloatImage]  # each (4, 2): TL, TR, BR, BL


@dataclass(frozen=True)
class ArucoApi:
    name: str  # "class" (4.7+) or "legacy" (<= 4.6)
    detect: Callable[[Image], tuple[Corners, list[int]]]  # one threshold pass: fast
    draw: Callable[[int, int], Image]
    # Several threshold window sizes, subpixel corners: for when the fast pass misses.
    detect_thorough: Callable[[Image], tuple[Corners, list[int]]] | None = None


# The markers span 25-30 px at the half resolution they are looked for at: one
# adaptive threshold window of about half a marker finds them (the default
# tries three sizes, three times the work).
FAST_WINDOW = 13
# Outlines the fast pass considers, as perimeters over the image's larger side.
# Down to half the expected marker (the default, 0.03, is a third); up to 0.2:
# with the whole mat in view its markers' rows (768 mm apart) fit in the width,
# so a 30 mm marker's perimeter stays under 0.16 of it. Shorter outlines (print,
# noise) and longer ones (cards, zone lines, hands) then cost no shape tests.
FAST_PERIMETER = (0.05, 0.2)
# How much darker than its neighbourhood a pixel must be to count as black. A
# printed marker's black is far darker than that; the default (7) also turns
# faint print and sensor noise into outlines to trace. On the bench's first 30
# photographs 10 takes a seventh less time for the same markers and reprojection
# (0.31 mm); 20 takes a fifth less but places corners worse (0.35 mm).
FAST_THRESHOLD_C = 10


def _fast(params: Any) -> Any:
    params.adaptiveThreshWinSizeMin = FAST_WINDOW
    params.adaptiveThreshWinSizeMax = FAST_WINDOW
    params.adaptiveThreshConstant = FAST_THRESHOLD_C
    params.minMarkerPerimeterRate, params.maxMarkerPerimeterRate = FAST_PERIMETER
    return params


def _dictionary(aruco: Any, dict_name: str) -> Any:
    dict_id = getattr(aruco, dict_name)
    if hasattr(aruco, "getPredefinedDictionary"):
        return aruco.getPredefinedDictionary(dict_id)
    return aruco.Dictionary_get(dict_id)


def _unpack(corners: Any, ids: Any) -> tuple[Corners, list[int]]:
    if ids is None:
        return [], []
    return (
        [np.asarray(c, np.float32).reshape(4, 2) for c in corners],
        [int(i) for i in np.asarray(ids).reshape(-1)],
    )


def select_api(aruco: ModuleType | Any, dict_name: str = "DICT_4X4_50") -> ArucoApi:
    """The detector/drawer for whichever ArUco API ``aruco`` (``cv2.aruco``) has."""
    dictionary = _dictionary(aruco, dict_name)
    if hasattr(aruco, "ArucoDetector"):
        params = aruco.DetectorParameters()
        params.cornerRefinementMethod = aruco.CORNER_REFINE_SUBPIX
        thorough = aruco.ArucoDetector(dictionary, params)
        fast = aruco.ArucoDetector(dictionary, _fast(aruco.DetectorParameters()))

        def detector(det: Any) -> Callable[[Image], tuple[Corners, list[int]]]:
            def detect(gray: Image) -> tuple[Corners, list[int]]:
                corners, ids, _ = det.detectMarkers(gray)
                return _unpack(corners, ids)
            return detect

        def draw(marker_id: int, px: int) -> Image:
            return np.asarray(aruco.generateImageMarker(dictionary, marker_id, px), np.uint8)

        return ArucoApi("class", detector(fast), draw, detector(thorough))

    legacy_params = aruco.DetectorParameters_create()
    legacy_params.cornerRefinementMethod = aruco.CORNER_REFINE_SUBPIX
    fast_params = _fast(aruco.DetectorParameters_create())

    def legacy_detector(params: Any) -> Callable[[Image], tuple[Corners, list[int]]]:
        def detect(gray: Image) -> tuple[Corners, list[int]]:
            corners, ids, _ = aruco.detectMarkers(gray, dictionary, parameters=params)
            return _unpack(corners, ids)
        return detect

    def legacy_draw(marker_id: int, px: int) -> Image:
        return np.asarray(aruco.drawMarker(dictionary, marker_id, px), np.uint8)

    return ArucoApi("legacy", legacy_detector(fast_params), legacy_draw,
                    legacy_detector(legacy_params))


_API: ArucoApi | None = None


def api() -> ArucoApi:
    """The installed OpenCV's API, built once."""
    global _API
    if _API is None:
        _API = select_api(cv2.aruco)
    return _API
