"""Settings: documented defaults, named errors, and what the companion detects."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from companion.config import (
    DEFAULT_TOML,
    Config,
    ConfigError,
    detect,
    from_mapping,
    load_config,
    save_settings,
)


def test_the_documented_defaults_are_the_defaults() -> None:
    assert from_mapping(tomllib.loads(DEFAULT_TOML)) == Config()


def test_missing_file_means_defaults(tmp_path: Path) -> None:
    config, _, found = load_config(tmp_path / "none.toml")
    assert config == Config() and not found


def test_settings_are_read_and_bad_ones_named(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text('[rules]\nauto_claim = true\nclaim_timing = "advanced"\n'
                    '[lights]\nboard = "none"\n[camera]\nsource = "simulated"\n')
    config, _, found = load_config(path)
    assert found and config.auto_claim and config.claim_timing == "advanced"
    assert config.lights.board == "none" and config.camera == "simulated"
    for text, named in [('[rules]\nauto_claim = "yes"\n', "rules.auto_claim"),
                        ("[rules]\ncolour = 1\n", "rules.colour"),
                        ("[lights]\nbrightness = 7\n", "lights.brightness"),
                        ("[nonsense]\n", "[nonsense]"),
                        ("[rules\n", "not valid TOML")]:
        path.write_text(text)
        with pytest.raises(ConfigError, match=named.replace("[", r"\[")):
            load_config(path)


def test_detection_says_what_it_chose(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr("companion.config._camera_present", lambda: None)
    choices = detect(Config())
    assert choices.camera == "simulated" and choices.view == "terminal"
    notes = " | ".join(choices.notes)
    assert "simulated table" in notes and "no display" in notes and "lights:" in notes
    chosen = detect(from_mapping({"camera": {"source": "folder"}, "view": {"kind": "none"},
                                  "lights": {"board": "none"}}))
    assert (chosen.camera, chosen.view, chosen.board, chosen.notes) == ("folder", "none", "none", ())


def test_a_display_means_the_touchscreen_and_the_choice_is_said(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("companion.config._camera_present", lambda: None)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.delenv("SDL_VIDEODRIVER", raising=False)
    monkeypatch.setenv("DISPLAY", ":0")
    desktop = detect(Config())
    assert (desktop.view, desktop.fullscreen) == ("touchscreen", False)
    assert "view: a desktop display: the touchscreen, landscape, in a window" in desktop.notes
    portrait = detect(from_mapping({"view": {"orientation": "portrait", "screen": "fullscreen"}}))
    assert (portrait.view, portrait.fullscreen) == ("touchscreen", True)
    assert "view: a desktop display: the touchscreen, portrait, full screen" in portrait.notes
    monkeypatch.delenv("DISPLAY")
    monkeypatch.setenv("SDL_VIDEODRIVER", "kmsdrm")  # a Pi's screen, no desktop
    console = detect(Config())
    assert (console.view, console.fullscreen) == ("touchscreen", True)
    assert any("the screen, through SDL" in n and "full screen" in n for n in console.notes)
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")  # drawing off screen is no display
    assert detect(Config()).view == "terminal"
    assert detect(from_mapping({"view": {"kind": "terminal"}})).view == "terminal"


def test_a_setting_is_saved_into_the_file_keeping_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('# mine\n[rules]\nhints = true   # my note\ntactics = false\n\n'
                    '[camera]\nsource = "simulated"\n')
    config = save_settings(path, {"rules.hints": False, "players.north": "Ada # 1",
                                  "lights.colours.north": [0, 80, 255]})
    text = path.read_text()
    assert text.startswith("# mine\n") and "# my note" in text and 'source = "simulated"' in text
    assert load_config(path)[0] == config
    assert (config.hints, config.tactics, config.north_name) == (False, False, "Ada # 1")
    assert config.lights.colours["north"] == (0, 80, 255) and config.camera == "simulated"
    again = save_settings(path, {"players.north": "Bo", "lights.colours.north": [1, 2, 3]})
    assert (again.north_name, again.lights.colours["north"]) == ("Bo", (1, 2, 3))
    assert path.read_text().count("[lights.colours]") == 1
    before = path.read_text()
    with pytest.raises(ConfigError, match=r"rules\.claim_timing"):
        save_settings(path, {"rules.claim_timing": "sometimes"})
    assert path.read_text() == before  # a bad setting leaves the file as it was
    fresh = tmp_path / "new" / "config.toml"
    assert save_settings(fresh, {"rules.auto_claim": True}) == Config(auto_claim=True)
    assert "# battleline-companion settings" in fresh.read_text()  # the documented defaults


def test_the_readme_documents_every_setting_with_its_default() -> None:
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    block = readme.split("### Settings", 1)[1].split("```toml\n", 1)[1].split("```", 1)[0]
    assert from_mapping(tomllib.loads(block)) == Config()
    documented = tomllib.loads(block)
    assert {k: set(v) for k, v in documented.items()} == {
        k: set(v) for k, v in tomllib.loads(DEFAULT_TOML).items()
    }


def test_the_battlefield_setting_and_the_hundred_years_war_needing_tactics(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text('[rules]\nbattlefield = "hundred-years-war"\n')
    assert load_config(path)[0].battlefield == "hundred-years-war"
    for text, named in [('[rules]\nbattlefield = "hills"\n', "rules.battlefield: must be one of"),
                        ('[rules]\nbattlefield = "hundred-years-war"\ntactics = false\n',
                         "the Hundred Years' War needs rules.tactics = true")]:
        path.write_text(text)
        with pytest.raises(ConfigError, match=named):
            load_config(path)


def test_a_battlefield_game_from_the_run_command(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """--battlefield shuffled: the nine battlefield cards are laid first, then played on."""
    from companion.records.journal import read_journal
    from companion.rules.actions import Place
    from companion.run import main

    (tmp_path / "c.toml").write_text("")  # no one's own settings
    code = main(["--config", str(tmp_path / "c.toml"), "--battlefield", "shuffled",
                 "--seed", "3", "--speed", "max", "--snapshots", "truth", "--lights", "none",
                 "--view", "none", "--camera", "simulated", "--journal", str(tmp_path / "j")])
    assert code == 0
    [path] = (tmp_path / "j").glob("*.jsonl")
    record = read_journal(path)
    assert record.variant.terrain and record.ended
    placed = [e.action for e in record.events[:9]]
    assert all(isinstance(a, Place) and a.up for a in placed)
    assert sorted(a.flag for a in placed if isinstance(a, Place)) == list(range(9))
    assert "wins by" in capsys.readouterr().out
