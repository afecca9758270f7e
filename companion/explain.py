"""How a difference between the tracker's belief and the table reads as one play.

The tracker finds the changes (a card appeared in a zone, or vanished from
one); ``explain`` names the play they show — a troop or tactic laid at a flag,
Fog or Mud, a battlefield card, Scout, Redeploy/Deserter/Traitor with the card
they move, the troop a claimed Marshes or Watchtower takes — or raises
``Problem`` with a plain message and the flags to show it at (``Waiting`` while
half a guile play lies on the table). ``rules_error`` says the rules' objection
to a play in the same plain words. Both only read the tracker's state: what to
believe stays the tracker's say.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from companion.messages import N_, NP_, Message
from companion.rules.actions import (
    Action,
    Betray,
    Desert,
    Discard,
    Place,
    Play,
    Redeploy,
    Remove,
    Scout,
)
from companion.rules.cards import Card, Tactic, Terrain, parse_card, parse_terrain
from companion.rules.errors import (
    BattlefieldNotLaid,
    EnvironmentAlreadyThere,
    FlagAlreadyClaimed,
    IllegalAction,
    NotationError,
    SecondLeader,
    SideFull,
    TacticsLimit,
)
from companion.rules.position import Player
from companion.rules.table import played_card
from companion.zones import ZoneName, flag_words, who

if TYPE_CHECKING:
    from companion.tracker import TrackerState

GUILE: Final = frozenset({Tactic.SCOUT, Tactic.REDEPLOY, Tactic.DESERTER, Tactic.TRAITOR})


@dataclass(frozen=True, slots=True)
class Change:
    """One card that appeared in a zone (``added``) or vanished from it."""

    zone: str
    where: ZoneName
    token: str
    added: bool

    def text(self) -> Message:
        zone, card = self.where.text(), self.token
        if not self.added:
            return Message(N_("{card} vanished from {zone}"), card=card, zone=zone)
        if self.where.kind in ("guile", "discard"):
            return Message(N_("{card} appeared in {zone}"), card=card, zone=zone)
        if self.where.kind == "env":
            return Message(N_("{card} appeared at {zone}"), card=card, zone=zone)
        return Message(N_("{card} appeared on {zone}"), card=card, zone=zone)


class Problem(Exception):
    """The change cannot be explained; ``flags`` are where to show it."""

    def __init__(self, message: Message, flags: Iterable[int | None]) -> None:
        super().__init__(message)
        self.message = message
        self.flags = sorted(set(flags), key=lambda f: -1 if f is None else f)


class Waiting(Problem):
    pass


def explain(state: TrackerState, changes: list[Change]) -> tuple[Player, Action, str | None]:
    """The play ``changes`` show, by whom, and the discard pile a moved card went to;
    ``Problem`` when they show no one play (``Waiting`` for half a guile play)."""
    flags = [c.where.flag for c in changes]
    if any(c.where.kind == "terrain" for c in changes):
        return _terrain(state, changes, flags)
    game = state.game
    if game.effect is not None and len(changes) == 2:
        found = _effect_discard(state, changes)
        if found is not None:
            return found
    cards: dict[str, Card] = {}
    for c in changes:
        try:
            cards[c.token] = parse_card(c.token)
        except NotationError:
            raise Problem(
                Message(N_("{card} is not a card of the deck ({zone})"), card=c.token,
                        zone=c.where.text()),
                flags,
            ) from None
    adds = [c for c in changes if c.added]
    rems = [c for c in changes if not c.added]
    guile = [c for c in adds if c.where.kind == "guile"]
    others = [c for c in adds if c.where.kind != "guile"]
    listing = tuple(c.text() for c in changes)
    if len(guile) > 1:
        raise Problem(Message(N_("two guile cards at once: {changes}"), changes=listing), flags)
    if guile:
        g = guile[0]
        player, card = g.where.player, cards[g.token]
        if card not in GUILE:
            raise Problem(
                Message(N_("{card} lies in {side}'s guile area: only Scout, Redeploy, "
                           "Deserter and Traitor go there"), card=g.token, side=who(player)),
                flags,
            )
        if card is Tactic.SCOUT:
            if others or rems:
                raise Problem(
                    Message(N_("SCOUT and another change at once: {changes}"),
                            changes=listing),
                    flags,
                )
            return player, Scout(), None
        if not others and len(rems) <= 1:
            template = N_("{side} played {card}: now put the card at its new flag")
            if card is Tactic.DESERTER:
                template = N_("{side} played {card}: now put the card on a discard pile")
            if card is Tactic.REDEPLOY:
                template = N_("{side} played {card}: now put the card at its new flag "
                              "or on a discard pile")
            raise Waiting(Message(template, side=who(player), card=g.token), flags)
        if len(others) != 1 or len(rems) != 1 or others[0].token != rems[0].token:
            raise Problem(
                Message(N_("{card} moves one card, but: {changes}"), card=g.token,
                        changes=listing),
                flags,
            )
        return _move(player, card, rems[0], others[0], cards[rems[0].token], flags)
    if len(adds) == 1 and not rems:
        c = adds[0]
        card = cards[c.token]
        assert c.where.flag is not None or c.where.kind == "discard"
        if c.where.kind == "discard":
            raise Problem(
                Message(N_("{change} without a Deserter or Redeploy"), change=c.text()), flags
            )
        assert c.where.flag is not None
        if c.where.kind == "env" and not (isinstance(card, Tactic) and card.is_environment):
            raise Problem(
                Message(N_("{card} lies in flag {flag}'s environment spot: only Fog and Mud "
                           "go there"), card=c.token, flag=c.where.flag + 1),
                flags,
            )
        if c.where.kind == "formation" and isinstance(card, Tactic) and card.is_environment:
            raise Problem(
                Message(N_("{card} lies in {zone}: Fog and Mud go on the environment spot "
                           "beside the flag"), card=c.token, zone=c.where.text()),
                flags,
            )
        return c.where.player, Play(card, c.where.flag), None
    if len(adds) > 1 and not rems:
        raise Problem(
            Message(N_("two cards at once: {changes}; take back the one not played"),
                    changes=listing),
            flags,
        )
    if rems and not adds:
        raise Problem(
            Message(N_("a card vanished: {changes}; put it back"), changes=listing), flags
        )
    moved = len(adds) == 1 and len(rems) == 1 and adds[0].token == rems[0].token
    if moved:
        raise Problem(
            Message(N_("{card} moved ({changes}) without Redeploy or Traitor in a guile "
                       "area; put it back"), card=adds[0].token, changes=listing),
            flags,
        )
    raise Problem(
        Message(N_("these changes are not one play: {changes}"), changes=listing), flags
    )


def _terrain(
    state: TrackerState, changes: list[Change], flags: list[int | None]
) -> tuple[Player, Action, str | None]:
    """A battlefield card laid text-up in the flag row: who lays it is the rules' say."""
    listing = tuple(c.text() for c in changes)
    if len(changes) != 1 or not changes[0].added:
        raise Problem(
            Message(N_("battlefield cards are laid one at a time and stay: {changes}"),
                    changes=listing),
            flags,
        )
    c = changes[0]
    assert c.where.flag is not None
    try:
        terrain = parse_terrain(c.token)
    except NotationError:
        raise Problem(
            Message(N_("{card} lies on {zone}: only battlefield cards go there"),
                    card=c.token, zone=c.where.text()),
            flags,
        ) from None
    game = state.game
    player = game.placer() or game.to_move
    return player, Place(terrain, c.where.flag, True), None


