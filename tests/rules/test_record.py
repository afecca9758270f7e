"""The text game record: written, read back and replayed to the same game."""

from __future__ import annotations

import pytest

from companion.bots import GreedyBot
from companion.rules.errors import IllegalAction, NotationError
from companion.rules.game import Dealer, GameState
from companion.rules.position import Player
from companion.rules.record import GameRecord, parse_record


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
    cut = GameRecord(Player.NORTH, actions=record.actions[:20] + record.actions[21:])
    with pytest.raises(IllegalAction, match="action 21"):
        cut.replay()
