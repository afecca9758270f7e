"""Property tests: the engine's formations and claim rulings agree with the brute-force oracle.

Random formations and positions with wilds (leaders, CC, SB), Fog, Mud, Fog and
Mud together, discards and claimed flags; every example is the same on every
run (``derandomize``), so a failure in CI reproduces locally.
"""

from __future__ import annotations

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from companion.rules.cards import Troop, parse_card
from companion.rules.claims import adjudicate, rule_claim
from companion.rules.formations import (
    Formation,
    Strength,
    best_completion,
    evaluate,
    troop_mask,
    troops_in,
)
from companion.rules.notation import dump_rulings, parse_position
from companion.rules.position import Player
from tests.rules import oracle
from tests.rules.strategies import (
    COST_BUDGET,
    ORACLE_SETTINGS,
    ClaimCase,
    claim_cases,
    formation_cards,
    sizes,
    troop_tokens,
)


def engine_strength(strength: Strength) -> oracle.Strength:
    return int(strength.formation), strength.total


def troop_tokens_of(mask: int) -> set[str]:
    return {t.token for t in troops_in(mask)}


@settings(ORACLE_SETTINGS, max_examples=600)
@given(sizes.flatmap(formation_cards), st.booleans())
def test_evaluate_matches_oracle(cards: list[str], fog: bool) -> None:
    expected = oracle.strength(cards, fog)
    event(f"{oracle.RANK_NAMES[expected[0]]}, {sum(c in oracle.WILDS for c in cards)} wilds")
    got = evaluate([parse_card(t) for t in cards], fog=fog)
    assert engine_strength(got) == expected


@st.composite
def completion_cases(
    draw: st.DrawFn,
) -> tuple[list[str], int, list[str], bool, oracle.Strength | None]:
    """A partial formation, a few unseen troops to complete it from, and a bar to beat."""
    size = draw(sizes)
    fog = draw(st.booleans())
    cards = draw(formation_cards(draw(st.integers(0, size)), max_wilds=2))
    limit = 0
    while limit < 20 and oracle.completion_cost(cards, size, limit + 1) <= COST_BUDGET:
        limit += 1
    pool = draw(st.lists(troop_tokens, unique=True, max_size=limit))
    unseen = [t for t in pool if t not in cards]
    bar: oracle.Strength | None = None
    if draw(st.booleans()):
        rival = draw(formation_cards(size, max_wilds=1))
        bar = oracle.strength(rival, fog)
    return cards, size, unseen, fog, bar


@settings(ORACLE_SETTINGS, max_examples=400)
@given(completion_cases())
def test_best_completion_matches_oracle(
    case: tuple[list[str], int, list[str], bool, oracle.Strength | None],
) -> None:
    cards, size, unseen, fog, bar = case
    better_than = None if bar is None else Strength(Formation(bar[0]), bar[1])
    found = best_completion(
        [parse_card(t) for t in cards],
        size,
        troop_mask(t for t in map(parse_card, unseen) if isinstance(t, Troop)),
        fog=fog,
        better_than=better_than,
    )
    best = oracle.best_completion(cards, size, unseen, fog)
    if best is None or (bar is not None and best <= bar):
        event("no (better) completion")
        assert found is None
        return
    event(f"completes to {oracle.RANK_NAMES[best[0]]}")
    assert found is not None
    assert engine_strength(found.strength) == best
    added = [t.token for t in found.added]
    assert len(added) == size - len(cards) and set(added) <= set(unseen)
    assert oracle.strength([*cards, *added], fog) == best


def _expected_side(
    case: ClaimCase, player: str, found: list[str] | None
) -> tuple[dict[str, object], str]:
    """What the rulings must print for ``player`` at the target flag, from the oracle."""
    mine, theirs = (case.north, case.south) if player == "north" else (case.south, case.north)
    fog = case.fog or case.terrain == "WOODLAND"
    hills = case.terrain == "HILLS"
    size = 4 if case.mud or case.terrain == "RIVER" else 3
    defender = None if case.defender is None else "mine" if case.defender == player else "theirs"
    reason, _, threat = oracle.rule_claim(
        mine,
        theirs,
        fog=fog,
        size=size,
        unseen=case.unseen,
        claimed=case.claimed_by[case.target] is not None,
        game_over=oracle.winner(case.claimed_by, case.towns) is not None,
        i_completed_first=case.completed_first == player,
        hills=hills,
        defender=defender,
    )
    side: dict[str, object] = {"complete": len(mine) >= size + (defender == "mine")}
    if side["complete"]:
        rank, total = oracle.strength(mine, fog, hills=hills, defended=defender == "mine")
        side |= {"formation": oracle.RANK_NAMES[rank], "sum": total}
    side["can_claim"] = reason in oracle.GRANTING
    if reason not in oracle.GRANTING:
        side["reason"] = oracle.REASON_TEXT[reason]
    if reason in ("WEAKER", "TIE_COMPLETED_LAST"):
        side["counterexample"] = []  # their complete formation already wins
    elif reason == "BEATABLE":
        # Any strongest completion will do: check the engine's is one, then expect it.
        assert found is not None and threat is not None
        assert len(found) == size + (defender == "theirs") - len(theirs)
        assert set(found) <= set(case.unseen)
        reached = oracle.strength(
            [*theirs, *found], fog, hills=hills, defended=defender == "theirs"
        )
        assert reached == threat
        side["counterexample"] = found
    return side, reason


@pytest.mark.slow  # about 10 s of brute force on one core
@settings(ORACLE_SETTINGS, max_examples=600)
@given(claim_cases())
def test_claim_rulings_match_oracle(case: ClaimCase) -> None:
    position = parse_position(case.document)
    assert troop_tokens_of(position.unseen_troops()) == set(case.unseen)
    rulings = dump_rulings(adjudicate(position))
    assert rulings["winner"] == oracle.winner(case.claimed_by, case.towns)
    printed = rulings["flags"][case.target]  # type: ignore[index]
    assert printed["flag"] == case.target + 1
    assert printed["claimed_by"] == case.claimed_by[case.target]
    ground = [n for n, on in (("fog", case.fog), ("mud", case.mud)) if on]
    env = "+".join([*ground, (case.terrain or "").lower()]).strip("+") or "plain"
    for player in ("north", "south"):
        ruling = rule_claim(position, case.target, Player(player))
        found = [t.token for t in ruling.counterexample or ()]
        expected, reason = _expected_side(case, player, found)
        event(f"{reason} ({env})")
        assert ruling.reason.name == reason
        assert printed[player] == expected
        if reason == "BEATABLE":
            assert ruling.threat is not None
            threat = oracle.strength(
                [*(case.south if player == "north" else case.north), *found],
                case.fog or case.terrain == "WOODLAND",
                hills=case.terrain == "HILLS",
                defended=case.defender not in (None, player),
            )
            assert engine_strength(ruling.threat) == threat
