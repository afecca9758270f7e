"""The simulated table through the real vision path: rendered frames, calibration,
reading, stabilisation, then tracker, rules and lights. Rendering and reading cost
about a second per table change, so these play the opening of a game only."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from companion.app import Companion
from companion.records.journal import Journal, read_journal
from companion.rules.position import Variant
from companion.sim.simtable import Script, script_game
from companion.sim.simulate import Driver
from companion.snapshot import UNKNOWN
from companion.tracker import Tracker
from companion.ui.terminal import NoView
from companion.vision_path import TableFrames, WorkerFrames, vision_table
from hardware.config import LightsConfig
from hardware.factory import open_lights
from hardware.states import FlagState
from vision.designs import design


@pytest.mark.slow
def test_opening_of_a_game_through_vision_with_a_camera_failure(tmp_path: Path) -> None:
    full = script_game(3)
    steps = full.steps[:8]
    script = Script(full.seed, full.first, steps, full.final)
    table = vision_table(3)
    lights = open_lights(LightsConfig(board="mock"))
    journal = Journal.create(tmp_path, {"mode": "simulated", "first": "south", "variant": {}})
    companion = Companion(Tracker(Variant(), script.first), journal, lights, NoView())
    during: list[tuple[FlagState, ...]] = []

    def unplug(index: int, step: object) -> None:
        if index == 3:  # the camera fails for two frames while the next card is laid
            table.fail(2)
            table.show(steps[4].zones)
            for _ in range(2):
                companion.pump(table)
                during.append(lights.flags)

    try:
        report = Driver(companion, script, table, on_step=unplug).run()
    finally:
        table.close()
        lights.close()
        journal.close()
    assert report.problems == []
    assert report.ruling_mismatches == 0 and report.ruling_checks > 0
    record = read_journal(journal.path)
    assert [(e.player, e.action) for e in record.events] == [(s.player, s.action) for s in steps]
    assert during and all(FlagState.ATTENTION in state for state in during)
    assert companion.camera_problem is None  # frames came back, and play went on


def test_an_unplugged_camera_is_attention_until_frames_return(tmp_path: Path) -> None:
    """The live path's camera: reopened after each failure, so play resumes by itself."""
    import cv2

    from companion.snapshot import SourceError
    from companion.vision_path import ReopeningFrames, TableFrames, VisionSnapshots
    from vision.profile import builtin_profile
    from vision.sources.folder import FolderSource

    folder = tmp_path / "camera"
    frames = ReopeningFrames(lambda: FolderSource(folder, loop=True), "folder camera")
    source = VisionSnapshots(frames, builtin_profile())
    journal = Journal.create(tmp_path, {"mode": "camera", "first": "south", "variant": {}})
    lights = open_lights(LightsConfig(board="mock"))
    companion = Companion(Tracker(Variant(), script_game(1).first), journal, lights, NoView())
    try:
        companion.pump(source)
        assert companion.camera_problem is not None and "not a folder" in companion.camera_problem
        assert lights.flags == (FlagState.ATTENTION,) * 9
        with pytest.raises(SourceError):
            source.poll()
        # The camera is back: a still table with south's R7 at flag 3.
        folder.mkdir()
        _, still = TableFrames(5).render({"flag3.south": ("R7",)}, hand=False)
        cv2.imwrite(str(folder / "frame.png"), still.main)
        for _ in range(6):
            companion.pump(source)
            if companion.tracker.events:
                break
        assert companion.camera_problem is None
        assert [e.describe() for e in companion.tracker.events] == ["south R7@3"]
        assert lights.flags[2] is not FlagState.ATTENTION
    finally:
        lights.close()
        journal.close()


