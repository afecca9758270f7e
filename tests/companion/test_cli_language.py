"""The command line speaks the players' language: the commands' help, play's notes and
errors, a damaged journal, an unreadable settings file, replay's counts (plural forms),
and the typed commands' replies. English stays the source (tests/conftest.py)."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion import i18n
from companion.app import Companion
from companion.cli import main as cli_main
from companion.commands import run_command
from companion.records.journal import Journal
from companion.records.replay import main as replay_main
from companion.rules.position import Player, Variant
from companion.run import main as play_main
from companion.tracker import Tracker
from companion.ui.terminal import TerminalView
from hardware.config import LightsConfig
from hardware.lights import NoLights


@pytest.fixture(autouse=True)
def english_again() -> Iterator[None]:
    yield
    i18n.set_language("en")


def _system_language(monkeypatch: pytest.MonkeyPatch, code: str) -> None:
    monkeypatch.setenv("LANGUAGE", code)


def test_the_commands_list_is_in_the_systems_language(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _system_language(monkeypatch, "hu")
    assert cli_main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "használat: battleline-companion" in out and "parancsok:" in out
    assert "  play        a segítő futtatása" in out  # the command names stay as typed
    assert cli_main(["dance"]) == 2
    assert "ismeretlen parancs: 'dance'" in capsys.readouterr().err


def test_play_says_an_unreadable_settings_file_and_its_notes_in_the_language(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    _system_language(monkeypatch, "ru")  # the file cannot say its language: the system's
    settings = tmp_path / "config.toml"
    settings.write_text('[rules]\nauto_claim = "yes"\n', encoding="utf-8")
    code = play_main(["--config", str(settings), "--seed", "3", "--speed", "max",
                      "--snapshots", "truth", "--lights", "none", "--view", "none",
                      "--camera", "simulated", "--journal", str(tmp_path / "journal")])
    out, err = capsys.readouterr()
    assert code == 0
    [line] = [line for line in err.splitlines() if str(settings) in line]
    assert "должно быть true или false, а не 'yes'" in line
    assert "используются значения по умолчанию" in line
    assert "Игра 1 (зерно 3, первым ходит юг)" in out and "Счёт матча" in out


def test_the_settings_language_decides_once_the_file_is_read(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settings = tmp_path / "config.toml"
    settings.write_text('[view]\nlanguage = "cs"\n', encoding="utf-8")
    assert play_main(["--config", str(settings), "--seed", "3", "--speed", "max",
                      "--snapshots", "truth", "--lights", "none", "--view", "none",
                      "--camera", "simulated", "--journal", str(tmp_path / "j")]) == 0
    out = capsys.readouterr().out
    assert f"nastavení: {settings}" in out and "Hra 1 (semínko 3, začíná jih)" in out


def _journal(directory: Path, events: int) -> Path:
    from companion.rules.actions import Play
    from companion.rules.cards import parse_card
    from companion.tracker import TrackedEvent

    journal = Journal.create(directory, {"first": "south", "variant": {}})
    tracker = Tracker(Variant(), Player.SOUTH)
    plays = [(Player.SOUTH, "R1", 0), (Player.NORTH, "B1", 0), (Player.SOUTH, "R2", 1),
             (Player.NORTH, "B2", 1), (Player.SOUTH, "R3", 2)]
    for player, token, flag in plays[:events]:
        event = tracker.apply(TrackedEvent(player, Play(parse_card(token), flag)))
        journal.event(event, tracker.position)
    journal.close()
    return journal.path


@pytest.mark.parametrize(("events", "words"), [(1, "přehrána 1 událost"),
                                               (2, "přehrány 2 události"),
                                               (5, "přehráno 5 událostí")])
def test_replay_counts_in_each_plural_form(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], events: int, words: str) -> None:
    _system_language(monkeypatch, "cs")
    assert replay_main([str(_journal(tmp_path, events)), "--quiet"]) == 0
    assert capsys.readouterr().out.startswith(words + ", každá pozice jako v deníku")


def test_a_damaged_journal_is_named_in_the_language(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    _system_language(monkeypatch, "es")
    path = _journal(tmp_path, 3)
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[2] = '{"type":"mystery"}'
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert replay_main([str(path)]) == 1
    err = capsys.readouterr().err
    assert f"replay: {path}: línea 3: tipo de línea desconocido 'mystery'" in err


def test_typed_commands_reply_in_the_language_shown(tmp_path: Path) -> None:
    journal = Journal.create(tmp_path, {"first": "south", "variant": {}})
    companion = Companion(Tracker(Variant(), Player.SOUTH), journal,
                          NoLights(LightsConfig(board="none")),
                          TerminalView(io.StringIO(), live=False))
    i18n.set_language("nl")
    assert run_command(companion, "undo") == "niets om ongedaan te maken"
    assert run_command(companion, "hints") == "er is nu geen vlag te bewijzen"
    assert run_command(companion, "claim 12 north") == "claim: '12' is geen vlag 1..9"
    reply = run_command(companion, "dance")
    assert reply.startswith("onbekende opdracht 'dance'; opdrachten:\n")
    assert "claim 3 north" in reply and "neemt de laatste gebeurtenis terug" in reply
    i18n.set_language("ru")
    assert run_command(companion, "claim 2 south") == \
        "юг захватывает флаг 2: отказано — построение не завершено"


def test_vision_commands_and_enrolment_refusals_in_the_language(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from vision.cli import main as vision_main

    _system_language(monkeypatch, "ru")
    missing = tmp_path / "photos"
    assert vision_main(["enroll", "--from-dir", str(missing)]) == 1
    assert f"enroll: {missing}: не папка" in capsys.readouterr().err
    missing.mkdir()
    (missing / "Q9.jpg").write_bytes(b"not a photo")
    assert vision_main(["enroll", "--from-dir", str(missing)]) == 1
    assert "нельзя обучить:\n  Q9.jpg: 'Q9' — не код карты" in capsys.readouterr().err
    assert vision_main(["enroll", "--from-dir", str(missing), "--card-mm", "63"]) == 2
    assert "ожидалось ШИРИНАxВЫСОТА" in capsys.readouterr().err
