"""The text game record: written, read back and replayed to the same game."""

from __future__ import annotations

import pytest

from companion.rules import errors
from companion.rules.actions import Claim, Place
from companion.rules.battlefield import Setup
from companion.rules.claims import Reason
from companion.rules.errors import (
    BattlefieldNotLaid,
    IllegalAction,
    NotationError,
    ResultMismatch,
    RulingMismatch,
)
from companion.rules.game import Dealer, GameState
from companion.rules.notation import dump_position
from companion.rules.position import Player, Variant
from companion.rules.record import GameRecord, parse_record
from companion.rules.table_record import (
    TABLE_RECORD_FORMAT,
    parse_table_record,
    table_record_of,
)
from companion.sim.bots import GreedyBot

from .gamekit import ClaimingBot


def _recorded_game(seed: int) -> tuple[GameRecord, GameState]:
    record, state, dealer = GameRecord(Player.NORTH), GameState.new(Player.NORTH), Dealer(seed)
    bots = {p: GreedyBot(seed) for p in Player}
    while not state.is_over:
        action = (
            dealer.reveal(state) if state.chance_outcomes() else bots[state.player].choose(state)
        )
        state = state.apply(action)
        record = record.with_action(action)
    return record, state


def test_a_recorded_game_round_trips_and_replays_to_the_same_end() -> None:
    record, final = _recorded_game(9)
    text = record.text()
    assert text.startswith('[Format "battleline-record/1"]')
    assert final.outcome is not None and final.outcome.ending.value in text
    again = parse_record(text)
    assert again == record
    assert again.replay() == final


def test_a_broken_record_names_the_line_or_the_action() -> None:
    record, _ = _recorded_game(2)
    lines = record.text().splitlines()
    bad = [*lines[:10], "R7@0", *lines[10:]]
    with pytest.raises(NotationError, match="line 11"):
        parse_record("\n".join(bad))
    with pytest.raises(NotationError, match="Format"):
        parse_record("deal R1\n")
    # Both record formats read their headers alike: each value checked, headers first.
    text = record.text()
    with pytest.raises(NotationError, match=r'Tactics: expected "true" or "false"'):
        parse_record(text.replace('[Tactics "true"]', '[Tactics "yes"]'))
    with pytest.raises(NotationError, match="headers come before the events"):
        parse_record(text + '[Result "*"]\n')
    cut = GameRecord(Player.NORTH, actions=record.actions[:20] + record.actions[21:])
    with pytest.raises(IllegalAction, match="action 21"):
        cut.replay()


# ----------------------------------------------------------------- the table record
def _full_game(seed: int, variant: Variant, setup: Setup = Setup.STANDARD) -> GameRecord:
    record = GameRecord(Player.SOUTH, variant, setup=setup)
    state, dealer = GameState.new(Player.SOUTH, variant, setup), Dealer(seed)
    bot = ClaimingBot(seed) if variant.terrain else GreedyBot(seed)
    while not state.is_over:
        action = dealer.reveal(state) if state.chance_outcomes() else bot.choose(state)
        state = state.apply(action)
        record = record.with_action(action)
    return record


@pytest.mark.parametrize(
    ("seed", "variant", "setup"),
    [
        (3, Variant(), Setup.STANDARD),
        (4, Variant(claim_timing="advanced"), Setup.STANDARD),
        (5, Variant(terrain=True), Setup.STANDARD),
        (6, Variant(terrain=True, edition="medieval"), Setup.HUNDRED_YEARS_WAR),
    ],
)
def test_the_table_record_round_trips_and_replays_to_the_engines_table(
    seed: int, variant: Variant, setup: Setup
) -> None:
    full = _full_game(seed, variant, setup)
    final = full.replay()
    table = table_record_of(full)
    text = table.text()
    assert text.startswith(f'[Format "{TABLE_RECORD_FORMAT}"]')
    assert not any(line.startswith(("deal", "draw")) for line in text.splitlines())
    again = parse_table_record(text)
    assert again == table
    game = again.replay()
    assert game.outcome == final.outcome
    # Moments differ (no draws here), but which side completed first does not.
    assert dump_position(game.position)["flags"] == dump_position(final.position)["flags"]
    assert set(game.position.discards) == set(final.position.discards)
    if variant.terrain:
        assert sum(isinstance(e.action, Place) for e in again.events) == 9
    claims = [e for e in again.events if isinstance(e.action, Claim)]
    assert claims and all(e.reason is not None and e.reason.grants for e in claims)


def _numbered(text: str) -> list[tuple[int, str]]:
    return [(n, line) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]


