"""How a read compares with the truth: the benches' shared arithmetic.

A zone's cards are compared as multisets of tokens (a card read in the right
zone but one place off in the fan is still the right card); a named card that
the zone does not hold is *confidently wrong*, whatever its confidence, since
the companion would rule on it. The reliability table says what a confidence
means: of the cards named at confidence ``c`` or more, the share that was right.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from vision.position import UNKNOWN

# Confidence levels the reliability table is given at: up to and past the learnt
# model's bar (``trust.NAME_AT``), where the reads it names lie.
LEVELS: tuple[float, ...] = (0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 0.98, 0.99, 0.995,
                             0.999)


def score(truth: Mapping[str, Sequence[str]],
          got: Mapping[str, Sequence[str]]) -> tuple[int, int, int, int]:
    """(cards, right, confidently wrong, phantom) per zone as multisets of tokens."""
    total = right = wrong = phantom = 0
    for zone in set(truth) | set(got):
        t, g = Counter(truth.get(zone, [])), Counter(got.get(zone, []))
        total += sum(t.values())
        right += sum((t & g).values())
        wrong += sum(n for tok, n in (g - t).items() if tok != UNKNOWN)
        phantom += max(0, sum(g.values()) - sum(t.values()))
    return total, right, wrong, phantom


def offers(truth: Mapping[str, Sequence[str]], got: Mapping[str, Sequence[str]],
           offered: Mapping[str, Sequence[str | None]]) -> tuple[int, int]:
    """(offered, right) of the cards ``offered`` per zone where a read asked (``got``
    its tokens): right while the zone holds the card and no read named it there."""
    total = right = 0
    for zone, cards in offered.items():
        left = Counter(truth.get(zone, [])) - Counter(got.get(zone, []))
        for card in cards:
            if card is None:
                continue
            total += 1
            if left[card] > 0:
                left[card] -= 1
                right += 1
    return total, right


def outcomes(truth: Mapping[str, Sequence[str]],
             reads: Iterable[tuple[str, str, float]]) -> list[tuple[float, bool]]:
    """(confidence, right) of every card named (not ``unknown``) among ``reads``
    (zone, token, confidence): right while the zone still holds that token, the
    more confident reads matched first."""
    left = {z: Counter(toks) for z, toks in truth.items()}
    out = []
    for zone, token, conf in sorted(reads, key=lambda r: -r[2]):
        if token == UNKNOWN:
            continue
        held = left.get(zone, Counter())
        ok = held[token] > 0
        if ok:
            held[token] -= 1
        out.append((conf, ok))
    return out


@dataclass
class Tally:
    """Figures over many frames of one deck (or of all)."""

    cards: int = 0
    right_single: int = 0
    right_voted: int = 0
    wrong_single: int = 0  # over every frame, not only the first of a scene
    wrong_voted: int = 0
    unknown_single: int = 0
    phantom: int = 0
    failed_calibrations: int = 0
    enrol_refused: int = 0  # enrolment photos refused (each retake counts)
    enrolled: int = 0  # cards the profile holds
    # Scenes whose first frame the product calls sharp (its blur within
    # ``vision.sharpness.TOO_SOFT_MM``: softer, the player is told to focus), their
    # cards and how many the first frame read right.
    sharp_scenes: int = 0
    sharp_cards: int = 0
    sharp_right: int = 0
    # First frames: asked cards offered to the player as a card (``vote.suggest``), and
    # the offers right (the zone holds that card, not named there already).
    offered: int = 0
    offered_right: int = 0
    named: list[tuple[float, bool]] = field(default_factory=list)  # every frame's
    # Per enrolled card, against its design's drawing (``enrol_truth``).
    colour_errors: list[float] = field(default_factory=list)
    outline_offs: list[float] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        for name in ("cards", "right_single", "right_voted", "wrong_single", "wrong_voted",
                     "unknown_single", "phantom", "failed_calibrations", "enrol_refused",
                     "enrolled", "sharp_scenes", "sharp_cards", "sharp_right", "offered",
                     "offered_right"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.named += other.named
        self.colour_errors += other.colour_errors
        self.outline_offs += other.outline_offs

    def figures(self) -> dict[str, object]:
        n = max(self.cards, 1)
        return {
            "single_frame_accuracy": round(self.right_single / n, 4),
            "single_frame_accuracy_sharp": round(self.sharp_right / max(self.sharp_cards, 1), 4),
            "sharp_cards": self.sharp_cards,
            "sharp_scenes": self.sharp_scenes,
            "voted_accuracy": round(self.right_voted / n, 4),
            "confident_wrong": self.wrong_single + self.wrong_voted,
            "confident_wrong_single_frames": self.wrong_single,
            "confident_wrong_voted": self.wrong_voted,
            "cards": self.cards,
            "unknown_single_frame": self.unknown_single,
            "offered_single_frame": self.offered,
            "offered_right_single_frame": self.offered_right,
            "phantom_cards": self.phantom,
            "failed_calibrations": self.failed_calibrations,
            "enrol_refused_photos": self.enrol_refused,
            "cards_enrolled": self.enrolled,
            # How true the enrolled cards came out (``enrol_truth``): colour error, Lab
            # a*b*, and how far off its place each card was cut, mm.
            "enrol_colour_error_median": quantile(self.colour_errors, 0.5),
            "enrol_colour_error_p90": quantile(self.colour_errors, 0.9),
            "enrol_outline_off_mm_p90": quantile(self.outline_offs, 0.9),
        }


def quantile(values: Sequence[float], q: float) -> float | None:
    """The ``q`` quantile of ``values`` to two places (``None``: no values)."""
    return round(float(np.quantile(values, q)), 2) if len(values) else None


def reliability(named: Sequence[tuple[float, bool]],
                levels: Sequence[float] = LEVELS) -> list[dict[str, float | int]]:
    """Per level ``c``: how many cards were named at confidence >= c, how many of
    them wrongly, and the share right."""
    rows: list[dict[str, float | int]] = []
    for c in levels:
        at = [ok for conf, ok in named if conf >= c]
        wrong = sum(not ok for ok in at)
        rows.append({"min_confidence": c, "named": len(at), "wrong": wrong,
                     "share_right": round(1 - wrong / len(at), 5) if at else 1.0})
    return rows
