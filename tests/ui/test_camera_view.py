"""The camera view calibrates a real (synthetic) photograph and draws the mat's zones on it."""

from __future__ import annotations

import numpy as np
import pygame

from companion.ui.camera_screen import look_at
from companion.ui.pygame_view import LANDSCAPE, PygameView
from companion.ui.screens import Intent
from companion.ui.shots import demo_frame
from companion.ui.terminal import ViewModel
from vision.calibrate import Calibrator


def test_a_photographed_mat_is_calibrated_and_its_zones_drawn_in_green() -> None:
    frame = demo_frame()
    state = look_at(frame, Calibrator())
    assert state.calibration is not None and not state.problem
    assert state.calibration.reprojection_mm < 2.0
    view = PygameView(LANDSCAPE)
    view.show(ViewModel("t", flags=[], statuses=[]))
    view.camera_frame(frame)
    view.act(Intent("go", value="camera"))
    pixels = np.asarray(pygame.surfarray.array3d(view.draw()))
    green = (pixels[:, :, 1] > 180) & (pixels[:, :, 0] < 120) & (pixels[:, :, 2] < 150)
    assert green.sum() > 2000  # the zone outlines


def test_a_covered_mat_names_the_missing_markers_and_no_picture_is_said() -> None:
    frame = demo_frame().copy()
    frame[:, :] = 90  # nothing of the mat in view
    state = look_at(frame, Calibrator())
    assert state.calibration is None and "markers 0, 1, 2, 3, 4, 5 not found" in state.problem
    assert look_at(None, Calibrator()).problem == "No picture from the camera."
