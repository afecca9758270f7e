"""The lights test speaks the language asked for, as the companion does."""

from __future__ import annotations

import pytest

from companion import i18n
from hardware.cli import main


def test_the_lights_test_says_its_steps_in_the_language_asked(
        capsys: pytest.CaptureFixture[str]) -> None:
    try:
        assert main(["test", "--board", "mock", "--step", "0", "--language", "cs"]) == 0
    finally:
        i18n.set_language("en")
    out = capsys.readouterr().out
    assert out.startswith("test světel na desce mock")
    assert "všechny prapory: vybojoval sever (plná barva severu)" in out
    assert "vyhrál jih, obklíčení (řada bliká)" in out
    assert out.rstrip().endswith("hotovo")
