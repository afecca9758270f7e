"""A full game's steps (``Phase``) and hand size, apart so ``terrain_steps.py`` can share them."""

from __future__ import annotations

import enum
from typing import Final

HAND_SIZE: Final = 7


class Phase(enum.Enum):
    LAYOUT = "layout"  # battlefield cards being laid out or dealt (chance events)
    DRAFT = "draft"  # Hundred Years' War: picking battlefield cards
    PLACE = "place"  # Hundred Years' War: placing battlefield cards in the line
    DEAL = "deal"  # opening hands being dealt (chance events)
    PLAY = "play"  # claim (any timing), then play a card or pass
    DRAW = "draw"  # claim (standard timing, before the first draw), then draw or end
    RETURN = "return"  # after Scout: put cards back on top of their decks
    TERRAIN = "terrain"  # a claimed terrain's effect waits for a decision (or Fields draws)
    OVER = "over"
