"""The shrunk covariance of the decks' discriminants, as scikit-learn takes it, faster.

``LinearDiscriminantAnalysis(shrinkage="auto")`` shrinks each class's covariance
by Ledoit and Wolf's rule, and scikit-learn finds each shrinkage with two
features x features products (``ledoit_wolf_shrinkage``). A deck's models learn
each card from a few dozen draws of a thousand features or more: those products
took a third of a deck's training, and a Pi has minutes for all of enrolment.
The same shrinkage follows from the draws' Gram matrix (draws x draws).

scikit-learn is imported only to train: its import takes most of a second here
(seconds on a Pi), and reading with a trained model needs none of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from vision.types import FloatImage

if TYPE_CHECKING:
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis


def discriminant() -> LinearDiscriminantAnalysis:
    """scikit-learn's discriminant with shrunk covariance, as ``solver="eigen",
    shrinkage="auto"`` makes it."""
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

    return LinearDiscriminantAnalysis(solver="eigen", covariance_estimator=GramLedoitWolf())


class GramLedoitWolf:
    """The covariance scikit-learn's discriminant takes with ``shrinkage="auto"`` (the
    features standardised, shrunk by Ledoit and Wolf's rule, scaled back), for
    ``LinearDiscriminantAnalysis(covariance_estimator=...)``."""

    covariance_: FloatImage

    def fit(self, x: FloatImage) -> GramLedoitWolf:
        from sklearn.preprocessing import StandardScaler

        scaler = StandardScaler()
        z = np.asarray(scaler.fit_transform(x))  # centred, unit spread
        n, p = z.shape
        cov = z.T @ z / n
        mu = float(np.trace(cov)) / p
        gram = z @ z.T
        squares = float((gram * gram).sum()) / n ** 2  # sum of cov's squared entries
        fourth = float(((z * z).sum(axis=1) ** 2).sum())  # sum over draws of |z|^4
        beta = (fourth / n - squares) / (p * n)
        delta = (squares - p * mu * mu) / p  # sum of (cov - mu I)'s squared entries / p
        beta = min(beta, delta)  # never shrunk past the target, as scikit-learn
        shrink = 0.0 if beta == 0 else beta / delta
        cov *= 1.0 - shrink
        cov.flat[::p + 1] += shrink * mu
        scale = np.asarray(scaler.scale_, cov.dtype)
        self.covariance_ = scale[:, None] * cov * scale[None, :]
        return self
