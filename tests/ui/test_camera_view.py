"""The camera view calibrates a real (synthetic) photograph and draws the mat's zones on it."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import pygame
import pytest

from companion import i18n
from companion.ui import theme
from companion.ui.camera_screen import look_at
from companion.ui.pygame_view import LANDSCAPE, PygameView
from companion.ui.scene import Intent
from companion.ui.shots import demo_frame, refused_frame
from companion.ui.terminal import ViewModel
from vision.calibrate import Calibrator
from vision.render_mat import render_mat
from vision.sharpness import TOO_SOFT_MM


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
    assert state.headline == "Cannot see the mat: 0 of 6 markers found"
    assert look_at(None, Calibrator()).problem == "No picture from the camera."


def _drawn(view: PygameView, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every text the view draws on its next frame."""
    texts: list[str] = []
    draw_text = theme.draw_text

    def recording(surface: pygame.Surface, text: str, *args: Any, **kwargs: Any) -> pygame.Rect:
        texts.append(text)
        return draw_text(surface, text, *args, **kwargs)

    monkeypatch.setattr(theme, "draw_text", recording)
    view.draw()
    monkeypatch.setattr(theme, "draw_text", draw_text)
    return texts


def _tap(view: PygameView, intent: Intent) -> None:
    assert any(target == intent for _rect, target in view.targets), view.targets
    view.act(intent)


def test_a_refused_calibration_shows_a_headline_and_its_whole_reason_on_a_tap(
        monkeypatch: pytest.MonkeyPatch) -> None:
    i18n.set_language("hu")
    try:
        view = PygameView(LANDSCAPE)
        view.show(ViewModel("t", flags=[], statuses=[]))
        view.camera_frame(refused_frame())
        view.act(Intent("go", value="camera"))
        shown = _drawn(view, monkeypatch)
        assert "A szőnyeg nem látszik: 6 jelölő közül 3 található" in shown
        assert "Miért?" in shown and not any("0, 2, 4" in text for text in shown)
        _tap(view, Intent("details"))
        shown = " ".join(_drawn(view, monkeypatch))
        assert "Miért nem kalibrálható a szőnyeg" in shown
        assert "Nem kalibrálható: nem található jelölő: 0, 2, 4" in shown  # the whole reason
        assert "Elrejt" in shown
        _tap(view, Intent("details"))  # the panel (or Hide) closes it
        assert "Miért?" in _drawn(view, monkeypatch)
    finally:
        i18n.set_language("en")


PX = 2.0 * 0.9  # px/mm of the mat photographs below


def _mat_photo(sigma_mm: float) -> np.ndarray:
    """The printed mat, turned a little (edges between pixels), blurred by ``sigma_mm``."""
    mat = render_mat(2.0)
    h, w = mat.shape[:2]
    turn = cv2.getRotationMatrix2D((w / 2, h / 2), 4.0, 0.9)
    frame = cv2.warpAffine(mat, turn, (w, h), flags=cv2.INTER_AREA, borderValue=(40, 60, 80))
    return cv2.GaussianBlur(frame, (0, 0), sigma_mm * PX) if sigma_mm > 0 else frame


def _camera_view(frame: np.ndarray) -> PygameView:
    view = PygameView(LANDSCAPE)
    view.show(ViewModel("t", flags=[], statuses=[]))
    view.camera_frame(frame)
    view.act(Intent("go", value="camera"))
    return view


def test_a_sharp_photo_is_said_sharp_and_asks_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    state = look_at(_mat_photo(0.0), Calibrator())
    assert state.soft_mm is not None and state.soft_mm < TOO_SOFT_MM
    shown = " ".join(_drawn(_camera_view(_mat_photo(0.0)), monkeypatch))
    assert f"Picture sharp (blur {state.soft_mm:.1f} mm)." in shown
    assert "soft" not in shown and "Your own printed deck" in shown


def test_a_soft_photo_tells_the_player_to_focus_or_steady_the_camera(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # An index's numerals blur together this soft: the player is told, with the figure,
    # before the cards misread (and before a deck is enrolled from such pictures).
    frame = _mat_photo(1.4)
    state = look_at(frame, Calibrator())
    assert state.calibration is not None and not state.problem
    assert state.soft_mm is not None and state.soft_mm > TOO_SOFT_MM + 0.2
    shown = " ".join(_drawn(_camera_view(frame), monkeypatch))
    assert (f"The picture is soft (blur {state.soft_mm:.1f} mm): focus the lens, or steady "
            "the camera.") in shown
    assert "Picture sharp" not in shown and "Your own printed deck" not in shown
    i18n.set_language("nl")
    try:
        shown = " ".join(_drawn(_camera_view(frame), monkeypatch))
        assert f"Het beeld is onscherp (vervaging {state.soft_mm:.1f} mm)" in shown
    finally:
        i18n.set_language("en")
