"""The run command with the touchscreen: a simulated match driven headless, with touches.

The real ``battleline-companion play`` path runs (truth snapshots, gpiozero mock
pins for the lights, SDL's dummy video driver). A test finger watches the screen
each time the loop reads the view's events and, at the right moments, puts
touches on SDL's queue as a player would: a colour and the hints in the settings,
a claim of a provable flag and its undo, a card corrected, then "Next game" and,
after the last game, closing the window.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pygame
import pytest

from companion import run
from companion.rules.position import Player
from companion.ui.pygame_view import PygameView
from companion.ui.scene import Intent
from hardware.states import FlagState


class Finger:
    """Touches the screen as a player would, one step whenever the step makes sense."""

    def __init__(self, pump: Callable[[PygameView], list[Intent]]) -> None:
        self.pump = pump  # the view's own pump: reads the touches put on SDL's queue
        self.stage = "settings"
        self.claimed: tuple[int, Player] | None = None
        self.lights_seen: list[FlagState] = []
        self.corrected = ""
        self.next_taps = 0
        self.lights_colour: tuple[int, int, int] | None = None

    def touch(self, view: PygameView, match: Intent | pygame.Rect) -> None:
        if isinstance(match, pygame.Rect):
            rect = match
        else:
            rects = [r for r, intent in view.targets if intent == match]
            assert rects, f"no {match} on {view.scene and view.scene.screen}"
            rect = rects[-1]
        w, h = view.display.physical_size
        x, y = view.display.size  # logical == physical here: a window of the asked size
        assert (w, h) == (x, y)
        cx, cy = rect.center
        pygame.event.post(pygame.event.Event(pygame.FINGERDOWN, x=cx / w, y=cy / h,
                                             finger_id=0, touch_id=0, dx=0, dy=0, pressure=1))
        pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(cx, cy), button=1,
                                             touch=True))
        done = self.pump(view)
        assert len(done) == 1, done  # one touch, one action

    def __call__(self, view: PygameView) -> None:
        scene, companion = view.scene, view.companion
        if scene is None or companion is None:
            return
        if self.stage == "settings" and scene.screen == "play":
            self.touch(view, Intent("go", value="settings"))
            colour = next(i for _r, i in view.targets
                          if i.kind == "colour" and i.player is Player.NORTH)
            self.touch(view, colour)
            self.lights_colour = companion.lights.config.colours["north"]
            self.touch(view, Intent("option", zone="hints", value="off"))
            self.touch(view, Intent("option", zone="hints", value="on"))
            self.touch(view, Intent("go", value="play"))
            self.stage = "claim"
        elif (self.stage == "claim" and scene.screen == "play" and companion.tracker.settled
              and not companion.tracker.issues and companion.tracker.provable()):
            flag, who = min(companion.tracker.provable().items())
            self.touch(view, view.layout.flag_slot(flag).token)
            self.touch(view, Intent("claim", flag=flag, player=who))
            assert scene.ruling is not None and scene.ruling.event is not None
            self.lights_seen.append(companion.lights.flags[flag])
            self.touch(view, view.display.surface.get_rect())  # OK
            self.touch(view, Intent("undo"))
            self.lights_seen.append(companion.lights.flags[flag])
            self.claimed = (flag, who)
            # The claimer's complete side, its first card chosen again in the picker.
            zone = f"flag{flag + 1}.{who.value}"
            token = companion.tracker.position.flags[flag].cards(who)[0].token
            self.touch(view, view.layout.flag_slot(flag).token)
            self.touch(view, Intent("pick", zone=zone, value="0"))
            self.touch(view, Intent("choose", zone=zone, value=token))
            self.touch(view, Intent("go", value="play"))  # the panel closed
            self.corrected = zone
            self.stage = "play on"
        elif scene.screen == "over" and scene.next_game:
            self.touch(view, Intent("next"))
            self.next_taps += 1
        elif scene.screen == "over" and self.stage == "play on" and not view.next_requested:
            pygame.event.post(pygame.event.Event(pygame.QUIT))  # the window closed
            self.stage = "closed"


def _journal(directory: Path) -> list[list[dict[str, Any]]]:
    games = []
    for path in sorted(directory.glob("*.jsonl")):
        games.append([json.loads(line) for line in path.read_text().splitlines()])
    return sorted(games, key=lambda lines: lines[0]["match"]["game"])


@pytest.mark.parametrize("orientation", ["landscape", "portrait"])
def test_a_match_on_the_touchscreen_takes_claims_corrections_undo_and_next_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    orientation: str,
) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[simulation]\nthink_s = 0.005\n")
    journal = tmp_path / "journal"
    real_pump = PygameView.pump
    finger = Finger(real_pump)
    opened: list[PygameView] = []

    def pump(view: PygameView) -> list[Intent]:
        if view not in opened:
            opened.append(view)
        finger(view)
        return real_pump(view)

    monkeypatch.setattr(PygameView, "pump", pump)
    code = run.main(["--view", "touchscreen", "--windowed", "--orientation", orientation,
                     "--snapshots", "truth",
                     "--lights", "mock", "--seed", "3", "--games", "2", "--config", str(config),
                     "--journal", str(journal)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.count("Match score:") == 2 and "the touchscreen was closed\n" in out
    assert "unfinished" not in out
    assert len(opened) == 1 and opened[0].closed
    assert opened[0].layout.portrait is (orientation == "portrait")
    assert finger.stage == "closed" and finger.next_taps == 1 and finger.claimed is not None
    flag, who = finger.claimed
    # The lights: the claim lit the flag in the claimer's colour, the undo took it back.
    assert finger.lights_seen[0] is FlagState.claimed(who.value)
    assert finger.lights_seen[1] not in (FlagState.CLAIMED_NORTH, FlagState.CLAIMED_SOUTH)
    first, second = _journal(journal)
    claim = f"claim {flag + 1}"
    touched = [i for i, line in enumerate(first) if line["type"] == "event"
               and line["player"] == who.value and line["action"] == claim]
    assert touched, "the touch's claim is journaled"
    undo = first[touched[0] + 1]
    assert undo["type"] == "undo" and undo["undone"] == claim
    notes = [line["message"] for line in first if line["type"] == "note"]
    assert any(n.startswith(f"correction: {finger.corrected} holds ") for n in notes)
    assert first[-1]["type"] == "end" and second[-1]["type"] == "end"
    assert second[0]["match"]["game"] == 1 and len(second[0]["match"]["outcomes"]) == 1
    # The settings: the new colour is on the lights and saved, the hints back on.
    saved = tomllib.loads(config.read_text())
    chosen = tuple(saved["lights"]["colours"]["north"])
    assert chosen != (255, 0, 0) and saved["rules"]["hints"] is True
    assert finger.lights_colour == chosen
    assert saved["simulation"]["think_s"] == 0.005  # the rest of the file kept


def test_the_camera_tables_frames_reach_the_camera_view_with_the_mat_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """A folder of photographs stands for the camera: the run command shows each frame
    on the touchscreen's camera view, calibrated, until the folder is read through."""
    import cv2

    from companion.ui.shots import demo_frame

    folder = tmp_path / "frames"
    folder.mkdir()
    for k in range(3):
        cv2.imwrite(str(folder / f"{k}.png"), demo_frame())
    config = tmp_path / "config.toml"
    config.write_text(f'[camera]\nsource = "folder"\nfolder = "{folder.as_posix()}"\n')
    real_pump = PygameView.pump
    seen: list[tuple[str, int, float]] = []

    def pump(view: PygameView) -> list[Intent]:
        scene = view.scene
        if scene is not None and scene.screen == "play" and not seen:
            view.act(Intent("go", value="settings"))
            view.act(Intent("go", value="camera"))
        done = real_pump(view)
        camera = view.camera
        if camera is not None and camera.calibration is not None:
            seen.append((scene.screen if scene else "", len(camera.calibration.seen),
                         camera.calibration.reprojection_mm))
        return done

    monkeypatch.setattr(PygameView, "pump", pump)
    code = run.main(["--view", "touchscreen", "--windowed", "--lights", "none",
                     "--config", str(config), "--journal", str(tmp_path / "journal")])
    out = capsys.readouterr().out
    assert code == 0 and "the folder of images is read through" in out, out
    assert seen, "no calibrated frame reached the camera view"
    screen, markers, error_mm = seen[-1]
    assert screen == "camera" and markers == 6 and error_mm < 2.0


def test_a_touchscreen_that_cannot_open_is_named_or_auto_falls_back_to_the_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    pygame.display.quit()
    monkeypatch.setenv("SDL_VIDEODRIVER", "nosuchdriver")
    args = ["--snapshots", "truth", "--lights", "none", "--speed", "max", "--config",
            str(tmp_path / "none.toml"), "--journal", str(tmp_path / "journal")]
    assert run.main(["--view", "touchscreen", *args]) == 2
    assert "battleline-companion: cannot open the touchscreen:" in capsys.readouterr().err
    monkeypatch.setenv("DISPLAY", ":99")  # a display is said to be there, but opens not
    assert run.main(args) == 0
    out = capsys.readouterr().out
    assert "view: a desktop display: the touchscreen, landscape, in a window" in out
    assert "cannot open the touchscreen" in out and "terminal view" in out
    assert "Match score:" in out
    assert run.main(["--quiet", *args, "--new"]) == 0  # quiet: no view is opened at all
    assert "cannot open the touchscreen" not in capsys.readouterr().out
