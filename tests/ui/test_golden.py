"""Golden screenshots of every screen at both sizes, compared with a tolerance.

Goldens are stored at half size (small PNGs); set UI_GOLDEN_UPDATE=1 to
write them again after a deliberate change, then look at them.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pygame
import pytest

from companion import i18n
from companion.ui.pygame_view import LANDSCAPE, PORTRAIT
from companion.ui.scene import Intent
from companion.ui.shots import demo, scenes

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("UI_GOLDEN_UPDATE") == "1"


def _half(surface: pygame.Surface) -> pygame.Surface:
    w, h = surface.get_size()
    return pygame.transform.smoothscale(surface, (w // 2, h // 2))


def _pixels(surface: pygame.Surface) -> np.ndarray:
    return pygame.surfarray.array3d(surface).astype(np.int16)


def _compare(shot: pygame.Surface, path: Path) -> None:
    if UPDATE or not path.exists():
        assert UPDATE, f"no golden {path.name}: run with UI_GOLDEN_UPDATE=1"
        pygame.image.save(shot, str(path))
        return
    golden = _pixels(pygame.image.load(str(path)))
    now = _pixels(shot)
    assert golden.shape == now.shape, path.name
    diff = np.abs(golden - now).max(axis=2)
    changed = float((diff > 40).mean())
    # Font hinting may move an edge pixel; a moved or missing element changes far more.
    assert changed < 0.004, f"{path.name}: {changed:.2%} of pixels differ"


@pytest.mark.parametrize("size", [LANDSCAPE, PORTRAIT], ids=["800x480", "720x1280"])
def test_every_screen_matches_its_golden(size: tuple[int, int]) -> None:
    seen = []
    with demo(size) as (view, companion):
        for name in scenes(view, companion):
            seen.append(name)
            _compare(_half(view.draw()), GOLDEN / f"{name}_{size[0]}x{size[1]}.png")
    assert {"play", "flag", "ruling_refused", "ruling_granted", "pick", "teach",
            "teach_flags", "settings", "keyboard", "camera", "enrol", "attention", "flag_uncertain", "flag_guessed", "pick_guessed", "game_over"} <= set(seen)


def test_the_golden_check_notices_a_changed_screen() -> None:
    with demo(LANDSCAPE) as (view, _companion):
        first = _pixels(_half(view.draw()))
        view.act(Intent("flag", flag=4))
        second = _pixels(_half(view.draw()))
    assert float((np.abs(first - second).max(axis=2) > 40).mean()) > 0.05


# The screens whose words matter most at the table, in each language but English
# (whose goldens are every screen's, above).
LANGUAGE_SCREENS = ("play", "ruling_refused", "teach", "settings")


@pytest.mark.parametrize("size", [LANDSCAPE, PORTRAIT], ids=["800x480", "720x1280"])
@pytest.mark.parametrize("language", [code for code in i18n.LANGUAGES if code != "en"])
def test_play_ruling_teach_and_settings_match_their_goldens_in_each_language(
        language: str, size: tuple[int, int]) -> None:
    i18n.set_language(language)
    try:
        seen = []
        with demo(size) as (view, companion):
            for name in scenes(view, companion):
                if name in LANGUAGE_SCREENS:
                    seen.append(name)
                    _compare(_half(view.draw()),
                             GOLDEN / f"{name}_{language}_{size[0]}x{size[1]}.png")
        assert seen == list(LANGUAGE_SCREENS)
    finally:
        i18n.set_language("en")


def test_a_screen_in_another_language_differs_from_its_english_golden() -> None:
    try:
        i18n.set_language("ru")
        with demo(LANDSCAPE) as (view, _companion):
            view.act(Intent("go", value="settings"))
            russian = _pixels(_half(view.draw()))
    finally:
        i18n.set_language("en")
    english = _pixels(pygame.image.load(str(GOLDEN / "settings_800x480.png")))
    assert float((np.abs(english - russian).max(axis=2) > 40).mean()) > 0.004
