"""What the touchscreen shows and what a tap asks for, apart from how it is drawn:
the ``Scene`` (the app's ``ViewModel`` plus the touchscreen's own state), the
``Intent`` of a tap, and the words the screens say (in the players' names and the
edition's card names).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pygame

from companion import status
from companion.i18n import N_, _, translation
from companion.messages import localized
from companion.rules.actions import Claim, Pass, Play
from companion.rules.cards import Card, Troop, parse_card
from companion.rules.formations import Formation
from companion.rules.game import Outcome
from companion.rules.position import Flag, Player, Position
from companion.tracker import ClaimResult, TrackedEvent
from companion.ui import theme
from companion.ui.terminal import ViewModel
from companion.words import (
    colour_name,
    formation_name,
    tactic_name,
)
from hardware.states import FlagState


@dataclass(frozen=True)
class Intent:
    """What a tap asks for. Game intents go to the companion; the rest move the view."""

    kind: str  # claim, correct, undo, option, go, pick, close, flag
    flag: int | None = None
    player: Player | None = None
    zone: str = ""
    tokens: tuple[str, ...] = ()
    value: str = ""


Target = tuple[pygame.Rect, Intent]


@dataclass
class Scene:
    """What the screens show: the app's model and the touchscreen's own state."""

    model: ViewModel
    position: Position | None = None
    outcome: Outcome | None = None
    screen: str = "play"  # play, flag, ruling, pick, teach, teach_flags, settings
    flag: int | None = None  # the flag open in the flag panel or teach view
    ruling: ClaimResult | None = None
    pick_zone: str = ""
    pick_slot: int = 0  # the card being corrected; len(side) adds one
    pick_tokens: list[str] = field(default_factory=list)  # the zone as it will be corrected
    # What the camera last read per zone: (token or "unknown", read for sure).
    readings: dict[str, tuple[tuple[str, bool], ...]] = field(default_factory=dict)
    # Per zone, the card the camera guessed for each card it could not read where a
    # person may take it, else None (``Tracker.guesses``): the picker offers it first,
    # and the flag panel's confirm takes them.
    guesses: dict[str, tuple[str | None, ...]] = field(default_factory=dict)
    names: dict[Player, str] = field(
        default_factory=lambda: {Player.NORTH: _("North"), Player.SOUTH: _("South")}
    )
    colours: dict[str, theme.RGB] | None = None
    options: dict[str, str] = field(
        default_factory=lambda: {"auto_claim": "off", "hints": "on", "claim_timing": "standard"}
    )
    toast: str = ""
    can_undo: bool = True
    editing: Player | None = None  # whose name the keyboard edits
    edit_text: str = ""
    next_game: bool = False  # the app can start the next game of the match
    why: dict[int, str] = field(default_factory=dict)  # per flag: what needs doing there
    camera_details: bool = False  # the camera view shows the calibration's whole reason

    def colour(self, player: Player) -> theme.RGB:
        return theme.player_colour(player.value, self.colours)

    def formation_names(self) -> dict[Formation, str]:
        return {f: formation_name(f, medieval=self.model.medieval) for f in Formation}

    def zone_tokens(self, zone: str) -> list[str]:
        """The zone's cards as the camera reads them, else as recorded."""
        if self.readings.get(zone):
            return [token for token, _sure in self.readings[zone]]
        flag_no, side = zone.split(".")[:2]
        return [c.token for c in self.model.flags[int(flag_no[4:]) - 1].cards(Player(side))]

    def guess(self, zone: str, slot: int) -> str | None:
        """The camera's guess for the card at ``slot`` of ``zone`` (``guesses``)."""
        guesses = self.guesses.get(zone, ())
        return guesses[slot] if slot < len(guesses) else None

    def said(self, text: str) -> str:
        """``said``: a message in the catalog's language, with these players' names
        and the cards in the words of the edition in use."""
        return said(text, self.names, medieval=self.model.medieval)

    def the_position(self) -> Position:
        return self.position or Position(flags=tuple(self.model.flags))


def formation_label(scene: Scene, flag: Flag, player: Player) -> str:
    return status.formation_label(flag, player, medieval=scene.model.medieval)


class _Named:
    """The catalog's translation, with the players' names standing for "north"/"south",
    and cards a message names (``companion.messages.Cards``) said in words."""

    def __init__(self, names: dict[Player, str] | None, medieval: bool = False) -> None:
        self.names = names
        self.medieval = medieval
        self.translation = translation()

    def gettext(self, message: str) -> str:
        if self.names is not None and message in ("north", "south"):
            return self.names[Player(message)]
        return self.translation.gettext(message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return self.translation.ngettext(singular, plural, n)

    def name_cards(self, tokens: Sequence[str]) -> str:
        return self.translation.gettext(N_(", ")).join(
            card_words(parse_card(t), self.medieval) for t in tokens)


def said(text: str, names: dict[Player, str] | None = None, *, medieval: bool = False) -> str:
    """A message of the app or the tracker in the catalog's language (a plain string,
    never marked for translation, as it is), with the players' names for "north" and
    "south", the cards it names in words (``medieval``: that edition's names), and
    begun with a capital as a sentence on the screen is."""
    out = localized(text, _Named(names, medieval))
    return out[:1].upper() + out[1:]


def status_words(scene: Scene, index: int) -> str:
    """A flag's status in words, with the players' names."""
    state = scene.model.statuses[index].light
    if state is FlagState.ATTENTION:
        return _("Needs attention")
    if state is FlagState.UNCERTAIN:
        return _("Reading not sure")
    if state in (FlagState.CLAIMED_NORTH, FlagState.CLAIMED_SOUTH):
        who = Player.NORTH if state is FlagState.CLAIMED_NORTH else Player.SOUTH
        return _("Claimed by {name}").format(name=scene.names[who])
    if state in (FlagState.CLAIMABLE_NORTH, FlagState.CLAIMABLE_SOUTH):
        who = Player.NORTH if state is FlagState.CLAIMABLE_NORTH else Player.SOUTH
        return _("{name} can claim it").format(name=scene.names[who])
    return _("Open")


def card_words(card: Card, medieval: bool = False) -> str:
    if isinstance(card, Troop):
        return _("{colour} {value}").format(colour=colour_name(card.colour), value=card.value)
    return tactic_name(card, medieval=medieval)


def event_words(scene: Scene, event: TrackedEvent) -> str:
    """A game event as a sentence with the players' names; others as the tracker says them."""
    name = scene.names[event.player]
    action = event.action
    if isinstance(action, Play):
        return _("{name} played {card} at flag {n}.").format(
            name=name, card=card_words(action.card, scene.model.medieval), n=action.flag + 1)
    if isinstance(action, Claim):
        return _("{name} claimed flag {n}.").format(name=name, n=action.flag + 1)
    if isinstance(action, Pass):
        return _("{name} passed.").format(name=name)
    return event.describe()
