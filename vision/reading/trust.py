"""How far to trust a deck's learnt model when it names a band.

The model's distances alone mislead: a deck enrolled from photos lies further
from the bands a camera shows than from its own drawings, so a right card can lie
far and a wrong one near. What a read shows is weighed together instead: the
nearest card's and the runner-up's distance, whether the templates name the same
card and how surely, how well the band matches as an index, and how much of it
shows. A logistic model turns that into the share of such reads that were right
on the tuning designs' room scenes; ``python -m vision.trust_fit`` collects those
reads again and refits it (scikit-learn's LogisticRegression), and prints the
reliability on designs left out of the fit.
"""

from __future__ import annotations

from typing import Final

import numpy as np

from vision.types import FloatImage

# Fitted by ``python -m vision.trust_fit --designs 8 --scenes 10`` (tune-00..07).
# Order: log nearest, log runner-up, templates agree, templates' confidence,
# agree x confidence, index score, visible height / 16 mm.
WEIGHTS: Final = np.array([-4.6423, 4.1864, 1.6677, -1.8265, 2.7183, 0.8928, 1.0576])
BIAS: Final = -1.4395
# The trust from which a band is named: on the designs left out of each fit, the
# reads at or above it held no wrong card (the rest ask).
NAME_AT: Final = 0.99
_FLOOR: Final = 1e-3  # a distance of nothing is as good as this


def evidence(nearest: FloatImage, runner_up: FloatImage, agree: FloatImage,
             told: FloatImage, score: FloatImage, visible_mm: FloatImage) -> FloatImage:
    """The trust model's inputs, one row per read (see ``WEIGHTS``)."""
    return np.stack([np.log(nearest + _FLOOR), np.log(runner_up + _FLOOR), agree, told,
                     agree * told, score, visible_mm / 16.0], axis=-1).astype(np.float64)


def trust(nearest: FloatImage, runner_up: FloatImage, agree: FloatImage,
          told: FloatImage, score: FloatImage, visible_mm: FloatImage) -> FloatImage:
    """Per read, the share of such reads that named the right card (0..1)."""
    x = evidence(nearest, runner_up, agree, told, score, visible_mm) @ WEIGHTS + BIAS
    return np.asarray(1.0 / (1.0 + np.exp(-x)), np.float64)
