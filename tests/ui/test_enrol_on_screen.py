"""Guided enrolment on the touchscreen, driven by touches and photographs of the mat.

The camera frames are rendered by vision.simulated.synth: the mat with the card asked
for lying in the enrolment zone (or nothing there), photographed by the
table camera, handed to the view as the run command hands it the reader's.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from companion.config import Config, load_config
from companion.ui.camera_screen import NO_CARD_LOOKS
from companion.ui.live_settings import LiveSettings
from companion.ui.pygame_view import LANDSCAPE, PORTRAIT, PygameView
from companion.ui.scene import Intent
from companion.ui.terminal import ViewModel
from hardware.factory import open_lights
from hardware.lights import FlagLights
from tests.ui.test_flows import target_of, touch
from vision.calibrate import Calibrator
from vision.enrolment.enroll import ENROL_ZONE
from vision.models.band_model import BandModel
from vision.profile import DeckProfile
from vision.read import Reader
from vision.simulated.camera_model import Camera
from vision.simulated.synth import Conditions, lay_table, photograph, with_hands


class Table:
    """The mat under the table camera, with whatever card the player has laid."""

    def __init__(self) -> None:
        self.rng = np.random.default_rng(11)
        self.card: str | None = None

    def frame(self) -> np.ndarray:
        table = lay_table({ENROL_ZONE: [self.card]} if self.card else {}, "classic",
                          np.random.default_rng(3))  # one placement: the card lies still
        return photograph(table, Camera(tilt_x_deg=3.0, fill=0.92),
                          Conditions(gain=(1.05, 1.0, 0.93), noise=2.0, blur=0.5),
                          self.rng).image


def _open(config: Config) -> FlagLights:
    return open_lights(config.lights)


@pytest.fixture(params=[LANDSCAPE, PORTRAIT], ids=["landscape", "portrait"])
def kiosk(request: pytest.FixtureRequest,
          tmp_path: Path) -> Iterator[tuple[PygameView, LiveSettings]]:
    view = PygameView(request.param)
    view.show(ViewModel("t", flags=[], statuses=[]))
    view.look_every_s = 0.0  # every frame is looked at (the frames come slowly here)
    view.decks_dir = tmp_path / "decks"
    config = replace(Config(), lights=replace(Config().lights, board="none"))
    settings = LiveSettings(config, tmp_path / "config.toml", _open(config), _open,
                            lambda line: None)
    view.on_setting = settings
    yield view, settings
    settings.lights.close()


def show(view: PygameView, table: Table) -> str:
    """One camera frame reaches the view; what the enrolment screen now says."""
    view.camera_frame(table.frame())
    view.pump()  # the live picture is looked at and redrawn
    step = view.enrol_step
    return "" if step is None else step.kind


def learnt(view: PygameView) -> None:
    """The screen goes on while the deck's model is learnt; then it is saved."""
    assert view.learning is not None and "Learning the" in view.scene.toast
    deadline = time.monotonic() + 300
    while view.learning is not None and time.monotonic() < deadline:
        view.pump()
        time.sleep(0.05)
    assert view.learning is None


def open_enrolment(view: PygameView, tokens: list[str]) -> None:
    view.enrol_tokens = tokens
    view.act(Intent("go", value="settings"))
    touch(view, target_of(view, Intent("go", value="camera")))
    start = target_of(view, Intent("enrol", value="start"))
    assert start.height >= 48 and start.width >= 48
    assert touch(view, start) == Intent("enrol", value="start")
    assert view.scene is not None and view.scene.screen == "enrol"


def test_cards_laid_in_the_lit_zone_become_the_deck_the_settings_switch_to(
    kiosk: tuple[PygameView, LiveSettings], tmp_path: Path,
) -> None:
    view, settings = kiosk
    table = Table()
    open_enrolment(view, ["R7", "B3", "AL", "G10", "Y2"])
    assert [show(view, table) for _ in range(3)] == ["waiting"] * 3  # nothing there
    assert view.enrolment.current == "R7" and not view.enrolment.cards
    for rect, intent in view.targets:
        assert rect.height >= 48, intent  # Back, Skip, Cancel, Pause: finger sized
    table.card = "R7"
    kinds = [show(view, table) for _ in range(3)]
    assert "captured" in kinds and view.enrolment.current == "B3"
    # R7 still lies there: it is not taken again as B3.
    assert show(view, table) == "take_away" and "B3" not in view.enrolment.cards
    for token in ("B3", "AL", "G10", "Y2"):
        table.card = token
        while view.enrolment is not None and view.enrolment.current == token:
            assert show(view, table) in ("moving", "waiting", "captured")
    assert view.enrolment is None and view.scene is not None
    learnt(view)
    assert view.scene.screen == "camera" and "5 of 5 cards" in view.scene.toast
    saved = list((tmp_path / "decks").glob("*.npz"))
    assert len(saved) == 1 and settings.config.deck == str(saved[0])
    assert load_config(tmp_path / "config.toml")[0].deck == str(saved[0])
    # The saved deck reads those cards where a game lays them.
    profile = DeckProfile.load(saved[0])
    assert profile.tokens == ["AL", "B3", "G10", "R7", "Y2"]
    model = BandModel.of(profile)
    assert model is not None  # read with its own learnt model
    # Bold numerals lie far apart: no warning that the companion will ask a lot.
    assert not model.reads_poorly() and "much alike" not in view.scene.toast
    zones = {"flag2.north": ["B3", "G10"], "flag6.south": ["R7"], "flag8.north": ["AL"],
             "flag9.south": ["Y2"]}
    image = photograph(lay_table(zones, "classic", np.random.default_rng(4)), Camera(),
                       Conditions(), np.random.default_rng(5)).image
    read = Reader(profile).read(image, Calibrator().update(image)).zones()
    assert {z: read.get(z) for z in zones} == zones


