"""A damaged journal is never dropped in silence: named, resumed before its bad line, kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.records.journal import Journal, read_journal, variant_json
from companion.records.replay import main as replay_main
from companion.rules.position import Player, Variant
from companion.run import main as play_main
from companion.sim.simtable import script_game
from companion.tracker import TrackedEvent, Tracker

SEED = 21


def _unfinished(directory: Path, steps: int) -> Path:
    """A simulated game's journal, left after ``steps`` events as a power cut leaves it."""
    script = script_game(SEED)
    journal = Journal.create(directory, {
        "mode": "simulated", "first": "south", "variant": variant_json(Variant()),
        "setup": "standard", "options": {"auto_claim": False, "hints": True},
        "seed": SEED, "north": "greedy", "south": "greedy", "snapshots": "truth",
        "match": {"seed": SEED, "games": 1, "game": 0, "outcomes": []},
    })
    tracker = Tracker(Variant(), Player.SOUTH)
    for step in script.steps[:steps]:
        journal.event(tracker.apply(TrackedEvent(step.player, step.action)), tracker.position)
        journal.note("a note between events")
    journal.close()
    return journal.path


def _play(directory: Path, tmp_path: Path, *extra: str) -> int:
    return play_main(["--seed", str(SEED), "--speed", "max", "--snapshots", "truth",
                      "--lights", "none", "--journal", str(directory), "--quiet",
                      "--config", str(tmp_path / "no-settings.toml"), *extra])


def _damage(path: Path, line: int, text: str) -> bytes:
    lines = path.read_bytes().split(b"\n")
    lines[line - 1] = text.encode()
    path.write_bytes(b"\n".join(lines))
    return path.read_bytes()


@pytest.mark.parametrize("what", ["unreadable", "rule-breaking"])
def test_play_resumes_before_a_bad_line_and_keeps_the_damaged_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], what: str) -> None:
    directory = tmp_path / "journal"
    path = _unfinished(directory, 12)
    # Line 1 is the header; events are lines 2, 4, 6, ... with notes between.
    if what == "unreadable":
        damaged = _damage(path, 10, '{"type":"event","n":5,"pla\x00\x01 bad sector')
    else:  # the fifth event made illegal: a card nobody can lay twice
        event = json.loads(path.read_text().splitlines()[9])
        event["action"] = json.loads(path.read_text().splitlines()[1])["action"]
        damaged = _damage(path, 10, json.dumps(event))
    assert _play(directory, tmp_path) == 0
    err = capsys.readouterr().err
    assert f"{path}: line 10" in err and "resuming from the last good event" in err
    assert "4 events" in err
    assert path.read_bytes() == damaged  # untouched
    [new] = [p for p in directory.glob("*.jsonl") if p != path]
    record = read_journal(new)
    assert record.header["replaces"] == path.name and record.ended
    script = script_game(SEED)
    assert [(e.player, e.action) for e in record.events] == [
        (s.player, s.action) for s in script.steps]  # the game went on from event 4
    notes = [line["message"] for line in record.lines if line["type"] == "note"]
    assert any(path.name in note and "line 10" in note for note in notes)
    # The next start finds nothing to resume and says nothing of the damaged file.
    assert _play(directory, tmp_path) == 0
    assert path.name not in capsys.readouterr().err


def test_a_journal_without_a_readable_header_is_named_and_set_aside(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    directory = tmp_path / "journal"
    path = _unfinished(directory, 6)
    damaged = _damage(path, 1, "\x7fELF garbage")
    assert _play(directory, tmp_path) == 0
    err = capsys.readouterr().err
    assert f"{path}: line 1" in err and "cannot be resumed" in err
    assert path.read_bytes() == damaged
    assert _play(directory, tmp_path) == 0
    assert path.name not in capsys.readouterr().err


def test_new_closes_a_damaged_game_without_touching_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    directory = tmp_path / "journal"
    path = _unfinished(directory, 8)
    damaged = _damage(path, 6, "not json")
    assert _play(directory, tmp_path, "--new") == 0
    assert "line 6" in capsys.readouterr().err
    assert path.read_bytes() == damaged
    closed = [read_journal(p) for p in directory.glob("*.jsonl") if p != path]
    assert any(r.header.get("replaces") == path.name and r.ended and len(r.events) == 2
               for r in closed)


def test_replay_lenient_names_every_bad_line_and_replays_the_rest(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _unfinished(tmp_path, 12)
    _damage(path, 5, "garbage")  # a note: nothing after it depends on it
    _damage(path, 9, '{"type":"mystery"}')
    assert replay_main([str(path)]) == 1  # strict: the first bad line, and stop
    err = capsys.readouterr().err
    assert "line 5" in err and "line 9" not in err
    assert replay_main([str(path), "--lenient"]) == 1
    captured = capsys.readouterr()
    assert "line 5" in captured.err and "line 9" in captured.err
    assert "12 events replayed, 2 bad lines left out" in captured.out
    # An event lost in the middle: every later event that no longer replays is named too.
    _damage(path, 4, "lost")
    assert replay_main([str(path), "--lenient", "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "line 4" in err and "line 6" in err and "Traceback" not in err


def test_a_journal_folder_that_cannot_be_written_is_named(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    assert _play(blocked / "journal", tmp_path) == 1
    [line] = capsys.readouterr().err.splitlines()
    assert str(blocked / "journal") in line and "cannot start a journal" in line
