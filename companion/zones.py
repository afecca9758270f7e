"""The zones the tracker follows, by name, and the words for them.

A zone is a place on the table where cards lie: a side of a flag
(``flag3.north``), its environment spot (``flag3.north.env``), the battlefield
card at a flag (``flag3``), a guile area and a discard pile (``north.guile``,
``north.discard``). ``ZoneName`` parses a name and says the zone in plain words;
the helpers build the names, and the words for a player or a flag that the
tracker's messages share.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, Literal

from companion.messages import N_, Message
from companion.rules.position import Player

_ZONE: Final = re.compile(
    r"flag([1-9])(?:\.(north|south)(\.env)?)?|(north|south)\.(guile|discard)"
)

ZoneKind = Literal["formation", "env", "guile", "discard", "terrain"]


@dataclass(frozen=True, slots=True)
class ZoneName:
    kind: ZoneKind
    side: Player | None  # None for the battlefield card at a flag (terrain)
    flag: int | None  # 0..8 for flag zones

    @staticmethod
    def parse(name: str) -> ZoneName | None:
        """The zones the tracker follows (``flag3`` is the battlefield card); None for any other."""
        m = _ZONE.fullmatch(name)
        if m is None:
            return None
        if m[1] and not m[2]:
            return ZoneName("terrain", None, int(m[1]) - 1)
        if m[1]:
            return ZoneName("env" if m[3] else "formation", Player(m[2]), int(m[1]) - 1)
        return ZoneName("guile" if m[5] == "guile" else "discard", Player(m[4]), None)

    @property
    def player(self) -> Player:
        """The side the zone belongs to (the battlefield card's zone belongs to neither)."""
        assert self.side is not None, "the battlefield card's zone belongs to no player"
        return self.side

    def text(self) -> Message:
        """Plain words for the zone: "north's side of flag 3"."""
        if self.kind == "terrain":
            return Message(N_("flag {flag}'s battlefield place"), flag=self._number)
        side = who(self.player)
        if self.kind == "formation":
            return Message(N_("{side}'s side of flag {flag}"), side=side, flag=self._number)
        if self.kind == "env":
            return Message(N_("flag {flag} ({side}'s environment spot)"), side=side,
                           flag=self._number)
        if self.kind == "guile":
            return Message(N_("{side}'s guile area"), side=side)
        return Message(N_("{side}'s discard pile"), side=side)

    @property
    def _number(self) -> int:
        assert self.flag is not None
        return self.flag + 1

    @property
    def flag_number(self) -> int | None:
        return None if self.flag is None else self.flag + 1


def who(player: Player) -> Message:
    """A player's name in a message (translated with it)."""
    return Message(N_("north")) if player is Player.NORTH else Message(N_("south"))


def flag_words(flag: int | None) -> Message:
    """"flag 3" for an index, "the table" for the areas off the flag line."""
    return Message(N_("the table")) if flag is None else Message(N_("flag {flag}"), flag=flag + 1)


def formation_zone(flag: int, player: Player) -> str:
    return f"flag{flag + 1}.{player}"


def env_zone(flag: int, player: Player) -> str:
    return f"flag{flag + 1}.{player}.env"


def guile_zone(player: Player) -> str:
    return f"{player}.guile"


def discard_zone(player: Player) -> str:
    return f"{player}.discard"


def terrain_zone(flag: int) -> str:
    return f"flag{flag + 1}"
