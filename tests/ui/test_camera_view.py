"""The camera view calibrates a real (synthetic) photograph and draws the mat's zones on it."""

from __future__ import annotations

from typing import Any

import numpy as np
import pygame
import pytest

from companion import i18n
from companion.ui import theme
from companion.ui.camera_screen import look_at
from companion.ui.pygame_view import LANDSCAPE, PygameView
from companion.ui.screens import Intent
from companion.ui.shots import demo_frame, refused_frame
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
