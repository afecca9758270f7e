"""A card's suit told by the colours of the cards already named on the same table.

Where a deck prints one value alike in every suit, the band model often knows
the numeral and hesitates only between two suits whose colours a lamp has
brought together (a red and an orange 7). The deck's enrolled colours were
shot under another light, but the cards named in this frame were lit by this
one and seen by this camera: a band whose colour lies clearly nearer the named
cards of one of the two suits than of the other is that suit's card. Only
where the model holds every card but those two far off (the value is sure),
and a named card of each suit or more to compare with.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Final

import numpy as np
from numpy.typing import NDArray

from vision.models.band_model import BandModel, two_nearest
from vision.position import UNKNOWN
from vision.profile import sample_signatures
from vision.reading.classify import colour_cut, colour_distance
from vision.reading.placement import Placed
from vision.reading.result import CardRead
from vision.reading.trust import FLOOR, NAME_AT, OUTSIDE_TRUST, troop_mark
from vision.types import FloatImage

# Chosen on tuning designs' room frames (vision/ROUNDS.md, "A suit told by the table's
# own colours", and "The table's colours compared paled").
MIN_NAMED: Final = 1  # named cards of each of the two suits the band is compared with
VALUE_GAP: Final = 0.5  # log ratio every other card must lie beyond the nearest
MARGIN_LAB: Final = 5.0  # how much nearer one suit's colour must lie (Lab a, b), paled
NEARER: Final = 0.5  # and at most this share of the other suit's distance (the wrong
# reads of looser rules lay two thirds as far from the suit they named as from the other)
TRUST: Final = NAME_AT  # the confidence of a card so named


def band_colour(placed: Placed, hv: int, width: int) -> FloatImage:
    """The band's colour (Lab a and b of its most saturated quarter, in true
    colours) where ``placed`` found its index, ``hv`` px of it showing, ``width``
    px wide: the cut the templates take its colour from."""
    cut = colour_cut(placed, hv, width) * placed.scale[None, None, :]
    return sample_signatures(cut[None].astype(np.float32))[0, 2:4]


def value_sure(distances: FloatImage, allowed: NDArray[np.bool_] | None, best: int,
               second: int) -> bool:
    """Whether every card but ``best`` and ``second`` lies ``VALUE_GAP`` (log ratio)
    beyond the nearest (``best``), among those ``allowed`` (None: all) of a band's
    per-dimension ``distances`` (a zone that leaves fewer than two weighs all, as
    ``band_model.two_nearest`` does)."""
    others = (np.ones(len(distances), bool) if allowed is None or allowed.sum() < 2
              else allowed.copy())
    others[[best, second]] = False
    if not others.any():
        return True
    return bool(np.log(distances[others].min() + FLOOR) - np.log(distances[best] + FLOOR)
                >= VALUE_GAP)


def paled_distance(colour: FloatImage, suit: FloatImage) -> float:
    """How far a band's ``colour`` lies from a ``suit``'s colour (Lab a, b) paled by
    the factor (down to ``classify.GLARE_PALEST``) that brings it nearest, as glare
    and blur pale it: ``classify.colour_distance`` for one band and one colour."""
    return float(colour_distance(np.asarray(suit, np.float32)[None, None],
                                 np.asarray(colour, np.float32)[None])[0, 0])


def suit_by_colour(colour: FloatImage, named: Mapping[int, Sequence[FloatImage]],
                   suits: tuple[int, int]) -> int | None:
    """Which of two ``suits`` (troop colours, ``troop_mark``) a band of ``colour`` is,
    by the colours of the cards ``named`` of each suit in its frame; None where they
    do not say clearly."""
    if any(len(named.get(s, ())) < MIN_NAMED for s in suits):
        return None
    near, far = sorted((paled_distance(colour, np.mean(named[s], axis=0)), s) for s in suits)
    if far[0] - near[0] < MARGIN_LAB or near[0] > NEARER * far[0]:
        return None
    return near[1]


def pair_of_suits(tokens: Sequence[str], best: int, second: int) -> tuple[int, int] | None:
    """The two suits of a band's nearest cards ``best`` and ``second`` (indices into
    ``tokens``), where they are one value in two suits; else None."""
    (ca, va), (cb, vb) = troop_mark(tokens[best]), troop_mark(tokens[second])
    if ca < 0 or cb < 0 or va != vb or ca == cb:
        return None
    return ca, cb


def by_table_colours(cards: Sequence[CardRead], model: BandModel, width: int,
                     elsewhere: Collection[str] = ()) -> None:
    """Name each of a frame's ``cards`` still unknown whose ``model`` hesitates between
    one value in two suits, by the colours of the cards of those suits named in the
    frame (bands ``width`` px wide), where no other card is near, the band lies within
    the deck's drawings and the card is named neither in the frame nor ``elsewhere``;
    a card two bands would be is left to ask at both. Only cards whose judgement is
    still kept (``CardRead.judged``) count."""
    taken = {c.token for c in cards}.union(elsewhere)
    asks: list[tuple[CardRead, int, int, tuple[int, int]]] = []
    for c in cards:
        j = c.judged
        # A band the trust leaves outside (``trust.outside``) lies where no drawing of
        # the deck's cards did, and its distances do not say the value.
        if c.token != UNKNOWN or j is None or j.named[1] <= OUTSIDE_TRUST:
            continue
        per_dim = model.per_dimension(j.distances, j.height)
        look = two_nearest(per_dim[None], None if j.allowed is None else j.allowed[None])
        best, second = int(look.best[0]), int(look.second[0])
        suits = pair_of_suits(model.tokens, best, second)
        if suits is not None and value_sure(per_dim, j.allowed, best, second):
            asks.append((c, best, second, suits))
    if not asks:
        return
    # The colours of the named cards of the suits asked about, taken once.
    wanted = {s for *_, suits in asks for s in suits}
    named: dict[int, list[FloatImage]] = {}
    for c in cards:
        mark = troop_mark(c.token)[0] if c.token != UNKNOWN else -1
        if mark in wanted and c.judged is not None:
            named.setdefault(mark, []).append(band_colour(c.judged.placed, c.judged.hv, width))
    calls: dict[str, list[CardRead]] = {}
    for c, best, second, suits in asks:
        assert c.judged is not None
        suit = suit_by_colour(band_colour(c.judged.placed, c.judged.hv, width), named, suits)
        if suit is None:
            continue
        token = model.tokens[best if suit == suits[0] else second]
        if token not in taken:
            calls.setdefault(token, []).append(c)
    for token, at in calls.items():
        if len(at) == 1:
            at[0].token, at[0].confidence = token, TRUST
