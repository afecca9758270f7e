"""``battleline-companion ui-shots DIR``: every screen at both sizes as PNGs.

The screens show a demonstration game (a few plays on a simulated table, one
refused and one granted claim), the same one the golden tests draw.
"""

from __future__ import annotations

import argparse
import io
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any

from companion.app import Companion
from companion.i18n import EDITIONS, LANGUAGES, set_language
from companion.records.journal import Journal
from companion.rules.game import Ending, Outcome
from companion.rules.position import Player, Variant
from companion.snapshot import Reading, Snapshot, snapshot_of
from companion.tracker import Tracker
from companion.ui.pygame_view import LANDSCAPE, PORTRAIT, PygameView
from hardware.config import LightsConfig
from hardware.lights import NoLights

# A mid-game table, south first: plays alternate, one zone at a time.
DEMO_PLAYS: tuple[tuple[str, str], ...] = (
    ("flag2.south", "R8"), ("flag2.north", "B1"), ("flag2.south", "R9"),
    ("flag2.north", "G1"), ("flag2.south", "R10"), ("flag5.north", "Y2"),
    ("flag5.south", "P3"), ("flag5.north", "Y3"), ("flag5.south", "P4"),
    ("flag5.north", "Y4"), ("flag7.south", "O10"), ("flag7.north", "B10"),
    ("flag7.south", "G10"), ("flag7.north", "AL"), ("flag4.south", "B5"),
    ("flag4.north", "P6"), ("flag1.south", "G2"), ("flag9.north", "R1"),
)


def demo_companion(directory: Path, view: PygameView, plays: int = len(DEMO_PLAYS)) -> Companion:
    journal = Journal.create(directory, {"first": "south", "variant": {}})
    companion = Companion(Tracker(Variant(), Player.SOUTH), journal,
                          NoLights(LightsConfig(board="none")), view)
    zones: dict[str, list[str]] = {}
    for zone, token in DEMO_PLAYS[:plays]:
        zones.setdefault(zone, []).append(token)
        companion.on_snapshot(snapshot_of(zones))
    view.attach(companion)
    return companion


def unread_card(companion: Companion, zone: str, count: int = 1,
                guess: str | tuple[str | None, ...] | None = None) -> None:
    """The demo table again with ``count`` cards at ``zone`` the camera could not read
    (the first of them guessed ``guess``; a tuple guesses one card after another)."""
    guesses = guess if isinstance(guess, tuple) else (guess,)
    zones: dict[str, list[Reading]] = {}
    for where, token in DEMO_PLAYS:
        zones.setdefault(where, []).append(Reading(token, 1.0))
    zones.setdefault(zone, []).extend(
        Reading("unknown", 0.1, guesses[k] if k < len(guesses) else None)
        for k in range(count))
    companion.on_snapshot(Snapshot({k: tuple(v) for k, v in zones.items()}))


@lru_cache(maxsize=1)
def demo_frame() -> Any:
    """A synthetic camera photograph of a dealt mat (vision.simulated.synth, seeded)."""
    from vision.simulated.synth import scene

    return scene(3)[1].image


