"""The nine battlefield cards of the medieval edition: where each one is during set-up.

Each battlefield card is a terrain on one side and a plain flag on the other.
Two set-ups lay them out (RULES.md, "Medieval edition extras"):

- the terrain expansion (``Setup.STANDARD`` with ``Variant.terrain``): the
  shuffled cards are laid text-up as flags 1..9 in turn, one chance event
  (``deal CASTLE``) each;
- the Hundred Years' War (``Setup.HUNDRED_YEARS_WAR``): four cards are dealt
  to each player and one between the decks (chance events), the players
  draft (``pick CASTLE``) and then alternately place them in the line,
  text-up (the terrain counts) or text-down (a plain flag):
  ``place CASTLE@3 up``, ``place HILLS@7 down``.

Decisions (documented in the README): in the shuffled layout the Castle is
defended by the player who plays first and the Fortress by the other (one
fortified flag each; at a real table the side the text faces). In the draft
both players pick at once; the record lists the first player's pick first,
and the single card passed after the third pick is simply kept. The player
who does not play first places first, so they place five: the ninth placement
is the card between the decks, on the one place left. A placed Castle or
Fortress is defended by the player who placed it.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Final

from companion.rules.cards import Tactic, Terrain
from companion.rules.position import FLAG_COUNT, Player

DRAFT_HAND: Final = 4
FORTIFIED: Final = frozenset({Terrain.CASTLE, Terrain.FORTRESS})
# Hundred Years' War: each player's king is part of the opening hand.
KINGS: Final[dict[Player, Tactic]] = {Player.SOUTH: Tactic.ALEXANDER, Player.NORTH: Tactic.DARIUS}


class Setup(enum.Enum):
    """How the battlefield is laid out (the record's ``Setup`` header)."""

    STANDARD = "standard"  # plain flags, or the shuffled terrain layout with Variant.terrain
    HUNDRED_YEARS_WAR = "hundred-years-war"


def _idx(player: Player) -> int:
    return 0 if player is Player.NORTH else 1


@dataclass(frozen=True, slots=True)
class Placed:
    """A battlefield card in the line: text-up (its terrain counts) or text-down (plain)."""

    terrain: Terrain
    up: bool = True
    by: Player | None = None  # who placed it (Hundred Years' War)

    def defender(self, first: Player) -> Player | None:
        """Who defends this card if it is a text-up Castle or Fortress."""
        if not self.up or self.terrain not in FORTIFIED:
            return None
        if self.by is not None:
            return self.by
        return first if self.terrain is Terrain.CASTLE else first.other


@dataclass(frozen=True, slots=True)
class Battlefield:
    """Every battlefield card, each in exactly one place.

    ``stack``: shuffled, not yet dealt; ``choosing``: each player's draft hand
    (the cards they pick from now); ``kept``: cards each player picked;
    ``middle``: the card between the decks; ``line``: the card at each flag.
    """

    stack: frozenset[Terrain] = frozenset(Terrain)
    choosing: tuple[tuple[Terrain, ...], tuple[Terrain, ...]] = ((), ())
    kept: tuple[tuple[Terrain, ...], tuple[Terrain, ...]] = ((), ())
    middle: Terrain | None = None
    line: tuple[Placed | None, ...] = (None,) * FLAG_COUNT

    def cards(self) -> Iterator[Terrain]:
        """Every battlefield card wherever it is: always the nine, once each."""
        yield from self.stack
        for hand in (*self.choosing, *self.kept):
            yield from hand
        if self.middle is not None:
            yield self.middle
        for placed in self.line:
            if placed is not None:
                yield placed.terrain

    def choosing_of(self, player: Player) -> tuple[Terrain, ...]:
        return self.choosing[_idx(player)]

    def kept_of(self, player: Player) -> tuple[Terrain, ...]:
        return self.kept[_idx(player)]

    @property
    def placed(self) -> int:
        return sum(p is not None for p in self.line)

    def free_places(self) -> list[int]:
        return [i for i, p in enumerate(self.line) if p is None]

    # ----------------------------------------------------------------- shuffled layout
    def with_laid(self, terrain: Terrain) -> tuple[Battlefield, int]:
        """The next flag in the line (1..9 in turn) laid text-up; its index."""
        index = self.free_places()[0]
        line = list(self.line)
        line[index] = Placed(terrain)
        return replace(self, stack=self.stack - {terrain}, line=tuple(line)), index

    # ----------------------------------------------------------------- Hundred Years' War
    def dealt_to(self, first: Player) -> Player | None:
        """Who the next dealt card goes to (alternately, ``first`` first); None: between the decks."""
        mine, theirs = len(self.choosing_of(first)), len(self.choosing_of(first.other))
        if mine > theirs:
            return first.other
        return first if mine < DRAFT_HAND else None

    def with_dealt(self, terrain: Terrain, first: Player) -> Battlefield:
        to = self.dealt_to(first)
        stack = self.stack - {terrain}
        if to is None:
            return replace(self, stack=stack, middle=terrain)
        return replace(self, stack=stack, choosing=self._add(self.choosing, to, terrain))

    def picker(self, first: Player) -> Player:
        """Who picks now: the first player, then the other, each round."""
        mine, theirs = len(self.kept_of(first)), len(self.kept_of(first.other))
        return first if mine == theirs else first.other

    @property
    def drafting(self) -> bool:
        return any(self.choosing)

    def with_pick(self, player: Player, terrain: Terrain, first: Player) -> Battlefield:
        """``player`` keeps ``terrain``; after both picked the rest is passed (and a single card kept)."""
        choosing = list(self.choosing)
        choosing[_idx(player)] = tuple(t for t in choosing[_idx(player)] if t != terrain)
        state = replace(
            self,
            choosing=(choosing[0], choosing[1]),
            kept=self._add(self.kept, player, terrain),
        )
        if player is first:
            return state
        north, south = state.choosing
        state = replace(state, choosing=(south, north))  # pass the rest across
        if len(south) == 1 and len(north) == 1:  # the last card passed: nothing to choose
            kept = self._add(state.kept, Player.NORTH, south[0])
            state = replace(state, choosing=((), ()), kept=self._add(kept, Player.SOUTH, north[0]))
        return state

    def placer(self, first: Player) -> Player:
        """Whose placement it is: the player who does not play first starts, then alternately."""
        second = first.other
        return second if self.placed % 2 == 0 else first

    def to_place(self, player: Player) -> tuple[Terrain, ...]:
        """The cards ``player`` may place: their kept cards, then the card between the decks."""
        kept = self.kept_of(player)
        if kept or self.middle is None or any(self.kept):
            return kept
        return (self.middle,)

    def with_placed(self, player: Player, terrain: Terrain, index: int, up: bool) -> Battlefield:
        line = list(self.line)
        line[index] = Placed(terrain, up, player)
        if terrain is self.middle and terrain not in self.kept_of(player):
            return replace(self, middle=None, line=tuple(line))
        kept = list(self.kept)
        kept[_idx(player)] = tuple(t for t in kept[_idx(player)] if t != terrain)
        return replace(self, kept=(kept[0], kept[1]), line=tuple(line))

    @staticmethod
    def _add(
        hands: tuple[tuple[Terrain, ...], tuple[Terrain, ...]], player: Player, terrain: Terrain
    ) -> tuple[tuple[Terrain, ...], tuple[Terrain, ...]]:
        out = list(hands)
        out[_idx(player)] = tuple(sorted((*out[_idx(player)], terrain), key=TERRAIN_ORDER.index))
        return out[0], out[1]


TERRAIN_ORDER: Final[tuple[Terrain, ...]] = tuple(Terrain)
