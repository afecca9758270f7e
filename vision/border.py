"""A card's printed border that its outline left outside, found by its colour.

An outline is found on edges. Where a card's outer border barely steps from the
table, or not in a straight line (a hatched band on a floral cloth), the
outline may lie on the border's inner edge: the card is then cut short at that
side, and a whole deck shot on that table is cut alike (its cards squared to
each other cannot show it). Just beyond such a side lies a band of one colour,
unlike the table further out, that ends at the card's edge. A shadow makes such
a band too, but a shadow is the table darkened, while a border is what the card
prints: a side moves out over its band only where the band has the colour the
card shows just inside a side that has none, or where all four sides have
bands of one colour and width (a shadow falls on two sides at most).
"""

from __future__ import annotations

from typing import Final

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.types import FloatImage, Image

PX_MM: Final = 4.0  # resolution the colours are compared at
STEP_MM: Final = 0.25  # between samples across a side
INSIDE_MM: Final = 5.0  # looked at inside the outline: the card's own colours by it
TABLE_MM: Final = (6.0, 9.0)  # beyond the outline: the table, whatever the band was
LIGHTNESS: Final = 0.5  # weight of Lab lightness in a colour distance: a lamp's fall-off
# and a shadow's soft edge change mostly how light the table is
TABLE_DE: Final = 12.0  # nearer than this to the table's colour is the table
BAND_DE: Final = 15.0  # a band is at least this unlike the table (its median)
BAND_MM: Final = (1.0, 5.0)  # how wide a band may be: narrower is the edge's own blur
# or shadow, wider is no card's border
STILL_TABLE: Final = 3.0  # most the table's colour may drift over TABLE_MM
BUSY: Final = 8.0  # most the table's colour, or a band's, may vary along a side: a
# checked cloth's squares, or flowers by the card, make bands of any colour and width
MATCH_DE: Final = 10.0  # a band this near the card's own colour inside another side is
# its border (on tuning decks' photos, borders mostly under 4, shadows 25 or more, and a
# checked cloth's row under a card 15)
AGREE_MM: Final = 1.0  # four bands as wide as each other to this are one border


def _across(lab: FloatImage, corners: FloatImage, px_mm: float,
            ) -> tuple[FloatImage, FloatImage, FloatImage]:
    """Per side (top, right, bottom, left) and place across it (the offsets returned,
    mm, outward), the median colour along the side's middle and how far its samples
    lie from that median (their median distance)."""
    offs = np.arange(-INSIDE_MM, TABLE_MM[1] + 1e-6, STEP_MM, dtype=np.float32)
    t = np.linspace(0.15, 0.85, 40, dtype=np.float32)
    colours, spreads = [], []
    for k in range(4):
        a, b = corners[k], corners[(k + 1) % 4]
        tang = (b - a) / float(np.linalg.norm(b - a))
        out = np.array([tang[1], -tang[0]], np.float32)
        pts = (a + (b - a) * t[:, None])[:, None] + offs[None, :, None] * px_mm * out
        v = cv2.remap(lab, pts[..., 0], pts[..., 1], cv2.INTER_LINEAR,
                      borderMode=cv2.BORDER_REPLICATE)
        med = np.median(v, axis=0)
        colours.append(med)
        spreads.append(np.median(np.linalg.norm(v - med[None], axis=2), axis=0))
    return offs, np.array(colours), np.array(spreads)


def _bands(offs: FloatImage, colours: FloatImage, spreads: FloatImage,
           ) -> tuple[FloatImage, NDArray[np.bool_]]:
    """Per side, how wide (mm) the band beyond it that is unlike the table is (0 for a
    side with none), and whether the table there is still and plain enough to say."""
    table = (offs >= TABLE_MM[0])
    beyond = offs > 0
    widths = np.zeros(4, np.float32)
    judged = np.zeros(4, bool)
    for k in range(4):
        far = np.median(colours[k, table], axis=0)
        drift = float(np.median(np.linalg.norm(colours[k, table] - far, axis=1)))
        if drift > STILL_TABLE or float(np.median(spreads[k, table])) > BUSY:
            continue
        judged[k] = True
        de = np.linalg.norm(colours[k, beyond] - far, axis=1)
        at_table = np.nonzero(de <= TABLE_DE)[0]
        width = float(offs[beyond][at_table[0]]) if len(at_table) else float(offs[-1])
        band = offs[beyond] < width
        # A printed border is one colour all along the side; flowers beside it are not.
        if (BAND_MM[0] <= width <= BAND_MM[1] and float(np.median(de[band])) >= BAND_DE
                and float(np.median(spreads[k, beyond][band])) <= BUSY):
            widths[k] = width
    return widths, judged


def take_border(img: Image, corners: FloatImage, card_h: float) -> FloatImage:
    """``corners`` (TL, TR, BR, BL, px of ``img``) with each side moved out over a band
    of the card's printed border that lies beyond it."""
    px_mm = float(np.linalg.norm(corners[3] - corners[0])) / card_h
    # Only around the card, at PX_MM: the colours of bands a millimetre wide or more.
    pad = (TABLE_MM[1] + 1.0) * px_mm
    h, w = img.shape[:2]
    x0, y0 = np.maximum(np.floor(corners.min(axis=0) - pad), 0).astype(int)
    x1, y1 = np.minimum(np.ceil(corners.max(axis=0) + pad), (w, h)).astype(int)
    s = min(1.0, PX_MM / px_mm)
    crop = img[y0:y1, x0:x1]
    small = cv2.resize(crop, None, fx=s, fy=s, interpolation=cv2.INTER_AREA) if s < 1 else crop
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2Lab).astype(np.float32)
    lab[..., 0] *= 100 / 255 * LIGHTNESS
    lab[..., 1:] -= 128
    at = ((corners - np.array([x0, y0], np.float32)) * s).astype(np.float32)
    offs, colours, spreads = _across(lab, at, px_mm * s)
    widths, judged = _bands(offs, colours, spreads)
    sides = np.nonzero(widths)[0]
    bands = {k: np.median(colours[k, (offs > 0) & (offs < widths[k])], axis=0) for k in sides}
    bare = [k for k in range(4) if judged[k] and not widths[k]]
    if bare:
        # Each band the colour the card shows just inside some side without one.
        for k in sides:
            inside = [np.median(colours[j, (offs < 0) & (offs > -widths[k])], axis=0)
                      for j in bare]
            if min(float(np.linalg.norm(bands[k] - c)) for c in inside) > MATCH_DE:
                widths[k] = 0.0
    elif len(sides) < 3 or float(widths[sides].max() - widths[sides].min()) > AGREE_MM or max(
            float(np.linalg.norm(bands[a] - bands[b])) for a in sides for b in sides) > MATCH_DE:
        return corners  # bands all round, but not one border's
    return _moved(corners, widths * px_mm) if widths.any() else corners


def _moved(corners: FloatImage, by: FloatImage) -> FloatImage:
    """``corners`` with each side (top, right, bottom, left) moved out ``by`` px."""
    lines = []
    for k in range(4):
        a, b = corners[k], corners[(k + 1) % 4]
        tang = (b - a) / float(np.linalg.norm(b - a))
        lines.append((a + np.array([tang[1], -tang[0]], np.float32) * by[k], tang))
    out = []
    for k in range(4):
        (p, u), (q, v) = lines[k - 1], lines[k]
        s = np.linalg.solve(np.array([u, -v]).T, q - p)[0]
        out.append(p + s * u)
    return np.array(out, np.float32)
