from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from vision.aruco_compat import select_api
from vision.calibrate import CalibrationError, Calibrator, detect_markers
from vision.mat import standard_mat


def _legacy_aruco() -> SimpleNamespace:
    """The OpenCV 4.6 function API, backed by the installed detector (real pixels)."""
    a = cv2.aruco

    def detect_markers_fn(gray, dictionary, parameters):
        return a.ArucoDetector(dictionary, parameters).detectMarkers(gray)

    return SimpleNamespace(
        DICT_4X4_50=a.DICT_4X4_50,
        CORNER_REFINE_SUBPIX=a.CORNER_REFINE_SUBPIX,
        Dictionary_get=a.getPredefinedDictionary,
        DetectorParameters_create=a.DetectorParameters,
        detectMarkers=detect_markers_fn,
        drawMarker=lambda d, i, px: a.generateImageMarker(d, i, px),
    )


def test_installed_opencv_uses_the_detector_class():
    assert select_api(cv2.aruco).name == "class"


def test_legacy_api_is_chosen_without_the_class_and_finds_the_same_markers(calm):
    _, frame = calm
    legacy = select_api(_legacy_aruco())
    assert legacy.name == "legacy"
    new = detect_markers(frame.image, select_api(cv2.aruco))
    old = detect_markers(frame.image, legacy)
    assert sorted(old) == sorted(new) == [m.id for m in standard_mat().markers]
    for i in new:
        assert np.allclose(old[i], new[i], atol=0.5)
    # Both draw the same marker image.
    assert np.array_equal(legacy.draw(3, 60), select_api(cv2.aruco).draw(3, 60))


def _mat_error_mm(h_est, frame) -> float:
    """Largest disagreement with the true camera over the mat's corners, in mm."""
    lay = standard_mat()
    mat_pts = np.array([[0, 0], [lay.width, 0], [lay.width, lay.height], [0, lay.height],
                        [lay.width / 2, lay.height / 2]], np.float64).reshape(-1, 1, 2)
    pix = cv2.perspectiveTransform(mat_pts, frame.mat_to_frame)
    back = cv2.perspectiveTransform(pix, h_est)
    return float(np.abs(back - mat_pts).max())


def test_calibration_matches_the_camera(calm):
    _, frame = calm
    cal = Calibrator().update(frame.image)
    assert cal.fresh and cal.missing == []
    assert _mat_error_mm(cal.frame_to_mat, frame) < 2.0


def _cover_marker(image, frame, marker_id):
    m = standard_mat().marker(marker_id)
    pts = np.array(m.corners(), np.float64).reshape(-1, 1, 2)
    pix = cv2.perspectiveTransform(pts, frame.mat_to_frame).reshape(-1, 2)
    out = image.copy()
    cv2.fillConvexPoly(out, pix.astype(np.int32), (120, 150, 200))  # a hand's colour
    return out


def test_one_marker_covered_after_first_calibration_is_survived(calm):
    _, frame = calm
    calib = Calibrator()
    first = calib.update(frame.image)
    covered = _cover_marker(frame.image, frame, 2)
    cal = calib.update(covered)
    assert cal.missing == [2]
    assert _mat_error_mm(cal.frame_to_mat, frame) < 2.5
    # Everything but one marker gone: the last good calibration is kept.
    worse = covered
    for i in (0, 1, 3, 4):
        worse = _cover_marker(worse, frame, i)
    kept = calib.update(worse)
    assert not kept.fresh and kept.missing == [0, 1, 2, 3, 4]
    assert np.allclose(kept.frame_to_mat, calib.last.frame_to_mat)
    assert first.fresh


def test_first_calibration_names_missing_markers(calm):
    _, frame = calm
    img = frame.image
    for i in (0, 3, 5):
        img = _cover_marker(img, frame, i)
    with pytest.raises(CalibrationError, match=r"missing marker ids: 0, 3, 5"):
        Calibrator().update(img)
