"""The journal on disk, and the replay and export commands that read it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.app import Companion
from companion.records.export import export_text
from companion.records.export import main as export_main
from companion.records.journal import Journal, JournalError, find_unfinished, read_journal
from companion.records.replay import main as replay_main
from companion.rules.actions import Claim
from companion.rules.game import Dealer, GameState
from companion.rules.position import Player, Variant
from companion.rules.record import GameRecord
from companion.rules.table_record import parse_table_record, result_text
from companion.sim.bots import GreedyBot
from companion.sim.simtable import TruthSnapshots, script_game
from companion.sim.simulate import Driver
from companion.tracker import Tracker
from companion.ui.terminal import NoView
from hardware.config import LightsConfig
from hardware.lights import NoLights


@pytest.fixture
def finished(tmp_path: Path) -> Path:
    script = script_game(2)
    journal = Journal.create(tmp_path, {"mode": "simulated", "first": "south",
                                        "variant": {"tactics": True}, "seed": 2})
    companion = Companion(Tracker(Variant(), script.first), journal,
                          NoLights(LightsConfig(board="none")), NoView())
    Driver(companion, script, TruthSnapshots()).run()
    companion.undo()  # the last claim taken back and taken again: an undo line
    companion.claim(script.steps[-1].action.flag, script.steps[-1].player)  # type: ignore[union-attr]
    journal.close()
    return journal.path


def test_every_line_is_json_with_time_and_position(finished: Path) -> None:
    lines = [json.loads(raw) for raw in finished.read_text().splitlines()]
    assert lines[0]["format"] == "battleline-journal/1"
    events = [line for line in lines if line["type"] == "event"]
    assert events and all("time" in e and e["position"]["format"] == "battleline-position/1"
                          for e in events)
    assert [line["type"] for line in lines].count("undo") == 1
    assert lines[-1]["type"] == "end" and lines[-1]["winner"] in ("north", "south")


def test_a_torn_last_line_is_left_out_and_cut_before_appending(tmp_path: Path) -> None:
    journal = Journal.create(tmp_path, {"first": "south", "variant": {}})
    journal.note("one")
    journal.close()
    with open(journal.path, "a") as f:
        f.write('{"type":"event","n":1,"ti')
    record = read_journal(journal.path)
    assert record.torn and record.lines[-1]["message"] == "one"
    again = Journal.reopen(record)
    again.note("two")
    again.close()
    record = read_journal(journal.path)
    assert not record.torn and [line["message"] for line in record.lines] == ["one", "two"]
    assert find_unfinished(tmp_path) == journal.path


def test_a_bad_line_in_the_middle_is_named(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    path.write_text('{"type":"game","format":"battleline-journal/1"}\nnot json\n{"type":"note"}\n')
    with pytest.raises(JournalError, match="line 2"):
        read_journal(path)


def test_replay_checks_every_position(finished: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert replay_main([str(finished)]) == 0
    out = capsys.readouterr().out
    assert "every position as journaled" in out and "wins by" in out and "undo" in out
    # A tampered position is caught and its line named.
    lines = finished.read_text().splitlines()
    k = next(i for i, line in enumerate(lines) if '"type":"event"' in line and "@" in line)
    tampered = json.loads(lines[k])
    tampered["position"]["flags"][0]["north"] = ["R1", "R2"]
    lines[k] = json.dumps(tampered)
    bad = finished.with_name("bad.jsonl")
    bad.write_text("\n".join(lines) + "\n")
    assert replay_main([str(bad), "--quiet"]) == 1
    assert f"line {k + 1}" in capsys.readouterr().err


def test_export_writes_a_table_record_the_rules_read_back(
    finished: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = export_text(finished)
    record = parse_table_record(text)  # the rules library's table record, read back
    journal = read_journal(finished)
    assert [(e.player, e.action) for e in record.events] == [
        (e.player, e.action) for e in journal.events
    ]
    claims = [e for e in record.events if isinstance(e.action, Claim)]
    assert claims and all(e.reason is not None for e in claims)
    game = record.replay()  # every event checked by the rules, rulings and result too
    assert game.outcome == journal.outcome
    assert f'[Result "{result_text(journal.outcome)}"]' in text and '[Seed "2"]' in text
    out = tmp_path / "game.txt"
    assert export_main([str(finished), "--out", str(out)]) == 0
    assert out.read_text() == text
    assert export_main([str(tmp_path / "missing.jsonl")]) == 1
    # replay reads the exported record too, and names the first line the rules refuse.
    capsys.readouterr()
    assert replay_main([str(out), "--quiet"]) == 0
    assert "every event and ruling as the rules give" in capsys.readouterr().out
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith(("north ", "south ")))
    lines[first + 1], lines[first + 2] = lines[first + 2], lines[first + 1]
    bad = tmp_path / "bad.txt"
    bad.write_text("\n".join(lines) + "\n")
    assert replay_main([str(bad), "--quiet"]) == 1
    assert f"line {first + 2} " in capsys.readouterr().err


def test_replay_reads_a_full_game_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = GameRecord(Player.NORTH)
    state, dealer = GameState.new(Player.NORTH), Dealer(1)
    bot = GreedyBot(1)
    while not state.is_over:
        action = dealer.reveal(state) if state.chance_outcomes() else bot.choose(state)
        state = state.apply(action)
        record = record.with_action(action)
    path = tmp_path / "full.txt"
    path.write_text(record.text())
    assert replay_main([str(path)]) == 0
    assert f"{len(record.actions)} actions" in capsys.readouterr().out
