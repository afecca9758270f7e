"""A per-deck classifier of index bands, learnt from the deck's own enrolled cards.

Hand-set templates and thresholds carry over badly to a deck they were not
tuned on: where a deck's band is mostly what every card shares (a thick
frame, a picture) and its index is thin, whole-band correlation ranks the
wrong cards first. So each deck gets a linear discriminant (scikit-learn's,
with shrunk covariance: ``vision.models.covariance``) trained on its own cards' tops,
each drawn many times as a camera shows a fanned card: a little off its place
and tilt, resized, blurred (now and then smeared, as a shaken camera or a knocked
table smears a frame), under a coloured lamp that lights it unevenly and
glare, with noise, and now and then with the next card's edge reaching into
the band. The
discriminant learns which pixels tell this deck's cards apart and which only
vary.

Features are taken at 1 px/mm from the band's visible part: its grey, each
band to zero mean and unit spread (exposure says nothing of the card), its
Lab chroma in 4 mm blocks (the suit), and its lightness in the same blocks as a
share of the band's white (a navy and a light violet header differ in little
else once the grey is brought to unit spread and a lamp has washed their hues
together). One model per visible height: a covered card shows only the top of
its band.
"""

from __future__ import annotations

import math
from concurrent.futures import Executor, Future
from dataclasses import dataclass, replace
from typing import Final, NamedTuple

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.models.covariance import discriminant
from vision.profile import INSET_X, INSET_Y, TPL_PX, DeckProfile, ProfileError
from vision.reading.trust import log_gap, troop_mark
from vision.simulated.room import motion_blur
from vision.types import GREY_BGR, FloatImage, Image

HEIGHTS_MM: Final = (8.0, 10.0, 12.0, 14.0, 16.0)  # visible heights a model is made for
SAMPLES: Final = 40  # drawn per card and height
SHIFT_MM: Final = (0.5, 0.5)  # how far off its place (across, down) a band is drawn
SEARCH_PX: Final = 1  # read at every shift this far (TPL_PX px) each way: a linear
# model does not forgive a band off its place, so it looks where it fits best; half a
# millimetre each way, as far as training draws a band off (two each way read no better)
FEATURE_PX: Final = 1.0  # px/mm of the grey features
WINDOW_MM: Final = 10.0  # the telling window, seen at TPL_PX: where a suit's cards differ
# (their index), as fine as the band is cut: at 1 px/mm a 4 mm numeral is four pixels
CHROMA_MM: Final = 4.0  # block of the chroma features
CHROMA_SCALE: Final = 1 / 25.0  # Lab units -> feature units (grey is unit spread)
PAPER_PERCENTILE: Final = 90  # a band's pixels lighter than this are its white
PAPER_CHROMA: Final = 25.0  # Lab chroma of a white from which it is taken for the suit
FAR: Final = 3.0  # squared distance, in dimensions of the space, at which a band is no card's
APART: Final = 20.0  # squared distance between winner and runner-up that leaves no doubt
CAST: Final = 0.12  # share a lamp's colour the light's correction leaves on, per channel
RAMP: Final = 0.2  # most a lamp's light may change across a card's width, as a share
FALLOFF: Final = 0.4  # most it may fall off a card's width from its brightest spot
BLUR_PX: Final = (0.5, 2.5)  # a band's blur (TPL_PX px): a card a metre off is ~1.5 px/mm
STRETCH: Final = 1.6  # up to this much more blur across than down (motion, a slanted view)
SHAKE: Final = 0.4  # share of draws smeared as a shaken camera or a knocked table smears a frame
SHAKE_PX: Final = 6.0  # the longest such smear (TPL_PX px: 3 mm, a frame's 7 px)
SOFT_AS_TRAINED_MM: Final = 0.8  # a band of a sharper frame is blurred to this (``as_trained``)
# The self-test: how far apart the model holds its deck's cards as a camera shows them.
# Bands drawn as for training, then brought down to what a camera across the table
# resolves and back (a room's index is a few soft pixels high).
TEST_SAMPLES: Final = 12  # drawn per card and height
TEST_PX_PER_MM: Final = (1.2, 2.4)
TEST_SEED: Final = 99  # not the training's: other draws than it learnt
# The typical gaps of the tuning decks: least, the one below which such decks read fewer
# of their cards in a single frame (bench vision, tune split: once all under 0.56; with
# the trust weighing the rivals 0.56 to 0.91, against 0.75 to 0.95 above it), and most.
TYPICAL_GAPS: Final = (0.46, 0.6, 2.39)


