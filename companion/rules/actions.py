"""Actions of the game and their text notation (round-trips, like SAN in chess).

Flags are numbered 1..9 in the notation and indexed 0..8 in the values.

| action | notation |
| --- | --- |
| a chance event: the card a draw or deal reveals (battlefield cards too) | ``deal R7``, ``deal CASTLE`` |
| Hundred Years' War draft: keep a battlefield card | ``pick CASTLE`` |
| Hundred Years' War: place a battlefield text-up or text-down | ``place CASTLE@3 up``, ``place HILLS@7 down`` |
| a troop or morale tactic into a formation, Fog/Mud at a flag | ``R7@3``, ``AL@3``, ``FOG@3`` |
| Scout; then each card put back on top of its deck (also after Fields) | ``SCOUT``; ``return R7`` |
| Redeploy own card to another flag, or discard it | ``REDEPLOY R7@3>5``, ``REDEPLOY R7@3>x`` |
| Deserter: discard an opponent's card | ``DESERTER B4@2`` |
| Traitor: take an opponent's troop to your side | ``TRAITOR B4@2>6`` |
| claim a flag | ``claim 3`` |
| Marshes claimed: the loser discards one of their troops | ``discard R7@3`` |
| Watchtower claimed: the claimant removes an adjacent opponent troop | ``remove B4@2`` |
| draw from a deck | ``draw troop``, ``draw tactic`` |
| end the turn when nothing is left to draw | ``end`` |
| pass when no card can be played | ``pass`` |
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import Final

from companion.rules.cards import Card, Tactic, Terrain, parse_card, parse_terrain, parse_token
from companion.rules.errors import N_, NotationError, term


class DeckKind(enum.Enum):
    TROOP = "troop"
    TACTIC = "tactic"


def _flag_text(index: int) -> str:
    return str(index + 1)


@dataclass(frozen=True, slots=True)
class Chance:
    """A card revealed by chance: dealt at set-up (troops, battlefields) or drawn unseen."""

    card: Card | Terrain

    def notation(self) -> str:
        return f"deal {self.card.token}"


@dataclass(frozen=True, slots=True)
class Play:
    """A troop or morale tactic into a formation, or Fog/Mud at a flag."""

    card: Card
    flag: int

    def notation(self) -> str:
        return f"{self.card.token}@{_flag_text(self.flag)}"


@dataclass(frozen=True, slots=True)
class Scout:
    def notation(self) -> str:
        return "SCOUT"


@dataclass(frozen=True, slots=True)
class ScoutReturn:
    """One card from hand put back on top of its own deck after Scout (or Fields)."""

    card: Card

    def notation(self) -> str:
        return f"return {self.card.token}"


@dataclass(frozen=True, slots=True)
class Redeploy:
    """Move an own formation card to a free slot at another flag (``to`` None: discard it)."""

    flag: int
    card: Card
    to: int | None

    def notation(self) -> str:
        target = "x" if self.to is None else _flag_text(self.to)
        return f"REDEPLOY {self.card.token}@{_flag_text(self.flag)}>{target}"


@dataclass(frozen=True, slots=True)
class Desert:
    """Deserter: discard an opponent's formation card."""

    flag: int
    card: Card

    def notation(self) -> str:
        return f"DESERTER {self.card.token}@{_flag_text(self.flag)}"


@dataclass(frozen=True, slots=True)
class Betray:
    """Traitor: take an opponent's troop to a free slot on your side."""

    flag: int
    card: Card
    to: int

    def notation(self) -> str:
        return f"TRAITOR {self.card.token}@{_flag_text(self.flag)}>{_flag_text(self.to)}"


@dataclass(frozen=True, slots=True)
class Claim:
    flag: int

    def notation(self) -> str:
        return f"claim {_flag_text(self.flag)}"


@dataclass(frozen=True, slots=True)
class Discard:
    """Marshes claimed: the loser discards one of their own troops from an unclaimed flag."""

    flag: int
    card: Card

    def notation(self) -> str:
        return f"discard {self.card.token}@{_flag_text(self.flag)}"


