"""The decks' discriminants learn with scikit-learn's own shrunk covariance, found faster."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

from vision.covariance import discriminant


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_the_discriminant_is_scikit_learns_with_shrinkage_auto(dtype):
    # Few draws of many features a card, as a deck's models learn them, some features
    # much wider than others and one the same on every draw (a band's padding).
    rng = np.random.default_rng(3)
    labels = np.repeat(np.arange(12), 30)
    x = rng.normal(size=(len(labels), 200)) * rng.uniform(0.1, 3.0, 200)
    x += labels[:, None] * rng.normal(size=200) * 0.3
    x[:, 7] = 1.0
    x = x.astype(dtype)
    ours = discriminant().fit(x, labels)
    theirs = LinearDiscriminantAnalysis(solver="eigen", shrinkage="auto").fit(x, labels)
    tol = 1e-10 if dtype == np.float64 else 1e-4
    scale = np.abs(theirs.covariance_).max()
    assert np.abs(ours.covariance_ - theirs.covariance_).max() <= tol * scale
    # The same space: each card's draws lie as near their own centre in both.
    assert (_nearest(ours, x) == _nearest(theirs, x)).all()
    assert (_nearest(ours, x) == labels).mean() > 0.9


def _nearest(lda: LinearDiscriminantAnalysis, x: np.ndarray) -> np.ndarray:
    """Each row's nearest class centre in the discriminant space (as the models read)."""
    dims = len(lda.classes_) - 1
    z, centres = x @ lda.scalings_[:, :dims], lda.means_ @ lda.scalings_[:, :dims]
    return ((z[:, None] - centres[None]) ** 2).sum(axis=2).argmin(axis=1)


def test_a_single_features_covariance_is_scikit_learns_too():
    x = np.array([[0.0], [1.0], [3.0], [4.0], [2.0], [6.0]])
    labels = np.array([0, 0, 0, 1, 1, 1])
    ours = discriminant().fit(x, labels)
    theirs = LinearDiscriminantAnalysis(solver="eigen", shrinkage="auto").fit(x, labels)
    assert np.isfinite(ours.covariance_).all()
    assert ours.covariance_ == pytest.approx(theirs.covariance_)
