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

from companion.i18n import _, ngettext
from companion.rules.cards import parse_card
from companion.ui import theme
from companion.ui.cards import card_size, draw_card
from companion.ui.layout import MIN_TARGET, Layout
from companion.ui.scene import Intent, Scene, Target, card_words
from companion.ui.screens import top_bar
from vision.calibrate import Calibration, CalibrationError, Calibrator
from vision.enrolment.enroll import Enrolment, Step
from vision.sharpness import TOO_SOFT_MM, blur_mm
from vision.types import Image

NO_CARD_LOOKS = 20  # looks at an empty zone (about 5 s) before saying no card is seen


@dataclass
class CameraState:
    """The latest frame and what calibrating it found: ``problem`` the whole reason it
    could not (up to a paragraph, shown on a tap), ``headline`` that in one short line;
    ``soft_mm`` how soft the calibrated frame is at the mat (``vision.sharpness``)."""

    image: Image | None = None
    calibration: Calibration | None = None
    problem: str = ""
    markers: dict[int, np.ndarray] | None = None
    headline: str = ""
    soft_mm: float | None = None


def look_at(frame: Image | None, calibrator: Calibrator) -> CameraState:
    if frame is None:
        return CameraState(problem=_("No picture from the camera."))
    try:
        calibration = calibrator.update(frame)
    except CalibrationError as error:
        return refused(frame, error)
    return CameraState(frame, calibration,
                       soft_mm=blur_mm(frame, calibration, calibrator.layout))


def refused(frame: Image | None, error: CalibrationError) -> CameraState:
    """The frame that could not be calibrated: the reason whole, and its headline."""
    if error.reason == "lens":
        headline = _("Cannot calibrate: the lens bends the mat too much")
    elif error.reason == "misfit":
        headline = _("Cannot calibrate: the markers do not lie as on a flat mat")
    else:
        headline = ngettext("Cannot see the mat: {n} of {total} marker found",
                            "Cannot see the mat: {n} of {total} markers found",
                            error.total).format(n=error.seen, total=error.total)
    return CameraState(frame, None, str(error), headline=headline)


def _bgr(rgb: theme.RGB) -> tuple[int, int, int]:
    return rgb[2], rgb[1], rgb[0]


