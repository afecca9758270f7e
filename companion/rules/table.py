"""The table: everything face up, and the rules for laying a card on it.

``Table`` is the part of the game both players (and the camera) can see: the
position plus the tactics each player has played. The full ``GameState``
adds hands, decks and the turn's steps on top of it; the companion's tracker,
which cannot see hands, rules on what it sees with the table alone.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Final

from companion.rules.actions import (
    Action,
    Betray,
    Desert,
    Discard,
    Play,
    Redeploy,
    Remove,
    Scout,
)
from companion.rules.cards import Card, Tactic, Troop
from companion.rules.claims import Ruling, rule_claim
from companion.rules.errors import (
    N_,
    CardNotInHand,
    ClaimRefused,
    EnvironmentAlreadyThere,
    FlagAlreadyClaimed,
    IllegalAction,
    InvalidTarget,
    NoSuchFlag,
    NotAFormationCard,
    SecondLeader,
    SideFull,
    TacticsLimit,
    WrongPhase,
    term,
)
from companion.rules.position import FLAG_COUNT, Player, Position, check_flag

_FLAG: Final = N_("flag {flag}")
_NOT_ON_SIDE: Final = N_("{card} is not on {side}'s side of flag {flag}")


def _idx(player: Player) -> int:
    return 0 if player is Player.NORTH else 1


def played_card(action: Action) -> Card | None:
    """The card an action plays from hand (the guile card for a guile action), else None."""
    if isinstance(action, Play):
        return action.card
    if isinstance(action, Scout):
        return Tactic.SCOUT
    if isinstance(action, Redeploy):
        return Tactic.REDEPLOY
    if isinstance(action, Desert):
        return Tactic.DESERTER
    if isinstance(action, Betray):
        return Tactic.TRAITOR
    return None


@dataclass(frozen=True, slots=True)
class Table:
    """The position and each player's record of tactics played (guile cards lie face up)."""

    position: Position = field(default_factory=Position)
    tactics_played: tuple[int, int] = (0, 0)
    leader_played: tuple[bool, bool] = (False, False)
    guile: tuple[tuple[Card, ...], tuple[Card, ...]] = ((), ())

    def face_up(self) -> Iterator[Card]:
        """Every card lying face up: at the flags, discarded, and played guile cards."""
        yield from self.position.cards_on_table()
        for cards in self.guile:
            yield from cards

    def can_play_tactic(self, player: Player) -> bool:
        """Tactics limit: not while having played more tactics than the opponent."""
        mine, theirs = self.tactics_played[_idx(player)], self.tactics_played[_idx(player.other)]
        return self.position.variant.tactics and mine <= theirs

    def rule(self, flag: int, player: Player) -> Ruling:
        return rule_claim(self.position, flag, player)

    # ----------------------------------------------------------------- checks
    def play_error(
        self, player: Player, action: Action, hand: Collection[Card] | None = None
    ) -> IllegalAction | None:
        """Why the rules forbid ``player`` playing ``action`` here, or None if they allow it.

        ``hand`` is the player's hand when known; unknown (the camera's view),
        the card must at least not be face up already.
        """
        card = played_card(action)
        if card is None:
            return WrongPhase(N_("{action} is not a card play"), action=action.notation())
        if hand is not None and card not in hand:
            return CardNotInHand(N_("{card} is not in {side}'s hand"), card=card.token,
                                 side=term(player))
        if hand is None and card in set(self.face_up()):
            return CardNotInHand(N_("{card} is already face up on the table"), card=card.token)
        if isinstance(card, Tactic):
            if not self.can_play_tactic(player):
                return TacticsLimit(N_("{side} has played {n}"), side=term(player),
                                    n=self.tactics_played[_idx(player)])
            if card.is_leader and self.leader_played[_idx(player)]:
                return SecondLeader(N_("{side} already played a leader"), side=term(player))
        flags = self.position.flags
        if isinstance(action, Play):
            if not 0 <= action.flag < FLAG_COUNT:
                return NoSuchFlag("{flag}", flag=action.flag + 1)
            flag = flags[action.flag]
            if flag.claimed_by is not None:
                return FlagAlreadyClaimed(_FLAG, flag=action.flag + 1)
            if isinstance(card, Tactic) and card.is_environment:
                if card in flag.environment:
                    return EnvironmentAlreadyThere(_FLAG, flag=action.flag + 1)
                return None
            if isinstance(card, Tactic) and not card.is_morale:
                return NotAFormationCard("{card}", card=card.token)
            if not flag.free_slots(player):
                return SideFull(_FLAG, flag=action.flag + 1)
            return None
        if isinstance(action, Redeploy | Desert | Betray):
            return self._move_error(player, action)
        return None  # Scout

    def _move_error(
        self, player: Player, action: Redeploy | Desert | Betray
    ) -> IllegalAction | None:
        flags = self.position.flags
        owner = player if isinstance(action, Redeploy) else player.other
        if not 0 <= action.flag < FLAG_COUNT:
            return NoSuchFlag("{flag}", flag=action.flag + 1)
        source = flags[action.flag]
        if source.claimed_by is not None:
            return FlagAlreadyClaimed(_FLAG, flag=action.flag + 1)
        if action.card not in source.cards(owner):
            return InvalidTarget(_NOT_ON_SIDE, card=action.card.token, side=term(owner),
                                 flag=action.flag + 1)
        if isinstance(action, Betray) and not isinstance(action.card, Troop):
            return InvalidTarget(N_("Traitor takes troops only"))
        to = None if isinstance(action, Desert) else action.to
        if to is None:
            return None
        if not 0 <= to < FLAG_COUNT:
            return NoSuchFlag("{flag}", flag=to + 1)
        if isinstance(action, Redeploy) and to == action.flag:
            return InvalidTarget(N_("Redeploy moves a card to another flag"))
        target = flags[to]
        if target.claimed_by is not None:
            return FlagAlreadyClaimed(_FLAG, flag=to + 1)
        if not target.free_slots(player):
            return SideFull(_FLAG, flag=to + 1)
        return None

    def plays(self, player: Player, hand: Collection[Card]) -> Iterator[Action]:
        """Every card play ``play_error`` allows from ``hand``, generated directly."""
        flags = self.position.flags
        open_flags = [i for i, f in enumerate(flags) if f.claimed_by is None]
        free = [i for i in open_flags if flags[i].free_slots(player) > 0]
        tactics_ok = self.can_play_tactic(player)
        for card in dict.fromkeys(hand):
            if isinstance(card, Troop):
                yield from (Play(card, i) for i in free)
                continue
            if not tactics_ok or (card.is_leader and self.leader_played[_idx(player)]):
                continue
            if card.is_morale:
                yield from (Play(card, i) for i in free)
            elif card.is_environment:
                yield from (Play(card, i) for i in open_flags if card not in flags[i].environment)
            elif card is Tactic.SCOUT:
                yield Scout()
            elif card is Tactic.REDEPLOY:
                for i in open_flags:
                    for c in flags[i].cards(player):
                        yield Redeploy(i, c, None)
                        yield from (Redeploy(i, c, j) for j in free if j != i)
            elif card is Tactic.DESERTER:
                for i in open_flags:
                    yield from (Desert(i, c) for c in flags[i].cards(player.other))
            elif card is Tactic.TRAITOR:
                for i in open_flags:
                    for c in flags[i].cards(player.other):
                        if isinstance(c, Troop):
                            yield from (Betray(i, c, j) for j in free)

    # ----------------------------------------------------------------- changes
    def with_play(self, player: Player, action: Action, moment: int) -> Table:
        """The table after ``player`` plays ``action`` (checked by ``play_error`` first).

        ``moment`` stamps formations that become complete (ties go against the
        side that completed last).
        """
        error = self.play_error(player, action)
        if error is not None:
            raise error
        card = played_card(action)
        assert card is not None
        table = self
        if isinstance(card, Tactic):
            i = _idx(player)
            counts, leaders, guile = (
                list(self.tactics_played),
                list(self.leader_played),
                list(self.guile),
            )
            counts[i] += 1
            leaders[i] = leaders[i] or card.is_leader
            if card.is_guile:
                guile[i] = (*guile[i], card)
            table = replace(
                self,
                tactics_played=(counts[0], counts[1]),
                leader_played=(leaders[0], leaders[1]),
                guile=(guile[0], guile[1]),
            )
        flags = list(self.position.flags)
        discards = self.position.discards
        if isinstance(action, Play):
            flag = flags[action.flag]
            if isinstance(card, Tactic) and card.is_environment:
                flags[action.flag] = flag.with_environment(card, moment)
            else:
                flags[action.flag] = flag.with_cards(player, (*flag.cards(player), card), moment)
        elif isinstance(action, Redeploy | Desert | Betray):
            owner = player if isinstance(action, Redeploy) else player.other
            source = flags[action.flag]
            left = tuple(c for c in source.cards(owner) if c != action.card)
            flags[action.flag] = source.with_cards(owner, left, moment)
            to = None if isinstance(action, Desert) else action.to
            if to is None:
                discards = (*discards, action.card)
            else:
                target = flags[to]
                flags[to] = target.with_cards(player, (*target.cards(player), action.card), moment)
        position = replace(self.position, flags=tuple(flags), discards=discards)
        return replace(table, position=position)

    def troops_at_open_flags(
        self, player: Player, flags: Iterable[int] | None = None
    ) -> list[Discard]:
        """``player``'s troops at unclaimed flags (of ``flags``, default all), as discards."""
        indexes = range(FLAG_COUNT) if flags is None else flags
        out = []
        for i in indexes:
            flag = self.position.flags[i]
            if flag.claimed_by is None:
                out += [Discard(i, c) for c in flag.cards(player) if isinstance(c, Troop)]
        return out

    def marshes_targets(self, loser: Player) -> list[Discard]:
        """Marshes claimed: the troops ``loser`` may discard (any unclaimed flag)."""
        return self.troops_at_open_flags(loser)

    def watchtower_targets(self, index: int, claimant: Player) -> list[Remove]:
        """Watchtower ``index`` claimed: the opponent troops at unclaimed adjacent flags."""
        found = self.troops_at_open_flags(claimant.other, self.position.adjacent(index))
        return [Remove(d.flag, d.card) for d in found]

    def with_discard(self, owner: Player, index: int, card: Card, moment: int) -> Table:
        """The table after ``card`` leaves ``owner``'s side of flag ``index`` face up for the discards.

        (Marshes and Watchtower; the game checks whose decision it is.)
        """
        check_flag(index)
        flag = self.position.flags[index]
        if flag.claimed_by is not None:
            raise FlagAlreadyClaimed(_FLAG, flag=index + 1)
        if card not in flag.cards(owner):
            raise InvalidTarget(_NOT_ON_SIDE, card=card.token, side=term(owner), flag=index + 1)
        flags = list(self.position.flags)
        flags[index] = flag.with_cards(
            owner, tuple(c for c in flag.cards(owner) if c != card), moment
        )
        position = replace(
            self.position, flags=tuple(flags), discards=(*self.position.discards, card)
        )
        return replace(self, position=position)

    def with_claim(self, index: int, player: Player) -> Table:
        """The table after ``player`` claims flag ``index``; ClaimRefused carries the ruling."""
        check_flag(index)
        ruling = self.rule(index, player)
        if not ruling.granted:
            raise ClaimRefused(term(ruling.reason.value), ruling)
        flags = list(self.position.flags)
        flags[index] = replace(flags[index], claimed_by=player)
        return replace(self, position=replace(self.position, flags=tuple(flags)))
