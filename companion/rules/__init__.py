"""The Battle Line rules as a pure library: cards, formations, claims, the game.

Standard library only, no I/O. See RULES.md and NOTATION.md in the project's
shared documents for the rules and formats implemented here.
"""

from companion.rules.actions import Action, DeckKind, parse_action
from companion.rules.battlefield import Battlefield, Setup
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
from companion.rules.claims import Reason, Ruling, Rulings, adjudicate, rule_claim
from companion.rules.errors import IllegalAction, IllegalPosition, NotationError, RulesError
from companion.rules.formations import Formation, Strength, best_completion, evaluate
from companion.rules.game import Dealer, GameState, Outcome
from companion.rules.match import Match
from companion.rules.notation import dump_position, dump_rulings, parse_position
from companion.rules.phase import Phase
from companion.rules.position import FLAG_COUNT, PLAYERS, Flag, Player, Position, Variant
from companion.rules.record import GameRecord, parse_record

__all__ = [
    "ALL_CARDS",
    "COLOURS",
    "FLAG_COUNT",
    "LEADERS",
    "PLAYERS",
    "TACTICS",
    "TROOPS",
    "Action",
    "Battlefield",
    "Card",
    "Colour",
    "Dealer",
    "DeckKind",
    "Flag",
    "Formation",
    "GameRecord",
    "GameState",
    "IllegalAction",
    "IllegalPosition",
    "Match",
    "NotationError",
    "Outcome",
    "Phase",
    "Player",
    "Position",
    "Reason",
    "RulesError",
    "Ruling",
    "Rulings",
    "Setup",
    "Strength",
    "Tactic",
    "TacticKind",
    "Terrain",
    "Troop",
    "Variant",
    "adjudicate",
    "best_completion",
    "card_name",
    "dump_position",
    "dump_rulings",
    "evaluate",
    "parse_action",
    "parse_card",
    "parse_position",
    "parse_record",
    "parse_terrain",
    "parse_token",
    "rule_claim",
    "troop",
]
