"""The deck's templates as bands are compared with them, and a band's views cut alike.

A band is compared on its inner part (INSET_X and INSET_Y inside the card's
edges), only as high as it shows, often on every other pixel each way. The
templates are cut so once per visible height, zero-mean and unit-norm, one
column a token: the views of a band at every small shift, one a row, then meet
every token in one matrix product (``ncc_rows``).
"""

from __future__ import annotations

import functools
from collections import OrderedDict
from collections.abc import Callable
from typing import Final, Generic, TypeVar

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.profile import INSET_X, INSET_Y, TPL_PX, DeckProfile, band_px
from vision.types import FloatImage

IX: Final = round(INSET_X * TPL_PX)  # a band's inner part, px from its side
IY: Final = round(INSET_Y * TPL_PX)  # and from its top
LOCAL_SIGMA: Final = 3.0  # px: the neighbourhood a second look stretches the contrast over
LOCAL_FLOOR: Final = 0.02  # grey level spread (0..1) below which a neighbourhood is flat
LEAST_PX: Final = 8  # the least visible height a band is read at, template px
# Cut templates kept. A room's crooked fans show a dozen heights in a frame, each cut
# on every other pixel (ranking) and every fourth (the quick look): kept for every
# height, which bounds them (some 11 MB for a deck of 79 cards), none is cut twice (a
# cache of 16 cut some 20 a frame again, 8 ms with their darkest print). At full
# resolution, and stretched locally (a second look: seldom asked, its leaders
# stretched when first asked, 0.04 ms a token), 2 MB each, so fewer of those are kept.
CUT_STEPS: Final = 2  # the steps cut: every other pixel and every fourth
KEPT_FULL: Final = 2

K = TypeVar("K")
V = TypeVar("V")


