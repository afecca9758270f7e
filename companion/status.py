"""What each flag shows: the light's state and a few words, from the tracker.

Precedence, strongest first: attention (something to fix), uncertain (a
reading to confirm), claimed, claimable (a hint: provable now, in the colour
of who can claim it), off. While the camera gives nothing, every unclaimed
flag is in attention.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from companion.i18n import N_
from companion.messages import Message
from companion.rules.position import FLAG_COUNT, Flag, Player
from companion.rules.terrain import side_strength
from companion.tracker import IssueKind, Tracker, who
from companion.words import formation_name, to_go
from hardware.states import FlagState

LIGHT_WORDS: Final[dict[FlagState, str]] = {  # translated where shown
    FlagState.OFF: N_("off"),
    FlagState.CLAIMABLE_NORTH: N_("north colour, dim"),
    FlagState.CLAIMABLE_SOUTH: N_("south colour, dim"),
    FlagState.CLAIMED_NORTH: N_("north colour"),
    FlagState.CLAIMED_SOUTH: N_("south colour"),
    FlagState.ATTENTION: N_("amber, blinking"),
    FlagState.UNCERTAIN: N_("white, pulsing"),
}


@dataclass(frozen=True, slots=True)
class FlagStatus:
    index: int  # 0..8
    light: FlagState
    text: Message


def flag_statuses(
    tracker: Tracker, *, hints: bool = True, camera_problem: str | None = None
) -> list[FlagStatus]:
    provable = tracker.provable() if hints and tracker.settled else {}
    out = []
    for index, flag in enumerate(tracker.position.flags):
        issues = tracker.issues_at(index)
        kinds = {i.kind for i in issues}
        if camera_problem is not None and flag.claimed_by is None:
            out.append(FlagStatus(index, FlagState.ATTENTION,
                                  Message(N_("camera: no picture"))))
        elif IssueKind.ATTENTION in kinds:
            out.append(FlagStatus(index, FlagState.ATTENTION, Message(N_("attention"))))
        elif IssueKind.UNCERTAIN in kinds:
            out.append(FlagStatus(index, FlagState.UNCERTAIN, Message(N_("uncertain reading"))))
        elif flag.claimed_by is not None:
            holder = flag.claimed_by
            out.append(
                FlagStatus(index, FlagState.claimed(holder.value),
                           Message(N_("claimed by {side}"), side=who(holder)))
            )
        elif index in provable:
            can = provable[index]
            out.append(
                FlagStatus(index, FlagState.claimable(can.value),
                           Message(N_("claimable by {side}"), side=who(can)))
            )
        elif IssueKind.WAITING in kinds:
            out.append(FlagStatus(index, FlagState.OFF, Message(N_("waiting for the move"))))
        else:
            out.append(FlagStatus(index, FlagState.OFF, Message(N_("open"))))
    assert len(out) == FLAG_COUNT
    return out


def formation_label(flag: Flag, player: Player, *, medieval: bool = False) -> str:
    """A side's formation and its strength ("Wedge 27"), or how many cards it still
    needs ("2 cards to go"), in the language shown; "" without cards."""
    cards = flag.cards(player)
    if not cards:
        return ""
    strength = side_strength(flag, player)
    if strength is None:
        return to_go(flag.side_size(player) - len(cards))
    return f"{formation_name(strength.formation, medieval=medieval)} {strength.total}"


def lights_of(statuses: list[FlagStatus]) -> list[FlagState]:
    return [s.light for s in statuses]
