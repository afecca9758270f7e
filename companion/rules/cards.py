"""Cards and their tokens (NOTATION.md): troops, tactics and terrain battlefields.

Every card is an immutable, interned value; ``parse_card`` and ``Card.token``
round-trip. Input is case-insensitive, output is the canonical upper case.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Final

from companion.rules.errors import N_, NotationError, term


class Colour(enum.Enum):
    """The six troop colours, in the order the decks list them."""

    RED = "R"
    ORANGE = "O"
    YELLOW = "Y"
    GREEN = "G"
    BLUE = "B"
    PURPLE = "P"

    @property
    def letter(self) -> str:
        return self.value

    @property
    def index(self) -> int:
        return _COLOUR_INDEX[self]


COLOURS: Final[tuple[Colour, ...]] = tuple(Colour)
_COLOUR_INDEX: Final[dict[Colour, int]] = {c: i for i, c in enumerate(COLOURS)}
VALUES: Final[tuple[int, ...]] = tuple(range(1, 11))

UNIT_NAMES: Final[dict[int, str]] = {
    10: "Elephants",
    9: "Chariots",
    8: "Heavy Cavalry",
    7: "Light Cavalry",
    6: "Hypaspists",
    5: "Phalangists",
    4: "Hoplites",
    3: "Javelineers",
    2: "Peltasts",
    1: "Skirmishers",
}


@dataclass(frozen=True, slots=True, order=True)
class Troop:
    """A troop card: a colour and a value 1..10."""

    colour: Colour
    value: int
    # 0..59, colour-major so one colour's run is contiguous; stored because the
    # claim proof turns troops into bit masks on its hot path.
    index: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not 1 <= self.value <= 10:
            raise NotationError(term("card"), N_("troop value {value} is not 1..10"),
                                value=self.value)
        object.__setattr__(self, "index", _COLOUR_INDEX[self.colour] * 10 + self.value - 1)

    @property
    def token(self) -> str:
        return f"{self.colour.letter}{self.value}"

    def __str__(self) -> str:
        return self.token

    def __repr__(self) -> str:
        return f"Troop({self.token})"


class TacticKind(enum.Enum):
    MORALE = "morale"
    ENVIRONMENT = "environment"
    GUILE = "guile"


class Tactic(enum.Enum):
    """The ten tactics cards; the value is the token."""

    ALEXANDER = "AL"
    DARIUS = "DA"
    COMPANION_CAVALRY = "CC"
    SHIELD_BEARERS = "SB"
    FOG = "FOG"
    MUD = "MUD"
    SCOUT = "SCOUT"
    REDEPLOY = "REDEPLOY"
    DESERTER = "DESERTER"
    TRAITOR = "TRAITOR"

    @property
    def token(self) -> str:
        return self.value

    @property
    def kind(self) -> TacticKind:
        return _TACTIC_KIND[self]

    @property
    def is_leader(self) -> bool:
        return self in LEADERS

    @property
    def is_morale(self) -> bool:
        return self.kind is TacticKind.MORALE

    @property
    def is_environment(self) -> bool:
        return self.kind is TacticKind.ENVIRONMENT

    @property
    def is_guile(self) -> bool:
        return self.kind is TacticKind.GUILE

    def __str__(self) -> str:
        return self.token


_TACTIC_KIND: Final[dict[Tactic, TacticKind]] = {
    Tactic.ALEXANDER: TacticKind.MORALE,
    Tactic.DARIUS: TacticKind.MORALE,
    Tactic.COMPANION_CAVALRY: TacticKind.MORALE,
    Tactic.SHIELD_BEARERS: TacticKind.MORALE,
    Tactic.FOG: TacticKind.ENVIRONMENT,
    Tactic.MUD: TacticKind.ENVIRONMENT,
    Tactic.SCOUT: TacticKind.GUILE,
    Tactic.REDEPLOY: TacticKind.GUILE,
    Tactic.DESERTER: TacticKind.GUILE,
    Tactic.TRAITOR: TacticKind.GUILE,
}
LEADERS: Final[frozenset[Tactic]] = frozenset({Tactic.ALEXANDER, Tactic.DARIUS})
TACTICS: Final[tuple[Tactic, ...]] = tuple(Tactic)

# Names in the two editions, for the teaching view and the card renderer.
GMT_NAMES: Final[dict[Tactic, str]] = {
    Tactic.ALEXANDER: "Alexander",
    Tactic.DARIUS: "Darius",
    Tactic.COMPANION_CAVALRY: "Companion Cavalry",
    Tactic.SHIELD_BEARERS: "Shield Bearers",
    Tactic.FOG: "Fog",
    Tactic.MUD: "Mud",
    Tactic.SCOUT: "Scout",
    Tactic.REDEPLOY: "Redeploy",
    Tactic.DESERTER: "Deserter",
    Tactic.TRAITOR: "Traitor",
}
MEDIEVAL_NAMES: Final[dict[Tactic, str]] = {
    **GMT_NAMES,
    Tactic.ALEXANDER: "King of England",
    Tactic.DARIUS: "King of France",
    Tactic.COMPANION_CAVALRY: "Cavalry Mercenary",
    Tactic.SHIELD_BEARERS: "Support Troops",
}


class Terrain(enum.Enum):
    """Terrain battlefields of the medieval edition (fan-made expansion)."""

    CASTLE = "CASTLE"
    MARSHES = "MARSHES"
    RIVER = "RIVER"
    WATCHTOWER = "WATCHTOWER"
    TOWN = "TOWN"
    FIELDS = "FIELDS"
    FORTRESS = "FORTRESS"
    HILLS = "HILLS"
    WOODLAND = "WOODLAND"

    @property
    def token(self) -> str:
        return self.value

    def __str__(self) -> str:
        return self.token


Card = Troop | Tactic
"""A card of the 70-card deck: what can lie at a flag, in a hand or a deck."""

TROOPS: Final[tuple[Troop, ...]] = tuple(Troop(c, v) for c in COLOURS for v in VALUES)
ALL_CARDS: Final[tuple[Card, ...]] = (*TROOPS, *TACTICS)

_BY_TOKEN: Final[dict[str, Card]] = {card.token: card for card in ALL_CARDS}
_TERRAIN_BY_TOKEN: Final[dict[str, Terrain]] = {t.token: t for t in Terrain}


def troop(colour: Colour, value: int) -> Troop:
    """The interned troop card of that colour and value."""
    if not 1 <= value <= 10:
        raise NotationError(term("card"), N_("troop value {value} is not 1..10"), value=value)
    return TROOPS[colour.index * 10 + value - 1]


def parse_card(token: str) -> Card:
    """The troop or tactic a token names (case-insensitive)."""
    if not isinstance(token, str):
        raise NotationError(term("card"), N_("expected a card token string, got {type}"),
                            type=type(token).__name__)
    card = _BY_TOKEN.get(token.strip().upper())
    if card is None:
        raise NotationError(term("card"), N_("{token} is not a card token"), token=repr(token))
    return card


def parse_terrain(token: str) -> Terrain:
    """The terrain battlefield a token names (case-insensitive)."""
    if not isinstance(token, str):
        raise NotationError(term("terrain"), N_("expected a terrain token string, got {type}"),
                            type=type(token).__name__)
    terrain = _TERRAIN_BY_TOKEN.get(token.strip().upper())
    if terrain is None:
        raise NotationError(term("terrain"), N_("{token} is not a terrain token"),
                            token=repr(token))
    return terrain


def parse_token(token: str) -> Card | Terrain:
    """Any token of NOTATION.md: troop, tactic or terrain (what vision can see)."""
    try:
        return parse_card(token)
    except NotationError:
        try:
            return parse_terrain(token)
        except NotationError:
            raise NotationError(term("card"), N_("{token} is not a card or terrain token"),
                                token=repr(token)) from None


def is_troop(card: Card) -> bool:
    return isinstance(card, Troop)


def card_sort_key(card: Card) -> tuple[int, int]:
    """Troops colour-major then tactics in deck order: a stable display order."""
    if isinstance(card, Troop):
        return (0, card.index)
    return (1, TACTICS.index(card))


def card_name(card: Card | Terrain, *, medieval: bool = False) -> str:
    """The printed name: "Red 7 (Light Cavalry)", "Alexander", "Castle"."""
    if isinstance(card, Troop):
        return f"{card.colour.name.title()} {card.value} ({UNIT_NAMES[card.value]})"
    if isinstance(card, Tactic):
        return (MEDIEVAL_NAMES if medieval else GMT_NAMES)[card]
    return card.name.title()
