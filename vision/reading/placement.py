"""Placing a card's index band exactly, in the full-resolution frame.

A band asked for (``stack.Ask``) is warped upright at its top edge's tilt
(``tilt``), at template scale with REFINE_MM of slack around where the
low-resolution view put it. Where in that warp the index lies: where the
deck's average band (its shared layout) fits, or on one of the strongest lines,
across where that layout fits or where both side edges show. The placement some
card explains best, by a quick look on every other pixel (and, coarser, a pixel
either way of each), wins; every token is then correlated with the band over
small shifts there, and the search moves on while the best fit lies beyond the
shifts searched.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Final, NamedTuple

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.profile import BLUR, TPL_PX
from vision.reading.stack import Ask
from vision.reading.templates import IX, IY, Templates, ncc_rows
from vision.types import GREY_BGR, FloatImage, Image

REFINE_MM: Final = 5.0  # how far the band may be from where the low-res view put it
SHIFT_PX: Final = 1  # template search range around the chosen placement, each way
RECENTRE: Final = 3  # searches around the placement, each centred on the last one's best
# The quick look judges each placement by its best a pixel either way too (NEAR): it
# samples every other pixel, and a sharp numeral a pixel or two off its place looks
# less like itself than a broad header edge looks like a tactic's. Those looks are
# coarser (every NEAR_STEP-th pixel) and weigh only each placement's NEAR_LEADERS best
# cards: nine looks at a placement with every card cost a sixth more a frame.
NEAR: Final = tuple((dx, dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1))
_NEAR_XY: Final = np.array(NEAR, np.intp)
NEAR_LEADERS: Final = 3
NEAR_STEP: Final = 4



@dataclass(frozen=True)
class Band:
    """An asked-for band in frame terms: its top-left corner upright (zone-local mm),
    zone-local mm -> frame px, its visible height in template px and the light's
    inverse gain over it (per channel, for 8-bit levels)."""

    ask: Ask
    u0: float
    v0: float
    to_frame: FloatImage
    hv: int
    gain: FloatImage
    glare: float = 0.0  # the glare the mat around it shows (``MatLight.mat_glare``)


class Placed(NamedTuple):
    """A band warped upright at ``slope`` (as the frame shows it, with the scale per
    channel to its true colours, and in blurred true grey) and where in it the index
    lies (``tx``, ``ty``), with every token's correlation (``corr``, one column each)
    with the band's views over small shifts (``views``, one per row, on every other
    pixel each way)."""

    slope: float
    crop: NDArray[Any]
    scale: FloatImage
    gray: FloatImage
    tx: int
    ty: int
    views: FloatImage
    corr: FloatImage


class Placer:
    """Warps and places the bands of cards ``card_w`` mm wide (``templates``: the deck's)."""

    def __init__(self, templates: Templates, card_w: float) -> None:
        self.templates = templates
        self.card_w = card_w

    def band_matrix(self, u0: float, v0: float, slope: float) -> FloatImage:
        """Crop pixel -> zone-local mm for the band whose top-left is (u0, v0) mm when
        upright, turned about its top edge's middle to ``slope`` (a card laid crooked
        is turned, its sides as crooked as its top), with REFINE_MM of slack."""
        m, t, w = round(REFINE_MM * TPL_PX), TPL_PX, self.card_w
        # Python floats: numpy's scalars would make this small sum a hot spot.
        c, s = 1 / math.hypot(1.0, slope), slope / math.hypot(1.0, slope)
        # Crop (m, m) is the turned band's top-left corner.
        x0, y0 = u0 + w / 2 - c * w / 2, v0 - s * w / 2
        return np.array([[c / t, -s / t, x0 - (c - s) * m / t],
                         [s / t, c / t, y0 - (s + c) * m / t],
                         [0, 0, 1]])

    def warp_band(self, to_frame: FloatImage, u0: float, v0: float, slope: float,
                  frame: Image, rows: int | None = None,
                  cols: tuple[int, int] | None = None) -> Image:
        """The band whose top-left is zone-local (u0, v0) mm when upright, turned to
        ``slope``, upright at template scale with REFINE_MM of slack around it (its
        first ``rows`` rows; only columns ``cols`` from, to), as BGR (``frame``: BGR, or
        BGRA: ``four_channels``)."""
        m = round(REFINE_MM * TPL_PX)
        x0, x1 = cols or (0, self.templates.tw + 2 * m)
        matrix = to_frame @ self.band_matrix(u0, v0, slope)
        if x0:
            matrix = matrix @ np.array([[1.0, 0.0, x0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
        return as_bgr(cv2.warpPerspective(frame, matrix,
                                          (x1 - x0, rows or self.templates.th + 2 * m),
                                          flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                          borderMode=cv2.BORDER_REPLICATE))

    def inside(self, pl: Placed, hv: int) -> bool:
        """Whether the index's views at every shift searched lie within the warped band."""
        hh, ww = self.templates.view_shape(hv)
        return (pl.tx + IX - SHIFT_PX >= 0 and pl.ty + IY - SHIFT_PX >= 0
                and pl.tx + IX + ww + SHIFT_PX <= pl.gray.shape[1]
                and pl.ty + IY + hh + SHIFT_PX <= pl.gray.shape[0])

    def turned(self, band: Band, pl: Placed, slope: float) -> tuple[int, int]:
        """Where the index ``pl`` found lies in ``band`` warped at ``slope`` instead
        (crop px, to the nearest)."""
        at = self.band_matrix(band.u0, band.v0, pl.slope) @ np.array([pl.tx, pl.ty, 1.0])
        x, y, _ = np.linalg.solve(self.band_matrix(band.u0, band.v0, slope), at)
        return round(float(x)), round(float(y))

    def moved(self, band: Band, pl: Placed) -> Band:
        """The band warped with its index where ``pl`` found it, at its slope."""
        w = self.card_w
        c, s = 1 / np.hypot(1.0, pl.slope), pl.slope / np.hypot(1.0, pl.slope)
        # Where the index's top-left corner lies, zone-local mm: the turned band's
        # corner, from which ``band_matrix`` finds the upright corner back.
        x0, y0, _ = self.band_matrix(band.u0, band.v0, pl.slope) @ np.array(
            [pl.tx, pl.ty, 1.0])
        return replace(band, u0=float(x0 - w / 2 + c * w / 2), v0=float(y0 + s * w / 2))

    def _warped(self, band: Band, slope: float, frame: Image, had: Placed | None = None,
                ) -> tuple[Image, FloatImage]:
        """The band warped upright at ``slope``: as the frame shows it, and in blurred
        true grey. ``had``: the band placed before at that slope, whose warp it reuses."""
        if had is not None:
            crop, gray = had.crop, had.gray
        else:
            crop = self.warp_band(band.to_frame, band.u0, band.v0, slope, frame)
            # Grey of the true colours in one weighted sum (the light's gain folded
            # into the weights): the colours themselves are only sampled, later.
            gray = cv2.GaussianBlur(cv2.transform(crop.astype(np.float32),
                                                  band.gain * GREY_BGR[None]), (0, 0), BLUR)
        return crop, gray

    def _layout_fits(self, grays: FloatImage, hv: int,
                     ) -> list[tuple[tuple[int, int], NDArray[np.intp]]]:
        """Where the deck's shared layout (frame, corner indices) fits each band
        (``grays``: warped, in blurred grey, stacked) of visible height ``hv`` best (its
        index's top-left corner, crop px), and, per row of the half-size band, the
        column where it fits that row best (crop px).

        Found at half resolution (the shift search and recentring place it to the
        pixel), in one match over all the bands stacked: a band's own rows of the
        result are those of its own match.
        """
        n, rows, cols = grays.shape
        if rows % 2 or cols % 2:
            tall = np.concatenate([cv2.resize(g, (cols // 2, rows // 2),
                                              interpolation=cv2.INTER_AREA) for g in grays])
        else:
            # Halved exactly, each pixel the mean of its own 2x2 block: halving the bands
            # stacked is halving each, in one call.
            tall = cv2.resize(np.ascontiguousarray(grays).reshape(n * rows, cols),
                              (cols // 2, n * rows // 2), interpolation=cv2.INTER_AREA)
        tpl = self.templates.mean_half[:(hv - IY) // 2]
        hh, ny = rows // 2, rows // 2 - len(tpl) + 1
        res = cv2.matchTemplate(tall, tpl, cv2.TM_CCOEFF_NORMED)
        # Each band's own rows of the result (the last band's end with it), all at once.
        rs, cs = res.strides
        fits = np.ndarray((n, ny, res.shape[1]), res.dtype, res, 0, (hh * rs, rs, cs))
        at = fits.reshape(n, -1).argmax(axis=1).tolist()
        across = 2 * fits.argmax(axis=2) - IX
        return [((2 * (a % res.shape[1]) - IX, 2 * (a // res.shape[1]) - IY), across[j])
                for j, a in enumerate(at)]

    def _sides(self, grays: FloatImage, hv: int) -> list[int]:
        """Per band (grey, stacked) of visible height ``hv``: where both side edges of a
        card-wide band show best (its left edge's column)."""
        m, w = round(REFINE_MM * TPL_PX), self.templates.tw
        band_rows = grays[:, m + 2:m + hv - 2]
        k = band_rows.shape[1] // 5
        # The steps across each column, at most 2m columns off either side's place.
        left, right = (np.partition(np.abs(np.diff(band_rows[:, :, c:c + 2 * m], axis=2)),
                                    k, axis=1)[:, k] for c in (0, w))
        return (np.minimum(left, right).argmax(axis=1) + 1).tolist()  # both must show

    def _nearby(self, grays: FloatImage, many: list[int], hyps: list[list[tuple[int, int]]],
                points: FloatImage, hv: int) -> list[tuple[int, int]]:
        """Of the placements ``hyps[j]`` of each band ``grays[j]`` (``j`` in ``many``),
        the one some card explains best a pixel either way of it (``NEAR``), looked at
        on every NEAR_STEP-th pixel and weighed only with the cards that explain one of
        that band's placements best already (``points``: each placement's
        correlations, the bands' rows in turn). The placement itself stands, not the
        pixel beside it: the shift search looks there next. All bands in one look."""
        counts = np.array([len(hyps[j]) for j in many], np.intp)
        k = min(NEAR_LEADERS, points.shape[1])  # a deck of fewer cards: all of them
        band_of = np.repeat(np.arange(len(many)), counts)
        leading = np.zeros((len(many), points.shape[1]), np.bool_)
        leading[band_of[:, None], np.argpartition(-points, k - 1, axis=1)[:, :k]] = True
        cols = np.flatnonzero(leading.any(axis=0))
        places = (np.array([xy for j in many for xy in hyps[j]], np.intp)[:, None]
                  + _NEAR_XY[None]).reshape(-1, 2)
        looked = np.repeat(band_of, len(NEAR))
        coarse = self.templates.normalised(hv, NEAR_STEP)[1]
        fit = ncc_rows(self.templates.looks(grays, np.asarray(many, np.intp)[looked], places,
                                            hv, NEAR_STEP),
                       np.ascontiguousarray(coarse[:, cols]))
        # Each band weighs only its own leaders.
        fit = np.where(leading[:, cols][looked], fit, -np.inf).max(axis=1)
        out, k0 = [], 0
        for j, n in zip(many, counts.tolist(), strict=True):
            out.append(hyps[j][int(np.argmax(fit[k0:k0 + n * len(NEAR)])) // len(NEAR)])
            k0 += n * len(NEAR)
        return out

    def place_many(self, bands: list[Band], edges: list[tuple[float, list[int]]],
                   frame: Image, starts: list[tuple[int, int]] | None = None,
                   own_top: bool = False, had: list[Placed] | None = None) -> list[Placed]:
        """Each band warped upright at its slope and where in it the index lies (the
        placement some card explains best; given ``starts``, searched around those
        only; ``own_top``: only at the top its stack's outline found for certain),
        with the tokens that may be the card and their correlations with the band over
        small shifts there. ``had``: each band placed before at the same slope (its
        warp is reused).

        Bands of one visible height are compared with the templates together.
        """
        tp = self.templates
        before: list[Placed | None] = list(had) if had is not None else [None] * len(bands)
        warped = [self._warped(b, slope, frame, h) for b, (slope, _), h in zip(
            bands, edges, before, strict=True)]
        groups: dict[int, list[int]] = {}
        for i, b in enumerate(bands):
            groups.setdefault(b.hv, []).append(i)
        at: list[tuple[int, int]] = [(0, 0)] * len(bands)
        views: list[FloatImage] = [np.zeros(0, np.float32)] * len(bands)
        corrs: list[FloatImage] = [np.zeros(0, np.float32)] * len(bands)
        for hv, idx in groups.items():
            grays = np.stack([warped[i][1] for i in idx])
            hyps = [[starts[i]] for i in idx] if starts is not None else [
                hypotheses(fit, edges[i][1], sx, across if bands[i].ask.certain else None,
                           own_top)
                for i, (fit, across), sx in zip(
                    idx, self._layout_fits(grays, hv),
                    self._sides(grays, hv), strict=True)]
            tpl = tp.normalised(hv, 2)[1]
            # Which placement some card explains best.
            many = [j for j, h in enumerate(hyps) if len(h) > 1]
            for i, h in zip(idx, hyps, strict=True):
                at[i] = h[0]
            if many:
                which = [j for j in many for _ in hyps[j]]
                points = ncc_rows(tp.looks(grays, which, [xy for j in many for xy in hyps[j]],
                                           hv), tpl)
                for j, xy in zip(many, self._nearby(grays, many, hyps, points, hv),
                                 strict=True):
                    at[idx[j]] = xy
            # Every token there over small shifts.
            seen = [tp.views(warped[i][1], *at[i], hv, SHIFT_PX, 2) for i in idx]
            corr = ncc_rows(np.concatenate(seen), tpl)
            for j, (i, v) in enumerate(zip(idx, seen, strict=True)):
                views[i], corrs[i] = v, corr[j * len(v):(j + 1) * len(v)]  # its own rows
        # While the best fit lies beyond the shifts searched (the placement was off by
        # more: a line of the art taken for the edge) the search moves on, for all such
        # bands at once; not for a covered band, whose window would take in the
        # covering card's edge.
        moving = [i for i, b in enumerate(bands) if b.hv == tp.th]
        for _ in range(RECENTRE - 1):
            moved = []
            for i in moving:
                c = corrs[i]
                dx, dy = beyond(c[:, int(c.argmax()) % c.shape[1]])
                if dx or dy:
                    at[i] = (at[i][0] + dx, at[i][1] + dy)
                    moved.append(i)
            if not moved:
                break
            seen = [tp.views(warped[i][1], *at[i], tp.th, SHIFT_PX, 2) for i in moved]
            corr = ncc_rows(np.concatenate(seen), tp.normalised(tp.th, 2)[1])
            for j, (i, v) in enumerate(zip(moved, seen, strict=True)):
                views[i], corrs[i] = v, corr[j * len(v):(j + 1) * len(v)]
            moving = moved
        return [Placed(slope, crop, b.gain, gray, *at[i], views[i], corrs[i])
                for i, ((slope, _), (crop, gray), b) in enumerate(zip(edges, warped, bands,
                                                                         strict=True))]


def four_channels(frame: Image, into: Image | None = None) -> Image:
    """A BGR ``frame`` as BGRA, to warp bands from: OpenCV's bilinear warp has a vector
    path for four channels, none for three (the same values in some half the time, for
    some 200 warps a frame; ``zones.top_down`` does the same). ``into``: a buffer to
    write it to, if one of its size."""
    if into is None or into.shape != (*frame.shape[:2], 4) or into.dtype != frame.dtype:
        return cv2.cvtColor(frame, cv2.COLOR_BGR2BGRA)
    return cv2.cvtColor(frame, cv2.COLOR_BGR2BGRA, dst=into)


def as_bgr(warped: Image) -> Image:
    """A warp of a frame as BGR (from a ``four_channels`` frame's, or as it is)."""
    return cv2.cvtColor(warped, cv2.COLOR_BGRA2BGR) if warped.shape[2] == 4 else warped


def hypotheses(layout: tuple[int, int], rows: list[int], sx: int,
               across: NDArray[np.intp] | None = None,
               own_top: bool = False) -> list[tuple[int, int]]:
    """The placements of a band's index worth a look: where the deck's layout fits;
    or one of the strongest straight lines (``rows``) is the card's top edge, and
    across where that layout fits or where both side edges of a card-wide band
    show (``sx``). Given ``across`` (per row of the half-size band, where the layout
    fits that row best: ``Placer._layout_fits``), the top the stack's outline found
    for certain, where the warp puts it, is tried too, across where the layout fits
    there (``own_top``: that top alone)."""
    tx, ty = layout
    own = round(REFINE_MM * TPL_PX)
    hyps = {(tx, own)} if own_top else {(tx, ty)}
    for r in [] if own_top else rows:
        hyps |= {(tx, r + 1), (sx, r + 1)}
    if across is not None:
        # A mat's printed line or a covering card's edge may be among the strongest
        # lines and the card's own top not; and the layout may fit best on the card
        # above (its edge over this card's header fits the layout's frame), far
        # across from where it fits at this card's top.
        hyps |= {(tx, own), (sx, own),
                 (int(across[min(max((own + IY) // 2, 0), len(across) - 1)]), own)}
    return distinct(hyps)


def distinct(points: set[tuple[int, int]]) -> list[tuple[int, int]]:
    """Drop placements within the shift search of one already kept: it covers them."""
    kept: list[tuple[int, int]] = []
    for x, y in sorted(points):
        for kx, ky in kept:  # a plain loop: a generator per point cost more (a hundred a frame)
            if abs(x - kx) <= SHIFT_PX and abs(y - ky) <= SHIFT_PX:
                break
        else:
            kept.append((x, y))
    return kept


def beyond(fit: FloatImage) -> tuple[int, int]:
    """Which way (x, y) the best of a 3x3 grid of fits (y-major) lies beyond it.

    Along each axis through the best, a parabola through the three fits peaks
    within half a pixel of the middle one's neighbour, or further out.
    """
    # In Python floats: numpy's calls would cost more than the sums (some 200 a frame).
    g = fit.ravel().tolist()
    best = g.index(max(g))  # the first best, as argmax
    by, bx = divmod(best, 3)
    out = []
    for a, b, c in (g[3 * by:3 * by + 3], g[bx::3]):
        curve = a - 2 * b + c
        if b >= max(a, c):
            out.append(0)
        elif curve >= 0:  # no peak in between: uphill all the way out
            out.append(1 if c > a else -1)
        else:
            top = 0.5 * (a - c) / curve
            out.append(0 if abs(top) <= 1.5 else (1 if top > 0 else -1))
    return out[0], out[1]
