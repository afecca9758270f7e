"""A ruling in one plain sentence: granted or refused, why, and for a refusal the
cards the opponent could still add (the counter-example), formations by the
edition's names. The tracker says it when a claim is ruled on.
"""

from __future__ import annotations

from typing import Final

from companion.messages import N_, Message
from companion.rules.claims import Reason, Ruling
from companion.rules.formations import GMT_FORMATION_NAMES, MEDIEVAL_FORMATION_NAMES
from companion.zones import who

_REASONS: Final = {
    Reason.STRONGER: N_("stronger than the opponent's complete formation"),
    Reason.TIE_COMPLETED_FIRST: N_("equal formations, completed first"),
    Reason.UNBEATABLE: N_("no completion of the opponent's side can beat it"),
    Reason.OPPONENT_CANNOT_COMPLETE: N_(
        "too few unseen troops remain for the opponent to complete"),
    Reason.CLAIMED: N_("flag already claimed"),
    Reason.GAME_OVER: N_("the game is already decided"),
    Reason.INCOMPLETE: N_("formation incomplete"),
    Reason.WEAKER: N_("the opponent's complete formation is stronger"),
    Reason.TIE_COMPLETED_LAST: N_("equal formations, the opponent completed first"),
    Reason.BEATABLE: N_("the opponent could still complete a stronger formation"),
}


def reason_message(reason: Reason) -> Message:
    return Message(_REASONS[reason])


def describe_ruling(ruling: Ruling, *, medieval: bool = False) -> Message:
    """A ruling in one plain sentence, with the counter-example for a refusal; formations
    by the edition's names."""
    names = MEDIEVAL_FORMATION_NAMES if medieval else GMT_FORMATION_NAMES
    side, other = who(ruling.player), who(ruling.player.other)
    flag, reason = ruling.flag + 1, reason_message(ruling.reason)
    template = (N_("{side} claims flag {flag}: granted — {reason}") if ruling.granted
                else N_("{side} claims flag {flag}: refused — {reason}"))
    text = Message(template, side=side, flag=flag, reason=reason)
    if ruling.strength is not None:
        text = Message(N_("{ruling} ({formation} {total})"), ruling=text,
                       formation=Message(names[ruling.strength.formation]),
                       total=ruling.strength.total)
    if ruling.counterexample:
        cards = " ".join(t.token for t in ruling.counterexample)
        if ruling.threat is not None:
            text = Message(N_("{ruling}; {other} could still add {cards} for {formation} {total}"),
                           ruling=text, other=other, cards=cards,
                           formation=Message(names[ruling.threat.formation]),
                           total=ruling.threat.total)
        else:
            text = Message(N_("{ruling}; {other} could still add {cards}"), ruling=text,
                           other=other, cards=cards)
    elif ruling.reason in (Reason.WEAKER, Reason.TIE_COMPLETED_LAST) and ruling.threat:
        text = Message(N_("{ruling}; {other} has {formation} {total}"), ruling=text, other=other,
                       formation=Message(names[ruling.threat.formation]),
                       total=ruling.threat.total)
    return text
