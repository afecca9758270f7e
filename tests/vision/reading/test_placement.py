"""Placing a card's index band exactly, in the full-resolution frame."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision import read as read_module
from vision.calibrate import Calibrator
from vision.mat import standard_mat
from vision.profile import TPL_PX, builtin_profile
from vision.read import Reader
from vision.reading import placement
from vision.reading.placement import (
    REFINE_MM,
    SHIFT_PX,
    Band,
    Placed,
    beyond,
    hypotheses,
)
from vision.reading.stack import Ask
from vision.reading.templates import IY, ncc_rows
from vision.reading.zones import LOW_PX, ZONE_MARGIN, top_down
from vision.simulated.camera_model import Camera
from vision.simulated.synth import Conditions, lay_table, photograph

M = round(REFINE_MM * TPL_PX)


@pytest.fixture(scope="module")
def reader() -> Reader:
    return Reader(builtin_profile("classic"))


def _one_card_band(reader, crooked_deg):
    """A lone O7 at flag3.south: the table, its top edge's ask, the frame, its
    calibration and light."""
    zone = next(z for z in standard_mat().zones if z.name == "flag3.south")
    rng = np.random.default_rng(31)
    table = lay_table({zone.name: ["O7"]}, "classic", rng, crooked_deg=crooked_deg)
    frame = photograph(table, Camera(tilt_x_deg=3.0, yaw_deg=-1.0, fill=0.92),
                       Conditions(noise=2.0, blur=0.5, jpeg=92), rng).image
    calib = Calibrator().update(frame)
    light = reader.light.fit(top_down(frame, calib, reader.low_size))
    (x0, y0), (x1, y1) = table.cards[0].corners[:2]
    r = zone.rect
    t = ((y0 + y1) / 2 - r.y + ZONE_MARGIN) * LOW_PX  # the top edge, zone-local px
    cx = ((x0 + x1) / 2 - r.x + ZONE_MARGIN) * LOW_PX
    return table, Ask(zone, t, cx, 16.0, True), frame, calib, light


@pytest.mark.parametrize(("du", "dv"), [(2.5, 3.0), (-3.0, -2.0), (0.0, 0.0)])
def test_a_band_asked_for_a_few_mm_off_is_placed_on_the_card(reader, du, dv):
    # Where the low-resolution view puts a band is a millimetre or more off; the band
    # is found in its warp, named, and its corners lie where the card's do.
    table, ask, frame, calib, light = _one_card_band(reader, 2.5)
    ask = Ask(ask.zone, ask.t + dv, ask.cx + du, 16.0, True)
    rd, = reader._read_bands([ask], frame, calib.mat_to_frame, light)
    assert rd is not None and rd.token == "O7" and rd.confidence >= 0.75
    for got, want in zip(rd.corners[:2], table.cards[0].corners[:2], strict=True):
        assert np.hypot(got[0] - want[0], got[1] - want[1]) < 0.8


def test_a_band_moved_onto_its_index_has_it_at_its_warps_corner(reader):
    # Warped again around where its index was found, a band's index lies where an
    # index found in place lies (REFINE_MM in from the warp's corner), at any tilt.
    placer = reader.placer
    ask = Ask(standard_mat().zones[0], 10.0, 40.0, 16.0, True)
    band = Band(ask, 12.5, 7.25, np.eye(3), 32, np.ones(3, np.float32))
    for slope in (-0.05, 0.0, 0.031):
        pl = Placed(slope, np.zeros(0), np.ones(3), np.zeros(0), 14, 3, np.zeros(0),
                    np.zeros(0))
        moved = placer.moved(band, pl)
        want = placer.band_matrix(band.u0, band.v0, slope) @ [14, 3, 1.0]
        got = placer.band_matrix(moved.u0, moved.v0, slope) @ [M, M, 1.0]
        assert got == pytest.approx(want, abs=1e-9)


def test_placements_the_shift_search_covers_are_looked_at_once():
    # The layout's place, and each strong line's row under it and under the side edges.
    got = hypotheses((20, 11), [9, 30], 21)
    # (20, 11), (20, 10) and (21, 10) lie within a pixel of each other: one is kept.
    assert len([p for p in got if p[1] < 20]) == 1
    assert len([p for p in got if p[1] > 20]) == 1 and len(got) == 2
    assert set(got) <= {(20, 11), (20, 10), (21, 10), (20, 31), (21, 31)}
    assert all(abs(a[0] - b[0]) > SHIFT_PX or abs(a[1] - b[1]) > SHIFT_PX
               for i, a in enumerate(got) for b in got[i + 1:])


def test_a_certain_top_is_tried_where_the_layout_fits_along_it():
    # The stack's outline found the card's top for certain (row M of the warp): it is
    # tried under the layout's best place, the side edges, and where the layout fits
    # best along that row, even where no strong line lies there.
    across = np.arange(40) + 100  # per half-size row, where the layout fits it best
    got = hypotheses((20, 0), [30], 60, across)
    assert {(20, M), (60, M), (100 + (M + IY) // 2, M)} <= set(got)
    assert not any(p[1] == M for p in hypotheses((20, 0), [30], 60))


def test_a_card_whose_top_no_strong_line_shows_is_read_at_its_outlines_top(reader,
                                                                           monkeypatch):
    # The strongest lines in the band's warp are a mat's print and a covering card's
    # edge, not the card's top, and the deck's layout fits best 5 mm above it (over a
    # covering card's edge: tune-216's header over a tactic's body). The top the
    # stack's outline found for certain is tried too, and the card is read there.
    _, ask, frame, calib, light = _one_card_band(reader, 1.5)
    real_find, real_fits = reader.top_edges.find, reader.placer._layout_fits

    def strong_lines_elsewhere(crops):
        return [e._replace(lines=[1, M + 14, M + 20]) for e in real_find(crops)]

    def layout_above(grays, hv):
        return [((x, y - 2 * M), across) for (x, y), across in real_fits(grays, hv)]

    monkeypatch.setattr(reader.top_edges, "find", strong_lines_elsewhere)
    monkeypatch.setattr(reader.placer, "_layout_fits", layout_above)
    rd, = reader._read_bands([ask], frame, calib.mat_to_frame, light)
    assert rd is not None and rd.token == "O7" and rd.confidence >= 0.75
    # Tried only at the lines and the layout's best, it is not read.
    real_hypotheses = placement.hypotheses
    monkeypatch.setattr(placement, "hypotheses",
                        lambda layout, rows, sx, across=None, own_top=False:
                        real_hypotheses(layout, rows, sx))
    rd, = reader._read_bands([ask], frame, calib.mat_to_frame, light)
    assert rd is None or rd.token != "O7"


def test_a_read_like_no_index_drawn_away_from_its_certain_top_is_read_at_that_top(
        reader, monkeypatch):
    # Every placement first tried lies 10 mm above the card's top (in grey a white
    # strip over a dark header fits a tactic's title there: tune-216), and the band
    # there reads as no index. It is placed at the top its stack's outline found for
    # certain too, and the card is read there; not where that retry is never made.
    _, ask, frame, calib, light = _one_card_band(reader, 1.5)
    real_hypotheses = placement.hypotheses

    def drawn_above(layout, rows, sx, across=None, own_top=False):
        if own_top:
            return real_hypotheses(layout, rows, sx, across, own_top)
        return [(layout[0], M - 2 * M)]

    monkeypatch.setattr(placement, "hypotheses", drawn_above)
    rd, = reader._read_bands([ask], frame, calib.mat_to_frame, light)
    assert rd is not None and rd.token == "O7" and rd.confidence >= 0.75
    monkeypatch.setattr(read_module, "ASTRAY_PX", 10 ** 6)
    rd, = reader._read_bands([ask], frame, calib.mat_to_frame, light)
    assert rd is None or rd.token != "O7"


def test_only_a_certain_top_is_tried_where_asked_for_its_own_alone():
    across = np.arange(40) + 100
    got = hypotheses((20, 0), [30, 5], 60, across, own_top=True)
    assert got and all(p[1] == M for p in got)
    assert {(20, M), (60, M)} <= set(got)


@pytest.mark.parametrize(("fits", "way"), [
    ([0.5, 0.6, 0.7, 0.5, 0.6, 0.9, 0.5, 0.6, 0.7], (1, 0)),  # uphill to the right
    ([0.5, 0.5, 0.5, 0.6, 0.9, 0.6, 0.5, 0.5, 0.5], (0, 0)),  # a peak in the middle
    ([0.5, 0.5, 0.5, 0.6, 0.7, 0.6, 0.7, 0.8, 0.7], (0, 1)),  # best at the bottom
    ([0.5, 0.5, 0.5, 0.6, 0.9, 0.6, 0.7, 0.91, 0.7], (0, 0)),  # a peak just below the middle
])
def test_the_search_moves_on_only_while_the_best_fit_lies_beyond(fits, way):
    assert beyond(np.array(fits, np.float32)) == way


@pytest.mark.parametrize(("near", "far"), [((M - 1, M - 1), (M + 2, M)),
                                          ((M + 1, M - 1), (M - 2, M))])
def test_of_two_placements_the_one_a_pixel_from_the_index_is_chosen(reader, near, far):
    # The index lies at (M, M): one placement a pixel from it each way, another two
    # pixels off across only. The quick look samples every other pixel, so at their
    # own places the second may look more like the card; a pixel either way of each,
    # the first reaches the card itself, and is chosen (the shift search then finds
    # the card a pixel from it).
    profile, placer = builtin_profile("classic"), reader.placer
    tp = placer.templates
    hv = tp.th
    _, tpl = tp.normalised(hv, 2)
    for i in range(0, len(profile.tokens), 3):
        grays = cv2.copyMakeBorder(profile.gray[i], M, M, M, M, cv2.BORDER_REPLICATE)[None]
        hyps = [far, near]
        points = ncc_rows(tp.looks(grays, [0, 0], hyps, hv), tpl)
        assert placer._nearby(grays, [0], [hyps], points, hv) == [near], profile.tokens[i]


def test_bands_looked_at_together_each_choose_as_alone(reader):
    # The quick look takes every band of a height in one gather, each weighed only
    # with its own leaders: each chooses what it would alone, though the bands
    # show other cards, have other placements to choose from, and the cards leading
    # for one would fit another's wrong placement better.
    profile, placer = builtin_profile("classic"), reader.placer
    tp = placer.templates
    hv = tp.th
    _, tpl = tp.normalised(hv, 2)
    picks = range(0, len(profile.tokens), 2)
    grays = np.stack([cv2.copyMakeBorder(profile.gray[i], M, M, M, M, cv2.BORDER_REPLICATE)
                      for i in picks])
    rng = np.random.default_rng(3)
    # Placements 3 to 8 px off the index: a pixel either way does not reach it.
    hyps = [[(M + int(dx), M + int(dy)) for dx, dy in
             rng.choice([-8, -5, -3, 3, 5, 8], (2 + j % 3, 2))] for j in range(len(grays))]
    alone = []
    for j, h in enumerate(hyps):
        points = ncc_rows(tp.looks(grays, [j] * len(h), h, hv), tpl)
        alone += placer._nearby(grays, [j], hyps, points, hv)
    together = ncc_rows(tp.looks(grays, [j for j, h in enumerate(hyps) for _ in h],
                                 [xy for h in hyps for xy in h], hv), tpl)
    assert placer._nearby(grays, list(range(len(grays))), hyps, together, hv) == alone
    assert len({xy for xy in alone}) > 1