@lru_cache(maxsize=1)
def refused_frame() -> Any:
    """The demonstration photograph with the mat's left part covered: 3 of its 6 markers
    in view, too few to calibrate."""
    frame = demo_frame().copy()
    frame[:, : frame.shape[1] * 2 // 5] = 90
    return frame


@lru_cache(maxsize=4)
def enrol_frame(token: str | None) -> Any:
    """The table camera's photograph of the mat with ``token`` (or nothing) in the
    enrolment zone, as a player sees it while enrolling a deck (seeded)."""
    import numpy as np

    from vision.enrolment.enroll import ENROL_ZONE
    from vision.simulated.camera_model import Camera
    from vision.simulated.synth import Conditions, lay_table, photograph

    table = lay_table({ENROL_ZONE: [token]} if token else {}, "classic",
                      np.random.default_rng(3))
    return photograph(table, Camera(tilt_x_deg=3.0, fill=0.92),
                      Conditions(gain=(1.05, 1.0, 0.93), noise=2.0, blur=0.5),
                      np.random.default_rng(4)).image


@contextmanager
def demo(size: tuple[int, int], *, window: bool = False,
         ) -> Iterator[tuple[PygameView, Companion]]:
    with tempfile.TemporaryDirectory() as tmp:
        view = PygameView(size, window=window)
        companion = demo_companion(Path(tmp), view)
        try:
            yield view, companion
        finally:
            companion.journal.close()


def scenes(view: PygameView, companion: Companion) -> Iterator[str]:
    """Walks the view through every screen, yielding each screen's name once it shows."""
    from companion.ui.scene import Intent

    assert view.scene is not None
    yield "play"
    view.act(Intent("flag", flag=1))
    yield "flag"
    view.act(Intent("claim", flag=4, player=Player.NORTH))
    yield "ruling_refused"
    view.act(Intent("go", value="play"))
    view.act(Intent("claim", flag=1, player=Player.SOUTH))
    yield "ruling_granted"
    view.act(Intent("go", value="play"))
    view.act(Intent("pick", zone="flag7.north", value="1"))
    yield "pick"
    view.act(Intent("go", value="teach"))
    yield "teach"
    view.act(Intent("go", value="teach_flags", flag=4))
    yield "teach_flags"
    view.act(Intent("go", value="settings"))
    yield "settings"
    view.act(Intent("go", value="keyboard", player=Player.NORTH))
    for key in ("\b", "\b", "\b", "\b", "\b", "A", "D", "A"):
        view.act(Intent("key", value=key))
    yield "keyboard"
    view.act(Intent("key", value="\n"))
    view.camera_frame(demo_frame())
    view.act(Intent("go", value="camera"))
    yield "camera"
    # Enrolling a deck: the first card has just been taken from the lit zone.
    view.act(Intent("enrol", value="start"))
    every, view.look_every_s = view.look_every_s, 0.0
    first = view.enrolment.current
    while view.enrolment.current == first:
        view.camera_frame(enrol_frame(first))
        view.draw()
    view.look_every_s = every
    yield "enrol"
    view.act(Intent("enrol", value="cancel"))
    # A camera that has not calibrated yet, on a mat it cannot see whole: the short
    # headline, then its whole reason on a tap.
    from vision.calibrate import Calibrator

    view.calibrator, every, view.look_every_s = Calibrator(), view.look_every_s, 0.0
    view.camera_frame(refused_frame())
    view.act(Intent("go", value="camera"))
    yield "camera_refused"
    view.act(Intent("details"))
    yield "camera_refused_why"
    view.look_every_s = every
    view.act(Intent("go", value="play"))
    unread_card(companion, "flag3.south")
    yield "attention"
    view.act(Intent("flag", flag=2))
    yield "flag_uncertain"
    # The camera's guess for a card it could not name, offered first in the picker.
    unread_card(companion, "flag3.south", guess="Y5")
    view.act(Intent("flag", flag=2))
    yield "flag_guessed"
    view.act(Intent("pick", zone="flag3.south", value="0"))
    yield "pick_guessed"
    # The end of a game, drawn over this table (reaching one takes a whole game).
    view.scene.outcome = Outcome(Player.SOUTH, Ending.BREAKTHROUGH, (1, 3))
    view.scene.model.score = (4, 5)
    view.scene.next_game = True  # a match goes on
    view.scene.screen = "over"
    yield "game_over"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="battleline-companion ui-shots",
                                     description="save every touchscreen screen as PNG")
    parser.add_argument("directory", type=Path)
    parser.add_argument("--language", choices=["auto", *LANGUAGES], default="en",
                        help="the screens' language (default en)")
    parser.add_argument("--edition", choices=list(EDITIONS), default="gmt",
                        help="the names on the cards (default gmt)")
    ns = parser.parse_args(argv)
    set_language(ns.language)
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")  # pictures only: no window needed
    ns.directory.mkdir(parents=True, exist_ok=True)
    out = io.StringIO()
    for size in (LANDSCAPE, PORTRAIT):
        with demo(size) as (view, companion):
            assert view.scene is not None
            view.scene.options["edition"] = ns.edition
            companion.refresh()
            for name in scenes(view, companion):
                path = ns.directory / f"{name}_{size[0]}x{size[1]}.png"
                view.screenshot(path)
                out.write(f"{path}\n")
    print(out.getvalue(), end="")
    return 0
