"""The claim proof: rulings on every flag for both players, with reasons.

A claim needs a complete formation and proof that the opponent cannot beat it:
against a complete opponent the two are compared; against an incomplete one,
no completion from the unseen troops (deck and both hands) may beat it. A
possible tie favours the claimant then, because the opponent would complete
last. Unplayed tactics are ignored; wilds already in the opponent's
formation take their best identity.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from companion.rules.cards import Troop
from companion.rules.formations import Strength
from companion.rules.position import FLAG_COUNT, PLAYERS, Flag, Player, Position
from companion.rules.terrain import side_best, side_strength


class Reason(enum.Enum):
    """Why a claim is granted or refused; the value is the text rulings print."""

    # granted
    STRONGER = "stronger than the opponent's complete formation"
    TIE_COMPLETED_FIRST = "equal formations, completed first"
    UNBEATABLE = "no completion of the opponent's side can beat it"
    OPPONENT_CANNOT_COMPLETE = "too few unseen troops remain for the opponent to complete"
    # refused
    CLAIMED = "flag already claimed"
    GAME_OVER = "the game is already decided"
    INCOMPLETE = "formation incomplete"
    WEAKER = "the opponent's complete formation is stronger"
    TIE_COMPLETED_LAST = "equal formations, the opponent completed first"
    BEATABLE = "the opponent could still complete a stronger formation"

    @property
    def grants(self) -> bool:
        return self in _GRANTING


_GRANTING = frozenset(
    {
        Reason.STRONGER,
        Reason.TIE_COMPLETED_FIRST,
        Reason.UNBEATABLE,
        Reason.OPPONENT_CANNOT_COMPLETE,
    }
)


@dataclass(frozen=True, slots=True)
class Ruling:
    """The verdict on one player's claim of one flag (index 0..8).

    ``strength`` is the claimant's formation when complete; for a refusal
    because the opponent could still win, ``counterexample`` lists the troops
    the opponent could add (empty when their complete formation already wins)
    and ``threat`` how strong that would be.
    """

    flag: int
    player: Player
    reason: Reason
    strength: Strength | None = None
    counterexample: tuple[Troop, ...] | None = None
    threat: Strength | None = None

    @property
    def granted(self) -> bool:
        return self.reason.grants


def rule_claim(
    position: Position, index: int, player: Player, *, unseen: int | None = None
) -> Ruling:
    """Rule on ``player`` claiming flag ``index`` (0..8) of ``position``.

    ``unseen`` may pass ``position.unseen_troops()`` when ruling many flags.
    """
    flag = position.flags[index]
    if flag.claimed_by is not None:
        return Ruling(index, player, Reason.CLAIMED)
    if position.winner() is not None:
        return Ruling(index, player, Reason.GAME_OVER)
    mine = side_strength(flag, player)
    if mine is None:
        return Ruling(index, player, Reason.INCOMPLETE)
    opponent = player.other
    theirs = side_strength(flag, opponent)
    if theirs is not None:
        if mine > theirs:
            return Ruling(index, player, Reason.STRONGER, mine)
        if mine == theirs and flag.completed_first() is player:
            return Ruling(index, player, Reason.TIE_COMPLETED_FIRST, mine)
        reason = Reason.WEAKER if theirs > mine else Reason.TIE_COMPLETED_LAST
        return Ruling(index, player, reason, mine, (), theirs)
    if unseen is None:
        unseen = position.unseen_troops()
    threat = side_best(flag, opponent, unseen, better_than=mine)
    if threat is not None:
        return Ruling(index, player, Reason.BEATABLE, mine, threat.added, threat.strength)
    if unseen.bit_count() < flag.free_slots(opponent):
        return Ruling(index, player, Reason.OPPONENT_CANNOT_COMPLETE, mine)
    return Ruling(index, player, Reason.UNBEATABLE, mine)


@dataclass(frozen=True, slots=True)
class FlagRulings:
    """Both players' rulings on one flag."""

    index: int
    flag: Flag
    north: Ruling
    south: Ruling

    def ruling(self, player: Player) -> Ruling:
        return self.north if player is Player.NORTH else self.south


@dataclass(frozen=True, slots=True)
class Rulings:
    """Every claim ruled at once, and the winner if claimed flags already decide it."""

    flags: tuple[FlagRulings, ...]
    winner: Player | None

    def claimable(self, player: Player) -> list[int]:
        """Indexes (0..8) of the flags ``player`` could claim now."""
        return [f.index for f in self.flags if f.ruling(player).granted]


def adjudicate(position: Position) -> Rulings:
    """Rule on every flag for both players."""
    unseen = position.unseen_troops()
    flags = []
    for index in range(FLAG_COUNT):
        north, south = (rule_claim(position, index, p, unseen=unseen) for p in PLAYERS)
        flags.append(FlagRulings(index, position.flags[index], north, south))
    return Rulings(tuple(flags), position.winner())
