"""A settings file or deck profile that cannot be read: named, the defaults stand, kept as is."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.config import Config
from companion.run import main as play_main
from companion.ui.live_settings import LiveSettings
from hardware.config import LightsConfig
from hardware.lights import NoLights

BROKEN = [
    b'[rules]\nauto_claim = "yes"\n',  # a bad value
    b"[rules\nhints = false\n",  # not TOML
    b"\xff\xfe[\x00r\x00",  # not UTF-8
    b"a = " + b"[" * 5000 + b"]" * 5000 + b"\n",  # nested past Python's recursion limit
]


@pytest.mark.parametrize("content", BROKEN, ids=["value", "toml", "utf8", "nested"])
def test_play_goes_on_with_the_defaults_and_leaves_the_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes) -> None:
    settings = tmp_path / "config.toml"
    settings.write_bytes(content)
    code = play_main(["--config", str(settings), "--seed", "3", "--speed", "max",
                      "--snapshots", "truth", "--lights", "none", "--quiet",
                      "--journal", str(tmp_path / "journal")])
    out, err = capsys.readouterr()
    assert code == 0 and "wins" in out
    [line] = [line for line in err.splitlines() if "settings" in line]
    assert str(settings) in line and "using the defaults" in line
    assert settings.read_bytes() == content


def test_changes_on_the_screen_are_not_written_over_an_unreadable_file(tmp_path: Path) -> None:
    settings = tmp_path / "config.toml"
    settings.write_bytes(BROKEN[1])
    said: list[str] = []
    lights = NoLights(LightsConfig(board="none"))
    live = LiveSettings(Config(), settings, lights, lambda _c: lights, said.append,
                        unreadable=f"{settings}: not valid TOML")
    live("hints", "off")
    assert not live.config.hints  # applies to this run
    assert settings.read_bytes() == BROKEN[1] and live.saved == 0
    assert said == [f"settings not saved: {settings}: not valid TOML"]
    # A readable file is written as before.
    good = tmp_path / "good.toml"
    LiveSettings(Config(), good, lights, lambda _c: lights, said.append)("hints", "off")
    assert "hints = false" in good.read_text()


@pytest.mark.parametrize("content", [b"PK\x03\x04 torn zip", b"", b"\x93NUMPY garbage"])
def test_an_unreadable_deck_profile_is_named_and_the_builtin_deck_read(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes) -> None:
    deck = tmp_path / "deck.npz"
    deck.write_bytes(content)
    images = tmp_path / "images"
    images.mkdir()
    cv2.imwrite(str(images / "table.png"), np.full((480, 640, 3), 90, np.uint8))
    settings = tmp_path / "config.toml"
    settings.write_text(f'[camera]\nsource = "folder"\nfolder = "{images}"\n'
                        f'[vision]\ndeck = "{deck}"\n[lights]\nboard = "none"\n'
                        '[view]\nkind = "none"\n')
    code = play_main(["--config", str(settings), "--journal", str(tmp_path / "journal")])
    err = capsys.readouterr().err
    assert code == 0
    [line] = [line for line in err.splitlines() if "deck profile" in line]
    assert str(deck) in line and "built-in deck" in line
    assert deck.read_bytes() == content
