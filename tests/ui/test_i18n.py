"""Choosing the language: the system's or a setting's, and what it changes on screen."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion import i18n
from companion.i18n import system_language


@pytest.fixture(autouse=True)
def english_again() -> Iterator[None]:
    yield
    i18n.set_language("en")


def test_auto_takes_the_systems_language_if_it_has_a_catalog_else_english() -> None:
    assert system_language({"LANG": "hu_HU.UTF-8"}) == "hu"
    assert system_language({"LANGUAGE": "de:cs", "LANG": "de_DE.UTF-8"}) == "cs"
    assert system_language({"LC_ALL": "ru_RU.UTF-8", "LANG": "es_ES.UTF-8"}) == "ru"
    assert system_language({"LANG": "de_DE.UTF-8"}) == "en"
    assert system_language({"LANG": "C.UTF-8"}) == "en"
    assert system_language({}) == "en"


def test_a_language_setting_switches_every_string_and_a_bad_one_is_refused() -> None:
    assert i18n.set_language("hu") == "hu"
    assert i18n._("Refused") != "Refused"
    assert i18n.set_language("en") == "en"
    assert i18n._("Refused") == "Refused"
    with pytest.raises(ValueError, match="one of en, hu, cs, es, nl, ru"):
        i18n.set_language("xx")


@pytest.mark.parametrize(("language", "forms"), [
    ("en", ("1 card to go", "2 cards to go", "5 cards to go", "21 cards to go")),
    ("ru", ("1 карта", "2 карты", "5 карт", "21 карта")),
    ("cs", ("1 karta", "2 karty", "5 karet", "21 karet")),
])
def test_a_count_takes_the_languages_own_plural_form(language: str,
                                                    forms: tuple[str, ...]) -> None:
    from companion.words import to_go

    i18n.set_language(language)
    for n, form in zip((1, 2, 5, 21), forms, strict=True):
        # The whole form, as words: "5 карты" must not pass for "5 карт".
        assert re.search(rf"(^|\s){re.escape(form)}(\s|$)", to_go(n)), (language, n, to_go(n))


def test_the_trackers_messages_reach_the_screen_in_the_language_shown(tmp_path: Path) -> None:
    from companion.messages import Message
    from companion.rules.position import Player
    from companion.ui.pygame_view import LANDSCAPE, PygameView
    from companion.ui.scene import said
    from companion.ui.shots import demo_companion, unread_card

    view = PygameView(LANDSCAPE)
    companion = demo_companion(tmp_path, view)
    try:
        unread_card(companion, "flag3.south")
        [message] = companion.messages()
        assert isinstance(message, Message)
        english = said(message, {Player.NORTH: "Ada", Player.SOUTH: "Bo"})
        # On the screen the players' names stand for "north"/"south", and a line
        # starts with a capital; a string never marked is otherwise left as it is.
        assert "Bo's side of flag 3" in english and "south" not in english
        i18n.set_language("nl")
        dutch = said(message, {Player.NORTH: "Ada", Player.SOUTH: "Bo"})
        assert dutch != english and "Bo" in dutch and "3" in dutch
        assert said("plain words") == "Plain words"
    finally:
        companion.journal.close()
