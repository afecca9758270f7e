"""Finding the cards in a zone's stack on the low-resolution view."""

from __future__ import annotations

import itertools
import math

import cv2
import numpy as np
import pytest

from vision.calibrate import Calibrator
from vision.mat import standard_mat
from vision.profile import builtin_profile
from vision.reading.light import MatLight
from vision.reading.placement import REFINE_MM
from vision.reading.stack import (
    card_centre,
    card_shaped,
    edge_rows,
    find_stack,
    outline,
    pale_above,
    stack_in_masks,
)
from vision.reading.templates import Templates
from vision.reading.zones import LOW_PX, PALE_THRESHOLD, ZONE_MARGIN, not_mat, top_down
from vision.render_mat import render_mat
from vision.simulated.camera_model import Camera
from vision.simulated.synth import Conditions, lay_table, photograph

LAYOUT = standard_mat()
SIZE = (round(LAYOUT.width * LOW_PX), round(LAYOUT.height * LOW_PX))
NEAR = REFINE_MM / 2  # low-res px (1 px/mm): half the slack a band is warped with
STACKS = {"flag4.south": ["R5", "G9", "Y1"], "flag6.north": ["B3", "P10"]}


def _zone_local_top(zone, corners) -> tuple[float, float]:
    """A card's top edge's middle (its corners, mat mm) in the zone's view, low-res px."""
    (x0, y0), (x1, y1) = corners[0], corners[1]
    x, y = (x0 + x1) / 2, (y0 + y1) / 2
    r, m = zone.rect, ZONE_MARGIN
    if zone.up == "up":
        return (x - r.x + m) * LOW_PX, (y - r.y + m) * LOW_PX
    return (r.x + r.w + m - x) * LOW_PX, (r.y + r.h + m - y) * LOW_PX


@pytest.fixture(scope="module")
def stacks():
    """Each zone's stack as found in a photographed table, and the table's truth."""
    rng = np.random.default_rng(21)
    table = lay_table(STACKS, "classic", rng, fan=(18.0, 24.0), crooked_deg=2.0)
    frame = photograph(table, Camera(tilt_x_deg=4.0, tilt_y_deg=-2.0, fill=0.92),
                       Conditions(gain=(1.05, 1.0, 0.9), blur=0.6, noise=2.0, jpeg=90),
                       rng).image
    low = top_down(frame, Calibrator().update(frame), SIZE)
    ref = render_mat(LOW_PX, LAYOUT)
    light = MatLight(LAYOUT, SIZE, ref.astype(np.float32))
    colour = light.true_colours(low, light.gain_grid(light.fit(low)))
    fg = not_mat(colour, ref)
    profile = builtin_profile("classic")
    th = Templates(profile).th
    found = {z.name: find_stack(z, fg, colour, profile, th) for z in LAYOUT.zones}
    return table, found


def test_every_cards_top_edge_is_a_candidate_top_and_the_first_and_last_are_certain(stacks):
    table, found = stacks
    zones = {z.name: z for z in LAYOUT.zones}
    for name, tokens in STACKS.items():
        st = found[name]
        assert st is not None
        cards = sorted((c for c in table.cards if c.zone == name), key=lambda c: c.order)
        truth = [_zone_local_top(zones[name], c.corners)[1] for c in cards]
        # Near enough for the band's warp to hold the card (a crooked card's corner
        # sets the stack's outline a millimetre off its top edge's middle).
        for t in truth:
            assert min(abs(t - top) for top, _ in st.tops) < NEAR, (name, t, st.tops)
        certain = [top for top, sure in st.tops if sure]
        assert certain[0] == pytest.approx(truth[0], abs=NEAR)
        assert certain[-1] == pytest.approx(truth[-1], abs=NEAR)
        assert len(tokens) <= len(st.tops) <= 2 * len(tokens) + 1  # lines in the art too


def test_a_cards_band_is_asked_for_at_its_middle(stacks):
    table, found = stacks
    zone = next(z for z in LAYOUT.zones if z.name == "flag4.south")
    st = found[zone.name]
    last = max((c for c in table.cards if c.zone == zone.name), key=lambda c: c.order)
    x, y = _zone_local_top(zone, last.corners)
    ask = st.ask(y, True, st.bottom)
    assert ask.cx == pytest.approx(x, abs=NEAR)
    assert ask.visible == pytest.approx(16.0)  # the last card's band shows whole
    # A covered card's band shows down to the next card's top, less what a crooked
    # covering card may hide.
    assert st.ask(y - 15.0, False, y).visible == pytest.approx(15.0 - 3.0)


def test_zones_without_cards_have_no_stack(stacks):
    _, found = stacks
    assert {name for name, st in found.items() if st is not None} == set(STACKS)


