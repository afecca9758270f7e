"""What each flag shows: the light's state and a few words, from the tracker.

Precedence, strongest first: attention (something to fix), uncertain (a
reading to confirm), claimed, claimable (a hint: provable now, in the colour
of who can claim it), off. While the camera gives nothing, every unclaimed
flag is in attention.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from companion.rules.formations import GMT_FORMATION_NAMES, MEDIEVAL_FORMATION_NAMES
from companion.rules.position import FLAG_COUNT, Flag, Player
from companion.rules.terrain import side_strength
from companion.tracker import IssueKind, Tracker
from hardware.states import FlagState

LIGHT_WORDS: Final[dict[FlagState, str]] = {
    FlagState.OFF: "off",
    FlagState.CLAIMABLE_NORTH: "north colour, dim",
    FlagState.CLAIMABLE_SOUTH: "south colour, dim",
    FlagState.CLAIMED_NORTH: "north colour",
    FlagState.CLAIMED_SOUTH: "south colour",
    FlagState.ATTENTION: "amber, blinking",
    FlagState.UNCERTAIN: "white, pulsing",
}


@dataclass(frozen=True, slots=True)
class FlagStatus:
    index: int  # 0..8
    light: FlagState
    text: str


def _side(player: Player) -> str:
    return player.value


def flag_statuses(
    tracker: Tracker, *, hints: bool = True, camera_problem: str | None = None
) -> list[FlagStatus]:
    provable = tracker.provable() if hints and tracker.settled else {}
    out = []
    for index, flag in enumerate(tracker.position.flags):
        issues = tracker.issues_at(index)
        kinds = {i.kind for i in issues}
        if camera_problem is not None and flag.claimed_by is None:
            out.append(FlagStatus(index, FlagState.ATTENTION, "camera: no picture"))
        elif IssueKind.ATTENTION in kinds:
            out.append(FlagStatus(index, FlagState.ATTENTION, "attention"))
        elif IssueKind.UNCERTAIN in kinds:
            out.append(FlagStatus(index, FlagState.UNCERTAIN, "uncertain reading"))
        elif flag.claimed_by is not None:
            holder = flag.claimed_by
            out.append(
                FlagStatus(index, FlagState.claimed(holder.value), f"claimed by {_side(holder)}")
            )
        elif index in provable:
            can = provable[index]
            out.append(
                FlagStatus(index, FlagState.claimable(can.value), f"claimable by {_side(can)}")
            )
        elif IssueKind.WAITING in kinds:
            out.append(FlagStatus(index, FlagState.OFF, "waiting for the move"))
        else:
            out.append(FlagStatus(index, FlagState.OFF, "open"))
    assert len(out) == FLAG_COUNT
    return out


TO_GO: Final = "{n} to go"  # the touchscreen's catalog holds it (screens.TO_GO_WORDS)


def formation_label(
    flag: Flag, player: Player, *, medieval: bool = False,
    translate: Callable[[str], str] = str,
) -> str:
    """A side's formation and its strength ("Wedge 27"), or how many cards it still
    needs ("2 to go"); "" without cards. ``translate``: the touchscreen's ``_``."""
    cards = flag.cards(player)
    if not cards:
        return ""
    strength = side_strength(flag, player)
    if strength is None:
        return translate(TO_GO).format(n=flag.side_size(player) - len(cards))
    names = MEDIEVAL_FORMATION_NAMES if medieval else GMT_FORMATION_NAMES
    return f"{translate(names[strength.formation])} {strength.total}"


def lights_of(statuses: list[FlagStatus]) -> list[FlagState]:
    return [s.light for s in statuses]
