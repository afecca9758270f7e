"""The light over the mat, measured where the plain mat shows, and glare.

The mat's plain fill is known, so a smooth per-channel gain fitted where it shows
gives the light gradient and the colour cast: dividing by it gives true colours.
Where the mat is lighter than that gain in every channel, as added white makes
it, it shows how much glare lies there; glare over a band tints its colours
(``unveil`` takes the tint off).
"""

from __future__ import annotations

from typing import Final, NamedTuple

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.mat import MatLayout, Zone
from vision.reading.zones import LOW_PX, ZONE_MARGIN
from vision.render_mat import background_mask
from vision.types import GREY_BGR, FloatImage, Image

LIGHT_SAMPLES: Final = 1500
GLARE_MAT_MM: Final = 50.0  # the mat around a band whose glare is taken for the band's
GLARE_MAT_SAMPLES: Final = 8  # mat samples that takes
GLARE_LEAST: Final = 0.15  # share of white light over a band below which it is left on
GLARE_MOST: Final = 0.8  # share of white light over a band taken off at most


class Light(NamedTuple):
    """The light over the mat: its smooth log-gain (terms x BGR), and at each mat
    sample the white glare the mat shows there beyond it (``glare``: its share of the
    way to white, as every channel says at least)."""

    coef: FloatImage
    glare: FloatImage


def poly_terms(u: FloatImage, v: FloatImage) -> FloatImage:
    """The light's terms at (u, v), the mat's middle 0 and its sides -0.5 and 0.5."""
    return np.stack([np.ones_like(u), u, v, u * u, u * v, v * v], axis=-1)