def test_a_frame_the_reader_fails_on_is_attention_and_the_next_is_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A fault in the reader on one frame is shown and noted like a camera's, and play
    goes on with the next frame (it once ended the game with a traceback)."""
    import cv2

    from companion.vision_path import VisionSnapshots
    from vision.profile import builtin_profile
    from vision.read import Reader
    from vision.sources.folder import FolderSource

    folder = tmp_path / "camera"
    folder.mkdir()
    _, still = TableFrames(5).render({"flag3.south": ("R7",)}, hand=False)
    cv2.imwrite(str(folder / "frame.png"), still.main)
    source = VisionSnapshots(FolderSource(folder, loop=True), builtin_profile())
    journal = Journal.create(tmp_path, {"mode": "camera", "first": "south", "variant": {}})
    lights = open_lights(LightsConfig(board="mock"))
    companion = Companion(Tracker(Variant(), script_game(1).first), journal, lights, NoView())
    read, failed = Reader.read, []

    def fails_once(self: Reader, *args: object, **kwargs: object) -> object:
        if not failed:
            failed.append(True)
            raise IndexError("list index out of range")
        return read(self, *args, **kwargs)

    monkeypatch.setattr(Reader, "read", fails_once)
    try:
        companion.pump(source)
        problem = companion.camera_problem
        assert problem is not None and "IndexError: list index out of range" in problem
        assert lights.flags == (FlagState.ATTENTION,) * 9
        assert "Traceback" in capsys.readouterr().err
        for _ in range(6):
            companion.pump(source)
            if companion.tracker.events:
                break
        assert companion.camera_problem is None
        assert [e.describe() for e in companion.tracker.events] == ["south R7@3"]
    finally:
        lights.close()
        journal.close()
    assert any(line.get("type") == "note" and "IndexError" in line["message"]
               for line in read_journal(journal.path).lines)


def test_a_folder_read_through_is_told_by_its_class_in_any_language(tmp_path: Path) -> None:
    """``play`` stops at the end of a folder of images by the error's flag, not by
    its text, so the end is seen whatever language the message is in."""
    import cv2

    from companion.i18n import set_language
    from companion.vision_path import ReopeningFrames, TableFrames, VisionSnapshots
    from vision.profile import builtin_profile
    from vision.sources.folder import FolderSource

    _, still = TableFrames(5).render({}, hand=False)
    cv2.imwrite(str(tmp_path / "frame.png"), still.main)
    set_language("hu")
    journal = Journal.create(tmp_path, {"mode": "camera", "first": "south", "variant": {}})
    lights = open_lights(LightsConfig(board="mock"))
    try:
        frames = ReopeningFrames(lambda: FolderSource(tmp_path), "folder")
        source = VisionSnapshots(frames, builtin_profile())
        companion = Companion(Tracker(Variant(), script_game(1).first), journal, lights, NoView())
        companion.pump(source)
        assert not companion.source_ended and companion.camera_problem is None
        companion.pump(source)
        assert companion.source_ended
        assert companion.camera_problem == f"folder:{tmp_path}: nincs több kép"
    finally:
        set_language("en")
        lights.close()
        journal.close()

def test_a_card_laid_in_one_zone_re_reads_only_that_zone() -> None:
    """The live path reads again only what changed since its last read: the other
    cards stay where they were, so their zones keep their reading."""
    table = vision_table(11)
    vision = table.vision
    before = {"flag2.south": ("R7", "R8"), "flag5.north": ("B3",), "flag8.south": ("G10",)}
    after = {**before, "flag5.north": ("B3", "Y6")}

    def settle() -> dict[str, tuple[str, ...]]:
        for _ in range(table.polls_per_change):
            snap = table.poll()
            if snap is not None:
                return {z: tuple(r.token for r in snap.readings(z)) for z in snap.zones}
        raise AssertionError("no snapshot")

    # The cards of the zones not read again are no band's rivals (a card lies once).
    elsewhere: list[set[str]] = []
    read = vision.reader.read

    def reading(frame, calib, zones=None, known=()):
        elsewhere.append(set(known))
        return read(frame, calib, zones, known)

    vision.reader.read = reading  # type: ignore[method-assign]
    try:
        table.show(before)
        assert settle() == before
        first = vision.zones_read
        assert first == len(vision.reader.layout.zones)  # the first read reads everything
        assert elsewhere[0] == set()
        table.show(after)
        assert settle() == after
        assert vision.zones_read - first <= 2  # flag5.north (and a neighbour at most)
        assert {"R7", "R8", "G10"} <= elsewhere[-1] and "Y6" not in elsewhere[-1]
    finally:
        table.close()


def test_the_renderer_process_draws_the_art_it_is_given() -> None:
    """A generated design reaches the worker that renders the simulated table
    (``--design``): its frames are those drawn here with that art, not our deck's."""
    art = design("tune", 0)
    zones = {"flag3.south": ("R7", "G2"), "flag4.north": ("B5",)}
    worker = WorkerFrames(5, art)
    try:
        _, drawn = worker.render(zones, hand=False)
    finally:
        worker.close()
    _, here = TableFrames(5, art).render(zones, hand=False)
    _, ours = TableFrames(5).render(zones, hand=False)
    assert np.array_equal(drawn.main, here.main)
    assert not np.array_equal(drawn.main, ours.main)


def test_still_noise_makes_each_still_frame_after_the_first_a_new_one() -> None:
    """``--still-noise``: a camera's frames of a still table differ by sensor noise,
    so reads voted over them are not one read repeated; the first is the photograph."""
    frames = TableFrames(2)
    frames.show({"flag1.north": ("R3",)}, hand=False)
    assert frames.read() is frames.read()  # no noise: the same photograph again
    frames.still_noise = 2.0
    frames.show({"flag1.north": ("R3",)}, hand=False)
    first, second, third = frames.read(), frames.read(), frames.read()
    assert frames._still is not None and first is frames._still
    assert not np.array_equal(second.main, first.main)
    assert not np.array_equal(second.main, third.main)
    assert abs(float(second.main.mean()) - float(first.main.mean())) < 0.5


def test_a_card_the_reader_asks_about_reaches_the_tracker_with_its_guess() -> None:
    """A band read below the bar is ``unknown`` in the snapshot, and the reader's
    guess rides with it for the picker to offer (never as a reading)."""
    from dataclasses import replace

    from vision.vote import SUGGEST_AT

    table = vision_table(11)
    vision = table.vision
    read = vision.reader.read

    def unsure(frame, calib, zones=None, known=()):
        out = read(frame, calib, zones, known)
        out.cards = [replace(c, token=UNKNOWN, confidence=SUGGEST_AT, guess=(c.token, SUGGEST_AT))
                     if c.token == "R7" else c for c in out.cards]
        return out

    vision.reader.read = unsure  # type: ignore[method-assign]
    try:
        table.show({"flag2.south": ("R7", "R8")})
        for _ in range(table.polls_per_change):
            snap = table.poll()
            if snap is not None:
                break
        assert snap is not None
        assert [(r.token, r.guess) for r in snap.readings("flag2.south")] == [
            (UNKNOWN, "R7"), ("R8", None)]
    finally:
        table.close()
