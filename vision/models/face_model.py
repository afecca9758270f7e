"""A per-deck classifier of whole card faces: the last card at a flag shows all of itself.

A covered card shows only its top band; the last card of a stack shows its whole
face. Where a deck's faces differ beyond the index (a picture per rank, pips, a
second index at the foot), the face tells its card far more surely than the band;
where they differ only in the index (one picture for every card of a suit), its
nearest and runner-up lie alike near and it says nothing. So a face names its card
only where it is sure (``vision.reading.trust.face_speaks``), and only a card its
band left unknown (``Reader._by_faces``).

Learnt as the band model is (``vision.models.band_model``): a linear discriminant over the
enrolled faces drawn as a camera shows them, the grey at FACE_GREY_PX (a face's
picture is large; its detail is the band's business) and the chroma in blocks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import cv2
import numpy as np

from vision.models.band_model import as_camera_shows, features, nearest_shift
from vision.models.covariance import discriminant
from vision.profile import TPL_PX, DeckProfile
from vision.types import FloatImage

FACE_GREY_PX: Final = 0.5  # px/mm of a face's grey features
FACE_SAMPLES: Final = 30  # drawn per card
FACE_PX: Final = 1.0  # px/mm a face is read at: its features need no more
FACE_SEARCH_PX: Final = 1  # read at every shift this far (FACE_PX px) each way
FOOT_MM: Final = 1.0  # of the card's foot left out: its edge and the table beyond
PREFIX: Final = "face_"  # its arrays among the profile's model arrays


def face_mm(card_h: float) -> float:
    """How much of a face, from its top, the model weighs."""
    return card_h - FOOT_MM


@dataclass
class FaceModel:
    """A discriminant over the deck's tokens' whole faces."""

    tokens: list[str]
    card_w: float
    card_h: float
    projection: FloatImage  # features -> the discriminant space (its own components)
    centres: FloatImage  # each token's centre there

    @staticmethod
    def train(profile: DeckProfile, seed: int = 0, samples: int = FACE_SAMPLES,
              ) -> FaceModel | None:
        """The faces' model, or none for a profile that keeps no faces."""
        faces = profile.faces
        if faces is None or len(faces) < 2:
            return None
        rng = np.random.default_rng(seed)
        n, rows = len(faces), faces.shape[1]
        labels = np.repeat(np.arange(n), samples)
        h = face_mm(profile.card_h)
        # Drawn as a band of the whole card: no next card reaches into it.
        drawn = np.stack([as_camera_shows(faces[i], rng, profile.card_h + 2.0, faces[i], rows)
                          for i in labels])
        f = FACE_PX / TPL_PX
        small = np.stack([cv2.resize(d, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
                          for d in drawn])
        x = features(small, h, profile.card_w, grey_px=FACE_GREY_PX, px_per_mm=FACE_PX)
        lda = discriminant().fit(x, labels)
        dims = min(n - 1, x.shape[1])
        proj = np.ascontiguousarray(lda.scalings_[:, :dims], np.float32)
        return FaceModel(list(profile.tokens), profile.card_w, profile.card_h, proj,
                         (lda.means_ @ proj).astype(np.float32))

    def to_arrays(self) -> dict[str, FloatImage]:
        """The model as named arrays, for the deck's profile file."""
        return {PREFIX + "proj": self.projection, PREFIX + "centres": self.centres}

    @staticmethod
    def of(profile: DeckProfile) -> FaceModel | None:
        """The face model the profile carries, if it carries a whole one for its cards
        (older files, and decks enrolled without faces, carry none)."""
        arrays = profile.model or {}
        proj, centres = arrays.get(PREFIX + "proj"), arrays.get(PREFIX + "centres")
        if proj is None or centres is None or proj.ndim != 2 or centres.ndim != 2:
            return None
        model = FaceModel(list(profile.tokens), profile.card_w, profile.card_h, proj, centres)
        probe = np.zeros((1, *model.shape(), 3), np.float32)
        if (centres.shape != (len(profile.tokens), proj.shape[1])
                or features(probe, face_mm(model.card_h), model.card_w, FACE_SEARCH_PX,
                            grey_px=FACE_GREY_PX, px_per_mm=FACE_PX).shape[-1]
                != proj.shape[0]):
            return None  # a damaged file's model reads nothing
        return model

    def shape(self) -> tuple[int, int]:
        """(rows, cols) of a face as ``distances`` takes it: FACE_SEARCH_PX around."""
        m = FACE_SEARCH_PX
        return (round(self.card_h * FACE_PX) + 2 * m, round(self.card_w * FACE_PX) + 2 * m)

    def distances(self, faces: FloatImage) -> FloatImage:
        """Each face's squared distance from each token's centre (faces x tokens), per
        dimension of the space, at the shift that fits that token best. ``faces``:
        true-colour BGR 0..1 at FACE_PX, ``shape()``."""
        f = features(faces, face_mm(self.card_h), self.card_w, FACE_SEARCH_PX,
                     grey_px=FACE_GREY_PX, px_per_mm=FACE_PX)
        return nearest_shift(f, self.projection, self.centres) / self.centres.shape[1]
