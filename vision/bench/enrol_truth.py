"""How true an enrolled deck is to the faces printed: where each card was cut, and its colours.

The benches draw the decks they enrol, so each enrolled card's top (``DeckProfile.tops``)
can be laid on the card's own drawing: how far off its place the outline cut it (the
model then learns the card from the wrong place), and how far its balanced colours lie
from the printed ones (a cast left on one card, or on one group of cards). Issue 15 asks
for colours true whatever the table; this is what says whether they are.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

import cv2
import numpy as np

from vision.bench.scoring import quantile
from vision.deck_art import ALL_FACES, CardArt
from vision.profile import TPL_PX, DeckProfile
from vision.types import FloatImage, Image

SEARCH_MM: Final = 3.0  # how far off its place a card's cut is looked for
INSET_MM: Final = 3.0  # the top's edges left out: the table may show there


@dataclass(frozen=True)
class CardTruth:
    """One enrolled card against its drawing: where its top lies off (mm, right and
    down: + where the cut lies further right or lower than the card), how well it then
    matches (grey correlation) and its colour error (Lab a*b*, the median difference)."""

    token: str
    off_mm: tuple[float, float]
    match: float
    colour_error: float

    @property
    def off(self) -> float:
        return math.hypot(*self.off_mm)


def _lab(img: Image) -> FloatImage:
    return np.asarray(cv2.cvtColor(img.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab))


def _peak(a: float, b: float, c: float) -> float:
    """Where a parabola through three fits a pixel apart peaks, from the middle one."""
    curve = a - 2 * b + c
    return 0.0 if curve >= 0 else max(-0.5, min(0.5, 0.5 * (a - c) / curve))


def card_truth(token: str, top: Image, drawn: Image) -> CardTruth:
    """``top`` (an enrolled top, BGR at TPL_PX) against ``drawn`` (the card's face drawn
    upright at TPL_PX): its offset, match and colour error."""
    h, w = top.shape[:2]
    m, s = round(INSET_MM * TPL_PX), round(SEARCH_MM * TPL_PX)
    truth = cv2.copyMakeBorder(drawn, s, s, s, s, cv2.BORDER_REPLICATE)[:h + 2 * s]
    grey = cv2.cvtColor(top, cv2.COLOR_BGR2GRAY).astype(np.float32)
    fit = cv2.matchTemplate(cv2.cvtColor(truth, cv2.COLOR_BGR2GRAY).astype(np.float32),
                            grey[m:h - m, m:w - m], cv2.TM_CCOEFF_NORMED)
    _, best, _, (x, y) = cv2.minMaxLoc(fit)
    dx = _peak(*fit[y, x - 1:x + 2]) if 0 < x < fit.shape[1] - 1 else 0.0
    dy = _peak(*fit[y - 1:y + 2, x]) if 0 < y < fit.shape[0] - 1 else 0.0
    # The top's pixel (m, m) lies on the drawing's (x - s, y - s): its corner, the cut's,
    # on the drawing's (x - s - m, y - s - m).
    off = ((x + dx - s - m) / TPL_PX, (y + dy - s - m) / TPL_PX)
    laid = truth[y:y + h - 2 * m, x:x + w - 2 * m]
    diff = (_lab(top[m:h - m, m:w - m]) - _lab(laid)).reshape(-1, 3)[:, 1:]
    error = float(np.linalg.norm(np.median(diff, axis=0)))
    return CardTruth(token, (round(float(off[0]), 2), round(float(off[1]), 2)),
                     round(float(best), 3), round(error, 2))


def deck_truth(profile: DeckProfile, art: CardArt) -> list[CardTruth]:
    """Every enrolled card of ``profile`` against ``art``'s drawing of it (none where the
    profile keeps no tops)."""
    if profile.tops is None:
        return []
    faces = {f.token: f for f in ALL_FACES}
    return [card_truth(t, profile.tops[k], art.render(faces[t], TPL_PX))
            for k, t in enumerate(profile.tokens) if t in faces]


def summary(cards: list[CardTruth], worst: int = 5) -> dict[str, object]:
    """The deck's figures: outline offset and colour error (median, 90th percentile,
    most) and the cards worst at each."""
    if not cards:
        return {}
    off = [c.off for c in cards]
    col = [c.colour_error for c in cards]

    def spread(v: list[float]) -> dict[str, float | None]:
        return {"median": quantile(v, 0.5), "p90": quantile(v, 0.9), "max": round(max(v), 2)}

    return {"outline_off_mm": spread(off),
            "outline_worst": [[c.token, round(c.off, 2)] for c in
                              sorted(cards, key=lambda c: -c.off)[:worst]],
            "colour_error_lab": spread(col),
            "colour_worst": [[c.token, c.colour_error] for c in
                             sorted(cards, key=lambda c: -c.colour_error)[:worst]]}