def _effect_discard(
    state: TrackerState, changes: list[Change]
) -> tuple[Player, Action, str | None] | None:
    """The troop a claimed Marshes or Watchtower takes, laid on a discard pile."""
    effect = state.game.effect
    assert effect is not None
    rems = [c for c in changes if not c.added]
    adds = [c for c in changes if c.added]
    if len(rems) != 1 or len(adds) != 1 or rems[0].token != adds[0].token:
        return None
    src, dst = rems[0].where, adds[0].where
    if src.kind != "formation" or dst.kind != "discard" or src.flag is None:
        return None
    try:
        card = parse_card(rems[0].token)
    except NotationError:
        return None
    if effect.terrain is Terrain.MARSHES:
        return effect.actor, Discard(src.flag, card), adds[0].zone
    return effect.actor, Remove(src.flag, card), adds[0].zone


def _move(
    player: Player,
    guile: Card,
    source: Change,
    target: Change,
    card: Card,
    flags: list[int | None],
) -> tuple[Player, Action, str | None]:
    src, dst = source.where, target.where
    name = guile.token if isinstance(guile, Tactic) else str(guile)
    owner = player if guile is Tactic.REDEPLOY else player.other
    if src.kind != "formation" or src.side is not owner or src.flag is None:
        template = (
            N_("{card} takes one of {side}'s own formation cards, but {change}")
            if owner is player
            else N_("{card} takes one of {other}'s formation cards, but {change}")
        )
        raise Problem(
            Message(template, card=name, side=who(player), other=who(owner),
                    change=source.text()),
            flags,
        )
    if guile is Tactic.REDEPLOY:
        if dst.kind == "discard":
            return player, Redeploy(src.flag, card, None), target.zone
        if dst.kind == "formation" and dst.side is player and dst.flag is not None:
            return player, Redeploy(src.flag, card, dst.flag), None
    elif guile is Tactic.DESERTER:
        if dst.kind == "discard":
            return player, Desert(src.flag, card), target.zone
    elif dst.kind == "formation" and dst.side is player and dst.flag is not None:
        return player, Betray(src.flag, card, dst.flag), None
    raise Problem(
        Message(N_("{card}: {change} is not where that card can go"), card=name,
                change=target.text()),
        flags,
    )