class MatLight:
    """Measures the light on a top-down view of one mat (``ref``: the printed mat at
    LOW_PX, ``size`` px); what does not change from frame to frame is made once."""

    def __init__(self, layout: MatLayout, size: tuple[int, int], ref: FloatImage) -> None:
        self.size = size
        bg = background_mask(LOW_PX, layout)
        ys, xs = np.nonzero(bg)
        # A few thousand evenly spread samples measure a smooth light field well.
        pick = np.linspace(0, len(ys) - 1, min(LIGHT_SAMPLES, len(ys))).astype(int)
        ys, xs = ys[pick], xs[pick]
        self._bg_at = ys * size[0] + xs  # pixel numbers, row-major
        bg_xy = np.stack([xs, ys], axis=1).astype(np.float64) / LOW_PX  # mat mm
        # Per zone, the samples within reach of its bands' glare measure (a card may
        # stick out by ZONE_MARGIN).
        reach = GLARE_MAT_MM + ZONE_MARGIN
        x, y = bg_xy.T
        self._zone_samples: dict[str, tuple[NDArray[np.intp], FloatImage, FloatImage]] = {}
        for z in layout.zones:
            idx = np.nonzero((x > z.rect.x - reach) & (x < z.rect.x + z.rect.w + reach)
                             & (y > z.rect.y - reach) & (y < z.rect.y + z.rect.h + reach))[0]
            self._zone_samples[z.name] = (idx, x[idx].copy(), y[idx].copy())
        terms = poly_terms(*self._norm(xs.astype(np.float32), ys.astype(np.float32)))
        self._bg_terms = terms.astype(np.float64)  # samples x terms
        self._bg_terms_t = np.ascontiguousarray(self._bg_terms.T)
        # Every product of two terms per sample: one matrix product with the samples
        # each channel keeps then gives all three channels' normal equations.
        self._bg_products = (self._bg_terms[:, :, None] * self._bg_terms[:, None, :]).reshape(
            len(ys), 36)
        self._log_ref = np.ascontiguousarray(np.log(ref[ys, xs] + 8.0).T)  # BGR x samples
        gy, gx = np.mgrid[0:size[1]:8, 0:size[0]:8].astype(np.float32)
        self._grid_terms = poly_terms(*self._norm(gx, gy))

    def _norm(self, x: FloatImage, y: FloatImage) -> tuple[FloatImage, FloatImage]:
        return (x / self.size[0] - 0.5).astype(np.float32), (
            y / self.size[1] - 0.5).astype(np.float32)

    def fit(self, low: Image) -> Light:
        """Per-channel quadratic log-gain over the mat, robust to what covers it."""
        # Channel-major (BGR x samples): every step runs along contiguous rows.
        obs = (np.log(low.reshape(-1, 3)[self._bg_at].T.astype(np.float32) + 8.0)
               - self._log_ref).astype(np.float64)
        keep = np.abs(obs - np.median(obs, axis=1, keepdims=True)) < 0.35
        channels = np.arange(3)
        for _ in range(3):
            kept = keep.astype(np.float64)
            ata = (kept @ self._bg_products).reshape(3, 6, 6) + 1e-6 * np.eye(6)
            coef = np.linalg.solve(ata, ((kept * obs) @ self._bg_terms)[..., None])[..., 0]
            r = np.abs(obs - coef @ self._bg_terms_t)
            # Each channel's median residual over its kept samples (the others sort last).
            ranked = np.sort(np.where(keep, r, np.inf), axis=1)
            n = keep.sum(axis=1)
            mad = (ranked[channels, (n - 1) // 2] + ranked[channels, n // 2]) / 2 + 1e-3
            keep = r < np.maximum(0.05, 3 * mad)[:, None]
        fit = coef @ self._bg_terms_t
        # Added white lifts the mat's level m to m + s (255 - m): each sample's s.
        m = np.exp(self._log_ref + fit) - 8.0
        s = (m + 8.0) * np.expm1(obs - fit) / np.maximum(255.0 - m, 1.0)
        return Light(np.asarray(coef.T), s.min(axis=0))

    def gain_grid(self, light: Light) -> FloatImage:
        """The light's gain (BGR) on a grid of 8 low-res pixels."""
        return cv2.exp(self._grid_terms @ light.coef).astype(np.float32)  # numpy's: twice the time

    def true_colours(self, low: Image, gain: FloatImage) -> FloatImage:
        """The top-down view ``low`` in true colours: divided by the light's ``gain``."""
        # Made in the gain's inverse's place (a big array fewer: a fresh one may cost
        # more in page faults than the product).
        corrected = cv2.resize(1.0 / gain, self.size, interpolation=cv2.INTER_LINEAR)
        np.multiply(corrected, low, out=corrected)
        return corrected

    def inverse_gains(self, light: Light, mids: FloatImage) -> FloatImage:
        """One over the light's gain (per channel, for 8-bit levels) at each of
        ``mids`` (mat mm), in one product."""
        u = mids[:, 0] * LOW_PX / self.size[0] - 0.5
        v = mids[:, 1] * LOW_PX / self.size[1] - 0.5
        gains = np.exp(poly_terms(u, v) @ light.coef).astype(np.float32)
        return (1.0 / (gains * 255.0)).astype(np.float32)

    def mat_glare(self, light: Light, zones: list[Zone], mids: FloatImage) -> list[float]:
        """How much white glare (its share of the way to white) the mat around each
        band (its middle, mat mm) shows: the mat samples there are lighter than the
        smooth light in every channel, as added white makes them (0 without enough
        samples)."""
        out = []
        for zone, (mx, my) in zip(zones, mids.tolist(), strict=True):
            # Only the samples that can be near a band of this zone are measured.
            idx, x, y = self._zone_samples[zone.name]
            near = light.glare[idx[(x - mx) ** 2 + (y - my) ** 2 < GLARE_MAT_MM ** 2]]
            n = len(near)
            if n < GLARE_MAT_SAMPLES:
                out.append(0.0)
                continue
            part = np.partition(near, [(n - 1) // 2, n // 2])  # the median, sorting less
            out.append(min(max(float(part[(n - 1) // 2] + part[n // 2]) / 2, 0.0), GLARE_MOST))
        return out


def scaled(crop: Image, scale: FloatImage) -> FloatImage:
    """An 8-bit BGR ``crop`` times a per-channel ``scale`` (a band's inverse light gain),
    as float: OpenCV's product, where numpy's over three channels is several times
    slower (the scale's four doubles made from a list: np.append costs more)."""
    return cv2.multiply(crop, np.array([*scale.tolist(), 0.0]), dtype=cv2.CV_32F)


def unveil(bands: FloatImage, views: FloatImage, dark: FloatImage, veils: FloatImage,
           least: FloatImage) -> FloatImage:
    """The bands' colours (stacked) with the glare over each taken off.

    Glare is white light added at the camera, before the colour cast and the
    light are divided out: there it is ``s * veil`` per channel (``veil`` =
    one over the light's gain), a tinted veil that would turn blue toward
    green under a magenta cast. How much (``s``) shows in a band's darkest
    print (in ``views``), lifted above that of the card it looks most like
    (its darkest print's level, ``dark``), and at least as much as the mat
    around the band shows (``least``).
    """
    k = views.shape[1] // 50
    seen = np.partition(views, k, axis=1)[:, k].astype(np.float64)
    dark = dark.astype(np.float64)
    lift = (veils @ GREY_BGR).astype(np.float64)
    share = np.clip((seen - dark) / np.maximum(lift - dark, 1e-3), 0.0, GLARE_MOST)
    # A card whose darkest print is pale (an orange 1 has no black) lifts little.
    share = np.maximum(share, least)
    share[share < GLARE_LEAST] = 0.0
    if not share.any():
        return bands
    # Only the veil's tint is taken off: its grey part pales every colour alike,
    # which the colour distance allows for, and a veil guessed where there is
    # none then shifts no hue.
    tint = share.astype(np.float32)[:, None] * (veils - veils.mean(axis=1, keepdims=True))
    return np.asarray(bands - tint[:, None, None, :], np.float32)
