"""What a frame's read found: each card's token, confidence and place, and the frame's
cards together (a token at most once), as a position or as ``battleline-read/1``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision.calibrate import Calibration
from vision.position import UNKNOWN, build_position, unique_tokens
from vision.reading.classify import Judged
from vision.types import FloatImage


@dataclass
class CardRead:
    zone: str
    order: int
    token: str  # a card token, or "unknown"
    confidence: float
    score: float
    corners: list[tuple[float, float]]  # the read band's corners, mat mm
    candidates: list[tuple[str, float]] = field(default_factory=list)
    top_local: float = 0.0  # where the card's top edge was found, zone-local low-res px
    # The model's nearest card and its trust, where the read asks (``Classifier.guess``).
    guess: tuple[str, float] | None = field(default=None, compare=False)
    # What the model weighed, while the frame is read (``Reader._without_taken``).
    judged: Judged | None = field(default=None, repr=False, compare=False)

    def to_json(self) -> dict[str, Any]:
        return {"zone": self.zone, "order": self.order, "token": self.token,
                "confidence": round(self.confidence, 3)}


@dataclass
class FrameRead:
    cards: list[CardRead]
    calibration: Calibration
    foreground: NDArray[np.bool_]  # low-res top-down "not mat" mask
    light: FloatImage  # the light's gain field (BGR) on a grid of 8 low-res pixels
    soft_mm: float | None = None  # how soft the frame is at the mat (``vision.sharpness``)

    def __post_init__(self) -> None:
        # Each card exists once: a token read at two places (a look-alike misread as
        # it) stands at one at most, however the read was made (a whole frame, or
        # some zones re-read into the last read).
        self.cards = unique_tokens(self.cards)

    def zones(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for c in self.cards:
            out.setdefault(c.zone, []).append(c.token)
        return out

    def confidences(self) -> dict[str, list[float]]:
        """Per zone, each card's confidence, first played first (like ``zones``)."""
        out: dict[str, list[float]] = {}
        for c in self.cards:
            out.setdefault(c.zone, []).append(c.confidence)
        return out

    def guesses(self) -> dict[str, list[tuple[str, float] | None]]:
        """Per zone, each card's ``guess`` (``None`` for a named card), like ``zones``."""
        out: dict[str, list[tuple[str, float] | None]] = {}
        for c in self.cards:
            out.setdefault(c.zone, []).append(c.guess if c.token == UNKNOWN else None)
        return out

    def position(self, to_move: str = "south") -> dict[str, Any]:
        return build_position(self.zones(), to_move)

    def to_json(self, to_move: str = "south") -> dict[str, Any]:
        return {
            "format": "battleline-read/1",
            "position": self.position(to_move),
            "cards": [c.to_json() for c in self.cards],
            "unknown": self.unknown(),
            "calibration": self.calibration_json(),
        }

    def unknown(self) -> int:
        """How many of its cards the read asks about."""
        return sum(c.token == UNKNOWN for c in self.cards)

    def calibration_json(self) -> dict[str, Any]:
        """What the mat's markers said of this frame: the missing ones, whether the
        calibration is this frame's own, how soft the frame is."""
        return {"missing_markers": self.calibration.missing, "fresh": self.calibration.fresh,
                "soft_mm": None if self.soft_mm is None else round(self.soft_mm, 2)}