@dataclass(frozen=True, slots=True)
class Remove:
    """Watchtower claimed: the claimant removes an opponent's troop from an adjacent flag."""

    flag: int
    card: Card

    def notation(self) -> str:
        return f"remove {self.card.token}@{_flag_text(self.flag)}"


@dataclass(frozen=True, slots=True)
class Pick:
    """Hundred Years' War draft: keep one battlefield card, pass the rest."""

    terrain: Terrain

    def notation(self) -> str:
        return f"pick {self.terrain.token}"


@dataclass(frozen=True, slots=True)
class Place:
    """Hundred Years' War: place a battlefield card in the line, text-up or text-down."""

    terrain: Terrain
    flag: int
    up: bool = True

    def notation(self) -> str:
        side = "up" if self.up else "down"
        return f"place {self.terrain.token}@{_flag_text(self.flag)} {side}"


@dataclass(frozen=True, slots=True)
class Draw:
    deck: DeckKind

    def notation(self) -> str:
        return f"draw {self.deck.value}"


@dataclass(frozen=True, slots=True)
class EndTurn:
    def notation(self) -> str:
        return "end"


@dataclass(frozen=True, slots=True)
class Pass:
    def notation(self) -> str:
        return "pass"


Action = (
    Chance
    | Play
    | Scout
    | ScoutReturn
    | Redeploy
    | Desert
    | Betray
    | Claim
    | Discard
    | Remove
    | Pick
    | Place
    | Draw
    | EndTurn
    | Pass
)

_FLAG: Final = r"([1-9])"
_CARD: Final = r"([A-Za-z]+\d*)"
_PATTERNS: Final = (
    (re.compile(rf"deal {_CARD}"), lambda m: Chance(parse_token(m[1]))),
    (re.compile(rf"pick {_CARD}"), lambda m: Pick(parse_terrain(m[1]))),
    (
        re.compile(rf"place {_CARD}@{_FLAG} (up|down)"),
        lambda m: Place(parse_terrain(m[1]), int(m[2]) - 1, m[3] == "up"),
    ),
    (re.compile(rf"discard {_CARD}@{_FLAG}"), lambda m: Discard(int(m[2]) - 1, parse_card(m[1]))),
    (re.compile(rf"remove {_CARD}@{_FLAG}"), lambda m: Remove(int(m[2]) - 1, parse_card(m[1]))),
    (re.compile(r"scout"), lambda m: Scout()),
    (re.compile(rf"return {_CARD}"), lambda m: ScoutReturn(parse_card(m[1]))),
    (
        re.compile(rf"redeploy {_CARD}@{_FLAG}>([1-9x])"),
        lambda m: Redeploy(int(m[2]) - 1, parse_card(m[1]), None if m[3] == "x" else int(m[3]) - 1),
    ),
    (re.compile(rf"deserter {_CARD}@{_FLAG}"), lambda m: Desert(int(m[2]) - 1, parse_card(m[1]))),
    (
        re.compile(rf"traitor {_CARD}@{_FLAG}>{_FLAG}"),
        lambda m: Betray(int(m[2]) - 1, parse_card(m[1]), int(m[3]) - 1),
    ),
    (re.compile(rf"claim {_FLAG}"), lambda m: Claim(int(m[1]) - 1)),
    (re.compile(r"draw (troop|tactic)"), lambda m: Draw(DeckKind(m[1]))),
    (re.compile(r"end"), lambda m: EndTurn()),
    (re.compile(r"pass"), lambda m: Pass()),
    (re.compile(rf"{_CARD}@{_FLAG}"), lambda m: Play(parse_card(m[1]), int(m[2]) - 1)),
)


def parse_action(text: str) -> Action:
    """The action a notation names (case-insensitive, spaces folded)."""
    folded = " ".join(text.split()).lower()
    for pattern, build in _PATTERNS:
        match = pattern.fullmatch(folded)
        if match:
            action: Action = build(match)
            if (
                isinstance(action, Play)
                and isinstance(action.card, Tactic)
                and action.card.is_guile
            ):
                raise NotationError(term("action"), N_("{card} is played alone, not at a flag"),
                                    card=action.card.token)
            return action
    raise NotationError(term("action"), N_("{text} is not an action"), text=repr(text))
