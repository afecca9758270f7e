"""A suit's numeral told by the band's index against the deck's enrolled indices.

The band model weighs the whole band at 1 px/mm, blurred as soft as it learnt
its cards, and between two numerals of one suit (a 5 and an 8 in a circle) it
may hesitate over a band a player reads at a glance. Here the band's telling
window (where a suit's cards differ most: its index, ``band_model.telling_window``)
is compared at the template scale with the same window of the enrolled cards,
blurred as soft as the frame: placed where the two cards' mean fits it best,
the band is projected on their difference (1: the first card's index, -1: the
other's). A band left unknown whose model holds two numerals of one suit
nearest, trusts the nearest to ``TRUST_FROM`` and holds it no further than any
trusted read (``trust.FAR_AGREED``) is that card where it lies
``MARGIN`` on its side against every other numeral of the suit its zone may hold.
Only in a frame sharper than ``TOO_SOFT_MM`` (softer, the player is told to focus):
on tuning frames, looser margins named a wrong card four times as often per card
named in softer ones (vision/ROUNDS.md).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from typing import Final

import cv2
import numpy as np

from companion.rules.cards import VALUES
from vision.band_model import BandModel, two_nearest
from vision.position import UNKNOWN
from vision.profile import TPL_PX
from vision.reading.light import scaled
from vision.reading.result import CardRead
from vision.reading.trust import FAR_AGREED, NAME_AT, troop_mark
from vision.sharpness import TOO_SOFT_MM
from vision.types import FloatImage, Image

# Chosen on tuning designs' room frames, where these named every such card right
# (vision/ROUNDS.md, "A numeral told by the band's own index").
MARGIN: Final = 0.4  # the least projection on the nearest's side, against every rival
TRUST_FROM: Final = 0.8  # the model's trust in its nearest card from which it is checked
SEARCH_PX: Final = 4  # the window is looked for this far (TPL_PX px) each way
SHARPEST_MM: Final = 0.3  # an enrolled index is blurred at least this much (its photo's own
# softness is about it)
TRUST: Final = NAME_AT  # the confidence of a card so named


def grey_tops(tops: Image) -> FloatImage:
    """The enrolled card tops (uint8 BGR at TPL_PX) in grey, 0..1."""
    return np.stack([cv2.cvtColor(t, cv2.COLOR_BGR2GRAY) for t in tops]).astype(np.float32) / 255


def _standard(img: FloatImage) -> FloatImage:
    return np.asarray((img - img.mean()) / (img.std() + 1e-6), np.float32)


def projection(window: FloatImage, first: FloatImage, other: FloatImage) -> float:
    """Where ``window`` (grey, SEARCH_PX wider each way than the indices) lies between two
    enrolled indices (standardised, as wide): 1 at ``first``'s, -1 at ``other``'s, the
    indices' mean placed where it fits the window best."""
    mean, half = (first + other) / 2, (first - other) / 2
    fit = cv2.matchTemplate(window, mean, cv2.TM_CCOEFF_NORMED)
    y, x = np.unravel_index(int(fit.argmax()), fit.shape)
    seen = _standard(window[y:y + mean.shape[0], x:x + mean.shape[1]])
    return float(((seen - mean) * half).sum() / max(float((half * half).sum()), 1e-6))


def by_own_index(cards: Sequence[CardRead], model: BandModel, tops: FloatImage,
                 soft_mm: float | None, elsewhere: Collection[str] = ()) -> None:
    """Name each of a frame's ``cards`` still unknown whose ``model`` hesitates between
    two numerals of one suit, by its index against the enrolled ones (``tops``,
    ``grey_tops``) blurred as the frame is soft (``soft_mm``; not known, or
    ``TOO_SOFT_MM`` or softer: none is named), where the card is named neither in the frame nor ``elsewhere``; a card two
    bands would be is left to ask at both. Only cards whose judgement is still kept
    (``CardRead.judged``) count."""
    if soft_mm is None or not math.isfinite(soft_mm) or soft_mm >= TOO_SOFT_MM:
        return
    sigma = max(SHARPEST_MM, soft_mm) * TPL_PX
    taken = {c.token for c in cards}.union(elsewhere)
    colour = np.array([troop_mark(t)[0] for t in model.tokens])
    blurred: dict[int, FloatImage] = {}
    calls: dict[str, list[CardRead]] = {}
    for c in cards:
        j = c.judged
        if c.token != UNKNOWN or j is None or j.named[1] < TRUST_FROM:
            continue
        window = model.window(j.height)
        look = two_nearest(model.per_dimension(j.distances, j.height)[None],
                           None if j.allowed is None else j.allowed[None])
        best, second = int(look.best[0]), int(look.second[0])
        if (window is None or best == second or look.nearest[0] > FAR_AGREED
                or colour[best] < 0 or colour[best] != colour[second]):
            continue
        wx, wy, side = window
        pl, m = j.placed, SEARCH_PX
        y0, x0 = pl.ty + wy - m, pl.tx + wx - m
        if y0 < 0 or x0 < 0 or y0 + side + 2 * m > pl.crop.shape[0] \
                or x0 + side + 2 * m > pl.crop.shape[1]:
            continue
        seen = cv2.cvtColor(np.clip(scaled(pl.crop[y0:y0 + side + 2 * m, x0:x0 + side + 2 * m],
                                           pl.scale), 0.0, 1.0), cv2.COLOR_BGR2GRAY)

        suit = np.flatnonzero(colour == colour[best]).tolist()
        if len(suit) < len(VALUES):
            continue  # a numeral the deck was enrolled without would pass for one it holds
        rivals = [k for k in suit if k != best and (j.allowed is None or j.allowed[k])]
        for k in (best, *rivals):
            if k not in blurred:
                blurred[k] = cv2.GaussianBlur(tops[k], (0, 0), sigma)
        mine = _standard(blurred[best][wy:wy + side, wx:wx + side])
        if rivals and min(projection(seen, mine, _standard(blurred[k][wy:wy + side, wx:wx + side]))
                          for k in rivals) > MARGIN:
            token = model.tokens[best]
            if token not in taken:
                calls.setdefault(token, []).append(c)
    for token, at in calls.items():
        if len(at) == 1:
            at[0].token, at[0].confidence = token, TRUST
