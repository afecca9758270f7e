"""How far to trust a deck's learnt model when it names a band.

The model's distances alone mislead: a deck enrolled from photos lies further
from the bands a camera shows than from its own drawings, so a right card can lie
far and a wrong one near. What a read shows is weighed together instead: the
nearest card's and the runner-up's distance, whether the templates name the same
card and how surely, how well the band matches as an index, how much of it
shows, and how much further the named card's colour lies than the nearest colour
(a suit's colour taken for its neighbour's). A logistic model turns that into
the share of such reads that were right on the tuning designs' room scenes;
``python -m vision.trust_fit`` collects those reads again and refits it
(scikit-learn's LogisticRegression), and prints the reliability on designs left
out of the fit.
"""

from __future__ import annotations

from typing import Final

import numpy as np

from vision.types import FloatImage

# Fitted by ``python -m vision.trust_fit --designs 8 --scenes 10`` (tune-00..07).
# Order: log nearest, log runner-up, templates agree, templates' confidence,
# agree x confidence, index score, visible height / 16 mm, colour off / 10 Lab.
WEIGHTS: Final = np.array([-4.3381, 4.2942, 1.5347, -1.2563, 1.4651, 1.6423, 0.2678,
                          -0.5093])
BIAS: Final = -0.176
# The trust from which a band is named: on the designs left out of each fit, the
# reads at or above it held no wrong card (the rest ask).
NAME_AT: Final = 0.995
_FLOOR: Final = 1e-3  # a distance of nothing is as good as this


def evidence(nearest: FloatImage, runner_up: FloatImage, agree: FloatImage,
             told: FloatImage, score: FloatImage, visible_mm: FloatImage,
             colour_off: FloatImage) -> FloatImage:
    """The trust model's inputs, one row per read (see ``WEIGHTS``)."""
    return np.stack([np.log(nearest + _FLOOR), np.log(runner_up + _FLOOR), agree, told,
                     agree * told, score, visible_mm / 16.0, colour_off / 10.0],
                    axis=-1).astype(np.float64)


def trust(nearest: FloatImage, runner_up: FloatImage, agree: FloatImage,
          told: FloatImage, score: FloatImage, visible_mm: FloatImage,
          colour_off: FloatImage) -> FloatImage:
    """Per read, the share of such reads that named the right card (0..1)."""
    x = evidence(nearest, runner_up, agree, told, score, visible_mm,
                 colour_off) @ WEIGHTS + BIAS
    return np.asarray(1.0 / (1.0 + np.exp(-x)), np.float64)