def rules_error(
    state: TrackerState, player: Player, action: Action, *, first_known: bool
) -> Problem | None:
    """The rules' objection to ``player`` playing ``action`` now, in plain words."""
    flags: list[int | None] = []
    for attr in ("flag", "to"):
        value = getattr(action, attr, None)
        if isinstance(value, int):
            flags.append(value)
    flags = flags or [None]
    turn_known = first_known or state.game.played
    if played_card(action) is not None and player is not state.to_move and turn_known:
        return Problem(
            Message(N_("{side} played {action}, but it is {other}'s turn (if {other} cannot "
                       "play, {other} passes); take it back"), side=who(player),
                    action=action.notation(), other=who(state.to_move)),
            flags,
        )
    error = state.game.error(player, action)
    if error is None:
        return None
    return Problem(_plain(state, player, action, error), flags)


def _plain(state: TrackerState, player: Player, action: Action, error: IllegalAction) -> Message:
    what = action.notation()
    i = 0 if player is Player.NORTH else 1
    mine, theirs = state.table.tactics_played[i], state.table.tactics_played[1 - i]
    flag = getattr(action, "to", None)
    if not isinstance(error, SideFull) or not isinstance(flag, int):
        flag = getattr(action, "flag", None)
    where = flag_words(flag if isinstance(flag, int) else None)
    side, other = who(player), who(player.other)
    if isinstance(error, FlagAlreadyClaimed):
        return Message(N_("{action}: {flag} is claimed, no card may be added, moved or taken "
                          "there; undo it"), action=what, flag=_claimed_flag(error, where))
    if isinstance(error, TacticsLimit):
        return Message(
            NP_("{action}: tactics limit — {side} has played {n} tactic to {other}'s "
                "{theirs} and may not play another yet; take it back",
                "{action}: tactics limit — {side} has played {n} tactics to {other}'s "
                "{theirs} and may not play another yet; take it back"),
            action=what, side=side, other=other, n=mine, theirs=theirs,
        )
    if isinstance(error, SecondLeader):
        return Message(N_("{action}: {side} already played a leader; a second leader cannot "
                          "be played"), action=what, side=side)
    if isinstance(error, SideFull):
        return Message(N_("{action}: {side}'s side of {flag} is already full"), action=what,
                       side=side, flag=_claimed_flag(error, where))
    if isinstance(error, EnvironmentAlreadyThere):
        return Message(N_("{action}: that environment card already lies at {flag}"),
                       action=what, flag=_claimed_flag(error, where))
    if isinstance(error, BattlefieldNotLaid):
        return Message(N_("{action}: lay all nine battlefield cards before playing "
                          "({laid} of 9 laid)"), action=what,
                       laid=state.game.laid)
    # The rules' own words for the rarer refusals (a phrase, translated where shown).
    return Message(N_("{action}: {error}"), action=what, error=error.phrase)


def _claimed_flag(error: IllegalAction, where: Message) -> Message:
    """The flag an error names (its parameter ``flag``), else the one the action names."""
    flag = error.params.get("flag")
    return flag_words(flag - 1) if isinstance(flag, int) else where
