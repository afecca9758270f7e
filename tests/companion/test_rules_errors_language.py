"""The rules library's refusals in the players' language: each error keeps an English
template and its parameters (``str(error)`` stays the English text), and the companion
shows it translated where it quotes it: replay, adjudicate, typed commands, the tracker."""

from __future__ import annotations

import io
import pickle
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion import i18n
from companion.app import Companion
from companion.commands import run_command
from companion.messages import describe
from companion.records.adjudicate import main as adjudicate_main
from companion.records.journal import Journal
from companion.records.replay import main as replay_main
from companion.rules.actions import Play
from companion.rules.cards import parse_card
from companion.rules.errors import IllegalAction, NotationError, NotYourTurn, Phrase
from companion.rules.position import Player, Variant
from companion.rules.table_game import TableGame
from companion.rules.table_record import parse_table_record
from companion.tracker import Tracker
from companion.ui.terminal import TerminalView
from hardware.config import LightsConfig
from hardware.lights import NoLights
from hardware.states import ButtonEvent

RULES = Path(__file__).parents[2] / "companion" / "rules"
OUT_OF_TURN = '[Format "battleline-table/1"]\n[First "south"]\nsouth R7@3\nsouth B2@4\n'
BAD_TOKEN = '[Format "battleline-table/1"]\n[First "south"]\nsouth R7@3\nnorth Q9@4\n'


@pytest.fixture(autouse=True)
def english_again() -> Iterator[None]:
    yield
    i18n.set_language("en")


def test_the_english_text_is_as_before() -> None:
    with pytest.raises(NotationError) as bad:
        parse_card("Q9")
    assert str(bad.value) == "card: 'Q9' is not a card token"
    assert bad.value.problem == "'Q9' is not a card token"
    assert bad.value.problem_template == "{token} is not a card token"
    assert bad.value.params == {"token": "'Q9'"}
    game = TableGame.new(Variant(), Player.SOUTH)
    error = game.error(Player.NORTH, Play(parse_card("R7"), 2))
    assert isinstance(error, NotYourTurn)
    assert str(error) == "only the player to move may act: it is south's turn, not north's"
    with pytest.raises(IllegalAction) as refused:
        parse_table_record(OUT_OF_TURN).replay()
    assert str(refused.value) == ("only the player to move may act: line 4 (south B2@4): "
                                  "it is north's turn, not south's")
    again = pickle.loads(pickle.dumps(refused.value.phrase))
    assert isinstance(again, Phrase) and again == str(refused.value)


def test_replay_names_a_rule_broken_in_hungarian(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("LANGUAGE", "hu")
    path = tmp_path / "game.txt"
    path.write_text(OUT_OF_TURN, encoding="utf-8")
    assert replay_main([str(path)]) == 1
    assert capsys.readouterr().err == (
        f"replay: {path}: csak a soron következő játékos léphet: 4. sor (south B2@4): "
        "észak következik, nem dél\n")
    path.write_text(BAD_TOKEN, encoding="utf-8")
    assert replay_main([str(path)]) == 1
    assert capsys.readouterr().err == f"replay: {path}: 4. sor: 'q9' nem kártyakód\n"


def test_adjudicate_names_a_bad_field_in_russian(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("LANGUAGE", "ru")
    path = tmp_path / "position.json"
    path.write_text('{"format": "battleline-position/1", "flags": 3}', encoding="utf-8")
    assert adjudicate_main([str(path)]) == 1
    assert capsys.readouterr().err == (
        f"adjudicate: {path}: flags: ожидалось: список из 9 флагов, получено 3\n")
    path.write_text("{", encoding="utf-8")
    assert adjudicate_main([str(path)]) == 1
    assert capsys.readouterr().err.startswith(
        f"adjudicate: {path}: (файл): недопустимый JSON: ")


def test_typed_commands_and_the_tracker_say_the_rules_in_the_language(
        tmp_path: Path) -> None:
    journal = Journal.create(tmp_path, {"first": "south", "variant": {}})
    companion = Companion(Tracker(Variant(), Player.SOUTH), journal,
                          NoLights(LightsConfig(board="none")),
                          TerminalView(io.StringIO(), live=False))
    i18n.set_language("es")
    assert run_command(companion, "pass north") == (
        "pass: las reglas prohíben esta acción: es el turno de sur, no de norte")
    i18n.set_language("cs")
    with pytest.raises(IllegalAction) as refused:
        companion.tracker.pass_(Player.NORTH)
    assert describe(refused.value) == "pravidla tento tah zakazují: na tahu je jih, ne sever"
    assert str(refused.value) == "the rules forbid this action: it is south's turn, not north's"
    i18n.set_language("nl")
    assert run_command(companion, "correct flag3.north Q9") == (
        "correct: kaart: 'Q9' is geen kaartcode")


def test_a_held_button_out_of_turn_says_why_in_the_language(tmp_path: Path) -> None:
    out = io.StringIO()
    journal = Journal.create(tmp_path, {"first": "south", "variant": {}})
    companion = Companion(Tracker(Variant(), Player.SOUTH), journal,
                          NoLights(LightsConfig(board="none")),
                          TerminalView(out, live=False))
    i18n.set_language("ru")
    companion.button(ButtonEvent("north", held=True))
    assert out.getvalue().splitlines()[-1] == (
        "север не может пасовать: правила запрещают это действие: сейчас ходит юг, а не север")


def test_the_rules_library_stays_free_of_gettext() -> None:
    for source in RULES.glob("*.py"):
        text = source.read_text(encoding="utf-8")
        for name in ("gettext", "companion.i18n", "companion.messages"):
            assert f"import {name}" not in text and f"from {name}" not in text, source
