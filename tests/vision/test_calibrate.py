import re
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from vision.aruco_compat import select_api
from vision.calibrate import CalibrationError, Calibrator, detect_markers
from vision.mat import MARKER_PAD, standard_mat
from vision.simulated.synth import Frame

from .conftest import calm_scene


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
    with pytest.raises(CalibrationError, match=r"markers 0, 3, 5 not found \(need 4 of 6\)"
                       ) as err:
        Calibrator().update(img)
    assert err.value.reason == "missing"


@pytest.mark.parametrize(("language", "words"), [
    ("ru", "калибровка невозможна: метки 0, 3, 5 не найдены (нужно 4 из 6)"),
    ("cs", "nelze kalibrovat: značky 0, 3, 5 nenalezeny (potřeba 4 z 6)"),
])
def test_a_refusal_is_in_the_players_language(calm, language, words):
    """``read`` and the camera screen show the refusal's text: in the language set,
    plural forms and all, and with the same reason for the code."""
    from companion.i18n import set_language

    _, frame = calm
    img = frame.image
    for i in (0, 3, 5):
        img = _cover_marker(img, frame, i)
    set_language(language)
    try:
        with pytest.raises(CalibrationError) as err:
            Calibrator().update(img)
    finally:
        set_language("en")
    assert str(err.value).startswith(words) and err.value.reason == "missing"

def test_two_covered_markers_are_named_exactly(calm):
    _, frame = calm
    img = _cover_marker(_cover_marker(frame.image, frame, 1), frame, 4)
    # Four of six suffice by default, and the two hidden ones are listed.
    cal = Calibrator().update(img)
    assert cal.fresh and cal.missing == [1, 4] and cal.seen == [0, 2, 3, 5]
    with pytest.raises(CalibrationError) as err:
        Calibrator(min_first=5).update(img)
    msg = str(err.value)
    assert msg.startswith("cannot calibrate: markers 1, 4 not found (need 5 of 6)")
    assert "whole mat in view" in msg and "not one of the mat's" not in msg


def _marker_quad(frame, cx: float, cy: float, half: float) -> np.ndarray:
    pts = np.array([[cx - half, cy - half], [cx + half, cy - half], [cx + half, cy + half],
                    [cx - half, cy + half]], np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(pts, frame.mat_to_frame).reshape(-1, 2).astype(np.float32)


def _move_marker(image, frame, marker_id: int, dx: float, dy: float):
    """The marker's image (with its white border) pasted ``dx``, ``dy`` mm away, and
    its true place painted over: a misdetection, or a copy lying on the mat."""
    m = standard_mat().marker(marker_id)
    half = m.size / 2 + MARKER_PAD
    src = _marker_quad(frame, m.cx, m.cy, half)
    dst = _marker_quad(frame, m.cx + dx, m.cy + dy, half)
    moved = cv2.warpPerspective(image, cv2.getPerspectiveTransform(src, dst),
                                (image.shape[1], image.shape[0]))
    out = image.copy()
    cv2.fillConvexPoly(out, src.round().astype(np.int32), (200, 205, 210))
    mask = np.zeros(out.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, dst.round().astype(np.int32), 1)
    out[mask > 0] = moved[mask > 0]
    return out


def test_a_moved_marker_is_left_out_and_named(calm):
    _, frame = calm
    img = _move_marker(frame.image, frame, 5, -10, -40)
    assert sorted(detect_markers(img)) == [0, 1, 2, 3, 4, 5]  # all six still found
    cal = Calibrator().update(img)
    assert cal.fresh and cal.suspect == [5] and cal.seen == [0, 1, 2, 3, 4]
    assert cal.missing == [] and cal.reprojection_mm < 1.0
    assert _mat_error_mm(cal.frame_to_mat, frame) < 2.0


def test_two_moved_markers_are_refused_as_not_on_a_flat_mat(calm):
    _, frame = calm
    img = _move_marker(_move_marker(frame.image, frame, 5, -10, -40), frame, 0, 20, 15)
    with pytest.raises(CalibrationError) as err:
        Calibrator().update(img)
    msg = str(err.value)
    assert err.value.reason == "misfit"
    assert msg.startswith("cannot calibrate: the 6 markers found do not lie where a flat "
                          "mat puts them")
    assert "is the mat flat" in msg and "(the limit is 3 mm)" in msg


@pytest.fixture(scope="module")
def bent() -> Frame:
    """A strongly barrel-distorting lens: far beyond the synthetic cameras' usual
    k1 in [-0.06, 0.03] (a homography is still within 1.7 mm over the zones there)."""
    return calm_scene(11, k1=0.6)[1]


def test_strong_lens_distortion_is_refused_with_the_error(bent):
    with pytest.raises(CalibrationError) as err:
        Calibrator().update(bent.image)
    msg = str(err.value)
    assert err.value.reason == "lens"
    found = re.search(r"the (\d) markers found do not lie where a flat mat puts them "
                      r"\((\d+\.\d+) mm off, worst marker \d at (\d+\.\d) mm\)", msg)
    assert found, msg
    assert float(found[2]) > 3.0 and float(found[3]) >= float(found[2])
    assert "barrel distortion" in msg and "(the limit is 3 mm)" in msg
    # A lax limit takes it, and says how far off it is.
    cal = Calibrator(max_error_mm=10).update(bent.image)
    assert cal.reprojection_mm == pytest.approx(float(found[2]), abs=0.06)
    assert cal.suspect == []  # the bend is not blamed on one marker


def test_mild_lens_distortion_calibrates(calm):
    frame = calm_scene(11, k1=-0.06)[1]
    cal = Calibrator().update(frame.image)
    assert cal.seen == [0, 1, 2, 3, 4, 5] and cal.suspect == []
    assert cal.reprojection_mm < 1.0


def test_a_stray_marker_is_named(calm):
    _, frame = calm
    img = frame.image
    for i in (0, 3, 5):
        img = _cover_marker(img, frame, i)
    # Marker 7's image over the middle of the (empty) left discard column.
    m = standard_mat().marker(2)
    quad = _marker_quad(frame, m.cx, m.cy + 60, 15 + MARKER_PAD)
    px = 400
    pattern = np.full((px, px), 255, np.uint8)
    inner = round(px / 2 * 15 / (15 + MARKER_PAD))  # half the black square
    pattern[px // 2 - inner:px // 2 + inner, px // 2 - inner:px // 2 + inner] = (
        select_api(cv2.aruco).draw(7, 2 * inner))
    sq = np.array([[0, 0], [px, 0], [px, px], [0, px]], np.float32)
    warped = cv2.warpPerspective(cv2.cvtColor(pattern, cv2.COLOR_GRAY2BGR),
                                 cv2.getPerspectiveTransform(sq, quad),
                                 (img.shape[1], img.shape[0]))
    mask = np.zeros(img.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, quad.round().astype(np.int32), 1)
    img = img.copy()
    img[mask > 0] = warped[mask > 0]
    assert 7 in detect_markers(img)
    with pytest.raises(CalibrationError, match=r"markers 0, 3, 5 not found .*id 7, is not "
                       r"one of the mat's"):
        Calibrator().update(img)
