"""The decks' discriminants learn with scikit-learn's own shrunk covariance, found faster."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace

import cv2
import numpy as np
import pytest
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

from companion.rules.cards import parse_token
from vision.designs import design
from vision.models.band_model import BandModel
from vision.models.covariance import discriminant
from vision.profile import profile_from_cards
from vision.simulated.camera_model import Camera
from vision.simulated.synth import Conditions, lay_table, photograph


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


def test_reading_with_a_trained_deck_needs_no_scikit_learn(tmp_path):
    """scikit-learn takes seconds to import on a Pi: a deck's models are trained with
    it, but the companion reading with them must start without it."""
    art = design("tune", 0)
    tokens = ["R2", "R7", "B3", "B9", "G5", "G10"]
    profile = profile_from_cards("six", {t: art.render(parse_token(t), 8.0) for t in tokens},
                                 *art.card_mm)
    band = BandModel.train(profile, seed=1, samples=8)
    replace(profile, model=band.to_arrays()).save(tmp_path / "deck.npz")
    rng = np.random.default_rng(5)
    zones = {"flag1.south": ["R7", "B9"], "flag4.north": ["B3"], "flag8.south": ["G10"]}
    table = lay_table(zones, art, rng)
    frame = photograph(table, Camera(tilt_x_deg=3.0), Conditions(noise=2.0), rng)
    cv2.imwrite(str(tmp_path / "table.png"), frame.image)
    probe = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from vision.calibrate import Calibrator\n"
        "from vision.profile import DeckProfile\n"
        "from vision.read import Reader\n"
        "import cv2\n"
        "reader = Reader(DeckProfile.load(Path(sys.argv[1])))\n"
        "image = cv2.imread(sys.argv[2])\n"
        "read = reader.read(image, Calibrator().update(image))\n"
        "said = {c.zone: [] for c in read.cards}\n"
        "for c in read.cards:\n"
        "    said[c.zone].append(c.token if c.guess is None else c.guess[0])\n"
        "print(json.dumps([reader.model is not None, said,\n"
        "                  sorted(m for m in sys.modules if m.startswith('sklearn'))]))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe, str(tmp_path / "deck.npz"),
                           str(tmp_path / "table.png")], capture_output=True, text=True,
                          check=True)
    learnt, said, loaded = json.loads(done.stdout)
    assert learnt
    assert said == table.zones  # the deck's own model named or guessed every card
    assert loaded == []
