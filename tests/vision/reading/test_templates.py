"""The deck's templates as bands are compared with them, and a band's views cut alike."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.profile import TPL_PX, builtin_profile
from vision.reading.placement import REFINE_MM
from vision.reading.templates import Templates, local_contrast, ncc_rows


@pytest.fixture(scope="module")
def templates() -> Templates:
    return Templates(builtin_profile("classic"))


@pytest.mark.parametrize("hv_mm", [16.0, 9.0])
def test_a_tokens_own_band_ranks_it_first_at_the_right_shift(templates, hv_mm):
    # A band that is exactly a token's card, a pixel off the place asked each way: of
    # the views over shifts of a pixel, the one at the card's place correlates 1 with
    # that token, and nothing correlates better (at 9 mm some tokens' tops are alike).
    profile = builtin_profile("classic")
    hv = templates.visible_px(hv_mm)
    _, tpl = templates.normalised(hv, 2)
    for i in range(0, len(profile.tokens), 9):
        gray = cv2.copyMakeBorder(profile.gray[i], 4, 4, 4, 4, cv2.BORDER_REPLICATE)
        views = templates.views(gray, 5, 3, hv, 1, 2)  # the card lies at (4, 4)
        corr = ncc_rows(views, tpl)
        at = 6  # y-major 3x3: (x, y) = (4, 4) is one left of and one below (5, 3)
        assert corr[at, i] > 0.999, profile.tokens[i]
        assert corr[at, i] >= corr.max() - 1e-5
        assert np.delete(corr[:, i], at).max() < 0.99  # the other shifts are worse


def test_views_and_templates_are_cut_alike(templates):
    hv = templates.visible_px(12.0)
    raw, tpl = templates.normalised(hv, 1)
    rows, cols = templates.view_shape(hv)
    assert raw.shape[1] == rows * cols == tpl.shape[0]
    gray = builtin_profile("classic").gray[0]
    view = templates.views(cv2.copyMakeBorder(gray, 1, 1, 1, 1, cv2.BORDER_REPLICATE),
                           1, 1, hv, 0)
    assert np.array_equal(view[0], raw[0])
    assert np.allclose(np.linalg.norm(tpl, axis=0), 1.0, atol=1e-3)
    assert np.allclose(tpl.sum(axis=0), 0.0, atol=1e-3)


def test_placements_beyond_a_bands_edge_are_looked_at_as_its_shifts_are(templates):
    """The quick look between placements (all bands at once) sees what the shift
    search sees at the same place, also where the index would lie partly beyond the
    warped band and its edge pixels stand in."""
    rng = np.random.default_rng(5)
    m = round(REFINE_MM * TPL_PX)
    th, tw = templates.th, templates.tw
    grays = rng.random((3, th + 2 * m, tw + 2 * m), dtype=np.float32)
    beyond = [(m, m), (-6, 3), (2 * m + 5, -4), (m - 1, 2 * m + 7)]
    within = [(m, m), (0, 0), (2 * m, 1), (m - 1, 2 * m)]  # every view inside its band
    which = [0, 1, 2, 1]
    for places in (beyond, within):
        for hv in (th, 20):
            for step in (2, 4):
                looks = templates.looks(grays, which, places, hv, step)
                for row, j, (x, y) in zip(looks, which, places, strict=True):
                    assert np.array_equal(row, templates.views(grays[j], x, y, hv, 0, step)[0])


def test_a_pale_numeral_weighs_as_much_as_black_print_once_stretched_locally():
    img = np.full((40, 80), 0.95, np.float32)
    img[10:30, 8:20] = 0.88  # pale yellow print on cream: little grey
    img[10:30, 50:62] = 0.1  # black print
    out = local_contrast(img)
    pale, black = np.abs(out[:, :40]).max(), np.abs(out[:, 40:]).max()
    assert np.abs(img[:, :40] - 0.95).max() < 0.1 * np.abs(img[:, 40:] - 0.95).max()
    assert pale > 0.5 * black


def test_a_long_session_cuts_each_height_once_and_keeps_few_at_full_resolution():
    """Every visible height turns up over a long session: each is cut once at the
    steps ranking and the quick look use and kept (a frame of crooked fans shows a
    dozen), the full-resolution ones stay few (memory does not grow), and a height
    cut again is cut just the same."""
    from vision.reading.templates import CUT_STEPS, KEPT_FULL, LEAST_PX

    templates = Templates(builtin_profile("classic"))
    first = {hv: templates.normalised(hv, 2)[1].copy() for hv in (20, 24)}
    dark = templates.dark(20).copy()
    heights = range(LEAST_PX, templates.th + 1)
    for _ in range(2):
        for hv in heights:
            templates.normalised(hv, 2)
            templates.normalised(hv, 4)
            templates.rows(hv, 2)
            templates.dark(hv)
            templates.local(hv, np.arange(4))
    assert len(templates._cut) == CUT_STEPS * len(heights)
    assert len(templates._dark) == len(heights) and len(templates._rows) == len(heights)
    assert len(templates._full) <= KEPT_FULL and len(templates._local) <= KEPT_FULL
    cut = templates._cut._values[(20, 2)]
    templates.normalised(20, 2)
    assert templates._cut._values[(20, 2)] is cut  # kept, not cut again
    templates._cut._values.pop((20, 2))
    for hv, tpl in first.items():
        assert np.array_equal(templates.normalised(hv, 2)[1], tpl)
    assert np.array_equal(templates.dark(20), dark)


def test_local_templates_stretched_token_by_token_are_those_of_the_whole_deck():
    """A second look stretches only the leaders it asks for: the same rows as the
    whole deck stretched at once."""
    from vision.reading.templates import local_contrast, unit_rows

    templates = Templates(builtin_profile("classic"))
    hv = 26
    raw, shape = templates.normalised(hv)[0], templates.view_shape(hv)
    whole = np.stack([local_contrast(t.reshape(shape)).ravel() for t in raw])
    some = np.array([[5, 2, 9, 2]])
    loc, rows = templates.local(hv, some)
    assert np.array_equal(loc, whole[some]) and np.array_equal(rows, unit_rows(whole)[some])
    loc, rows = templates.local(hv, np.arange(len(raw)))
    assert np.array_equal(loc, whole) and np.array_equal(rows, unit_rows(whole))
