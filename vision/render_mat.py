"""Draw the mat at any scale: the print file and the reader's reference image.

The mat is a flat neutral mid grey: light card borders, black bands and every
suit colour (whatever shade a deck prints it in) stand out from it, and its
plain areas measure the light and the colour cast directly. (A saturated mat
colour would sooner or later match some deck's card frames.)
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.aruco_compat import api
from vision.mat import MARKER_PAD, MatLayout, Rect, standard_mat
from vision.types import Image

FILL = (125, 125, 125)  # BGR: neutral mid grey
LINE = (165, 165, 165)
TEXT = (150, 150, 150)
WHITE = (255, 255, 255)


def _pt(x: float, y: float, s: float) -> tuple[int, int]:
    return round(x * s), round(y * s)


def _rect(img: Image, r: Rect, s: float, colour: tuple[int, int, int], t: float) -> None:
    th = max(1, round(t * s))
    cv2.rectangle(img, _pt(r.x, r.y, s), _pt(r.x + r.w, r.y + r.h, s), colour, th, cv2.LINE_AA)


def _label(img: Image, text: str, x: float, y: float, s: float, size_mm: float) -> None:
    scale = size_mm * s / 22.0  # Hershey simplex glyphs are about 22 px tall at scale 1
    th = max(1, round(size_mm * s / 8))
    (tw, tht), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, th)
    org = (round(x * s - tw / 2), round(y * s + tht / 2))
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, TEXT, th, cv2.LINE_AA)


def render_mat(px_per_mm: float, layout: MatLayout | None = None) -> Image:
    """The mat top-down, ``px_per_mm`` pixels per millimetre, BGR."""
    lay = layout or standard_mat()
    s = px_per_mm
    img = np.empty((round(lay.height * s), round(lay.width * s), 3), np.uint8)
    img[:] = FILL
    for z in lay.zones:
        _rect(img, z.rect, s, LINE, 0.8)
        if z.kind == "formation":
            # Fan guide: where each later card's top edge goes.
            for k in range(1, 4):
                off = k * lay.fan_step  # measured from the flag end of the zone
                y = z.rect.y + 1 + off if z.up == "up" else z.rect.y + z.rect.h - 1 - off
                for x0 in (z.rect.x, z.rect.x + z.rect.w - 4):
                    cv2.line(img, _pt(x0, y, s), _pt(x0 + 4, y, s), LINE, max(1, round(0.8 * s)))
        if z.kind == "flag" and z.flag is not None:
            _label(img, str(z.flag), z.rect.cx, z.rect.cy, s, 18)
        elif z.kind in ("guile", "discard"):
            _label(img, z.kind.upper(), z.rect.cx, z.rect.cy, s, 5)
    for m in lay.markers:
        pad = m.size / 2 + MARKER_PAD
        cv2.rectangle(img, _pt(m.cx - pad, m.cy - pad, s), _pt(m.cx + pad, m.cy + pad, s),
                      WHITE, -1)
        side = round(m.size * s)
        glyph = api().draw(m.id, max(side, 6))
        x0, y0 = _pt(m.cx - m.size / 2, m.cy - m.size / 2, s)
        glyph = cv2.resize(glyph, (side, side), interpolation=cv2.INTER_NEAREST)
        img[y0:y0 + side, x0:x0 + side] = glyph[:, :, None]
    return img


def background_mask(px_per_mm: float, layout: MatLayout | None = None) -> NDArray[np.bool_]:
    """Pixels of plain mat fill outside every zone: where the light is measured."""
    lay = layout or standard_mat()
    img = render_mat(px_per_mm, lay)
    plain = np.all(img == np.array(FILL, np.uint8), axis=2)
    inside = np.zeros(plain.shape, np.uint8)
    for z in lay.zones:
        if z.kind in ("formation", "discard", "guile"):
            r = z.rect
            cv2.rectangle(inside, _pt(r.x - 2, r.y - 2, px_per_mm),
                          _pt(r.x + r.w + 2, r.y + r.h + 2, px_per_mm), 1, -1)
    return plain & (inside == 0)
