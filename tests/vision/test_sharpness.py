"""The frame's softness, measured on the mat's markers, in mat millimetres."""

import cv2
import numpy as np
import pytest

from vision.calibrate import Calibrator
from vision.models.band_model import SOFT_AS_TRAINED_MM, BandModel
from vision.profile import builtin_profile
from vision.read import Reader
from vision.reading import classify
from vision.render_mat import render_mat
from vision.sharpness import blur_mm
from vision.simulated.camera_model import Camera
from vision.simulated.synth import Conditions, lay_table, motion_blur, photograph, random_deal

PX = 2.0  # px/mm of the frames below: about what the camera sees of the mat


def _mat_photo(sigma_mm: float, turn_deg: float = 4.0) -> np.ndarray:
    """The mat, turned a little (edges between pixels), blurred by ``sigma_mm``."""
    mat = render_mat(PX)
    h, w = mat.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), turn_deg, 0.9)
    frame = cv2.warpAffine(mat, m, (w, h), flags=cv2.INTER_AREA, borderValue=(40, 60, 80))
    if sigma_mm > 0:
        frame = cv2.GaussianBlur(frame, (0, 0), sigma_mm * PX * 0.9)
    return frame


@pytest.mark.parametrize("sigma_mm", [0.5, 0.9, 1.4])
def test_a_blurred_frame_measures_the_blur_it_was_given(sigma_mm: float) -> None:
    frame = _mat_photo(sigma_mm)
    got = blur_mm(frame, Calibrator().update(frame))
    assert got is not None
    # The frame's own pixels (a little over half a millimetre here) soften it too.
    assert np.hypot(sigma_mm, 0.25) - 0.15 <= got <= np.hypot(sigma_mm, 0.3) + 0.15


def test_softer_frames_measure_softer() -> None:
    got = []
    for sigma in (0.0, 0.5, 1.0, 1.5):
        frame = _mat_photo(sigma)
        got.append(blur_mm(frame, Calibrator().update(frame)))
    assert all(g is not None for g in got)
    assert got == sorted(got) and got[-1] - got[0] > 1.0  # type: ignore[operator]


def test_a_shake_counts_by_the_side_it_blurs() -> None:
    # A shake along the mat's width blurs the markers' upright sides only: the frame
    # is as soft as those sides, not as sharp as the others.
    sharp = _mat_photo(0.3, turn_deg=0.0)
    shaken = motion_blur(sharp.astype(np.float32), 5 * PX, 0.0).astype(np.uint8)
    calib = Calibrator().update(sharp)
    assert blur_mm(shaken, calib) > blur_mm(sharp, calib) + 0.6  # type: ignore[operator]


def test_no_marker_step_to_measure_says_so() -> None:
    frame = _mat_photo(0.5)
    calib = Calibrator().update(frame)
    flat = np.full_like(frame, 128)  # the mat covered, or the light gone
    assert blur_mm(flat, calib) is None


def test_a_read_says_how_soft_its_frame_was() -> None:
    # The same table shot sharp and out of focus: the read reports each frame's
    # softness (a player is told why a soft frame names few cards).
    rng = np.random.default_rng(5)
    table = lay_table(random_deal(rng, 0.4), "classic", rng)
    reader = Reader(builtin_profile("classic"))
    got = []
    for blur_px in (0.3, 2.5):
        frame = photograph(table, Camera(fill=0.92), Conditions(noise=2.0, blur=blur_px),
                           np.random.default_rng(1)).image
        out = reader.read(frame, Calibrator().update(frame)).to_json()
        got.append(out["calibration"]["soft_mm"])
    assert got[0] < 0.6 < 1.0 < got[1]


def test_the_trust_weighs_each_frame_as_soft_as_it_measured(monkeypatch) -> None:
    # A gap between the nearest card and the runner-up says more in a soft frame
    # (``vision.reading.trust``): each read is trusted with its own frame's softness,
    # or as soft as the model learnt its cards where the frame is sharper (its bands
    # are blurred so before the model weighs them: ``band_model.as_trained``).
    rng = np.random.default_rng(5)
    table = lay_table(random_deal(rng, 0.3), "classic", rng)
    profile = builtin_profile("classic")
    reader = Reader(profile, model=BandModel.train(profile, seed=1, samples=6))
    seen: list[float] = []
    real = classify.trust

    def spy(*args):
        seen.extend(np.asarray(args[9], float).tolist())  # ``trust``'s soft_mm
        return real(*args)

    monkeypatch.setattr(classify, "trust", spy)
    for blur_px, sharper in ((0.3, True), (2.5, False)):
        frame = photograph(table, Camera(fill=0.92), Conditions(noise=2.0, blur=blur_px),
                           np.random.default_rng(1)).image
        seen.clear()
        soft = reader.read(frame, Calibrator().update(frame)).soft_mm
        assert soft is not None and (soft < SOFT_AS_TRAINED_MM) == sharper
        assert seen and seen == pytest.approx([max(soft, SOFT_AS_TRAINED_MM)] * len(seen))
