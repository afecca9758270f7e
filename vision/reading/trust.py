"""How far to trust a deck's learnt model when it names a band.

The model's distances alone mislead: a deck enrolled from photos lies further
from the bands a camera shows than from its own drawings, so a right card can lie
far and a wrong one near. What a read shows is weighed together instead: the
nearest card's and the runner-up's distance, whether the templates name the same
card and how surely, how well the band matches as an index, how much of it
shows, how much further the named card's colour lies than the nearest colour
(a suit's colour taken for its neighbour's), and which of the model's winner
and runner-up the templates prefer where just those two differ, and the gap
between the runner-up's and the nearest's distance in the unit of the deck's
own self-test (``BandModel.self_test``: a deck whose cards lie near each other
shows narrow gaps on right reads too), and how soft the frame is (a soft frame's
bands all lie nearer each other, so its gaps are narrow too), and what the
nearest card and the runner-up are to each other (two numerals of one suit, one
numeral in two suits, and how near the model holds them: a gap means more
between two cards it holds near each other). A logistic
model turns that into the share of such reads that were right on the tuning
designs' room scenes; ``python -m vision.bench.trust_fit`` collects those reads again
and refits it (scikit-learn's LogisticRegression), and prints the reliability
on designs left out of the fit.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Final, NamedTuple

import numpy as np
from numpy.typing import NDArray

from companion.rules.cards import Troop, parse_token
from vision.types import FloatImage

# Fitted on the reads of every tuning design (tune-00..19 in 152 rooms, each design its
# own, as the reader weighs a band since the band model weighs lightness): ``python -m
# vision.bench.trust_fit --designs 8 --scenes 10 --check 12 --model-seeds 0,1,2 --rows R`` reads
# them, ``--designs 20 --rows R`` fits all twenty (on the seed-0 models' reads).
# Order: log nearest, log runner-up, templates agree, templates' confidence,
# agree x confidence, index score, visible height / 16 mm, colour off / 10 Lab,
# the templates' margin for the winner over the runner-up, and the runner-up's log
# distance over the nearest's in the deck's typical gaps (the fit weighs a gap, not
# the two logs alone, with smaller weights: its regularisation then costs less), the
# frame's softness (mm) and that times the gap (in a soft frame every card's band lies
# nearer every other's, so one gap says more); the rivals (``Rivals``): one suit, that
# times the gap, one value, that times the gap, the log of how far apart the model holds
# them, and the gap over the log of one plus that (a pair held near each other shows a
# narrow gap even where the read is right).
WEIGHTS: Final = np.array([-0.9634, 0.7714, 0.36, -1.0667, 0.888, 0.2701, 0.5439, -0.2905,
                          2.0362, 1.2656, -1.2557, 0.806, 0.2981, 1.5546, 1.1472, 0.3736,
                          0.809, 1.5612])
BIAS: Final = 0.6251
# The typical gap of a deck whose model has no self-test (made before it): the
# tuning decks' median.
TYPICAL_GAP: Final = 0.615
# The softness of a frame whose mat markers did not say (``vision.sharpness``): the
# median of the 152 tuning rooms the trust is fitted in (as soft as the model learnt
# its cards: ``band_model.as_trained`` leaves such a frame's bands as they are).
TYPICAL_SOFT_MM: Final = 0.81
# The trust from which a band is named (the rest ask): the lowest level at which no
# read of a tuning design left out of the fit in turn was wrong (0.995: 4 324 of their
# 5 647 right reads named; 0.99: 4 548 and 4 wrong; vision/README.md).
NAME_AT: Final = 0.995
# A band the trust left unknown is judged again without the cards named elsewhere on
# the table (``Classifier.without``) only from this trust among all cards: with its
# rivals gone a band's gap widens, and bands below the bar then passed it wrongly
# (tune-20..43, 216 frames: from 0.95 156 named right and 6 wrong, all from 0.968;
# from 0.99 62 and none; vision/README.md).
NARROW_FROM: Final = 0.99
# Reads that ask whatever else they show (the fit leaves them out). A band further
# than FAR_OUT from every card (squared distance per dimension; a band of the card
# itself lies about 1 from its centre) lies where no drawing of the deck's cards did
# (misplaced, half covered, a card the deck lacks): how much further the runner-up
# lies then says little, and only the templates naming the same card vouch for it
# (a deck enrolled from photos unlike the camera's bands lies that far often); further
# than FAR_AGREED not even they do, for they learnt the card from the same photo (a dark
# tactic on black cloth, its title cut off at enrolment, read as another tactic by
# both: 11 of 14 wrong tuning reads past the bar, for 22 of 6 679 right ones named;
# vision/README.md). A band whose colour lies COLOUR_OUT Lab further from the
# named card's than from the nearest is another suit's card of that shape, which the
# deck may lack (10 of the 14 tuning reads past it were right). A read between two cards
# the model holds nearer than NEAR_PAIR (squared distance per dimension between their
# centres) is a toss-up its gap does not settle: the gap over their log distance grows
# without bound there (42 of 120 such tuning reads were wrong, 1 in 24 beyond).
FAR_OUT: Final = 2.0
FAR_AGREED: Final = 3.0
COLOUR_OUT: Final = 15.0
NEAR_PAIR: Final = 0.135
FLOOR: Final = 1e-3  # a distance of nothing is as good as this
OUTSIDE_TRUST: Final = 0.0  # the trust of a read ``outside`` leaves asking


def log_gap(nearest: FloatImage, runner_up: FloatImage) -> FloatImage:
    """How much further the runner-up lies than the nearest card: the log of the ratio
    of their distances (``FLOOR`` added: a distance of nothing)."""
    return np.asarray(np.log(runner_up + FLOOR) - np.log(nearest + FLOOR))


class Rivals(NamedTuple):
    """Per read, what its nearest card and runner-up are to each other: two troops of
    one colour (a suit's numerals: most wrong reads swap them), of one value (the same
    numeral in two colours), and how far apart the model holds their centres (squared
    distance per dimension, ``BandModel.apart``). A read between two cards held near
    each other shows a narrow gap even when right; a wide one says more of such a pair."""

    same_suit: NDArray[np.bool_]
    same_value: NDArray[np.bool_]
    apart: FloatImage

    @staticmethod
    def of(tokens: Sequence[str], best: NDArray[np.intp], second: NDArray[np.intp],
           apart: FloatImage) -> Rivals:
        """The rivals of reads whose nearest and runner-up are ``best`` and ``second``
        (indices into ``tokens``)."""
        colour, value = _marks(tuple(tokens))
        troops = (colour[best] >= 0) & (colour[second] >= 0)
        return Rivals(troops & (colour[best] == colour[second]),
                      troops & (value[best] == value[second]), apart)


@functools.cache
def _marks(tokens: tuple[str, ...]) -> tuple[NDArray[np.int_], NDArray[np.int_]]:
    """Per token, ``troop_mark``'s colour and value (a model's tokens: once per deck)."""
    marks = np.array([troop_mark(t) for t in tokens], int).reshape(-1, 2)
    marks.flags.writeable = False
    return marks[:, 0], marks[:, 1]


@functools.cache
def troop_mark(token: str) -> tuple[int, int]:
    """A troop token's colour (as a number) and value; (-1, -1) for any other card or
    terrain."""
    card = parse_token(token)
    return (card.index // 10, card.value) if isinstance(card, Troop) else (-1, -1)


def evidence(nearest: FloatImage, runner_up: FloatImage, agree: FloatImage,
             told: FloatImage, score: FloatImage, visible_mm: FloatImage,
             colour_off: FloatImage, pair: FloatImage, typical_gap: float | None,
             soft_mm: FloatImage, rivals: Rivals) -> FloatImage:
    """The trust model's inputs, one row per read (see ``WEIGHTS``); ``typical_gap``:
    the deck's (``BandModel.typical_gap``), or none known; ``soft_mm``: how soft each
    read's frame is (``vision.sharpness``; NaN: not known); ``rivals``: what the
    nearest card and the runner-up are to each other."""
    unit = TYPICAL_GAP if typical_gap is None else typical_gap
    raw = log_gap(nearest, runner_up)
    gap = raw / unit
    soft = np.where(np.isnan(soft_mm), TYPICAL_SOFT_MM, soft_mm)
    suit, value = rivals.same_suit.astype(np.float64), rivals.same_value.astype(np.float64)
    return np.stack([np.log(nearest + FLOOR), np.log(runner_up + FLOOR), agree, told,
                     agree * told, score, visible_mm / 16.0, colour_off / 10.0, pair,
                     gap, soft, soft * gap, suit, suit * gap, value, value * gap,
                     np.log(rivals.apart + FLOOR), raw / (np.log1p(rivals.apart) + FLOOR)],
                    axis=-1).astype(np.float64)


def trust(nearest: FloatImage, runner_up: FloatImage, agree: FloatImage,
          told: FloatImage, score: FloatImage, visible_mm: FloatImage,
          colour_off: FloatImage, pair: FloatImage, typical_gap: float | None,
          soft_mm: FloatImage, rivals: Rivals) -> FloatImage:
    """Per read, the share of such reads that named the right card (0..1)."""
    return of_evidence(evidence(nearest, runner_up, agree, told, score, visible_mm,
                                colour_off, pair, typical_gap, soft_mm, rivals))


def of_evidence(ev: FloatImage) -> FloatImage:
    """Per read (a row of ``evidence``), the trust in it."""
    return np.where(outside(ev), OUTSIDE_TRUST, 1.0 / (1.0 + np.exp(-(ev @ WEIGHTS + BIAS))))


def outside(ev: FloatImage) -> NDArray[np.bool_]:
    """Per read (a row of ``evidence``), whether it lies where reads ask whatever else
    they show (``FAR_OUT`` unless the templates agree, ``FAR_AGREED``, ``COLOUR_OUT``,
    ``NEAR_PAIR``)."""
    # As ``evidence`` lays them out.
    nearest, agree, colour_off, apart = ev[..., 0], ev[..., 2], ev[..., 7], ev[..., 16]
    return np.asarray(((nearest > np.log(FAR_OUT + FLOOR)) & (agree < 0.5))
                      | (nearest > np.log(FAR_AGREED + FLOOR))
                      | (colour_off > COLOUR_OUT / 10.0)
                      | (apart < np.log(NEAR_PAIR + FLOOR)))


# The whole face of a zone's last card (``vision.models.face_model``) speaks where it lies near
# one card (FACE_NEAR, squared distance per dimension) and its runner-up much further
# (FACE_GAP, the log of their ratio): the card is then the face's, at FACE_TRUST. Set
# where no face that spoke on the tuning decks' last cards was wrong (vision/ROUNDS.md).
# A face whose nearest card is the band's nearest too speaks from FACE_NEAR_AGREED and
# FACE_GAP_AGREED: two looks at the card agree (on tune-20..43's last cards the band
# left unknown, such faces were wrong up to a gap of 0.47, all orange and yellow swaps).
FACE_NEAR: Final = 2.0
FACE_GAP: Final = 1.0
FACE_NEAR_AGREED: Final = 3.0
FACE_GAP_AGREED: Final = 0.7
FACE_TRUST: Final = 0.995


def face_speaks(nearest: FloatImage, runner_up: FloatImage,
                agreed: NDArray[np.bool_] | None = None) -> NDArray[np.bool_]:
    """Per face, whether it names its card (its nearest card's and the runner-up's
    squared distances, ``band_model.two_nearest``); ``agreed``: whether that nearest
    card is the band's nearest too (none: not known)."""
    gap = log_gap(nearest, runner_up)
    alone = (nearest <= FACE_NEAR) & (gap >= FACE_GAP)
    if agreed is None:
        return np.asarray(alone)
    return np.asarray(alone | (agreed & (nearest <= FACE_NEAR_AGREED) & (gap >= FACE_GAP_AGREED)))