class Recent(Generic[K, V]):
    """At most ``size`` values, made when first asked; the least recently asked go."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._values: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K, make: Callable[[], V]) -> V:
        if key in self._values:
            self._values.move_to_end(key)
            return self._values[key]
        value = self._values[key] = make()
        if len(self._values) > self.size:
            self._values.popitem(last=False)
        return value

    def __len__(self) -> int:
        return len(self._values)


class Templates:
    """A profile's templates cut to each visible height (made when first asked)."""

    def __init__(self, profile: DeckProfile) -> None:
        self.tw, self.th = band_px(profile.card_w, profile.band_mm)  # a whole band, px
        self._gray = profile.gray
        heights = self.th - LEAST_PX + 1
        self._cut: Recent[tuple[int, int], tuple[FloatImage, FloatImage]] = Recent(
            CUT_STEPS * heights)
        self._full: Recent[tuple[int, int], tuple[FloatImage, FloatImage]] = Recent(KEPT_FULL)
        self._rows: Recent[tuple[int, int], FloatImage] = Recent(CUT_STEPS * heights)
        self._dark: Recent[int, FloatImage] = Recent(heights)
        self._local: Recent[int, tuple[FloatImage, FloatImage, NDArray[np.bool_]]] = Recent(
            KEPT_FULL)
        # The deck's average band (its shared layout), at half resolution.
        mt = np.ascontiguousarray(profile.gray[:, IY:, IX:self.tw - IX].mean(axis=0),
                                  np.float32)
        self.mean_half = cv2.resize(mt, (mt.shape[1] // 2, mt.shape[0] // 2),
                                    interpolation=cv2.INTER_AREA)

    def visible_px(self, visible_mm: float) -> int:
        """A band's visible height in template px (at least LEAST_PX, at most a whole band)."""
        return min(self.th, max(int(visible_mm * TPL_PX), LEAST_PX))

    def view_shape(self, hv: int) -> tuple[int, int]:
        """(rows, columns) of a band's inner part at visible height ``hv``."""
        return hv - IY, self.tw - 2 * IX

    def normalised(self, hv: int, step: int = 1) -> tuple[FloatImage, FloatImage]:
        """Templates cut to the visible height (every ``step``-th pixel each way): raw,
        and zero-mean unit-norm columns."""
        def cut() -> tuple[FloatImage, FloatImage]:
            raw = self._raw(hv, step)
            tpl = raw - raw.mean(axis=1, keepdims=True)
            tpl /= np.linalg.norm(tpl, axis=1, keepdims=True) + 1e-6
            return raw, np.ascontiguousarray(tpl.T)

        return (self._full if step == 1 else self._cut).get((hv, step), cut)

    def _raw(self, hv: int, step: int = 1) -> FloatImage:
        """The templates cut to the visible height, one per row, as they are (every
        ``step``-th pixel each way)."""
        return np.ascontiguousarray(self._gray[:, IY:hv:step, IX:self.tw - IX:step].reshape(
            len(self._gray), -1))

    def rows(self, hv: int, step: int = 1) -> FloatImage:
        """The zero-mean unit-norm templates one per row, for picking a few of them."""
        return self._rows.get((hv, step),
                              lambda: np.ascontiguousarray(self.normalised(hv, step)[1].T))

    def dark(self, hv: int) -> FloatImage:
        """Per token, the level of its darkest print (its 2nd percentile) at height ``hv``."""

        def darkest() -> FloatImage:
            raw = self._raw(hv)  # not normalised: nor kept (seldom asked again soon)
            k = raw.shape[1] // 50
            return np.partition(raw, k, axis=1)[:, k].copy()

        return self._dark.get(hv, darkest)

    def local(self, hv: int, tokens: NDArray[np.intp]) -> tuple[FloatImage, FloatImage]:
        """The templates of ``tokens`` (any shape: indices into the deck) with their
        contrast stretched locally, one per row: as they are, and zero-mean unit-norm.

        Each token is stretched when first asked at a height (a second look asks for
        a few leaders, seldom the whole deck), one row at a time as a whole cut
        would be (a row's result does not depend on the others).
        """
        def empty() -> tuple[FloatImage, FloatImage, NDArray[np.bool_]]:
            size = (len(self._gray), int(np.prod(self.view_shape(hv))))
            return (np.empty(size, np.float32), np.empty(size, np.float32),
                    np.zeros(size[0], np.bool_))

        loc, loc_rows, done = self._local.get(hv, empty)
        todo = np.unique(tokens[~done[tokens]])
        if len(todo):
            loc[todo] = np.stack([local_contrast(np.ascontiguousarray(
                self._gray[t, IY:hv, IX:self.tw - IX])).ravel() for t in todo])
            loc_rows[todo] = unit_rows(loc[todo])
            done[todo] = True
        return loc[tokens], loc_rows[tokens]

    def views(self, gray: FloatImage, tx: int, ty: int, hv: int, s: int,
              step: int = 1) -> FloatImage:
        """The band's inner part at every shift within ``s`` px of (tx, ty), one per row
        (every ``step``-th pixel each way)."""
        hh, ww = self.view_shape(hv)
        y0, x0 = ty + IY - s, tx + IX - s
        pad = max(0, -y0, -x0, y0 + hh + 2 * s - gray.shape[0], x0 + ww + 2 * s - gray.shape[1])
        if pad:
            gray = cv2.copyMakeBorder(gray, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
            y0, x0 = y0 + pad, x0 + pad
        return windows(gray, 2 * s + 1, 2 * s + 1, hh, ww, step, (y0, x0))

    def looks(self, grays: FloatImage, which: list[int] | NDArray[np.intp],
              places: list[tuple[int, int]] | NDArray[np.intp], hv: int,
              step: int = 2) -> FloatImage:
        """The views (on every ``step``-th pixel each way) of the bands ``grays[which]``
        with their index placed at ``places``, one per row; beyond a band's edge its
        edge pixels repeat (as ``views`` pads)."""
        _, hgt, wid = grays.shape
        xy = np.asarray(places, np.intp).reshape(-1, 2)
        down, across = _steps(hv, step, self.tw)
        bands = np.asarray(which, np.intp)
        x, y = xy[:, 0], xy[:, 1]
        if (int(y.min()) + IY >= 0 and int(y.max()) + int(down[-1]) < hgt
                and int(x.min()) + IX >= 0 and int(x.max()) + int(across[-1]) < wid):
            # Every view within its band (nearly always): one offset per view added to
            # the window's own, nothing to clip (the quick look gathers some hundred
            # times a frame).
            return grays.take(((bands * hgt + y) * wid + x)[:, None]
                              + _offsets(hv, step, self.tw, wid)[None])
        rows = np.clip(y[:, None] + down, 0, hgt - 1)
        cols = np.clip(x[:, None] + across, 0, wid - 1)
        flat = (bands[:, None] * hgt + rows) * wid
        return np.take(grays, flat[:, :, None] + cols[:, None, :]).reshape(len(xy), -1)


@functools.cache
def _steps(hv: int, step: int, tw: int) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """A view's rows and columns (every ``step``-th) from its index's top-left corner,
    for bands ``tw`` px wide showing ``hv`` rows."""
    return _frozen(IY + np.arange(0, hv - IY, step, dtype=np.intp)), _frozen(
        IX + np.arange(0, tw - 2 * IX, step, dtype=np.intp))


@functools.cache
def _offsets(hv: int, step: int, tw: int, wid: int) -> NDArray[np.intp]:
    """``_steps``' pixels as offsets into a band ``wid`` px wide, row by row."""
    down, across = _steps(hv, step, tw)
    return _frozen((down[:, None] * wid + across[None, :]).ravel())


def _frozen(a: NDArray[np.intp]) -> NDArray[np.intp]:
    """``a`` made read-only: cached, it is every caller's."""
    a.flags.writeable = False
    return a


def windows(img: FloatImage, ny: int, nx: int, hh: int, ww: int, step: int = 1,
            at: tuple[int, int] = (0, 0)) -> FloatImage:
    """The ``hh`` x ``ww`` windows of ``img`` at the ``ny`` x ``nx`` top-left corners
    nearest ``at`` (row, column), one per row, y-major (every ``step``-th pixel each
    way)."""
    img = np.ascontiguousarray(img)
    rs, cs = img.strides
    # A view made straight on the buffer: numpy's as_strided costs more than the
    # copy of a band's views (this runs some 300 times a frame).
    win = np.ndarray((ny, nx, (hh + step - 1) // step, (ww + step - 1) // step), img.dtype,
                     img, at[0] * rs + at[1] * cs, (rs, cs, rs * step, cs * step))
    return np.ascontiguousarray(win).reshape(ny * nx, -1)


def ncc_rows(v: FloatImage, t: FloatImage) -> FloatImage:
    """Each row of ``v`` correlated with each zero-mean unit-norm column of ``t``.

    ``t`` being zero-mean, the rows need no mean taken off for the product, only
    for their norm.
    """
    # Row sums by OpenCV: numpy's pairwise summation is several times slower here.
    s = cv2.reduce(v, 1, cv2.REDUCE_SUM)[:, 0]
    ss = cv2.reduce(cv2.multiply(v, v), 1, cv2.REDUCE_SUM)[:, 0]
    norm = np.sqrt(np.maximum(ss - s * s / v.shape[1], 1e-12))
    corr = v @ t
    corr /= norm[:, None]  # in place: the product is ours
    return np.asarray(corr, np.float32)


def unit_rows(v: FloatImage) -> FloatImage:
    """Each row less its mean, scaled to unit length (a new array)."""
    v = v - v.mean(axis=1, keepdims=True)
    v /= np.sqrt(np.einsum("ij,ij->i", v, v))[:, None] + 1e-6
    return v


def local_contrast(img: FloatImage) -> FloatImage:
    """Each pixel's difference from its neighbourhood's mean over the neighbourhood's
    spread: a pale numeral then weighs as much as black print."""
    d = img - cv2.GaussianBlur(img, (0, 0), LOCAL_SIGMA)
    return np.asarray(d / (np.sqrt(cv2.GaussianBlur(d * d, (0, 0), LOCAL_SIGMA)) + LOCAL_FLOOR),
                      np.float32)
