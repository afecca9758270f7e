"""Settings: documented defaults, named errors, and what the companion detects."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from companion.config import DEFAULT_TOML, Config, ConfigError, detect, from_mapping, load_config


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


def test_the_readme_documents_every_setting_with_its_default() -> None:
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    block = readme.split("### Settings", 1)[1].split("```toml\n", 1)[1].split("```", 1)[0]
    assert from_mapping(tomllib.loads(block)) == Config()
    documented = tomllib.loads(block)
    assert {k: set(v) for k, v in documented.items()} == {
        k: set(v) for k, v in tomllib.loads(DEFAULT_TOML).items()
    }
