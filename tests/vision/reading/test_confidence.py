"""How sure a read is: the leaders compared pairwise where they differ."""

from __future__ import annotations

import numpy as np
import pytest

from vision.reading.confidence import (
    INDEX_FIT,
    INDEX_GOOD,
    MAX_RANK_GAP,
    MIN_MARGIN,
    MIN_SCORE,
    named,
    pairwise,
    sureness,
)
from vision.reading.templates import unit_rows

PX = 200


def _leaders(rng: np.random.Generator, k: int = 4) -> np.ndarray:
    """``k`` templates sharing most of their band (a suit's frame), each its own
    'numeral' in one part."""
    shared = rng.random(PX).astype(np.float32)
    out = np.repeat(shared[None], k, axis=0)
    for i in range(k):
        out[i, 40:80] = rng.random(40)
    return out


def _judge(views: np.ndarray, raw: np.ndarray, shift: list[int], cpen: list[float] | None = None):
    k = len(raw)
    w, m, o = pairwise(views[None].astype(np.float32), np.array([shift], np.intp),
                       raw[None], unit_rows(raw)[None],
                       np.array([cpen or [0.0] * k], np.float32))
    return int(w[0]), float(m[0]), float(o[0])


def test_the_leader_whose_numeral_the_band_shows_wins_by_a_clear_margin():
    rng = np.random.default_rng(1)
    raw = _leaders(rng)
    band = raw[2] + rng.normal(0, 0.02, PX).astype(np.float32)  # ranked third
    win, margin, like = _judge(band[None], raw, [0, 0, 0, 0])
    assert win == 2 and margin > 2 * MIN_MARGIN and like > INDEX_GOOD


def test_two_leaders_alike_where_they_differ_leave_no_margin():
    rng = np.random.default_rng(2)
    raw = _leaders(rng)
    raw[1] = raw[0] + rng.normal(0, 0.005, PX).astype(np.float32)  # a look-alike
    band = raw[0] + rng.normal(0, 0.02, PX).astype(np.float32)
    _, margin, _ = _judge(band[None], raw, [0, 0, 0, 0])
    assert margin < MIN_MARGIN


def test_a_rival_that_looks_better_where_it_fits_leaves_no_margin():
    # A covered band: like leader 0 where it fits, like leader 1 where that fits.
    rng = np.random.default_rng(3)
    raw = _leaders(rng)
    views = np.stack([raw[0], raw[1]])
    alone = _judge(views[:1], raw, [0, 0, 0, 0])[1]
    _, margin, _ = _judge(views, raw, [0, 1, 0, 0])
    assert alone > 2 * MIN_MARGIN and margin <= 0.0


def test_colour_sets_apart_leaders_alike_in_grey():
    rng = np.random.default_rng(4)
    raw = _leaders(rng)
    raw[1] = raw[0]
    band = raw[0][None]
    assert _judge(band, raw, [0, 0, 0, 0])[1] == pytest.approx(0.0, abs=1e-3)
    win, margin, _ = _judge(band, raw, [0, 0, 0, 0], cpen=[0.0, 30.0, 0.0, 0.0])
    assert win == 0 and margin > 0.0


def test_sureness_is_the_lesser_of_margin_and_likeness():
    assert sureness(2 * MIN_MARGIN, INDEX_GOOD, MIN_MARGIN, INDEX_FIT) == 1.0
    assert sureness(MIN_MARGIN, INDEX_GOOD, MIN_MARGIN, INDEX_FIT) == pytest.approx(0.5)
    assert sureness(1.0, INDEX_FIT, MIN_MARGIN, INDEX_FIT) == 0.0
    assert sureness(-0.3, 1.0, MIN_MARGIN, INDEX_FIT) == 0.0


def test_a_read_is_named_only_when_well_matched_near_the_top_of_the_ranking_and_apart():
    score = np.array([0.95, 0.93, 0.80], np.float32)
    ncc = score.copy()
    cpen = np.zeros(3, np.float32)
    assert named(score, ncc, cpen, 0, 0, 0, 0.9, 0.2)
    assert not named(score, ncc, cpen, 0, 0, 0, 0.9, MIN_MARGIN - 0.01)  # too alike
    assert not named(score, ncc, cpen, 0, 0, 0, INDEX_FIT - 0.01, 0.2)  # unlike itself
    assert not named(score, ncc, cpen, 0, 2, 1, 0.95, 0.2)  # ranked far below the first
    assert score[0] - score[1] < MAX_RANK_GAP
    assert named(score, ncc, cpen, 0, 1, 1, INDEX_GOOD, 0.2)  # a near-tie settled
    assert not named(score, ncc, cpen, 0, 1, 1, INDEX_GOOD - 0.01, 0.2)  # not clearly
    weak = score - (score[0] - MIN_SCORE + 0.01)
    assert not named(weak, weak, cpen, 0, 0, 0, 0.9, 0.2)  # matches nothing well