def test_the_first_illegal_table_event_is_named_with_its_line_and_rule() -> None:
    text = table_record_of(_full_game(8, Variant())).text()
    lines = text.splitlines()
    first_event = next(n for n, line in _numbered(text) if not line.startswith("["))
    # The second event played by the first player again: not their turn.
    swapped = lines[:]
    swapped[first_event] = swapped[first_event].replace("north", "south", 1)
    with pytest.raises(errors.NotYourTurn, match=f"line {first_event + 1} "):
        parse_table_record("\n".join(swapped)).replay()
    # A card laid twice: already face up; a fourth card at a side of three.
    head = f'[Format "{TABLE_RECORD_FORMAT}"]\n[First "south"]\n\n'
    with pytest.raises(errors.CardNotInHand, match=r"line 5 .*R7 is already face up"):
        parse_table_record(head + "south R7@3\nnorth R7@4\n").replay()
    full = "south R10@1\nnorth B1@2\nsouth R9@1\nnorth B2@2\nsouth R8@1\nnorth B3@2\n"
    with pytest.raises(errors.SideFull, match="line 10 "):
        parse_table_record(head + full + "south R7@1\n").replay()
    claimed = full + "south claim 1\nsouth R7@2\nnorth B4@1\n"
    with pytest.raises(errors.FlagAlreadyClaimed, match="line 12 "):
        parse_table_record(head + claimed).replay()


def test_a_table_record_with_a_wrong_ruling_or_result_is_refused() -> None:
    table = table_record_of(_full_game(8, Variant()))
    text = table.text()
    claim = next(e for e in table.events if isinstance(e.action, Claim))
    assert claim.reason is not None
    other = next(r for r in Reason if r.grants and r is not claim.reason)
    wrong = text.replace(claim.text(), claim.text().replace(claim.reason.value, other.value), 1)
    with pytest.raises(RulingMismatch, match=claim.reason.value):
        parse_table_record(wrong).replay()
    result = table.result
    flipped = "north" if result.startswith("south") else "south"
    wrong_result = text.replace(f'[Result "{result}"]', f'[Result "{flipped}{result[5:]}"]')
    with pytest.raises(ResultMismatch):
        parse_table_record(wrong_result).replay()


def test_a_claim_the_rules_refuse_is_named_with_its_ruling() -> None:
    record = parse_table_record(
        f'[Format "{TABLE_RECORD_FORMAT}"]\n[First "south"]\n\nsouth R10@1\nnorth B2@1\n'
        "south R9@1\nnorth claim 1\n"
    )
    with pytest.raises(errors.ClaimRefused, match=r"line 7 .*formation incomplete"):
        record.replay()


def test_terrain_on_the_table_is_laid_before_play_and_only_with_terrain() -> None:
    head = f'[Format "{TABLE_RECORD_FORMAT}"]\n[First "south"]\n'
    with pytest.raises(errors.TerrainNotInPlay, match="line 4"):
        parse_table_record(head + "\nsouth place CASTLE@1 up\n").replay()
    terrain = head + '[Terrain "true"]\n\nsouth place CASTLE@1 up\nsouth R7@2\n'
    with pytest.raises(BattlefieldNotLaid, match=r"line 6 .*1 of 9"):
        parse_table_record(terrain).replay()
    twice = head + '[Terrain "true"]\n\nsouth place CASTLE@1 up\nnorth place CASTLE@2 up\n'
    with pytest.raises(errors.BattlefieldTaken, match="line 6"):
        parse_table_record(twice).replay()


def test_bad_table_record_text_names_the_line_or_header() -> None:
    head = f'[Format "{TABLE_RECORD_FORMAT}"]\n'
    with pytest.raises(NotationError, match="line 3: 'R7@3' is not an event"):
        parse_table_record(head + "\nR7@3\n")
    with pytest.raises(NotationError, match="line 2: 'r0' is not a card token"):
        parse_table_record(head + "south R0@3\n")
    with pytest.raises(NotationError, match="line 2: only a claim carries a ruling"):
        parse_table_record(head + "south R7@3 {formation incomplete}\n")
    with pytest.raises(NotationError, match="line 2: 'formation incomplete' is not a reason"):
        parse_table_record(head + "south claim 3 {formation incomplete}\n")
    with pytest.raises(NotationError, match="First"):
        parse_table_record(head + '[First "east"]\n')
    with pytest.raises(NotationError, match="Result"):
        parse_table_record(head + '[Result "south won"]\n')
    with pytest.raises(NotationError, match="Format"):
        parse_table_record('[Format "battleline-record/1"]\n')
    with pytest.raises(NotationError, match="Setup"):
        parse_table_record(head + '[Setup "hundred-years-war"]\n')
