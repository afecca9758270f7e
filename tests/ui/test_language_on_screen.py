"""The language and the edition's names, chosen on the touchscreen: shown at once, saved;
the terrain's effect said where a terrain card lies."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from companion import i18n
from companion.config import Config, load_config
from companion.rules.cards import Terrain
from companion.rules.position import Player
from companion.ui.live_settings import LiveSettings
from companion.ui.pygame_view import LANDSCAPE, PygameView
from companion.ui.scene import Intent, formation_label
from companion.ui.shots import demo_companion
from companion.ui.terminal import render
from hardware.factory import open_lights
from hardware.lights import FlagLights


@pytest.fixture(autouse=True)
def english_again() -> Iterator[None]:
    yield
    i18n.set_language("en")


def _open(config: Config) -> FlagLights:
    return open_lights(config.lights)


def test_a_language_and_the_cards_names_chosen_on_screen_show_at_once_and_are_saved(
        tmp_path: Path) -> None:
    config = replace(Config(), lights=replace(Config().lights, board="none"))
    path = tmp_path / "config.toml"
    said: list[str] = []
    view = PygameView(LANDSCAPE, settings={"language": "auto", "edition": "gmt"})
    companion = demo_companion(tmp_path, view)
    settings = LiveSettings(config, path, _open(config), _open, said.append)
    view.on_setting = settings
    try:
        scene = view.scene
        assert scene is not None
        flag = scene.model.flags[4]  # south's P3 P4 against north's Y2 Y3 Y4: a wedge
        assert formation_label(scene, flag, Player.NORTH) == "Wedge 9"
        view.act(Intent("go", value="settings"))
        view.act(Intent("option", zone="language", value="hu"))
        assert i18n.language() == "hu"
        assert (scene.names[Player.NORTH], scene.names[Player.SOUTH]) == ("Észak", "Dél")
        assert formation_label(scene, flag, Player.NORTH) == "Ék 9"
        assert formation_label(scene, flag, Player.SOUTH) == "még 1 kártya"
        view.act(Intent("option", zone="edition", value="medieval"))
        view.act(Intent("go", value="play"))
        assert scene.model.medieval
        assert formation_label(scene, scene.model.flags[6], Player.NORTH).startswith("még")
        view.act(Intent("option", zone="language", value="ru"))
        assert formation_label(scene, flag, Player.NORTH) == "Клин 9"
        saved, _, found = load_config(path)
        assert found and not said
        assert (saved.language, saved.edition) == ("ru", "medieval")
        assert (settings.config.language, settings.config.edition) == ("ru", "medieval")
    finally:
        settings.lights.close()
        companion.journal.close()


def test_a_name_the_players_gave_stays_when_the_language_changes(tmp_path: Path) -> None:
    view = PygameView(LANDSCAPE, names={Player.NORTH: "Ada"})
    companion = demo_companion(tmp_path, view)
    try:
        view.act(Intent("option", zone="language", value="cs"))
        assert view.scene is not None
        assert view.scene.names == {Player.NORTH: "Ada", Player.SOUTH: "Jih"}
    finally:
        companion.journal.close()


def test_the_terminal_says_what_a_terrain_does_where_it_lies(tmp_path: Path) -> None:
    view = PygameView(LANDSCAPE)
    companion = demo_companion(tmp_path, view)
    try:
        model = companion.model()
        flags = list(model.flags)
        flags[1] = replace(flags[1], terrain=Terrain.CASTLE, defender=Player.SOUTH)
        shown = render(replace(model, flags=flags))
        lines = shown.splitlines()
        row = next(k for k, line in enumerate(lines) if line.startswith("2 "))
        assert lines[row + 1].strip() == (
            "Castle (South defends): The defender plays one card more than the attacker; "
            "the defender's highest card does not count.")
        i18n.set_language("hu")
        assert "Kastély (Dél védekezik): " in render(replace(model, flags=flags))
    finally:
        companion.journal.close()


def test_the_automatic_language_says_which_language_it_chose(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Players who find the screen in Hungarian see why: "Automatic" names the system's."""
    from companion.ui.settings_screen import value_words

    monkeypatch.setenv("LANGUAGE", "hu")
    assert i18n.set_language("auto") == "hu"
    assert value_words("auto", "language") == "Automatikus (Magyar)"
    assert value_words("auto", "lights") == "Automatikus"  # other settings' auto as before
    monkeypatch.setenv("LANGUAGE", "de")  # no catalog: English
    for name in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
    i18n.set_language("auto")
    assert value_words("auto", "language") == "Automatic (English)"
    assert value_words("ru", "language") == "Русский"
