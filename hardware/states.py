"""The vocabulary of the lights: flag states, whole-line effects, button events."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Literal

from hardware import looks

Player = Literal["north", "south"]
WinKind = Literal["breakthrough", "envelopment"]
PLAYERS: tuple[Player, Player] = ("north", "south")
FLAG_NUMBERS = range(1, looks.FLAGS + 1)


class FlagState(Enum):
    """What one flag's light says. The value is its code on the wire."""

    OFF = looks.OFF
    CLAIMABLE_NORTH = looks.CLAIMABLE_NORTH
    CLAIMABLE_SOUTH = looks.CLAIMABLE_SOUTH
    CLAIMED_NORTH = looks.CLAIMED_NORTH
    CLAIMED_SOUTH = looks.CLAIMED_SOUTH
    ATTENTION = looks.ATTENTION  # blinking: something to fix at this flag
    UNCERTAIN = looks.UNCERTAIN  # slow pulse: the reading here is not sure yet

    @staticmethod
    def claimable(player: Player) -> FlagState:
        return FlagState.CLAIMABLE_NORTH if player == "north" else FlagState.CLAIMABLE_SOUTH

    @staticmethod
    def claimed(player: Player) -> FlagState:
        return FlagState.CLAIMED_NORTH if player == "north" else FlagState.CLAIMED_SOUTH


def codes(states: Sequence[FlagState]) -> str:
    """The nine states as the wire's nine-character string, e.g. 'Nn..!?sS.'."""
    return "".join(state.value for state in states)


@dataclass(frozen=True)
class Effect:
    """A whole-line effect; `words` is how the protocol names it."""

    kind: Literal["selftest", "won", "idle"]
    player: Player | None = None
    how: WinKind | None = None

    @property
    def words(self) -> tuple[str, ...]:
        if self.kind == "won":
            assert self.player is not None and self.how is not None
            return (self.kind, self.player, self.how)
        return (self.kind,)

    @property
    def ends_by_itself(self) -> bool:
        return self.kind == "selftest"


SELF_TEST = Effect("selftest")
IDLE = Effect("idle")


def won(player: Player, how: WinKind) -> Effect:
    if player not in PLAYERS:
        raise ValueError(f"player must be north or south, not {player!r}")
    if how not in looks.WIN_KINDS:
        raise ValueError(f"a game is won by breakthrough or envelopment, not {how!r}")
    return Effect("won", player, how)


@dataclass(frozen=True)
class ButtonEvent:
    """A player pressed (or held down) a claim/confirm button.

    `flag` is the flag the button belongs to (the Pico board has one per flag
    per side) or None for the single claim/confirm button per player of the
    direct board. `held` is True for the second event sent when the button
    stays down (firmware: 1 s; direct board: `hold_s` in the config).
    """

    player: Player
    flag: int | None = None
    held: bool = False
