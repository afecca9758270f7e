"""The terminal bot game (``botgame``): seeded, with turns, claim rulings and the result."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest

from companion import i18n
from companion.rules.game import card_count_ok
from companion.sim.botgame import main, play_game
from companion.sim.bots import GreedyBot, RandomBot


@pytest.fixture
def english_again() -> Iterator[None]:
    yield
    i18n.set_language("en")


def test_a_seeded_game_is_reproducible_and_ends(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        english_again: None) -> None:
    monkeypatch.setenv("LANGUAGE", "en")
    assert main(["--seed", "11"]) == 0
    first = capsys.readouterr().out
    assert main(["--seed", "11"]) == 0
    assert capsys.readouterr().out == first
    assert "turn 1: " in first and " claims flag " in first and ": granted — " in first
    assert "wins by" in first or "Draw:" in first
    assert "Match score: north" in first


def test_play_game_reports_every_claim_with_its_ruling() -> None:
    lines: list[str] = []
    state = play_game(GreedyBot(1), RandomBot(2), seed=5, out=lines.append)
    assert state.is_over and card_count_ok(state)
    claims = [line for line in lines if " claims flag " in line]
    held = sum(1 for f in state.position.flags if f.claimed_by is not None)
    # Claims made by play, plus flags taken when both players passed, make the flags held.
    assert 0 < len(claims) <= held


def test_match_of_three_games_runs_from_the_console_script() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "companion.cli", "botgame", "--games", "3", "--seed", "4", "--quiet"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.count("Match score:") == 3
    assert "Game 3" in done.stdout


def test_help_names_the_command_a_player_typed(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        english_again: None) -> None:
    monkeypatch.setenv("LANGUAGE", "en")
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    assert capsys.readouterr().out.startswith("usage: battleline-companion botgame ")


def test_a_game_speaks_the_systems_language(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        english_again: None) -> None:
    monkeypatch.setenv("LANGUAGE", "cs")
    assert main(["--seed", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Hra 1 (semínko 3, začíná jih)"
    assert out[1].startswith("tah 1: jih ")
    # A claim's ruling as the tracker says it, with its reason and the formation's name.
    assert any(line.strip().startswith("sever uplatňuje nárok na prapor 7: uznán — ")
               and line.endswith("(Falanga 15)") for line in out)
    assert out[-1] == "Skóre zápasu: sever 4, jih 5"


def test_help_is_in_the_systems_language(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        english_again: None) -> None:
    monkeypatch.setenv("LANGUAGE", "ru")
    with pytest.raises(SystemExit):
        main(["--help"])
    help_text = capsys.readouterr().out
    assert help_text.startswith("использование: battleline-companion botgame")
    assert "зерно раздачи (по умолчанию 1)" in help_text
