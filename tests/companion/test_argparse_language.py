"""argparse's own complaints and headings in the players' language: a missing argument,
an invalid choice, an unknown option, the help's headings, from our catalog."""

from __future__ import annotations

import argparse
import gettext
from collections.abc import Iterator

import pytest

from companion import i18n
from companion.records.adjudicate import main as adjudicate_main
from companion.records.replay import main as replay_main


@pytest.fixture(autouse=True)
def english_again() -> Iterator[None]:
    yield
    i18n.set_language("en")


def test_a_missing_argument_is_said_in_russian(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("LANGUAGE", "ru")
    with pytest.raises(SystemExit) as stop:
        replay_main([])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("использование: battleline-companion replay [-h]")
    assert err.endswith("battleline-companion replay: ошибка: следующие аргументы "
                        "обязательны: journal\n")


def test_a_missing_argument_is_said_in_czech(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("LANGUAGE", "cs")
    with pytest.raises(SystemExit):
        adjudicate_main([])
    err = capsys.readouterr().err
    assert "použití: battleline-companion adjudicate [-h] file" in err
    assert "adjudicate: chyba: následující argumenty jsou povinné: file" in err


def test_an_invalid_choice_an_unknown_option_and_the_help_in_the_language(
        capsys: pytest.CaptureFixture[str]) -> None:
    from companion.run_options import parser

    i18n.set_language("hu")
    with pytest.raises(SystemExit):
        parser().parse_args(["--view", "hologram"])
    assert ("--view argumentum: érvénytelen választás: 'hologram' (választható: 'auto', "
            "'touchscreen', 'terminal', 'none')") in capsys.readouterr().err
    i18n.set_language("es")
    with pytest.raises(SystemExit):
        parser().parse_args(["--dance"])
    assert "error: argumentos no reconocidos: --dance" in capsys.readouterr().err
    i18n.set_language("nl")
    help_text = parser().format_help()
    assert help_text.startswith("gebruik: battleline-companion play")
    assert "\nopties:\n" in help_text and "toont deze hulp en stopt" in help_text


def test_argparse_is_left_as_it_was_for_other_parsers(
        capsys: pytest.CaptureFixture[str]) -> None:
    i18n.set_language("ru")
    with pytest.raises(SystemExit):
        i18n.ArgumentParser(prog="x").parse_args(["--dance"])
    assert "нераспознанные аргументы" in capsys.readouterr().err
    assert argparse._ is gettext.gettext  # type: ignore[attr-defined]
    with pytest.raises(SystemExit):
        argparse.ArgumentParser(prog="x").parse_args(["--dance"])
    assert "unrecognized arguments: --dance" in capsys.readouterr().err