# OpenCV's 8-bit Lab (L to 0..255, a and b offset by 128) back to Lab units.
_LAB_OF_8BIT: Final = np.array([[100 / 255, 0, 0, 0], [0, 1, 0, -128], [0, 0, 1, -128]],
                               np.float32)
Window = tuple[int, int, int]  # the telling window: x, y (TPL_PX px in the band), side


def features(bands: FloatImage, visible_mm: float, card_w: float,
             margin: int = 0, window: Window | None = None,
             grey_px: float = FEATURE_PX, px_per_mm: float = TPL_PX,
             lightness: bool = False) -> FloatImage:
    """Features of ``bands`` ((n, h, w, 3) true-colour BGR 0..1 at ``px_per_mm``, each
    at least ``visible_mm`` high): only what shows of each band counts. With a
    ``margin`` (px on every side), (n, k, d): those of each view of the band at
    every shift of a pixel up to ``margin`` each way; else (n, d).

    The band's grey and chroma are means over blocks (``grey_px`` grey, CHROMA_MM
    chroma): the block means at every pixel are taken once and each shift samples
    them. The ``window`` (``telling_window``), if given, adds its grey at TPL_PX;
    ``lightness`` adds the chroma blocks' lightness over the band's white."""
    n = len(bands)
    iy, ix = round(INSET_Y * px_per_mm), round(INSET_X * px_per_mm)
    rows, width = round(visible_mm * px_per_mm), round(card_w * px_per_mm)
    g, c = round(px_per_mm / grey_px), round(px_per_mm * CHROMA_MM)
    h, w = rows - iy, width - 2 * ix
    gh, gw, ch, cw = max(1, h // g), max(1, w // g), max(1, h // c), max(1, w // c)
    full_h, full_w = bands.shape[1], bands.shape[2]
    # All bands as one tall image: the block means work pixel by pixel, and a block
    # sampled never reaches past its own band.
    tall = np.ascontiguousarray(bands, np.float32).reshape(n * full_h, full_w, 3)
    fine = cv2.transform(tall, GREY_BGR[None])
    grey = cv2.boxFilter(fine, -1, (g, g), anchor=(0, 0),
                         borderType=cv2.BORDER_REPLICATE).reshape(n, full_h, full_w)
    # Lab from 8 bits, which OpenCV looks up in a table (float Lab computes each pixel's
    # gamma, a fifth of the features' time): its steps, 0.4 L and 1 a or b, lie far
    # below what the chroma blocks and the paper's white tell apart. Bands are never
    # negative (a frame's levels times a gain; training draws are clipped), so the
    # absolute value taken on the way to 8 bits changes nothing; past 1 saturates.
    lab = cv2.transform(cv2.cvtColor(cv2.convertScaleAbs(tall, alpha=255.0),
                                     cv2.COLOR_BGR2Lab).astype(np.float32), _LAB_OF_8BIT)
    blocks = cv2.boxFilter(lab, -1, (c, c), anchor=(0, 0),
                           borderType=cv2.BORDER_REPLICATE).reshape(n, full_h, full_w, 3)
    # Colours as the band's own white shows them: a lamp's cast and the paper's tint
    # (neutral in the profile, cream on the table) come off alike. A white that is
    # itself coloured (a full-bleed face) is left on: it is the suit.
    y0, x0 = margin + iy, margin + ix
    k = (h * w * (100 - PAPER_PERCENTILE)) // 100
    shown = lab.reshape(n, full_h, full_w, 3)[:, y0:y0 + h, x0:x0 + w]
    # The lightest pixels picked by their lightness alone, then gathered whole.
    ys, xs = np.divmod(np.argpartition(-shown[..., 0].reshape(n, h * w), k, axis=1)[:, :k], w)
    at = (np.arange(n)[:, None] * full_h + y0 + ys) * full_w + x0 + xs
    lit = lab.reshape(-1, 3).take(at.ravel(), axis=0).reshape(n, k, 3).mean(axis=1)
    white = lit[:, 1:]
    near = np.clip(1.0 - np.linalg.norm(white, axis=1) / PAPER_CHROMA, 0.0, 1.0)
    tint = white * near[:, None]
    # Every shift's views at once, copied straight into the features: the grey and
    # the window's each to zero mean and unit spread, the chroma's without its tint,
    # the lightness's over the white.
    views = [_shifted(grey, margin, iy, ix, g, gh, gw),
             _shifted(blocks, margin, iy, ix, c, ch, cw, (1, 2))]
    if window is not None:
        views.append(_shifted(fine.reshape(n, full_h, full_w), margin, window[1], window[0], 1,
                              window[2], window[2]))
    if lightness:
        views.append(_shifted(blocks, margin, iy, ix, c, ch, cw, (0, None)))
    sizes = [math.prod(v.shape[3:]) for v in views]
    out = np.empty((n, views[0].shape[1] * views[0].shape[2], sum(sizes)), np.float32)
    ends = np.cumsum(sizes)
    parts = [out[:, :, end - size:end] for size, end in zip(sizes, ends, strict=True)]
    for v, part in zip(views, parts, strict=True):
        np.copyto(part.reshape(v.shape, copy=False), v)  # a view: raises rather than copy
    if lightness:  # as a share of the band's white: the exposure comes off
        parts[-1] /= (lit[:, 0] + 1.0)[:, None, None]
    for part in [parts[0]] + ([parts[2]] if window is not None else []):  # grey, window
        part -= part.mean(axis=2, keepdims=True)
        part /= (np.sqrt(np.einsum("bsx,bsx->bs", part, part) / part.shape[2]) + 1e-3)[:, :, None]
    parts[1] -= np.tile(tint, ch * cw)[:, None]  # per block: a, b
    parts[1] *= CHROMA_SCALE
    return out if margin else out[:, 0]


def telling_window(tops: Image, tokens: list[str], visible_mm: float) -> Window:
    """Where within a band's visible part (``tops`` at TPL_PX) a suit's cards differ
    most: each suit's grey variance across its cards (each card's own mean off),
    the mean over the suits, summed over a square WINDOW_MM wide (or as high as
    shows). A deck without four cards of a suit takes the variance across all."""
    iy, ix = round(INSET_Y * TPL_PX), round(INSET_X * TPL_PX)
    rows = round(visible_mm * TPL_PX)
    grey = cv2.transform(tops[:, iy:rows, ix:tops.shape[2] - ix].astype(np.float32)
                         .reshape(-1, tops.shape[2] - 2 * ix, 3), GREY_BGR[None]).reshape(
        len(tops), rows - iy, -1)
    grey -= grey.mean(axis=(1, 2), keepdims=True)
    suits: dict[str, list[int]] = {}
    for i, t in enumerate(tokens):
        colour, _ = troop_mark(t)
        if colour >= 0:
            suits.setdefault(t[0], []).append(i)
    varied = [grey[idx].var(axis=0) for idx in suits.values() if len(idx) >= 4]
    v = np.mean(varied, axis=0) if varied else grey.var(axis=0)
    k = max(2, min(round(WINDOW_MM * TPL_PX), v.shape[0], v.shape[1]))
    summed = cv2.boxFilter(v.astype(np.float32), -1, (k, k), normalize=False, anchor=(0, 0),
                           borderType=cv2.BORDER_CONSTANT)[:v.shape[0] - k + 1, :v.shape[1] - k + 1]
    y, x = np.unravel_index(int(summed.argmax()), summed.shape)
    return int(x) + ix, int(y) + iy, k


def _shifted(img: FloatImage, margin: int, y0: int, x0: int, step: int, rows: int,
             cols: int, channels: tuple[int, int | None] | None = None) -> FloatImage:
    """Per band of ``img`` ((n, h, w[, c]), C-contiguous), its ``rows`` x ``cols`` samples
    every ``step`` px from (y0, x0) at every shift of a pixel up to ``margin`` each way
    (y-major), (n, dy, dx, rows, cols[, c]): a strided view, not a slice per shift. As
    a slice would, the samples stop at the bands' edge (alike at every shift).
    ``channels``: (first, how many) of the last axis (how many ``None``: that one alone,
    the axis dropped); none: all."""
    img = np.ascontiguousarray(img)
    n, s, st = len(img), 2 * margin + 1, img.strides
    rows, cols = (min(k, max(0, -(-(size - at - s + 1) // step)))
                  for k, at, size in ((rows, y0, img.shape[1]), (cols, x0, img.shape[2])))
    shape: tuple[int, ...] = (n, s, s, rows, cols)
    strides: tuple[int, ...] = (st[0], st[1], st[2], st[1] * step, st[2] * step)
    offset = y0 * st[1] + x0 * st[2]
    if channels is None:
        shape, strides = shape + img.shape[3:], strides + st[3:]
    else:
        offset += channels[0] * st[3]
        if channels[1] is not None:
            shape, strides = (*shape, channels[1]), (*strides, st[3])
    # Made straight on the buffer: numpy's as_strided costs more than many a copy here.
    win = np.ndarray(shape, img.dtype, img, offset, strides)
    win.flags.writeable = False
    return win


def as_camera_shows(top: Image, rng: np.random.Generator, visible_mm: float, cover: Image,
          rows: int, shake: np.random.Generator | None = None) -> FloatImage:
    """One look at a card's ``top`` (uint8 at TPL_PX) as a camera may show it: ``rows``
    high, float BGR 0..1; ``shake``, where given, the stream that smears SHAKE of the
    looks (none: no look smeared)."""
    w = top.shape[1]
    angle = rng.uniform(-1.5, 1.5)
    scale = rng.uniform(0.97, 1.03)
    m = cv2.getRotationMatrix2D((w / 2, 0.0), angle, scale)
    m[0, 2] += rng.uniform(-SHIFT_MM[0], SHIFT_MM[0]) * TPL_PX
    m[1, 2] += rng.uniform(-SHIFT_MM[1], SHIFT_MM[1]) * TPL_PX
    beyond = tuple(float(v) for v in rng.uniform(60, 200) * rng.uniform(0.85, 1.15, 3))
    img = cv2.warpAffine(top, m, (w, rows), flags=cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_CONSTANT, borderValue=beyond)
    if rng.random() < 0.3:
        # The next card reaches a little further up than the visible height says.
        at = max(4, round((visible_mm - rng.uniform(0.0, 2.0)) * TPL_PX))
        if at < rows:
            img[at:] = cover[:rows - at]
            img[at:at + 2] = (img[at:at + 2] * 0.6).astype(np.uint8)  # its edge's shadow
    out: FloatImage = img.astype(np.float32) / 255.0
    out *= rng.uniform(1 - CAST, 1 + CAST, 3).astype(np.float32) * rng.uniform(0.75, 1.15)
    if rng.random() < 0.3:
        veil = rng.uniform(0.05, 0.4)
        out += (1.0 - out) * veil
    sigma = rng.uniform(*BLUR_PX)
    if sigma > 0.3:
        out = cv2.GaussianBlur(out, (0, 0), sigmaX=sigma * rng.uniform(1.0, STRETCH),
                               sigmaY=sigma)
    if shake is not None and shake.random() < SHAKE:
        out = motion_blur(out, shake.uniform(1.0, SHAKE_PX), shake.uniform(0.0, 180.0))
    out += rng.normal(0.0, rng.uniform(0.004, 0.03), out.shape).astype(np.float32)
    # A lamp lights a card unevenly, and the photo it was enrolled from unevenly again:
    # a ramp any way across the card, falling off around some spot.
    turn, slope = rng.uniform(0, 2 * np.pi), rng.uniform(0, RAMP)
    spot, fall = rng.uniform(-0.5, 0.5, 2), rng.uniform(0, FALLOFF)
    across = np.linspace(-0.5, 0.5, w, dtype=np.float32)[None, :]
    down = (np.arange(rows, dtype=np.float32) / w)[:, None]
    out *= ((1 + slope * (np.cos(turn) * across + np.sin(turn) * down))
            * (1 - fall * ((across - spot[0]) ** 2 + (down - spot[1]) ** 2)))[..., None]
    return np.asarray(np.clip(out, 0, 1), np.float32)


def as_trained(bands: FloatImage, soft_mm: float, px_per_mm: float = TPL_PX,
               ) -> tuple[FloatImage, float]:
    """``bands`` (at ``px_per_mm``) of a frame ``soft_mm`` soft (``vision.sharpness``; NaN: not
    known) as soft as the model learnt its cards, and how soft they are then.

    The model learnt its cards blurred as a card a metre off shows them: a sharp
    camera's bands of the right card lay far from its centre and near the others',
    and the trust named few of them. So a band of a frame sharper than
    SOFT_AS_TRAINED_MM is blurred to it (a softer one cannot be sharpened back)."""
    if not soft_mm < SOFT_AS_TRAINED_MM:  # NaN too: how soft is not known
        return bands, soft_mm
    sigma = math.sqrt(SOFT_AS_TRAINED_MM ** 2 - soft_mm ** 2) * px_per_mm
    # Band by band: blurred as one stack, a band's rows would bleed into the next's.
    return (np.stack([cv2.GaussianBlur(b, (0, 0), sigma) for b in bands]),
            SOFT_AS_TRAINED_MM)


def nearest_shift(f: FloatImage, projection: FloatImage, centres: FloatImage) -> FloatImage:
    """Per item of ``f`` ((n, shifts, d) features), its squared distance from each of
    the ``centres`` in the space ``projection`` maps to, at the shift nearest it."""
    n, k = f.shape[:2]
    z = f.reshape(n * k, -1) @ projection
    # Squared distances as |z|^2 - 2 z.c + |c|^2: no (items, shifts, centres, dims) array.
    d2 = ((z * z).sum(axis=1)[:, None] - 2.0 * (z @ centres.T)
          + (centres * centres).sum(axis=1)[None]).reshape(n, k, -1).min(axis=1)
    return np.maximum(d2, 0.0)


def two_nearest(d2: FloatImage, allowed: NDArray[np.bool_] | None = None) -> Look:
    """The ``Look`` of items at distances ``d2`` (items x tokens) among the tokens
    ``allowed`` (items x tokens) where that leaves two or more."""
    if allowed is not None:
        # A zone that leaves one token (or none) is not choosing: all are weighed.
        few = allowed.sum(axis=1) < 2
        d2 = np.where(allowed | few[:, None], d2, np.inf)
    # The two nearest, in order (a deck of one card: that card twice).
    two = np.argpartition(d2, min(1, d2.shape[1] - 1), axis=1)[:, :2]
    bi = np.arange(len(d2))[:, None]  # fancy indexing: take_along_axis costs more here
    two = two[bi, np.argsort(d2[bi, two], 1)]
    near = d2[bi, two]
    return Look(two[:, 0], near[:, 0], near[:, -1], two[:, -1])


def _fit(x: FloatImage, labels: NDArray[np.intp]) -> tuple[FloatImage, FloatImage]:
    """The discriminant of features ``x``: its projection (its own components only) and
    each label's centre there."""
    lda = discriminant().fit(x, labels)
    dims = min(len(lda.classes_) - 1, x.shape[1])  # what the discriminant spans
    proj = np.ascontiguousarray(lda.scalings_[:, :dims], np.float32)
    return proj, (lda.means_ @ proj).astype(np.float32)


def _soften(band: FloatImage, rng: np.random.Generator) -> FloatImage:
    """``band`` (at TPL_PX) as a camera resolving ``TEST_PX_PER_MM`` shows it, at TPL_PX."""
    h, w = band.shape[:2]
    f = rng.uniform(*TEST_PX_PER_MM) / TPL_PX
    small = cv2.resize(band, (max(4, round(w * f)), max(4, round(h * f))),
                       interpolation=cv2.INTER_AREA)
    return np.asarray(cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR), np.float32)


class Look(NamedTuple):
    """Per band: the nearest token (index into the model's tokens), and its and the
    runner-up's (``second``) squared distances in the discriminant space, per
    dimension (a band of the card itself lies about 1 from its centre)."""

    best: NDArray[np.intp]
    nearest: FloatImage
    runner_up: FloatImage
    second: NDArray[np.intp]  # the runner-up token


@dataclass
class BandModel:
    """Per visible height, a discriminant over the deck's tokens."""

    tokens: list[str]
    card_w: float
    # Per visible height: features -> the discriminant space (its own components
    # only), and each token's centre there.
    projections: dict[float, FloatImage]
    centres: dict[float, FloatImage]
    # Per visible height, its telling window (``telling_window``); none in a model
    # made before them.
    windows: dict[float, Window] | None = None
    # The self-test's typical gap (``self_test``); none in a model made before it.
    typical_gap: float | None = None
    # Whether its features weigh the bands' lightness (``features``); not in a model
    # made before it.
    lightness: bool = False

    @staticmethod
    def train(profile: DeckProfile, seed: int = 0, samples: int = SAMPLES,
              pool: Executor | None = None) -> BandModel:
        """The deck's model from ``samples`` draws of each card per visible height.
        ``pool``: workers that fit each height's discriminant while this process draws
        the next height's cards (one stream of draws, as without them)."""
        if profile.tops is None:
            raise ProfileError(f"deck profile {profile.name!r} keeps no card tops in colour: "
                               "enrol the deck again to read it with a learnt model")
        if len(profile.tokens) < 2:
            # A discriminant of one card has no dimension: every distance is 0 / 0.
            raise ProfileError(f"deck profile {profile.name!r} holds {len(profile.tokens)} "
                               "card(s): a learnt model tells two or more apart")
        rng = np.random.default_rng(seed)
        tops = profile.tops
        n = len(tops)
        rows = round(profile.band_mm * TPL_PX)
        labels = np.repeat(np.arange(n), samples)
        windows: dict[float, Window] = {}
        fits: list[Future[tuple[FloatImage, FloatImage]] | tuple[FloatImage, FloatImage]] = []
        # Smears drawn from a stream of their own: the other draws stay as they were.
        shake = np.random.default_rng([seed, 1])
        for h in HEIGHTS_MM:
            drawn = np.stack([as_camera_shows(tops[i], rng, h, tops[int(rng.integers(n))], rows,
                                              shake)
                              for i in labels])
            windows[h] = telling_window(tops, list(profile.tokens), h)
            x = features(drawn, h, profile.card_w, window=windows[h], lightness=True)
            fits.append(_fit(x, labels) if pool is None else pool.submit(_fit, x, labels))
        done = [f.result() if isinstance(f, Future) else f for f in fits]
        model = BandModel(list(profile.tokens), profile.card_w,
                          {h: d[0] for h, d in zip(HEIGHTS_MM, done, strict=True)},
                          {h: d[1] for h, d in zip(HEIGHTS_MM, done, strict=True)}, windows,
                          lightness=True)
        return replace(model, typical_gap=model.self_test(tops, profile.band_mm))

    def reads_poorly(self) -> bool:
        """Whether the self-test finds the deck's cards so near each other that the
        companion will ask about many of them (below the middle of ``TYPICAL_GAPS``)."""
        return self.typical_gap is not None and self.typical_gap < TYPICAL_GAPS[1]

    def self_test(self, tops: Image, band_mm: float, seed: int = TEST_SEED,
                  samples: int = TEST_SAMPLES) -> float:
        """How far apart the model holds the deck's cards as a camera shows them: over
        bands of its own cards (``tops``) drawn as for training, softened to a camera's
        resolution, the median log gap between the runner-up's and the nearest's
        distance where the nearest is right.

        Decks differ in how far their cards lie apart (a thin index on a busy face
        lies near its neighbours), and a read's gap means as much as it is wide for
        its deck: the trust weighs a read's gap in this unit.
        """
        rng = np.random.default_rng(seed)
        n, rows, s = len(tops), round(band_mm * TPL_PX), SEARCH_PX
        gaps = []
        for h in HEIGHTS_MM:
            labels = np.repeat(np.arange(n), samples)
            bands = np.stack([cv2.copyMakeBorder(
                _soften(as_camera_shows(tops[i], rng, h, tops[int(rng.integers(n))], rows), rng),
                s, s, s, s, cv2.BORDER_REPLICATE) for i in labels])
            lk = self.look(bands, h)
            gaps.append(log_gap(lk.nearest, lk.runner_up)[lk.best == labels])
        return float(np.median(np.concatenate(gaps)))

    def to_arrays(self) -> dict[str, FloatImage]:
        """The model as named arrays, for the deck's profile file."""
        out = {}
        for h in self.projections:
            out[f"proj_{h:g}"] = self.projections[h]
            out[f"centres_{h:g}"] = self.centres[h]
            if self.windows is not None:
                out[f"window_{h:g}"] = np.array(self.windows[h], np.float32)
        if self.typical_gap is not None:
            out["typical_gap"] = np.array(self.typical_gap, np.float32)
        if self.lightness:
            out["lightness"] = np.array(1, np.float32)
        return out

    @staticmethod
    def of(profile: DeckProfile) -> BandModel | None:
        """The model the profile carries, if it carries a whole one for its cards."""
        arrays = profile.model or {}
        try:
            projections = {h: arrays[f"proj_{h:g}"] for h in HEIGHTS_MM}
            centres = {h: arrays[f"centres_{h:g}"] for h in HEIGHTS_MM}
        except KeyError:
            return None
        n = len(profile.tokens)
        if any(c.shape[0] != n or c.shape[1] != projections[h].shape[1]
               for h, c in centres.items()):
            return None
        windows: dict[float, Window] | None = None
        if all(f"window_{h:g}" in arrays for h in HEIGHTS_MM):
            windows = {}
            for h in HEIGHTS_MM:
                x, y, k = (int(v) for v in arrays[f"window_{h:g}"])
                windows[h] = (x, y, k)
        # A self-test that is no positive number (a damaged file) is as none.
        gap = arrays.get("typical_gap")
        typical = (float(gap.flat[0]) if gap is not None and gap.size == 1
                   and np.isfinite(gap.flat[0]) and gap.flat[0] > 0 else None)
        model = BandModel(list(profile.tokens), profile.card_w, projections, centres, windows,
                          typical, "lightness" in arrays)
        # A damaged file's projection that does not fit its features reads nothing.
        width = features(np.zeros((1, round(profile.band_mm * TPL_PX) + 2 * SEARCH_PX,
                                   round(profile.card_w * TPL_PX) + 2 * SEARCH_PX, 3),
                                  np.float32), HEIGHTS_MM[0], profile.card_w, SEARCH_PX,
                         model.window(HEIGHTS_MM[0]), lightness=model.lightness).shape[-1]
        if projections[HEIGHTS_MM[0]].shape[0] != width:
            return None
        return model

    def window(self, h: float) -> Window | None:
        """The telling window of the model for visible height ``h``, if it has one."""
        return None if self.windows is None else self.windows[h]

    def height_for(self, visible_mm: float) -> float:
        """The model that uses no more of a band than shows."""
        fit = [h for h in HEIGHTS_MM if h <= visible_mm + 1e-6]
        return fit[-1] if fit else HEIGHTS_MM[0]

    def look(self, bands: FloatImage, visible_mm: float,
             allowed: NDArray[np.bool_] | None = None) -> Look:
        """Each band's nearest token and its distances (see ``Look``). ``bands``:
        true-colour BGR 0..1 at TPL_PX, a band high and wide with ``SEARCH_PX`` more
        on every side; each token is judged where it fits best among the shifts.
        ``allowed`` (bands x tokens): the tokens each band may be (its zone's cards by
        the rules), where that leaves two or more to choose between."""
        return self.nearest(self.distances(bands, visible_mm), visible_mm, allowed)

    def distances(self, bands: FloatImage, visible_mm: float) -> FloatImage:
        """Each band's squared distance from each token's centre (bands x tokens), at
        the shift that fits that token best: kept, a band is judged again among fewer
        tokens without its features again (``nearest``)."""
        h = self.height_for(visible_mm)
        return nearest_shift(features(bands, h, self.card_w, SEARCH_PX, self.window(h),
                                      lightness=self.lightness),
                             self.projections[h], self.centres[h])

    def nearest(self, d2: FloatImage, visible_mm: float,
                allowed: NDArray[np.bool_] | None = None) -> Look:
        """The ``Look`` of bands at squared distances ``d2`` (``distances``) among the
        tokens ``allowed`` (see ``look``)."""
        return two_nearest(self.per_dimension(d2, visible_mm), allowed)

    def per_dimension(self, d2: FloatImage, visible_mm: float) -> FloatImage:
        """Squared distances ``d2`` (``distances``) per dimension of the model's space (a
        band of the card itself lies about 1 from its centre)."""
        return np.asarray(d2 / self.centres[self.height_for(visible_mm)].shape[1])

    def apart(self, visible_mm: float, a: NDArray[np.intp], b: NDArray[np.intp]) -> FloatImage:
        """How far apart the model of ``visible_mm`` holds tokens ``a`` and ``b`` (index
        pairs): the squared distance between their centres, per dimension."""
        c = self.centres[self.height_for(visible_mm)]
        return np.asarray(((c[a] - c[b]) ** 2).sum(axis=1) / c.shape[1])

    def nearest_pairs(self) -> list[tuple[str, str, float]]:
        """Per card, the other card the model holds nearest and how near (``apart``, at
        the visible height where the two lie nearest: a covered card shows least of
        itself), hardest first."""
        near = np.full((len(self.tokens),) * 2, np.inf)
        for c in self.centres.values():
            near = np.minimum(near, ((c[:, None] - c[None]) ** 2).sum(axis=2) / c.shape[1])
        np.fill_diagonal(near, np.inf)
        best = near.argmin(axis=1)
        return sorted(((t, self.tokens[int(k)], float(near[i, k]))
                       for i, (t, k) in enumerate(zip(self.tokens, best, strict=True))),
                      key=lambda r: r[2])

    def judge(self, bands: FloatImage, visible_mm: float,
              ) -> tuple[NDArray[np.intp], FloatImage]:
        """Each band's most likely token (index into ``tokens``) and how sure of it
        (0..1), by the distances alone (``vision.reading.trust`` weighs more).

        In the discriminant space the spread within a card is one every way, so a
        band's squared distance from its card's centre is about the space's
        dimension. Sure means near the winner (a card the deck lacks, or no card,
        lies far from every centre) and well apart from the runner-up.
        """
        lk = self.look(bands, visible_mm)
        dim = self.centres[self.height_for(visible_mm)].shape[1]
        near = np.clip((FAR - lk.nearest) / (FAR - 1), 0.0, 1.0)
        apart = np.clip((lk.runner_up - lk.nearest) * dim / APART, 0.0, 1.0)
        return lk.best, np.minimum(near, apart)