def test_a_deck_whose_cards_look_alike_is_saved_with_what_to_change(
    kiosk: tuple[PygameView, LiveSettings], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    view, _ = kiosk
    # As a thin index on a busy face self-tests: its cards lie near each other.
    monkeypatch.setattr(BandModel, "self_test", lambda *args, **kwargs: 0.3)
    table = Table()
    open_enrolment(view, ["R7", "B3"])
    for token in ("R7", "B3"):
        table.card = token
        while view.enrolment is not None and view.enrolment.current == token:
            assert show(view, table) in ("waiting", "moving", "captured", "take_away")
    learnt(view)
    assert view.scene is not None and "2 of 2 cards" in view.scene.toast
    assert "much alike" in view.scene.toast and "camera nearer" in view.scene.toast
    saved = DeckProfile.load(next((tmp_path / "decks").glob("*.npz")))
    assert BandModel.of(saved).typical_gap == pytest.approx(0.3)


def test_skip_and_back_move_through_the_cards_keeping_what_was_captured(
    kiosk: tuple[PygameView, LiveSettings],
) -> None:
    view, _settings = kiosk
    table = Table()
    open_enrolment(view, ["R7", "B3", "AL"])
    table.card = "R7"
    while view.enrolment.current == "R7":
        show(view, table)
    touch(view, target_of(view, Intent("enrol", value="skip")))
    assert view.enrolment.current == "AL"
    touch(view, target_of(view, Intent("enrol", value="back")))
    touch(view, target_of(view, Intent("enrol", value="back")))
    assert view.enrolment.current == "R7" and set(view.enrolment.cards) == {"R7"}
    # No Back before the first card.
    assert not [i for _r, i in view.targets if i == Intent("enrol", value="back")]
    # Paused (to the camera view) and taken up again: the session lives on.
    touch(view, target_of(view, Intent("go", value="camera")))
    assert view.scene is not None and view.scene.screen == "camera"
    touch(view, target_of(view, Intent("enrol", value="start")))
    assert view.scene.screen == "enrol" and set(view.enrolment.cards) == {"R7"}


def test_cancel_leaves_the_settings_and_the_deck_as_they_were(
    kiosk: tuple[PygameView, LiveSettings], tmp_path: Path,
) -> None:
    view, settings = kiosk
    table = Table()
    open_enrolment(view, ["R7", "B3"])
    table.card = "R7"
    while view.enrolment.current == "R7":
        show(view, table)
    touch(view, target_of(view, Intent("enrol", value="cancel")))
    assert view.enrolment is None and view.scene is not None
    assert view.scene.screen == "camera" and "nothing saved" in view.scene.toast
    assert settings.config.deck == "builtin" and settings.saved == 0
    assert not (tmp_path / "config.toml").exists() and not (tmp_path / "decks").exists()


def screen_text(view: PygameView) -> str:
    """The words the enrolment screen shows for the last frame."""
    from companion.ui.camera_screen import enrol_words

    return enrol_words(view.enrol_step, view.enrolment, view.enrol_waits)[0]


def test_no_mat_no_card_and_a_card_that_cannot_be_cut_out_are_said_plainly(
    kiosk: tuple[PygameView, LiveSettings],
) -> None:
    view, _settings = kiosk
    open_enrolment(view, ["R7"])
    table = Table()
    empty = table.frame()
    view.camera_frame(np.full_like(empty, 90))  # nothing of the mat in view
    view.pump()
    assert view.enrol_step.kind == "no_mat" and "corner markers" in screen_text(view)
    for _ in range(NO_CARD_LOOKS + 1):  # an empty zone, looked at for a while (once moving)
        view.camera_frame(empty)
        view.pump()
    assert screen_text(view).startswith("No card seen in the lit zone yet")
    # The card, with a hand still over it: said, and not taken.
    table.card = "R7"
    laid = table.frame()
    covered = with_hands(laid, 3, np.random.default_rng(1))
    for _ in range(3):
        view.camera_frame(covered)
        view.pump()
    assert view.enrol_step.kind == "failed" and "cut out" in screen_text(view)
    assert not view.enrolment.cards
    # The hand goes: the card is taken, and the deck of one card saved.
    for _ in range(3):
        if view.enrolment is None:
            break
        view.camera_frame(laid)
        view.pump()
    assert view.enrolment is None and view.scene is not None
    learnt(view)  # one card teaches no model: saved without one
    assert "1 of 1 card;" in view.scene.toast
