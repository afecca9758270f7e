"""A per-deck classifier of index bands, learnt from the deck's own enrolled cards.

Hand-set templates and thresholds carry over badly to a deck they were not
tuned on: where a deck's band is mostly what every card shares (a thick
frame, a picture) and its index is thin, whole-band correlation ranks the
wrong cards first. So each deck gets a linear discriminant (scikit-learn's,
with shrunk covariance) trained on its own cards' tops, each drawn many times
as a camera shows a fanned card: a little off its place and tilt, resized,
blurred, under a coloured lamp and glare, with noise, and now and then with
the next card's edge reaching into the band. The discriminant learns which
pixels tell this deck's cards apart and which only vary.

Features are taken at 1 px/mm from the band's visible part: its grey, each
band to zero mean and unit spread (exposure says nothing of the card), and its
Lab chroma in 4 mm blocks (the suit). One model per visible height: a covered
card shows only the top of its band.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import cv2
import numpy as np
from numpy.typing import NDArray
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

from vision.profile import INSET_X, INSET_Y, TPL_PX, DeckProfile, ProfileError
from vision.types import FloatImage, Image

HEIGHTS_MM: Final = (8.0, 10.0, 12.0, 14.0, 16.0)  # visible heights a model is made for
SAMPLES: Final = 40  # drawn per card and height
SHIFT_MM: Final = (0.5, 0.5)  # how far off its place (across, down) a band is drawn
SEARCH_PX: Final = 2  # read at every shift this far (TPL_PX px) each way: a linear
# model does not forgive being off by a millimetre, so it looks where it fits best
FEATURE_PX: Final = 1.0  # px/mm of the grey features
CHROMA_MM: Final = 4.0  # block of the chroma features
CHROMA_SCALE: Final = 1 / 25.0  # Lab units -> feature units (grey is unit spread)
PAPER_PERCENTILE: Final = 90  # a band's pixels lighter than this are its white
PAPER_CHROMA: Final = 25.0  # Lab chroma of a white from which it is taken for the suit
FAR: Final = 3.0  # squared distance, in dimensions of the space, at which a band is no card's
APART: Final = 20.0  # squared distance between winner and runner-up that leaves no doubt
_GREY: Final = np.array([0.114, 0.587, 0.299], np.float32)


def features(bands: FloatImage, visible_mm: float, card_w: float) -> FloatImage:
    """(n, d) features of ``bands`` ((n, h, w, 3) true-colour BGR 0..1 at TPL_PX, each
    at least ``visible_mm`` high): only what shows of each band counts."""
    n = len(bands)
    iy, ix = round(INSET_Y * TPL_PX), round(INSET_X * TPL_PX)
    rows, width = round(visible_mm * TPL_PX), round(card_w * TPL_PX)
    inner = np.ascontiguousarray(bands[:, iy:rows, ix:width - ix], np.float32)
    h, w = inner.shape[1:3]
    gw, gh = max(1, round(w / TPL_PX * FEATURE_PX)), max(1, round(h / TPL_PX * FEATURE_PX))
    cw, ch = max(1, round(w / TPL_PX / CHROMA_MM)), max(1, round(h / TPL_PX / CHROMA_MM))
    # All bands as one tall image: resizing and colour conversion work pixel by pixel
    # (the rows of two bands blend only in the last row of each, within a pixel).
    tall = inner.reshape(n * h, w, 3)
    grey = cv2.resize(cv2.transform(tall, _GREY[None]), (gw, n * gh),
                      interpolation=cv2.INTER_AREA).reshape(n, -1)
    grey = grey - grey.mean(axis=1, keepdims=True)
    grey /= grey.std(axis=1, keepdims=True) + 1e-3
    lab = cv2.cvtColor(np.clip(tall, 0, 1), cv2.COLOR_BGR2Lab)
    chroma = cv2.resize(lab[:, :, 1:], (cw, n * ch), interpolation=cv2.INTER_AREA).reshape(
        n, ch * cw, 2)
    # Colours as the band's own white shows them: a lamp's cast and the paper's tint
    # (neutral in the profile, cream on the table) come off alike. A white that is
    # itself coloured (a full-bleed face) is left on: it is the suit.
    pix = lab.reshape(n, h * w, 3)
    k = (h * w * (100 - PAPER_PERCENTILE)) // 100
    light = np.argpartition(-pix[:, :, 0], k, axis=1)[:, :k]
    white = np.take_along_axis(pix[:, :, 1:], light[:, :, None], axis=1).mean(axis=1)
    near = np.clip(1.0 - np.linalg.norm(white, axis=1) / PAPER_CHROMA, 0.0, 1.0)
    chroma = chroma - (white * near[:, None])[:, None, :]
    return np.concatenate([grey, chroma.reshape(n, -1) * CHROMA_SCALE],
                          axis=1).astype(np.float32)


def _draw(top: Image, rng: np.random.Generator, visible_mm: float, cover: Image,
          rows: int) -> FloatImage:
    """One look at a card's ``top`` (uint8 at TPL_PX) as a camera may show it: ``rows``
    high, float BGR 0..1."""
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
    out *= rng.uniform(0.88, 1.12, 3).astype(np.float32) * rng.uniform(0.75, 1.15)
    if rng.random() < 0.3:
        veil = rng.uniform(0.05, 0.4)
        out += (1.0 - out) * veil
    sigma = rng.uniform(0.0, 1.3)
    if sigma > 0.3:
        out = cv2.GaussianBlur(out, (0, 0), sigma)
    out += rng.normal(0.0, rng.uniform(0.004, 0.03), out.shape).astype(np.float32)
    return np.asarray(np.clip(out, 0, 1), np.float32)


@dataclass
class BandModel:
    """Per visible height, a discriminant over the deck's tokens."""

    tokens: list[str]
    card_w: float
    models: dict[float, LinearDiscriminantAnalysis]

    @staticmethod
    def train(profile: DeckProfile, seed: int = 0, samples: int = SAMPLES) -> BandModel:
        if profile.tops is None:
            raise ProfileError(f"deck profile {profile.name!r} keeps no card tops in colour: "
                               "enrol the deck again to read it with a learnt model")
        rng = np.random.default_rng(seed)
        tops = profile.tops
        n = len(tops)
        rows = round(profile.band_mm * TPL_PX)
        labels = np.repeat(np.arange(n), samples)
        models = {}
        for h in HEIGHTS_MM:
            drawn = np.stack([_draw(tops[i], rng, h, tops[int(rng.integers(n))], rows)
                              for i in labels])
            lda = LinearDiscriminantAnalysis(solver="eigen", shrinkage="auto")
            lda.fit(features(drawn, h, profile.card_w), labels)
            models[h] = lda
        return BandModel(list(profile.tokens), profile.card_w, models)

    def height_for(self, visible_mm: float) -> float:
        """The model that uses no more of a band than shows."""
        fit = [h for h in HEIGHTS_MM if h <= visible_mm + 1e-6]
        return fit[-1] if fit else HEIGHTS_MM[0]

    def judge(self, bands: FloatImage, visible_mm: float,
              ) -> tuple[NDArray[np.intp], FloatImage]:
        """Each band's most likely token (index into ``tokens``) and how sure of it
        (0..1). ``bands``: true-colour BGR 0..1 at TPL_PX, a band high and wide with
        ``SEARCH_PX`` more on every side; each token is judged where it fits best
        among the shifts.

        In the discriminant space the spread within a card is one every way, so a
        band's squared distance from its card's centre is about the space's
        dimension. Sure means near the winner (a card the deck lacks, or no card,
        lies far from every centre) and well apart from the runner-up.
        """
        h = self.height_for(visible_mm)
        n, s = len(bands), SEARCH_PX
        rows, width = bands.shape[1] - 2 * s, bands.shape[2] - 2 * s
        views = np.stack([bands[:, dy:dy + rows, dx:dx + width]
                          for dy in range(2 * s + 1) for dx in range(2 * s + 1)], axis=1)
        k = views.shape[1]
        lda = self.models[h]
        z = lda.transform(features(views.reshape(n * k, rows, width, 3), h, self.card_w))
        centres = lda.transform(lda.means_)
        d2 = ((z[:, None, :] - centres[None]) ** 2).sum(axis=2).reshape(n, k, -1).min(axis=1)
        order = np.argsort(d2, axis=1)
        rows_i = np.arange(n)
        best, near_d2 = order[:, 0], d2[rows_i, order[:, 0]]
        dim = centres.shape[1]
        near = np.clip((FAR * dim - near_d2) / ((FAR - 1) * dim), 0.0, 1.0)
        apart = np.clip((d2[rows_i, order[:, 1]] - near_d2) / APART, 0.0, 1.0)
        return best, np.minimum(near, apart)
