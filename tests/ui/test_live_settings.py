"""Settings changed on the touchscreen reach the lights and the game at once, and the file."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from companion.config import Config, load_config
from companion.status import lights_of
from companion.ui.live_settings import LiveSettings
from companion.ui.pygame_view import LANDSCAPE, PygameView
from companion.ui.scene import Intent
from companion.ui.shots import demo_companion
from hardware.factory import open_lights
from hardware.lights import FlagLights
from hardware.states import FlagState


def _open(config: Config) -> FlagLights:
    return open_lights(config.lights)


def test_a_colour_and_a_lights_board_chosen_on_screen_apply_now_and_are_saved(
    tmp_path: Path,
) -> None:
    config = replace(Config(), lights=replace(Config().lights, board="mock"))
    path = tmp_path / "config.toml"
    said: list[str] = []
    view = PygameView(LANDSCAPE)
    companion = demo_companion(tmp_path, view)
    lights = _open(config)  # gpiozero mock pins
    settings = LiveSettings(config, path, lights, _open, said.append)
    companion.lights = settings.lights
    settings.companion = companion
    view.on_setting = settings
    try:
        view.act(Intent("go", value="settings"))
        lights.set_flag(2, FlagState.CLAIMED_NORTH)
        view.act(Intent("colour", player=companion.tracker.first.other, value="0,80,255"))
        view.act(Intent("colour", player=companion.tracker.first, value="200,0,255"))
        assert lights.config.colours["north"] == (0, 80, 255)
        assert lights.colours_now(0)[1] == (0, 80, 255)  # flag 2, claimed by north
        view.act(Intent("option", zone="claim_timing", value="advanced"))
        assert companion.variant.claim_timing == "standard"  # this game keeps its rules
        assert settings.config.claim_timing == "advanced"  # the next one starts with these
        view.act(Intent("option", zone="lights", value="none"))
        assert lights.closed and companion.lights is settings.lights is not lights
        # The new board shows the game at once.
        assert list(companion.lights.flags) == lights_of(companion.statuses())
        assert FlagState.CLAIMABLE_SOUTH in companion.lights.flags
        assert companion.lights.config.board == "none"
        assert view.scene is not None and view.scene.options["lights"] == "none"
        saved, _, found = load_config(path)
        assert found and not said
        assert saved.lights.colours["north"] == (0, 80, 255)
        assert saved.lights.colours["south"] == (200, 0, 255)
        assert (saved.claim_timing, saved.lights.board) == ("advanced", "none")
    finally:
        settings.lights.close()
        companion.journal.close()


def test_a_setting_that_cannot_be_saved_is_said_and_still_applies(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[rules\n")  # broken by hand: left alone
    said: list[str] = []
    config = replace(Config(), lights=replace(Config().lights, board="none"))
    settings = LiveSettings(config, path, _open(config), _open, said.append)
    settings("hints", "off")
    assert settings.config.hints is False and path.read_text() == "[rules\n"
    assert said and said[0].startswith("settings not saved:") and "TOML" in said[0]
