"""Every screen fits at 800×480 and 720×1280 in every language and with both editions'
names: no text is cut short, left out of its box or drawn past the screen's edge.

The screens report each text whose rendered width or lines did not fit the box
they were given (``theme.unfit``); this walks every screen of the demonstration
game, a flag panel with the longest terrain effect and the game over screens,
and measures every string on them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest

from companion import i18n
from companion.messages import N_, Message
from companion.rules.cards import Terrain
from companion.rules.game import Ending, Outcome
from companion.rules.position import Player
from companion.tracker import who
from companion.ui import theme
from companion.ui.camera_screen import refused
from companion.ui.pygame_view import LANDSCAPE, PORTRAIT, PygameView
from companion.ui.scene import Intent
from companion.ui.shots import demo, refused_frame, scenes
from vision.calibrate import CalibrationError, Calibrator, _Fit

SIZES = [LANDSCAPE, PORTRAIT]


@pytest.fixture(autouse=True)
def english_again() -> Iterator[None]:
    yield
    i18n.set_language("en")


def _unfit(view: PygameView) -> list[str]:
    theme.unfit.clear()
    view.draw()
    return list(dict.fromkeys(theme.unfit))


def _more_screens(view: PygameView) -> Iterator[str]:
    """Screens the demonstration walk does not reach: terrain, other endings, the picker."""
    scene = view.scene
    assert scene is not None
    flags = list(scene.model.flags)
    for index, terrain in ((1, Terrain.WATCHTOWER), (3, Terrain.FIELDS), (4, Terrain.CASTLE)):
        flags[index] = replace(flags[index], terrain=terrain, defender=Player.SOUTH)
    scene.outcome = None
    game = Message(N_("Game {k} of {n}, seed {seed}, {side} plays first"), k=10, n=10,
                   seed=1234, side=who(Player.SOUTH))  # a match's longest title
    scene.model = replace(scene.model, flags=tuple(flags), game=game)
    scene.screen = "play"
    yield "play_terrain"
    for index in (1, 3, 4):
        scene.screen, scene.flag = "flag", index
        yield f"flag_terrain_{index + 1}"
    scene.outcome = Outcome(Player.NORTH, Ending.ENVELOPMENT, (5, 2))
    scene.screen = "over"
    yield "game_over_envelopment"
    scene.outcome = Outcome(None, Ending.BREAKTHROUGH, (3, 3))
    yield "game_over_draw"
    scene.outcome = None
    view.act(Intent("pick", zone="flag7.north", value="1"))
    yield "pick_again"
    view.look_every_s = float("inf")  # the camera view shows the refusals set below
    for error in _longest_refusals():
        view.camera = refused(refused_frame(), error)
        scene.screen, scene.camera_details = "camera", False
        yield f"camera_refused_{error.reason}"
        scene.camera_details = True
        yield f"camera_refused_{error.reason}_why"


def _longest_refusals() -> Iterator[CalibrationError]:
    """The calibration's longest refusals, in the language set: markers that a lens bends
    or that do not lie as on a flat mat, one not found, two stray marker-like patterns."""
    fit = _Fit(None, 12.34, {0: 3.1, 1: 25.6, 2: 4.0, 3: 3.3, 4: 2.9})
    for lens in (0.2, None):
        yield Calibrator()._refusal([0, 1, 2, 3, 4], [5], [17, 23], 4, fit, lens)


@pytest.mark.parametrize("edition", ["gmt", "medieval"])
@pytest.mark.parametrize("size", SIZES, ids=["800x480", "720x1280"])
@pytest.mark.parametrize("language", list(i18n.LANGUAGES))
def test_every_screen_fits_in_every_language(language: str, size: tuple[int, int],
                                             edition: str) -> None:
    i18n.set_language(language)
    found: list[str] = []
    with demo(size) as (view, companion):
        assert view.scene is not None
        view.scene.options["edition"] = edition
        companion.refresh()
        for name in scenes(view, companion):
            found += [f"{name}: {text!r}" for text in _unfit(view)]
        for name in _more_screens(view):
            found += [f"{name}: {text!r}" for text in _unfit(view)]
    assert not found, f"{language} {size} {edition}: text that does not fit:\n" + \
        "\n".join(found)


def test_the_fit_check_sees_a_text_too_wide_for_its_box() -> None:
    import pygame

    surface = pygame.Surface((200, 100))
    theme.unfit.clear()
    theme.draw_text(surface, "short", (0, 0), 24, width=190)
    assert theme.unfit == []
    theme.draw_text(surface, "a text far too long for a box this narrow", (0, 0), 24,
                    width=60)
    theme.draw_wrapped(surface, "one two three four five six seven eight nine ten",
                       pygame.Rect(0, 0, 80, 30), 24)
    theme.draw_text(surface, "past the edge", (150, 0), 24)
    theme.draw_text(surface, "shrunk to fit", (0, 0), 40, width=90)  # legible no more
    assert len(theme.unfit) == 4
