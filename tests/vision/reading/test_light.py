"""The light over the mat, measured where the plain mat shows, and glare."""

from __future__ import annotations

import numpy as np
import pytest

from vision.mat import standard_mat
from vision.reading.light import MatLight, poly_terms
from vision.reading.zones import LOW_PX
from vision.render_mat import render_mat

LAYOUT = standard_mat()
SIZE = (round(LAYOUT.width * LOW_PX), round(LAYOUT.height * LOW_PX))
REF = render_mat(LOW_PX, LAYOUT).astype(np.float32)
# A warm lamp to the right: red up, blue down, brighter toward one corner (log-gain
# per term and channel, BGR).
COEF = np.array([[-0.2, 0.0, 0.15], [0.1, 0.15, 0.2], [-0.1, -0.05, 0.0],
                 [0.05, 0.0, -0.05], [0.0, 0.05, 0.0], [0.0, 0.0, 0.05]])
ZONE = next(z for z in LAYOUT.zones if z.name == "flag5.south")
MID = (ZONE.rect.x + ZONE.rect.w / 2, ZONE.rect.y + 20.0)  # a first card's band, mat mm


def _gain() -> np.ndarray:
    ys, xs = np.mgrid[0:SIZE[1], 0:SIZE[0]].astype(np.float64)
    return np.exp(poly_terms(xs / SIZE[0] - 0.5, ys / SIZE[1] - 0.5) @ COEF)


def _view(glare: float = 0.0) -> np.ndarray:
    """The mat under that lamp, two cards on it, and white glare over the first band."""
    low = (REF + 8.0) * _gain() - 8.0
    low[480:568, 100:163] = (235, 240, 238)  # cards cover the mat here and there
    low[20:108, 700:763] = (40, 60, 200)
    ys, xs = np.mgrid[0:SIZE[1], 0:SIZE[0]]
    spot = (xs - MID[0]) ** 2 + (ys - MID[1]) ** 2 < 70.0 ** 2
    low[spot] += glare * (255.0 - low[spot])
    return np.clip(np.round(low), 0, 255).astype(np.uint8)


@pytest.fixture(scope="module")
def light() -> MatLight:
    return MatLight(LAYOUT, SIZE, REF)


def test_the_light_fit_recovers_a_lamps_colour_cast_and_gradient(light):
    fit = light.fit(_view())
    grid = light.gain_grid(fit)
    want = _gain()[::8, ::8]
    assert grid.shape == want.shape
    assert np.abs(grid / want - 1.0).max() < 0.02
    # Divided out, the mat shows its printed colours again (8-bit rounding aside).
    true = light.true_colours(_view(), grid)
    mat = np.ones(SIZE[::-1], bool)
    mat[470:580, 90:175] = mat[10:120, 690:775] = False
    assert np.abs(true[mat] - REF[mat]).mean() < 2.0


def test_glare_on_the_mat_around_a_band_is_measured_and_none_elsewhere(light):
    fit = light.fit(_view(glare=0.3))
    other = next(z for z in LAYOUT.zones if z.name == "flag2.north")
    mids = np.array([MID, (other.rect.x + other.rect.w / 2, other.rect.y + other.rect.h - 20)])
    near, far = light.mat_glare(fit, [ZONE, other], mids)
    assert near == pytest.approx(0.3, abs=0.05)
    assert far == pytest.approx(0.0, abs=0.02)
    # Without glare, none is found there either.
    assert light.mat_glare(light.fit(_view()), [ZONE], mids[:1])[0] < 0.02


def test_a_bands_inverse_gain_is_the_lights_at_its_middle(light):
    fit = light.fit(_view())
    x, y = 300.0, 200.0
    got = light.inverse_gains(fit, np.array([[x, y]]))[0]
    assert got * 255.0 * _gain()[round(y), round(x)] == pytest.approx(np.ones(3), abs=0.02)
