"""The rules' own words in the language shown: formations, tactics, terrain, colours.

Each edition prints its own names (``companion.rules``: GMT's Phalanx is the
medieval edition's Square); every name of both is marked here for the
catalog, and each language's catalog follows that language's rulebook
(``companion/locale/GLOSSARY.md`` says which term each one follows).
"""

from __future__ import annotations

from typing import Final

from companion.i18n import N_, NP_, _, ngettext
from companion.rules.cards import GMT_NAMES, MEDIEVAL_NAMES, Colour, Tactic, Terrain
from companion.rules.formations import (
    GMT_FORMATION_NAMES,
    MEDIEVAL_FORMATION_NAMES,
    Formation,
)
from companion.rules.position import Flag, Player

# Every English name of both editions, marked so the catalog holds them.
FORMATION_WORDS: Final = (
    N_("Wedge"), N_("Phalanx"), N_("Battalion Order"), N_("Skirmish Line"), N_("Host"),
    N_("Sum (Fog)"), N_("Square"), N_("Column"), N_("Skirmish"), N_("Fray"),
)
TACTIC_WORDS: Final = (
    N_("Alexander"), N_("Darius"), N_("Companion Cavalry"), N_("Shield Bearers"), N_("Fog"),
    N_("Mud"), N_("Scout"), N_("Redeploy"), N_("Deserter"), N_("Traitor"),
    N_("King of England"), N_("King of France"), N_("Cavalry Mercenary"), N_("Support Troops"),
)
COLOUR_WORDS: Final[dict[Colour, str]] = {
    Colour.RED: N_("Red"), Colour.ORANGE: N_("Orange"), Colour.YELLOW: N_("Yellow"),
    Colour.GREEN: N_("Green"), Colour.BLUE: N_("Blue"), Colour.PURPLE: N_("Purple"),
}
TERRAIN_WORDS: Final[dict[Terrain, tuple[str, str]]] = {
    Terrain.CASTLE: (N_("Castle"), N_(
        "The defender plays one card more than the attacker; the defender's highest card "
        "does not count.")),
    Terrain.FORTRESS: (N_("Fortress"), N_(
        "The defender plays one card more than the attacker; the defender's highest card "
        "does not count.")),
    Terrain.MARSHES: (N_("Marshes"), N_(
        "When it is claimed, the loser discards a troop card from an unclaimed flag.")),
    Terrain.RIVER: (N_("River"), N_("Formations here have four cards.")),
    Terrain.WATCHTOWER: (N_("Watchtower"), N_(
        "When it is claimed, the claimant removes an opponent's troop card from an unclaimed "
        "neighbouring flag.")),
    Terrain.TOWN: (N_("Town"), N_("Counts as two flags and is next to no other flag.")),
    Terrain.FIELDS: (N_("Fields"), N_(
        "When it is claimed, the claimant draws three troop cards, then puts two cards back "
        "face down on the troop deck.")),
    Terrain.HILLS: (N_("Hills"), N_("Values are reversed: lower cards beat higher ones.")),
    Terrain.WOODLAND: (N_("Woodland"), N_("Formations do not count: the higher sum wins.")),
}
TO_GO: Final = NP_("{n} card to go", "{n} cards to go")


def formation_name(formation: Formation, *, medieval: bool = False) -> str:
    names = MEDIEVAL_FORMATION_NAMES if medieval else GMT_FORMATION_NAMES
    return _(names[formation])


def tactic_name(tactic: Tactic, *, medieval: bool = False) -> str:
    return _((MEDIEVAL_NAMES if medieval else GMT_NAMES)[tactic])


def colour_name(colour: Colour) -> str:
    return _(COLOUR_WORDS[colour])


def terrain_name(terrain: Terrain) -> str:
    return _(TERRAIN_WORDS[terrain][0])


def terrain_effect(terrain: Terrain) -> str:
    return _(TERRAIN_WORDS[terrain][1])


def side_name(player: Player) -> str:
    return _("North") if player is Player.NORTH else _("South")


def terrain_line(flag: Flag, names: dict[Player, str] | None = None) -> str:
    """"Castle (North defends): the defender plays …", "" where no terrain lies; only a
    Castle or a Fortress has a defender."""
    if flag.terrain is None:
        return ""
    name = terrain_name(flag.terrain)
    if flag.defender is not None and flag.terrain in (Terrain.CASTLE, Terrain.FORTRESS):
        who = (names or {}).get(flag.defender) or side_name(flag.defender)
        name = _("{terrain} ({name} defends)").format(terrain=name, name=who)
    return _("{terrain}: {effect}").format(terrain=name, effect=terrain_effect(flag.terrain))


def to_go(n: int) -> str:
    """How many cards a side still needs: "2 cards to go"."""
    return ngettext(TO_GO.singular, TO_GO.plural, n).format(n=n)
