"""Players, flags and the table position: immutable values you can copy and query."""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Final, Literal

from companion.rules.cards import Card, Tactic, Terrain, Troop
from companion.rules.errors import N_, IllegalPosition, NoSuchFlag, term
from companion.rules.formations import ALL_TROOPS_MASK, troop_mask

FLAG_COUNT: Final = 9


def check_flag(index: int) -> None:
    """Raise NoSuchFlag unless ``index`` is a flag's (0 to 8)."""
    if not 0 <= index < FLAG_COUNT:
        raise NoSuchFlag("{flag}", flag=index + 1)


class Player(enum.Enum):
    NORTH = "north"
    SOUTH = "south"

    @property
    def other(self) -> Player:
        return Player.SOUTH if self is Player.NORTH else Player.NORTH

    def __str__(self) -> str:
        return self.value


PLAYERS: Final[tuple[Player, Player]] = (Player.NORTH, Player.SOUTH)

ClaimTiming = Literal["standard", "advanced"]
Edition = Literal["gmt", "medieval"]


@dataclass(frozen=True, slots=True)
class Variant:
    """Rule options (NOTATION.md ``variant``); the defaults are the GMT base game with tactics."""

    tactics: bool = True
    claim_timing: ClaimTiming = "standard"
    terrain: bool = False
    edition: Edition = "gmt"


@dataclass(frozen=True, slots=True)
class Flag:
    """One flag: both sides' formation cards, Fog/Mud, terrain and who holds it.

    ``north_completed``/``south_completed`` is the moment (a move number) each
    side's current formation became complete, None while it is incomplete:
    a tie goes against the side that completed last.
    """

    north: tuple[Card, ...] = ()
    south: tuple[Card, ...] = ()
    fog: bool = False
    mud: bool = False
    terrain: Terrain | None = None
    claimed_by: Player | None = None
    north_completed: int | None = None
    south_completed: int | None = None
    defender: Player | None = None  # of a Castle or Fortress

    def cards(self, player: Player) -> tuple[Card, ...]:
        return self.north if player is Player.NORTH else self.south

    def completed_at(self, player: Player) -> int | None:
        return self.north_completed if player is Player.NORTH else self.south_completed

    @property
    def size(self) -> int:
        """Cards a formation needs here: 4 with Mud (or on the River), else 3."""
        return 4 if self.mud or self.terrain is Terrain.RIVER else 3

    @property
    def sum_only(self) -> bool:
        """Fog (or Woodland): formations are ignored, the highest sum wins."""
        return self.fog or self.terrain is Terrain.WOODLAND

    @property
    def environment(self) -> tuple[Tactic, ...]:
        return tuple(t for t, on in ((Tactic.FOG, self.fog), (Tactic.MUD, self.mud)) if on)

    def side_size(self, player: Player) -> int:
        """Cards ``player``'s side holds: one more for the defender of a Castle or Fortress."""
        fortified = self.terrain in (Terrain.CASTLE, Terrain.FORTRESS) and self.defender is player
        return self.size + 1 if fortified else self.size

    def is_complete(self, player: Player) -> bool:
        return len(self.cards(player)) >= self.side_size(player)

    def free_slots(self, player: Player) -> int:
        return self.side_size(player) - len(self.cards(player))

    def completed_first(self) -> Player | None:
        """The side that completed first, when both are complete."""
        n, s = self.north_completed, self.south_completed
        if (
            n is None
            or s is None
            or not (self.is_complete(Player.NORTH) and self.is_complete(Player.SOUTH))
        ):
            return None
        if n == s:
            return None  # not recorded (a position file that needs no tie-break)
        return Player.NORTH if n < s else Player.SOUTH

    def with_cards(self, player: Player, cards: tuple[Card, ...], moment: int) -> Flag:
        """This flag with ``player``'s side replaced, its completion moment kept or reset."""
        return self._with_side(player, cards)._restamp(moment)

    def with_environment(self, env: Tactic, moment: int) -> Flag:
        flag = replace(self, fog=True) if env is Tactic.FOG else replace(self, mud=True)
        return flag._restamp(moment)

    def _with_side(self, player: Player, cards: tuple[Card, ...]) -> Flag:
        if player is Player.NORTH:
            return replace(self, north=cards)
        return replace(self, south=cards)

    def _restamp(self, moment: int) -> Flag:
        """Completion moments after a change: set on completion, reset when incomplete."""
        stamps = []
        for player in PLAYERS:
            at = self.completed_at(player)
            if not self.is_complete(player):
                at = None
            elif at is None:
                at = moment
            stamps.append(at)
        return replace(self, north_completed=stamps[0], south_completed=stamps[1])


