"""The mat seen from above at 1 px/mm, and each zone cut out of that view."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.calibrate import Calibrator
from vision.mat import standard_mat
from vision.reading.light import MatLight
from vision.reading.zones import (
    LOW_PX,
    ZONE_MARGIN,
    holes_filled,
    not_mat,
    to_mat,
    top_down,
    zone_matrix,
    zone_view,
)
from vision.render_mat import render_mat
from vision.simulated.camera_model import Camera
from vision.simulated.synth import Conditions, lay_table, photograph

LAYOUT = standard_mat()
SIZE = (round(LAYOUT.width * LOW_PX), round(LAYOUT.height * LOW_PX))


@pytest.mark.parametrize("zone", LAYOUT.zones, ids=lambda z: z.name)
def test_a_zones_view_and_its_mat_coordinates_agree(zone):
    # A mark on the mat shows in the zone's view (card tops up) just where the view's
    # coordinates say it lies, whichever way the zone faces.
    view_h, view_w = zone_view(zone, np.zeros(SIZE[::-1], np.uint8)).shape
    assert (view_w, view_h) == (round(zone.rect.w + 2 * ZONE_MARGIN),
                                round(zone.rect.h + 2 * ZONE_MARGIN))
    for col, row in ((3, 5), (view_w - 2, 20), (30, view_h - 1)):
        x, y = to_mat(zone, col + 0.5, row + 0.5)  # the view's pixel centre, mat mm
        assert np.allclose(zone_matrix(zone) @ [col + 0.5, row + 0.5, 1.0], [x, y, 1.0])
        img = np.zeros(SIZE[::-1], np.uint8)
        img[int(y * LOW_PX), int(x * LOW_PX)] = 1
        seen = zone_view(zone, img)
        assert seen[row, col] == 1 and seen.sum() == 1


def test_a_card_is_what_the_top_down_view_shows_is_not_mat():
    rng = np.random.default_rng(8)
    table = lay_table({"flag3.south": ["B7"], "flag7.north": ["Y2"]}, "classic", rng)
    frame = photograph(table, Camera(tilt_x_deg=4.0, yaw_deg=2.0),
                       Conditions(gain=(1.1, 1.0, 0.85), gradient=(0.2, -0.1), noise=2.0),
                       rng).image
    low = top_down(frame, Calibrator().update(frame), SIZE)
    assert low.shape == (SIZE[1], SIZE[0], 3)
    ref = render_mat(LOW_PX, LAYOUT)
    light = MatLight(LAYOUT, SIZE, ref.astype(np.float32))
    fg = not_mat(light.true_colours(low, light.gain_grid(light.fit(low))), ref)
    cards = np.zeros_like(fg)
    for card in table.cards:
        xs, ys = zip(*card.corners, strict=True)
        inner = (slice(round(min(ys)) + 2, round(max(ys)) - 2),
                 slice(round(min(xs)) + 2, round(max(xs)) - 2))
        assert fg[inner].mean() > 0.95, card.token
        cards[round(min(ys)) - 3:round(max(ys)) + 3, round(min(xs)) - 3:round(max(xs)) + 3] = 1
    # Every zone's printed outline and fill, under a lamp's cast, is mat (a marker's
    # fine squares may not be, a pixel off: no zone holds one).
    zones = np.zeros_like(fg)
    for z in LAYOUT.zones:
        r = z.rect
        zones[round(r.y - ZONE_MARGIN):round(r.y + r.h + ZONE_MARGIN),
              round(r.x - ZONE_MARGIN):round(r.x + r.w + ZONE_MARGIN)] = 1
    assert fg[(zones == 1) & (cards == 0)].mean() < 0.001


def test_a_ring_as_small_as_a_card_is_filled_and_larger_or_open_ones_are_not():
    # A grey card on the grey mat shows in the pale mask as its light edge alone.
    mask = np.zeros((300, 400), np.uint8)
    cv2.rectangle(mask, (20, 20), (80, 110), 1, 2)  # a card's edge, 61 x 91
    cv2.rectangle(mask, (150, 20), (260, 190), 1, 2)  # a ring far larger than a card
    cv2.rectangle(mask, (300, -5), (360, 80), 1, 2)  # one running off the mask's side
    mask[60, 50] = 1  # a speck inside the card stays set
    out = holes_filled(mask, 63 * 88)
    assert out[21:110, 21:80].all()
    assert (out[25:185, 155:255] == 0).all() and (out[2:75, 305:355] == 0).all()
    assert (out[mask == 1] == 1).all()
    assert out.dtype == mask.dtype and (mask == holes_filled(mask, 0)).all()
