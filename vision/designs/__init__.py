"""Procedurally generated deck designs, for tests and the benchmark (not for users).

Players bring their own decks; the reader has been tuned on our two styles
only (``vision.deck_art``). These designs vary what printed decks vary: the
face (full bleed, framed, dark, plain), the suit palette, the index (where,
which font, how big, boxed or not, with a symbol or pips), art reaching into
the top band, frames, rounded corners, card sizes, tactics and terrain
labelled by name or icon. ``tune`` designs may be looked at while tuning;
``held`` designs never are, and come from a disjoint seed stream.
"""

from __future__ import annotations

from typing import Final, Literal

from vision.deck_art import ALL_FACES, card_sheet
from vision.designs.spec import DeckDesign, design_at
from vision.types import Image

__all__ = ["HELD_DESIGNS", "TUNE_DESIGNS", "DeckDesign", "design", "design_sheet", "designs"]

TUNE_DESIGNS: Final = 20  # designs tuning may look at
HELD_DESIGNS: Final = 24  # designs no tuning ever looks at
_COUNT: Final = {"tune": TUNE_DESIGNS, "held": HELD_DESIGNS}


def design(split: Literal["tune", "held"], index: int) -> DeckDesign:
    """Design ``index`` of a split (indices past the split's size give more, likewise drawn)."""
    if split not in _COUNT or index < 0:
        raise ValueError(f"no design {split!r} {index}")
    return design_at(split, _COUNT[split], index)


def designs(split: Literal["tune", "held"], n: int | None = None,
            first: int = 0) -> list[DeckDesign]:
    """``n`` designs of a split from design ``first`` (all of them by default)."""
    return [design(split, i) for i in range(first, first + (_COUNT[split] if n is None else n))]


def design_sheet(d: DeckDesign, px_per_mm: float = 4.0) -> Image:
    """Every face of a design side by side, for looking at it."""
    return card_sheet(ALL_FACES, d, px_per_mm)
