"""The simulated table through the real vision path: rendered frames, calibration,
reading, stabilisation, then tracker, rules and lights. Rendering and reading cost
about a second per table change, so these play the opening of a game only."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.app import Companion
from companion.journal import Journal, read_journal
from companion.rules.position import Variant
from companion.simtable import Script, script_game
from companion.simulate import Driver
from companion.tracker import Tracker
from companion.ui.terminal import NoView
from companion.vision_path import vision_table
from hardware.config import LightsConfig
from hardware.factory import open_lights
from hardware.states import FlagState


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
