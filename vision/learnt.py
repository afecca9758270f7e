"""A deck's learnt models, trained when it is enrolled and handed on in its profile."""

from __future__ import annotations

from dataclasses import replace

from vision.band_model import BandModel
from vision.face_model import FaceModel
from vision.profile import DeckProfile


def with_model(profile: DeckProfile, seed: int = 0) -> DeckProfile:
    """The profile carrying its deck's models (``vision.band_model``, and
    ``vision.face_model`` where the profile keeps its faces), trained now (under a
    minute a deck here, some minutes on a Pi 4). A deck of one card has nothing to
    tell apart: it is handed on as it is."""
    if len(profile.tokens) < 2:
        return profile
    face = FaceModel.train(profile, seed)
    return replace(profile, model={**BandModel.train(profile, seed).to_arrays(),
                                   **(face.to_arrays() if face is not None else {})})
