"""The table alone, as the camera sees it: no hands, the same rules for laying cards."""

from __future__ import annotations

import pytest

from companion.rules import errors
from companion.rules.actions import Betray, Play, Redeploy, Scout
from companion.rules.cards import Tactic, parse_card
from companion.rules.claims import Reason
from companion.rules.position import Player, Position
from companion.rules.table import Table

from .gamekit import flag

N, S = Player.NORTH, Player.SOUTH
c = parse_card


def table_with(*flags_: tuple[int, object], discards: tuple = ()) -> Table:  # type: ignore[type-arg]
    flags = [flag() for _ in range(9)]
    for number, f in flags_:
        flags[number - 1] = f  # type: ignore[assignment]
    return Table(Position(flags=tuple(flags), discards=discards))


def test_without_a_hand_a_card_already_face_up_cannot_be_played_again() -> None:
    table = table_with((1, flag(north="R7")), discards=(c("B2"),))
    for card in ("R7", "B2"):
        error = table.play_error(S, Play(c(card), 4))
        assert isinstance(error, errors.CardNotInHand) and "face up" in str(error)
    assert table.play_error(S, Play(c("R8"), 4)) is None


def test_tactics_record_counts_guile_and_leaders_for_good() -> None:
    table = Table().with_play(S, Play(Tactic.ALEXANDER, 0), moment=1)
    assert table.tactics_played == (0, 1) and table.leader_played == (False, True)
    assert isinstance(table.play_error(S, Play(Tactic.FOG, 2)), errors.TacticsLimit)
    table = table.with_play(N, Scout(), moment=2)
    assert table.guile == ((Tactic.SCOUT,), ()) and Tactic.SCOUT in set(table.face_up())
    assert isinstance(table.play_error(S, Play(Tactic.DARIUS, 3)), errors.SecondLeader)


def test_moves_between_flags_restamp_completion() -> None:
    table = table_with((1, flag(north="R1 R2 R3", south="B4 B5 B6", first=N)))
    moved = table.with_play(N, Redeploy(0, c("R1"), 3), moment=7)
    assert moved.position.flags[0].north_completed is None
    taken = table.with_play(S, Betray(0, c("R3"), 4), moment=8)
    assert taken.position.flags[0].north == (c("R1"), c("R2"))
    assert taken.position.flags[4].south == (c("R3"),)
    assert taken.position.flags[0].completed_first() is None
    with pytest.raises(errors.SideFull):
        table.with_play(S, Betray(0, c("R3"), 0), moment=8)


def test_with_claim_refuses_with_the_ruling() -> None:
    table = table_with((2, flag(north="B9", south="R1 R2 R3")))
    with pytest.raises(errors.ClaimRefused) as refused:
        table.with_claim(1, S)
    assert refused.value.ruling.reason is Reason.BEATABLE
    granted = table_with((2, flag(north="B1", south="R8 R9 R10"))).with_claim(1, S)
    assert granted.position.flags[1].claimed_by is S
