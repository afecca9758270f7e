"""Terrain battlefields (medieval edition) in adjudication, checked by hand and by brute force."""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.rules.cards import TROOPS, Terrain, parse_card
from companion.rules.claims import Reason, rule_claim
from companion.rules.errors import NotationError
from companion.rules.formations import Formation, Strength, troop_mask
from companion.rules.notation import dump_position, parse_position
from companion.rules.position import Flag, Player, Position
from companion.rules.terrain import side_best, side_strength

from . import oracle
from .strategies import ORACLE_SETTINGS

N, S = Player.NORTH, Player.SOUTH


def cards(text: str) -> tuple:  # type: ignore[type-arg]
    return tuple(parse_card(t) for t in text.split())


def at(flag: Flag) -> Position:
    return Position(flags=(flag, *(Flag() for _ in range(8))))


# --- brute force, from RULES.md's terrain table -------------------------------------------


def brute_strength(tokens: list[str], *, hills: bool, defended: bool, fog: bool) -> tuple[int, int]:
    """Every wild identity; Hills mirror values; a defender drops (any) highest card."""
    fixed = [oracle.identity(t) for t in tokens if t not in oracle.WILD_IDENTITIES]
    best = None
    for choice in oracle.wild_choices(tokens):
        cards_ = [(c, 11 - v if hills else v) for c, v in fixed + list(choice)]
        options = [cards_]
        if defended:
            top = max(v for _, v in cards_)
            options = [cards_[:i] + cards_[i + 1 :] for i, (_, v) in enumerate(cards_) if v == top]
        for kept in options:
            found = (oracle.SUM, sum(v for _, v in kept)) if fog else oracle.classify(kept)
            if best is None or found > best:
                best = found
    assert best is not None
    return best


def brute_best(tokens: list[str], size: int, pool: list[str], **kw: bool) -> tuple[int, int] | None:
    found = [
        brute_strength([*tokens, *added], **kw)
        for added in combinations(sorted(set(pool) - set(tokens)), size - len(tokens))
    ]
    return max(found) if found else None


# --- by hand --------------------------------------------------------------------------------


def test_hills_invert_values_so_low_cards_win() -> None:
    hills = Flag(north=cards("R1 R2 R3"), south=cards("G10 G9 G8"), terrain=Terrain.HILLS)
    assert side_strength(hills, N) == Strength(Formation.WEDGE, 27)
    assert side_strength(hills, S) == Strength(Formation.WEDGE, 6)
    # Shield Bearers (1-3) become 8-10 there; Companion Cavalry (8) becomes 3.
    sb = Flag(north=cards("SB B1 B2"), terrain=Terrain.HILLS)
    assert side_strength(sb, N) == Strength(Formation.WEDGE, 27)


def test_hills_counterexample_names_printed_cards() -> None:
    flag = Flag(
        north=cards("R4 R5 R6"), south=cards("B2"), terrain=Terrain.HILLS, north_completed=0
    )
    ruling = rule_claim(at(flag), 0, N)
    assert ruling.reason is Reason.BEATABLE
    assert sorted(t.token for t in ruling.counterexample or ()) == ["B1", "B3"]


def test_castle_defender_plays_one_more_and_drops_the_highest() -> None:
    castle = Flag(
        north=cards("R10 R3 R4 R5"), south=cards("B6 G6 Y6"), terrain=Terrain.CASTLE, defender=N
    )
    assert castle.side_size(N) == 4 and castle.side_size(S) == 3
    assert side_strength(castle, N) == Strength(Formation.WEDGE, 12)  # R10 ignored
    short = replace(castle, north=cards("R3 R4 R5"))
    assert not short.is_complete(N)
    # Against an incomplete defender the attacker must rule out every 4-card line-up.
    attack = Flag(
        north=cards("R1"),
        south=cards("B8 B9 B10"),
        terrain=Terrain.FORTRESS,
        defender=N,
        south_completed=0,
    )
    ruling = rule_claim(at(attack), 0, S)
    assert ruling.granted, ruling  # R1 caps a defender wedge at R1-R3: nothing beats 27


