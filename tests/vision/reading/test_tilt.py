"""A card's top edge in a small warp of its band: its tilt and the strongest lines."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.profile import TPL_PX
from vision.reading.placement import REFINE_MM
from vision.reading.tilt import TILT_APART, TILT_STEP, TopEdges, lower_half_less_least

TW = round(63.0 * TPL_PX)  # a classic card's width in template px
M = round(REFINE_MM * TPL_PX)


def _band_crop(slope: float, top: float, rows: int, art_row: float | None = None) -> np.ndarray:
    """A warp (tilt 0) of a card laid at ``slope`` on the grey mat, its top edge crossing
    the band's middle column at row ``top``, the strip columns only; ``art_row``: a dark
    numeral-like block in part of the width only. Drawn 8 times finer, then averaged."""
    s = 8
    x0, x1 = TopEdges(TW).strip_cols()
    width = M * 2 + TW
    big = np.full((rows * s, width * s, 3), (120, 125, 118), np.uint8)
    mid = M + TW / 2
    corners = [(0, top + slope * (0 - mid)), (width, top + slope * (width - mid)),
               (width, rows + 50), (0, rows + 50)]
    cv2.fillPoly(big, [np.round(np.array(corners) * s).astype(np.int32)], (235, 238, 240))
    if art_row is not None:
        cv2.rectangle(big, (round((M + 10) * s), round(art_row * s)),
                      (round((M + 30) * s), round((art_row + 5) * s)), (30, 30, 30), -1)
    small = cv2.resize(big, (width, rows), interpolation=cv2.INTER_AREA)
    return small[:, x0:x1]


@pytest.mark.parametrize("slope", [-0.135, -0.05, -0.012, 0.0, 0.027, 0.06, 0.105, 0.14])
def test_the_tilt_of_a_cards_top_edge_is_found_between_the_tilts_tried(slope):
    rows = M + round(16 * TPL_PX) // 2
    crops = np.stack([_band_crop(slope, 12.3, rows, art_row=19.0)])
    (found, lines, runner_up, _), = TopEdges(TW).find(crops)
    # Within a tilt step (the parabola through three tilts' strengths is no exact fit).
    assert found == pytest.approx(slope, abs=TILT_STEP)
    # The strongest line is the top edge (the boundary below row 11), not the dark
    # block's top, a stronger step but in two strips only.
    assert lines[0] == 11
    assert abs(runner_up - found) >= TILT_APART - 0.005


def test_bands_found_together_are_found_as_one_at_a_time():
    rows = M + round(16 * TPL_PX) // 2
    crops = [_band_crop(s, t, rows) for s, t in ((0.03, 12.0), (-0.02, 18.5), (0.0, 15.0))]
    edges = TopEdges(TW)
    assert edges.find(np.stack(crops)) == [edges.find(c[None])[0] for c in crops]


def test_a_top_edges_strength_is_its_strips_second_to_fourth_weakest_as_sorting_gives():
    # The sorting network must give what numpy's sort does, to the bit (ties too: the
    # tilt and the lines chosen follow from comparing these sums).
    rng = np.random.default_rng(4)
    vals = np.round(rng.random((5, 15, 8, 30)) * 20).astype(np.float32) / 4
    ranked = np.sort(vals, axis=2)
    want = ranked[:, :, 1] + ranked[:, :, 2]
    want += ranked[:, :, 3]
    got = lower_half_less_least([vals[:, :, i] for i in range(8)])
    assert got.dtype == np.float32
    assert np.array_equal(got, want)


def test_a_soft_top_edge_over_a_sharp_stripe_is_still_a_line_tried():
    # An orange card on a grey mat, its top edge as soft as a frame shows it; just
    # under it the design prints a darker stripe across the width, whose two edges
    # step more sharply. The edge must still be among the lines placed as the card's
    # top.
    rows, s = M + round(16 * TPL_PX) // 2, 8
    x0, x1 = TopEdges(TW).strip_cols()
    width = M * 2 + TW
    big = np.full((rows * s, width * s, 3), (128, 128, 128), np.uint8)
    big[11 * s:] = (40, 130, 225)  # the card, top edge at the boundary below row 10
    big = cv2.GaussianBlur(big, (0, 0), 1.6 * s)
    big[15 * s:21 * s] = (20, 75, 160)
    crop = cv2.resize(big, (width, rows), interpolation=cv2.INTER_AREA)[:, x0:x1]
    (_, lines, _, _), = TopEdges(TW).find(crop[None])
    assert any(abs(r - 10) <= 1 for r in lines), lines


@pytest.mark.parametrize("face, second", [((60, 140, 60), True), ((150, 185, 150), False)])
def test_the_runner_up_tilt_is_a_second_edge_not_the_shoulder_of_the_first(face, second):
    # A covered card laid crooked one way on a card crooked the other: just above its
    # own top edge shows the edge of that card's dark header, a stronger line. The
    # runner-up tilt must be the covered card's own, not the winner's a few steps on.
    # It is a second edge (a band read as no card is tried at it too) where it steps
    # half as much as the header's edge or more: a green face, not a pale one.
    rows, s = M + round(16 * TPL_PX) // 2, 8
    x0, x1 = TopEdges(TW).strip_cols()
    width = M * 2 + TW
    mid = M + TW / 2

    def below(top: float, slope: float) -> np.ndarray:
        return np.round(np.array([(0, top - slope * mid), (width, top + slope * (width - mid)),
                                  (width, rows + 50), (0, rows + 50)]) * s).astype(np.int32)

    big = np.full((rows * s, width * s, 3), (40, 40, 45), np.uint8)  # the header
    cv2.fillPoly(big, [below(8.0, 0.06)], (225, 230, 232))  # that card's white body
    cv2.fillPoly(big, [below(11.0, -0.04)], face)  # the covered card's face
    crop = cv2.resize(big, (width, rows), interpolation=cv2.INTER_AREA)[:, x0:x1]
    edge, = TopEdges(TW).find(crop[None])
    assert edge.slope == pytest.approx(0.06, abs=TILT_STEP)
    assert edge.runner_up == pytest.approx(-0.04, abs=TILT_STEP)
    assert edge.second == second


def test_a_single_edge_has_no_second():
    # One card alone: its runner-up tilt is only the shoulder of its own edge's peak.
    rows = M + round(16 * TPL_PX) // 2
    edge, = TopEdges(TW).find(_band_crop(0.02, 12.3, rows)[None])
    assert not edge.second
