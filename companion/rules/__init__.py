"""The Battle Line rules as a pure library: cards, formations, claims, the game.

Standard library only, no I/O. See RULES.md and NOTATION.md in the project's
shared documents for the rules and formats implemented here.
"""

from companion.rules.cards import (
    ALL_CARDS,
    COLOURS,
    LEADERS,
    TACTICS,
    TROOPS,
    Card,
    Colour,
    Tactic,
    TacticKind,
    Terrain,
    Troop,
    card_name,
    parse_card,
    parse_terrain,
    parse_token,
    troop,
)
from companion.rules.errors import IllegalAction, IllegalPosition, NotationError, RulesError

__all__ = [
    "ALL_CARDS",
    "COLOURS",
    "LEADERS",
    "TACTICS",
    "TROOPS",
    "Card",
    "Colour",
    "IllegalAction",
    "IllegalPosition",
    "NotationError",
    "RulesError",
    "Tactic",
    "TacticKind",
    "Terrain",
    "Troop",
    "card_name",
    "parse_card",
    "parse_terrain",
    "parse_token",
    "troop",
]