def test_edge_rows_finds_an_edge_across_the_width_not_a_line_of_print():
    img = np.full((40, 60, 3), 120, np.float32)
    img[25:] = 230  # a card's top edge: the boundary below row 24
    img[12, 5:20] = 20  # a line of print over a quarter of the width
    rows = edge_rows(img)
    strongest = np.nonzero(rows == rows.max())[0]  # spread over five rows
    assert strongest.mean() == 24 and len(strongest) == 5
    assert rows[11] < 0.1 * rows.max()


def test_a_card_is_centred_where_it_covers_most_not_on_a_neighbours_edge():
    covered = np.zeros(120, bool)
    covered[30:93] = True  # the card, 63 columns
    covered[100:106] = True  # a neighbour's edge reaching in
    assert card_centre(covered, 63.0, fallback=0.0) == pytest.approx(61.5, abs=0.5)
    assert card_centre(np.zeros(120, bool), 63.0, fallback=7.0) == 7.0


def test_a_closely_fanned_card_is_looked_for_where_the_outline_falls_short():
    # A frame of fine grey lines at a card's edge passes for mat once softened: the
    # outline of two cards fanned 14 mm then measures barely longer than one card.
    rng = np.random.default_rng(5)
    table = lay_table({"flag3.south": ["G2", "O8"]}, "classic", rng, fan=(14.0, 14.0),
                      crooked_deg=0.0)
    frame = photograph(table, Camera(fill=0.92), Conditions(blur=0.6, noise=2.0), rng).image
    low = top_down(frame, Calibrator().update(frame), SIZE)
    ref = render_mat(LOW_PX, LAYOUT)
    light = MatLight(LAYOUT, SIZE, ref.astype(np.float32))
    colour = light.true_colours(low, light.gain_grid(light.fit(low)))
    pale = cv2.erode(not_mat(colour, ref), np.ones((7, 1), np.uint8))  # 3 mm off each end
    profile = builtin_profile("classic")
    zone = next(z for z in LAYOUT.zones if z.name == "flag3.south")
    st = find_stack(zone, pale, colour, profile, Templates(profile).th)
    assert st is not None
    last = max((c for c in table.cards if c.zone == zone.name), key=lambda c: c.order)
    t = _zone_local_top(zone, last.corners)[1]
    assert min(abs(t - top) for top, _ in st.tops[1:]) < NEAR, (t, st.tops)


def test_a_card_shows_its_bottom_edge_only_where_no_card_covers_it(stacks):
    # Below the last card lies mat; below a covered card lies the card covering it. So
    # a read below the last card (a line in its art, where glare on the mat beyond
    # lengthened the outline) is told by the last card's bottom edge.
    table, found = stacks
    zone = next(z for z in LAYOUT.zones if z.name == "flag4.south")
    st = found[zone.name]
    tops = [_zone_local_top(zone, c.corners)[1] for c in
            sorted((c for c in table.cards if c.zone == zone.name), key=lambda c: c.order)]
    for above, below in itertools.pairwise(tops):
        assert not st.whole(above, below), (above, below)
    assert st.whole(tops[-1], tops[-1] + 15.0)
    # A last card whose bottom edge lies beyond the zone's view (a long fan reaching
    # past it) shows nothing either way there: it stays.
    beyond = len(st.grad) - st.profile.card_h + 2.0
    assert not st.whole(tops[-1], beyond)


def _pale_view(zones: dict[str, list[str]], pale: str):
    """A photographed table's true-colour view in which the card ``pale`` is drawn as a
    pale card would show: 26 levels off the printed mat in every channel, nearer it
    than ``FG_THRESHOLD`` (the cards laid after it cover it as before)."""
    rng = np.random.default_rng(8)
    table = lay_table(zones, "classic", rng, fan=(18.0, 18.0), crooked_deg=0.0)
    frame = photograph(table, Camera(fill=0.92), Conditions(blur=0.6, noise=2.0), rng).image
    low = top_down(frame, Calibrator().update(frame), SIZE)
    ref = render_mat(LOW_PX, LAYOUT)
    light = MatLight(LAYOUT, SIZE, ref.astype(np.float32))
    colour = light.true_colours(low, light.gain_grid(light.fit(low)))
    card = next(c for c in table.cards if c.token == pale)
    mask = np.zeros(SIZE[::-1], np.uint8)
    cv2.fillPoly(mask, [np.round(np.array(card.corners) * LOW_PX).astype(np.int32)], 1)
    for c in table.cards:
        if c.zone == card.zone and c.order > card.order:
            cv2.fillPoly(mask, [np.round(np.array(c.corners) * LOW_PX).astype(np.int32)], 0)
    colour[mask > 0] = ref[mask > 0].astype(np.float32) + 26.0
    return table, colour, ref


