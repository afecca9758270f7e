"""A deck's learnt models, trained when it is enrolled and handed on in its profile."""

from __future__ import annotations

from dataclasses import replace

from vision.enrolment.workers import workers
from vision.models.band_model import BandModel
from vision.models.face_model import FaceModel
from vision.profile import DeckProfile


def with_model(profile: DeckProfile, seed: int = 0, jobs: int = 1) -> DeckProfile:
    """The profile carrying its deck's models (``vision.models.band_model``, and
    ``vision.models.face_model`` where the profile keeps its faces), trained now; with
    ``jobs`` more than one, the faces and each height's discriminant by workers
    (``vision.enrolment.workers``) while this process draws the bands (the same draws: the same
    models, to rounding). A deck of one card has nothing to tell apart: it is handed
    on as it is."""
    if len(profile.tokens) < 2:
        return profile
    if jobs <= 1:
        face, band = FaceModel.train(profile, seed), BandModel.train(profile, seed)
    else:
        # The bands' heights share one stream of draws, drawn here in turn: drawn
        # apart per height, the held bench's figures moved by a point and a card read
        # confidently wrong (vision/ROUNDS.md). This process draws; jobs - 1 fit.
        with workers(max(1, jobs - 1)) as pool:
            later = pool.submit(FaceModel.train, profile, seed)
            band = BandModel.train(profile, seed, pool=pool)
            face = later.result()
    return replace(profile, model={**band.to_arrays(),
                                   **(face.to_arrays() if face is not None else {})})
