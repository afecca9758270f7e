"""The camera view: the live image with the mat's zones drawn where the
calibration puts them, each marker found or missing, and what to do next.

It uses the vision package's own calibration (``vision.calibrate``) on the
frame it is given, so what it draws is what the reader will use.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import pygame

from companion.ui import theme
from companion.ui.i18n import _
from companion.ui.layout import Layout
from companion.ui.screens import Intent, Scene, Target, top_bar
from vision.calibrate import Calibration, CalibrationError, Calibrator
from vision.types import Image


@dataclass
class CameraState:
    """The latest frame and what calibrating it found."""

    image: Image | None = None
    calibration: Calibration | None = None
    problem: str = ""
    markers: dict[int, np.ndarray] | None = None


def look_at(frame: Image | None, calibrator: Calibrator) -> CameraState:
    if frame is None:
        return CameraState(problem=_("No picture from the camera."))
    try:
        return CameraState(frame, calibrator.update(frame))
    except CalibrationError as error:
        return CameraState(frame, None, str(error))


def _bgr(rgb: theme.RGB) -> tuple[int, int, int]:
    return rgb[2], rgb[1], rgb[0]


def annotated(camera: CameraState, calibrator: Calibrator) -> Image:
    """The frame with the zones and markers drawn where the calibration puts them."""
    assert camera.image is not None
    image = camera.image.copy()
    cal = camera.calibration
    if cal is None:
        return image
    thick = max(2, image.shape[1] // 400)
    to_frame = cal.mat_to_frame
    colour = _bgr(theme.GOOD if cal.fresh else theme.player_colour("attention"))
    for zone in calibrator.layout.zones:
        r = zone.rect
        corners = np.array([[[r.x, r.y]], [[r.x + r.w, r.y]], [[r.x + r.w, r.y + r.h]],
                            [[r.x, r.y + r.h]]], np.float64)
        pts = cv2.perspectiveTransform(corners, to_frame).reshape(-1, 1, 2)
        cv2.polylines(image, [np.round(pts).astype(np.int32)], True, colour,
                      thick if zone.kind == "formation" else max(1, thick // 2))
    for marker in calibrator.layout.markers:
        pt = cv2.perspectiveTransform(np.array([[[marker.cx, marker.cy]]], np.float64),
                                      to_frame).reshape(2)
        seen = marker.id in cal.seen
        cv2.circle(image, (int(pt[0]), int(pt[1])), 8 * thick,
                   _bgr(theme.GOOD if seen else theme.BAD), thick)
    return image


def _frame_surface(image: Image, size: tuple[int, int]) -> pygame.Surface:
    """The frame fitted into ``size``; turned a quarter if that shows it larger."""
    h, w = image.shape[:2]
    if (w > h) != (size[0] > size[1]):
        image = cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE)
        h, w = w, h
    scale = min(size[0] / w, size[1] / h)
    small = cv2.resize(image, (max(1, int(w * scale)), max(1, int(h * scale))),
                       interpolation=cv2.INTER_AREA)
    rgb = cv2.cvtColor(small, cv2.COLOR_BGR2RGB)
    return pygame.image.frombuffer(rgb.tobytes(), (rgb.shape[1], rgb.shape[0]), "RGB")


def draw_camera(surface: pygame.Surface, layout: Layout, scene: Scene,
                camera: CameraState, calibrator: Calibrator) -> list[Target]:
    surface.fill(theme.BACKGROUND)
    targets = top_bar(surface, layout, scene, _("Camera"))
    board = layout.board.union(layout.bottom_bar)
    text_h = layout.px(96) if not layout.portrait else layout.px(170)
    area = pygame.Rect(board.left + 8, board.top + 8, board.width - 16,
                       board.height - text_h - 16)
    pygame.draw.rect(surface, theme.PANEL, area, border_radius=8)
    lines: list[tuple[str, theme.RGB]] = []
    if camera.image is not None:
        image = _frame_surface(annotated(camera, calibrator), area.size)
        surface.blit(image, image.get_rect(center=area.center))
        cal = camera.calibration
        if cal is not None:
            lines.append((_("Mat found: {n} of {m} markers, error {e:.1f} mm.").format(
                n=len(cal.seen), m=len(calibrator.layout.markers), e=cal.reprojection_mm),
                theme.GOOD))
            if cal.missing:
                lines.append((_("Markers hidden: {ids}. The last good fit is kept.").format(
                    ids=", ".join(str(i) for i in cal.missing)), theme.MUTED))
    else:
        theme.draw_text(surface, _("No picture"), area.center, layout.px(40), theme.MUTED,
                        anchor="center")
    if camera.problem:
        lines.append((camera.problem, theme.BAD))
        lines.append((_("Calibrate: the whole mat in view, its corner markers uncovered."),
                      theme.TEXT))
    lines.append((_("Enrol your deck: battleline-companion enroll --camera, then lay each "
                    "card on the mat as it asks."), theme.MUTED))
    y = area.bottom + 8
    for text, colour in lines:
        y = theme.draw_wrapped(surface, text, pygame.Rect(16, y, board.width - 32,
                                                          board.bottom - y), layout.px(22), colour)
    return [*targets, (area, Intent("none"))]