def test_a_pale_card_alone_in_its_zone_shows_in_the_pale_mask_only():
    table, colour, ref = _pale_view({"flag3.south.env": ["FOG"]}, "FOG")
    profile = builtin_profile("classic")
    th = Templates(profile).th
    zone = next(z for z in LAYOUT.zones if z.name == "flag3.south.env")
    assert find_stack(zone, not_mat(colour, ref), colour, profile, th) is None
    pale = not_mat(colour, ref, PALE_THRESHOLD)
    found = outline(zone, pale, profile)
    assert found is not None and card_shaped(*found)
    st = find_stack(zone, pale, colour, profile, th)
    assert st is not None
    t = _zone_local_top(zone, table.cards[0].corners)[1]
    assert abs(st.top - t) < NEAR, (st.top, t)
    # A round blot as pale (glare on the next empty slot) is no card.
    other = next(z for z in LAYOUT.zones if z.name == "flag5.south.env")
    centre = (round((other.rect.x + other.rect.w / 2) * LOW_PX),
              round((other.rect.y + other.rect.h / 2) * LOW_PX))
    blot = np.zeros(SIZE[::-1], np.uint8)
    cv2.circle(blot, centre, round(25 * LOW_PX), 1, -1)
    colour[blot > 0] = ref[blot > 0].astype(np.float32) + 26.0
    glare = outline(other, not_mat(colour, ref, PALE_THRESHOLD), profile)
    assert glare is not None  # wide and long enough to pass for a stack's outline
    assert not card_shaped(*glare)
    # Both masks asked at once: the card from the pale one, standing only where named;
    # the blot no stack; without the pale mask, neither.
    fg, pale = not_mat(colour, ref), not_mat(colour, ref, PALE_THRESHOLD)
    found, named_from = stack_in_masks(zone, fg, colour, profile, th, pale)
    assert found is not None and abs(found.top - t) < NEAR and named_from == math.inf
    assert stack_in_masks(other, fg, colour, profile, th, pale) == (None, -math.inf)
    assert stack_in_masks(zone, fg, colour, profile, th) == (None, -math.inf)


def test_a_pale_card_under_a_formations_first_card_that_shows_is_tried_above_it():
    table, colour, ref = _pale_view({"flag5.south": ["CC", "R7"]}, "CC")
    profile = builtin_profile("classic")
    th = Templates(profile).th
    zone = next(z for z in LAYOUT.zones if z.name == "flag5.south")
    st = find_stack(zone, not_mat(colour, ref), colour, profile, th)
    pale = outline(zone, not_mat(colour, ref, PALE_THRESHOLD), profile)
    assert st is not None
    cc, r7 = (_zone_local_top(zone, c.corners)[1]
              for c in sorted(table.cards, key=lambda c: c.order))
    assert abs(st.top - r7) < NEAR  # the outline starts at the card that shows
    both, above = pale_above(st, pale)
    assert both is not None
    assert abs(both.tops[0][0] - cc) < NEAR and not both.tops[0][1]
    assert both.tops[1:] == st.tops
    assert cc < above < r7
    # Where the pale outline starts no higher, nothing is added.
    assert pale_above(st, outline(zone, not_mat(colour, ref), profile)) == (st, -math.inf)
    assert pale_above(st, None) == (st, -math.inf)
    # Both masks asked at once: the pale top tried first, as pale_above adds it.
    asked, named_from = stack_in_masks(zone, not_mat(colour, ref), colour, profile, th,
                                       not_mat(colour, ref, PALE_THRESHOLD))
    assert asked is not None and asked.tops == both.tops and named_from == above


def test_a_grey_card_alone_in_a_formation_is_found_by_its_light_edge():
    # A grey tactic on the grey mat: its face as near the mat as the pale mask's
    # threshold, only its white edge (3 mm) further off.
    table, colour, ref = _pale_view({"flag2.north": ["AL"]}, "AL")
    card = np.round(np.array(table.cards[0].corners) * LOW_PX).astype(np.int32)
    face = np.zeros(SIZE[::-1], np.uint8)
    cv2.fillPoly(face, [card], 1)
    edge = face - cv2.erode(face, np.ones((7, 7), np.uint8))
    around = cv2.dilate(face, np.ones((9, 9), np.uint8)) > 0  # the photo's card, shadow
    colour[around] = ref[around].astype(np.float32)
    colour[face > 0] = ref[face > 0].astype(np.float32) + 10.0
    colour[edge > 0] = ref[edge > 0].astype(np.float32) + 60.0
    profile = builtin_profile("classic")
    th = Templates(profile).th
    zone = next(z for z in LAYOUT.zones if z.name == "flag2.north")
    fg, pale = not_mat(colour, ref), not_mat(colour, ref, PALE_THRESHOLD)
    # The ring alone is no card's shape; filled, it is the card, standing where named.
    ring = outline(zone, pale, profile)
    assert ring is None or not card_shaped(*ring)
    filled = outline(zone, pale, profile, holes=True)
    assert filled is not None and card_shaped(*filled)
    found, named_from = stack_in_masks(zone, fg, colour, profile, th, pale)
    t = _zone_local_top(zone, table.cards[0].corners)[1]
    assert found is not None and abs(found.top - t) < NEAR and named_from == math.inf