def _empty_flags() -> tuple[Flag, ...]:
    return tuple(Flag() for _ in range(FLAG_COUNT))


@dataclass(frozen=True, slots=True)
class Position:
    """The table as a person sees it: enough to adjudicate every flag.

    Flags are indexed 0..8 here; NOTATION.md numbers them 1..9.
    """

    flags: tuple[Flag, ...] = field(default_factory=_empty_flags)
    discards: tuple[Card, ...] = ()
    to_move: Player | None = None
    variant: Variant = Variant()

    def __post_init__(self) -> None:
        if len(self.flags) != FLAG_COUNT:
            raise IllegalPosition(N_("a position has {n} flags, not {got}"), n=FLAG_COUNT,
                                  got=len(self.flags))

    def cards_on_table(self) -> Iterator[Card]:
        for flag in self.flags:
            yield from flag.north
            yield from flag.south
            yield from flag.environment
        yield from self.discards

    def seen_troops(self) -> int:
        """Mask of the troops face up on the table: at flags (claimed or not) and discarded."""
        return troop_mask(c for c in self.cards_on_table() if isinstance(c, Troop))

    def unseen_troops(self) -> int:
        """Mask of the troops not face up anywhere: the deck and both hands."""
        return ALL_TROOPS_MASK & ~self.seen_troops()

    def held_flags(self, player: Player) -> list[int]:
        return [i for i, f in enumerate(self.flags) if f.claimed_by is player]

    def winner(self) -> Player | None:
        """Breakthrough (3 adjacent flags) or envelopment (5 flags) by claimed flags."""
        for player in PLAYERS:
            if self.flag_count(player) >= 5 or self._has_breakthrough(player):
                return player
        return None

    def flag_count(self, player: Player) -> int:
        """Flags held, the Town counting as two (terrain)."""
        return sum(
            2 if f.terrain is Terrain.TOWN else 1 for f in self.flags if f.claimed_by is player
        )

    def adjacent(self, index: int) -> tuple[int, ...]:
        """The flags next to flag ``index``: the Town is adjacent to none (RULES.md decision)."""
        if self.flags[index].terrain is Terrain.TOWN:
            return ()
        return tuple(
            j
            for j in (index - 1, index + 1)
            if 0 <= j < FLAG_COUNT and self.flags[j].terrain is not Terrain.TOWN
        )

    def _has_breakthrough(self, player: Player) -> bool:
        run = 0
        for flag in self.flags:
            # The Town is adjacent to no flag, so it breaks a run (RULES.md decision).
            if flag.claimed_by is player and flag.terrain is not Terrain.TOWN:
                run += 1
                if run >= 3:
                    return True
            else:
                run = 0
        return False

    def validate(self) -> None:
        """Raise IllegalPosition if no legal play reaches this table."""
        seen: set[Card] = set()
        for card in self.cards_on_table():
            if card in seen:
                raise IllegalPosition(N_("{card} lies on the table twice"), card=card.token)
            seen.add(card)
        for player in PLAYERS:
            leaders = [
                c
                for f in self.flags
                for c in f.cards(player)
                if c in (Tactic.ALEXANDER, Tactic.DARIUS)
            ]
            if len(leaders) > 1:
                raise IllegalPosition(
                    N_("{side} has both leaders on their side: one per player per game"),
                    side=term(player),
                )
        for number, flag in enumerate(self.flags, start=1):
            for player in PLAYERS:
                cards = flag.cards(player)
                if len(cards) > flag.side_size(player):
                    raise IllegalPosition(
                        N_("flag {flag}: {side} has {n} cards, the side holds {holds}"),
                        flag=number, side=term(player), n=len(cards),
                        holds=flag.side_size(player),
                    )
                for card in cards:
                    if isinstance(card, Tactic) and not card.is_morale:
                        raise IllegalPosition(
                            N_("flag {flag}: {card} is not a formation card"), flag=number,
                            card=card.token,
                        )