def annotated(camera: CameraState, calibrator: Calibrator, lit: str = "") -> Image:
    """The frame with the zones and markers drawn where the calibration puts them;
    the zone named ``lit`` (where enrolment asks for a card) filled and outlined boldly."""
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
        pts = np.round(cv2.perspectiveTransform(corners, to_frame).reshape(-1, 1, 2))
        if zone.name == lit:
            glow = image.copy()
            cv2.fillPoly(glow, [pts.astype(np.int32)], _bgr(theme.ENROL))
            image = cv2.addWeighted(glow, 0.3, image, 0.7, 0)
            cv2.polylines(image, [pts.astype(np.int32)], True, _bgr(theme.ENROL), 3 * thick)
            continue
        if lit and zone.kind != "formation":
            continue  # enrolling: only the zone that matters stands out
        cv2.polylines(image, [pts.astype(np.int32)], True, colour,
                      thick if zone.kind == "formation" and not lit else max(1, thick // 2))
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
                camera: CameraState, calibrator: Calibrator,
                enrolment: Enrolment | None = None) -> list[Target]:
    surface.fill(theme.BACKGROUND)
    targets = top_bar(surface, layout, scene, _("Camera"))
    board = layout.board.union(layout.bottom_bar)
    # Upright, the buttons sit under the text: room kept for five lines above them.
    text_h = layout.px(96) if not layout.portrait else layout.px(200)
    area = pygame.Rect(board.left + 8, board.top + 8, board.width - 16,
                       board.height - text_h - 16)
    pygame.draw.rect(surface, theme.PANEL, area, border_radius=8)
    lines: list[tuple[str, theme.RGB]] = []
    soft = camera.soft_mm is not None and camera.soft_mm > TOO_SOFT_MM
    if camera.image is not None:
        image = _frame_surface(annotated(camera, calibrator), area.size)
        surface.blit(image, image.get_rect(center=area.center))
        cal = camera.calibration
        if cal is not None:
            m = len(calibrator.layout.markers)
            lines.append((ngettext("Mat found: {n} of {m} marker, error {e:.1f} mm.",
                                   "Mat found: {n} of {m} markers, error {e:.1f} mm.", m).format(
                n=len(cal.seen), m=m, e=cal.reprojection_mm), theme.GOOD))
            # A soft frame blurs an index's numerals together: said before it misreads.
            if soft:
                lines.append((_("The picture is soft (blur {mm:.1f} mm): focus the lens, "
                                "or steady the camera.").format(mm=camera.soft_mm), theme.BAD))
            elif camera.soft_mm is not None:
                lines.append((_("Picture sharp (blur {mm:.1f} mm).").format(mm=camera.soft_mm),
                              theme.MUTED))
            if cal.missing:
                lines.append((_("Markers hidden: {ids}. The last good fit is kept.").format(
                    ids=", ".join(str(i) for i in cal.missing)), theme.MUTED))
    else:
        theme.draw_text(surface, _("No picture"), area.center, layout.px(40), theme.MUTED,
                        anchor="center")
    if camera.problem:
        lines.append((camera.headline or camera.problem, theme.BAD))
        lines.append((_("Calibrate: the whole mat in view, its corner markers uncovered."),
                      theme.TEXT))
    elif not soft:  # enrolling needs the mat calibrated and sharp: said once it is
        lines.append((_("Your own printed deck: tap \u201cEnrol a deck\u201d and lay each card "
                        "in the lit zone as asked."), theme.MUTED))
    if scene.toast:
        lines.insert(0, (scene.toast, theme.TEXT))
    bh = max(MIN_TARGET + 8, layout.px(60))
    bw = layout.px(210)
    enrol = pygame.Rect(board.right - 12 - bw, board.bottom - 12 - bh, bw, bh)
    label = _("Enrol a deck") if enrolment is None else _("Go on enrolling")
    theme.button(surface, enrol, label, fill=theme.ACCENT, size=layout.px(26))
    buttons = [(enrol, Intent("enrol", value="start"))]
    why = None
    if camera.headline:  # the whole reason on a tap: a paragraph does not fit below
        why = pygame.Rect(enrol.left - 12 - layout.px(150), enrol.top, layout.px(150), bh)
        theme.button(surface, why, _("Hide") if scene.camera_details else _("Why?"),
                     size=layout.px(26))
        buttons.append((why, Intent("details")))
    y = area.bottom + 8
    right = (why or enrol).left - 16
    text_w = right - 16 if not layout.portrait else board.width - 32
    bottom = board.bottom if not layout.portrait else enrol.top - 8
    for text, colour in lines:
        y = theme.draw_wrapped(surface, text, pygame.Rect(16, y, text_w, bottom - y),
                               layout.px(22), colour)
    if camera.headline and scene.camera_details:
        _details(surface, layout, area, camera.problem)
        return [*targets, (area, Intent("details")), *buttons]
    return [*targets, (area, Intent("none")), *buttons]


def _details(surface: pygame.Surface, layout: Layout, area: pygame.Rect, text: str) -> None:
    """The calibration's whole reason over the picture, wrapped; a tap closes it. The
    panel is as tall as its text, at most the picture's height."""
    text = text[:1].upper() + text[1:]  # a sentence of its own here
    size, title = layout.px(22), _("Why the mat cannot be calibrated")
    width = area.width - 16 - 32
    lines = len(theme.wrap(text, size, width)) + len(theme.wrap(_("Tap to close."), size, width))
    height = 28 + theme.text_size(title, layout.px(26))[1] + 18 + lines * int(size * 0.9)
    panel = pygame.Rect(area.left + 8, area.top + 8, area.width - 16,
                        min(area.height - 16, height))
    pygame.draw.rect(surface, theme.PANEL_LIGHT, panel, border_radius=10)
    inner = panel.inflate(-32, -28)
    r = theme.draw_text(surface, title, inner.topleft, layout.px(26), theme.BAD,
                        width=inner.width)
    body = pygame.Rect(inner.left, r.bottom + 10, inner.width, inner.bottom - r.bottom - 10)
    y = theme.draw_wrapped(surface, text, body, size)
    theme.draw_wrapped(surface, _("Tap to close."), pygame.Rect(inner.left, y + 8, inner.width,
                                                               inner.bottom - y - 8),
                       size, theme.MUTED)


def _mat_only(image: Image, camera: CameraState, calibrator: Calibrator) -> Image:
    """The frame cut to the mat (and a little around it): the lit zone shows larger."""
    cal = camera.calibration
    if cal is None:
        return image
    w, h = calibrator.layout.width, calibrator.layout.height
    corners = np.array([[[0, 0]], [[w, 0]], [[w, h]], [[0, h]]], np.float64)
    pts = cv2.perspectiveTransform(corners, cal.mat_to_frame).reshape(-1, 2)
    (x0, y0), (x1, y1) = pts.min(axis=0), pts.max(axis=0)
    pad = 0.03 * max(x1 - x0, y1 - y0)
    fh, fw = image.shape[:2]
    left, top = max(0, int(x0 - pad)), max(0, int(y0 - pad))
    right, bottom = min(fw, int(x1 + pad)), min(fh, int(y1 + pad))
    if right - left < 16 or bottom - top < 16:
        return image
    return image[top:bottom, left:right]


def enrol_words(step: Step | None, session: Enrolment, waits: int) -> tuple[str, theme.RGB]:
    """What the player should do now, and in which colour, after the last frame."""
    token = session.current or ""
    name = card_words(parse_card(token)) if token else ""
    if step is None:
        return _("Waiting for the camera\u2026"), theme.MUTED
    if step.kind == "no_mat":
        return _("The mat is not in view: uncover its corner markers."), theme.BAD
    if step.kind == "failed":
        if "sideways" in step.problem:
            return _("The card lies sideways: turn it upright, index at the top."), theme.BAD
        return (_("The card cannot be cut out cleanly: lay it flat inside the lit zone, "
                  "nothing else on it."), theme.BAD)
    if step.kind == "take_away":
        return _("Got it. Take that card away and lay {card}.").format(card=name), theme.TEXT
    if step.kind == "captured":
        return (_("Got {card}. Now lay {next}.").format(
            card=card_words(parse_card(step.token or "")), next=name), theme.GOOD)
    if step.kind == "moving":
        return _("Hold still\u2026"), theme.MUTED
    if waits >= NO_CARD_LOOKS:
        return (_("No card seen in the lit zone yet: is {card} inside it, face up?").format(
            card=name), theme.BAD)
    return _("Lay {card} in the lit zone, face up, index at the top.").format(card=name), \
        theme.TEXT


def draw_enrol(surface: pygame.Surface, layout: Layout, scene: Scene, camera: CameraState,
               calibrator: Calibrator, session: Enrolment, step: Step | None,
               waits: int) -> list[Target]:
    """Guided enrolment: the live picture with the enrolment zone lit, the card to lay
    there next (drawn, named, k of N), what the camera sees, and Back, Skip, Cancel."""
    surface.fill(theme.BACKGROUND)
    targets = top_bar(surface, layout, scene, _("Enrol a deck"))
    board = layout.board.union(layout.bottom_bar)
    bh = max(MIN_TARGET + 8, layout.px(60))
    if layout.portrait:
        area = pygame.Rect(12, board.top + 12, board.width - 24, layout.px(420))
        panel = pygame.Rect(12, area.bottom + 12, board.width - 24,
                            board.bottom - area.bottom - 36 - bh)
        card_w = layout.px(170)
    else:
        panel_w = 268
        area = pygame.Rect(12, board.top + 12, board.width - panel_w - 36, board.height - 24)
        panel = pygame.Rect(area.right + 12, area.top, panel_w, board.height - 36 - bh)
        card_w = 100
    pygame.draw.rect(surface, theme.PANEL, area, border_radius=8)
    if camera.image is not None:
        shown = _mat_only(annotated(camera, calibrator, session.zone), camera, calibrator)
        image = _frame_surface(shown, area.inflate(-8, -8).size)
        surface.blit(image, image.get_rect(center=area.center))
    else:
        theme.draw_text(surface, _("No picture"), area.center, layout.px(40), theme.MUTED,
                        anchor="center")
    pygame.draw.rect(surface, theme.PANEL, panel, border_radius=10)
    token = session.current or session.tokens[-1]
    card = parse_card(token)
    count = _("Card {k} of {n}").format(k=session.index + 1, n=len(session.tokens))
    got = ngettext("{n} card captured", "{n} cards captured", len(session.cards)).format(
        n=len(session.cards))
    cw, ch = card_size(card_w)
    if layout.portrait:
        card_rect = pygame.Rect(panel.left + 16, panel.top + 16, cw, ch)
        text = pygame.Rect(card_rect.right + 20, panel.top + 16,
                           panel.right - card_rect.right - 36, panel.height - 32)
    else:
        card_rect = pygame.Rect(0, panel.top + 46, cw, ch)
        card_rect.centerx = panel.centerx
        text = pygame.Rect(panel.left + 12, card_rect.bottom + 10, panel.width - 24,
                           panel.bottom - card_rect.bottom - 16)
    if layout.portrait:
        r = theme.draw_text(surface, count, text.topleft, layout.px(26), theme.MUTED)
        r = theme.draw_text(surface, card_words(card), (text.left, r.bottom + 6), layout.px(44),
                            width=text.width)
        y = r.bottom + 18
    else:
        theme.draw_text(surface, count, (panel.left + 12, panel.top + 12), 24, theme.MUTED)
        theme.draw_text(surface, got, (panel.right - 12, panel.top + 12), 24, theme.MUTED,
                        anchor="topright")
        r = theme.draw_text(surface, card_words(card), (panel.centerx, text.top), 32,
                            anchor="midtop", width=text.width)
        y = r.bottom + 8
    draw_card(surface, card, card_rect, highlight=theme.ENROL)
    words, colour = enrol_words(step, session, waits)
    y = theme.draw_wrapped(surface, words, pygame.Rect(text.left, y, text.width, text.bottom - y),
                           layout.px(24 if layout.portrait else 22), colour)
    if layout.portrait:
        r = theme.draw_text(surface, got, (text.left, y + 14), layout.px(24), theme.MUTED)
        hint = _("The card is taken as soon as it lies still in the lit zone. Skip a card "
                 "you do not have; Back takes the one before again.")
        theme.draw_wrapped(surface, hint, pygame.Rect(panel.left + 16, card_rect.bottom + 24,
                                                      panel.width - 32,
                                                      panel.bottom - card_rect.bottom - 32),
                           layout.px(22), theme.MUTED)
    # Progress through the deck: the cards asked so far, the captured ones in green.
    bar = pygame.Rect(panel.left + 12, panel.bottom - 22, panel.width - 24, 10)
    pygame.draw.rect(surface, theme.PANEL_LIGHT, bar, border_radius=5)
    n = len(session.tokens)
    for k, asked in enumerate(session.tokens[:session.index]):
        seg = pygame.Rect(bar.left + bar.width * k // n, bar.top,
                          max(1, bar.width * (k + 1) // n - bar.width * k // n), bar.height)
        pygame.draw.rect(surface, theme.GOOD if asked in session.cards else theme.MUTED, seg)
    buttons = [(_("Back"), "back", theme.PANEL_LIGHT, session.index > 0),
               (_("Skip"), "skip", theme.PANEL_LIGHT, True),
               (_("Cancel"), "cancel", theme.mix(theme.PANEL, theme.BAD, 0.55), True)]
    row = pygame.Rect(panel.left, board.bottom - 12 - bh, panel.width, bh)
    gap = 10
    bw = (row.width - gap * (len(buttons) - 1)) // len(buttons)
    for k, (label, value, fill, enabled) in enumerate(buttons):
        rect = pygame.Rect(row.left + k * (bw + gap), row.top, bw, bh)
        theme.button(surface, rect, label, fill=fill if enabled else theme.PANEL,
                     colour=None if enabled else theme.MUTED, size=layout.px(26))
        if enabled:
            targets.append((rect, Intent("enrol", value=value)))
    return targets