def test_river_needs_four_woodland_counts_sums_town_counts_double() -> None:
    river = Flag(north=cards("R1 R2 R3"), terrain=Terrain.RIVER)
    assert river.size == 4 and not river.is_complete(N)
    wood = Flag(north=cards("R1 R2 R3"), south=cards("B9 G2 Y1"), terrain=Terrain.WOODLAND)
    assert side_strength(wood, N) == Strength(Formation.SUM, 6)
    assert side_strength(wood, S) == Strength(Formation.SUM, 12)
    flags = [Flag() for _ in range(9)]
    flags[4] = Flag(terrain=Terrain.TOWN, claimed_by=S)
    flags[3] = Flag(claimed_by=S)
    flags[5] = Flag(claimed_by=S)
    town = Position(flags=tuple(flags))
    assert town.flag_count(S) == 4 and town.winner() is None  # 4-5-6 not adjacent through the Town
    flags[0] = Flag(claimed_by=S)
    assert Position(flags=tuple(flags)).winner() is S  # the Town counts two: 5 flags


def test_position_file_terrain_and_defender() -> None:
    raw = {
        "format": "battleline-position/1",
        "variant": {"terrain": True},
        "flags": [{"north": [], "south": [], "terrain": "castle", "defender": "north"}]
        + [{"north": [], "south": []} for _ in range(8)],
    }
    position = parse_position(raw)
    assert position.flags[0].defender is N and position.flags[0].terrain is Terrain.CASTLE
    assert parse_position(dump_position(position)) == position
    del raw["flags"][0]["defender"]  # type: ignore[index]
    with pytest.raises(NotationError, match=r"flags\[0\]\.defender: required"):
        parse_position(raw)
    raw["flags"][1]["defender"] = "south"  # type: ignore[index]
    raw["flags"][0]["terrain"] = "river"  # type: ignore[index]
    with pytest.raises(NotationError, match=r"flags\[1\]\.defender: only a CASTLE"):
        parse_position(raw)


# --- by brute force -------------------------------------------------------------------------

TOKENS = st.sampled_from([t.token for t in TROOPS] + ["AL", "CC", "SB"])


@st.composite
def terrain_cases(draw: st.DrawFn) -> tuple[list[str], list[str], bool, bool, bool, bool]:
    terrain = draw(st.sampled_from(["hills", "castle", "plain"]))
    hills, defended = terrain == "hills", terrain == "castle"
    fog, mud = draw(st.booleans()), draw(st.booleans())
    size = (4 if mud else 3) + (1 if defended else 0)
    have = draw(st.lists(TOKENS, unique=True, min_size=max(0, size - 2), max_size=size))
    pool = draw(
        st.lists(st.sampled_from([t.token for t in TROOPS]), unique=True, min_size=2, max_size=9)
    )
    return have, pool, hills, defended, fog, mud


@ORACLE_SETTINGS
@given(terrain_cases())
def test_terrain_strengths_and_completions_match_brute_force(
    case: tuple[list[str], list[str], bool, bool, bool, bool],
) -> None:
    have, pool, hills, defended, fog, mud = case
    terrain = Terrain.HILLS if hills else Terrain.CASTLE if defended else None
    flag = Flag(
        north=cards(" ".join(have)),
        fog=fog,
        mud=mud,
        terrain=terrain,
        defender=N if defended else None,
    )
    size = flag.side_size(N)
    unseen = troop_mask(parse_card(t) for t in pool) & ~troop_mask(
        c for c in flag.north if c in TROOPS
    )
    found = side_best(flag, N, unseen)
    expected = brute_best(have, size, pool, hills=hills, defended=defended, fog=fog)
    assert (found.strength if found else None) == expected
    if found is not None:  # the completion it names really reaches that strength
        added = [t.token for t in found.added]
        assert brute_strength([*have, *added], hills=hills, defended=defended, fog=fog) == expected
        assert set(added) <= set(pool) - set(have)
