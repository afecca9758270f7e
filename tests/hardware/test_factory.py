"""Picking the board from the config."""

from __future__ import annotations

from pathlib import Path

from hardware import looks
from hardware.config import LightsConfig
from hardware.direct import DirectLights
from hardware.discovery import on_raspberry_pi
from hardware.factory import open_lights, resolve_board
from hardware.firmware_sim import FirmwareOnPty
from hardware.lights import NoLights
from hardware.serial_link import SerialLights
from hardware.states import FlagState


def test_none_keeps_the_state_and_shows_nothing() -> None:
    with open_lights(LightsConfig(board="none")) as lights:
        assert isinstance(lights, NoLights)
        lights.set_flag(4, FlagState.UNCERTAIN)
        lights.won("north", "envelopment")
        assert lights.flags[3] == FlagState.UNCERTAIN
        assert lights.effect is not None and lights.effect.words == ("won", "north", "envelopment")


def test_mock_is_the_direct_board_on_mock_pins() -> None:
    with open_lights(LightsConfig(board="mock", brightness=1.0)) as lights:
        assert isinstance(lights, DirectLights)
        lights.set_flag(1, FlagState.CLAIMED_SOUTH)
        assert lights.levels()[0] == (0, 1)


def test_auto_takes_a_plugged_in_pico(tmp_path: Path) -> None:
    sim = FirmwareOnPty(tmp_path)
    config = LightsConfig(serial_port=str(sim.link))  # board auto
    expected_without = "direct" if on_raspberry_pi() else "mock"
    assert resolve_board(config) == expected_without
    sim.start()
    try:
        assert resolve_board(config) == "pico"
        with open_lights(config) as lights:
            assert isinstance(lights, SerialLights)
            assert lights.flush(5)
    finally:
        sim.stop()


def test_a_partial_colour_table_keeps_the_other_defaults() -> None:
    config = LightsConfig(colours={"north": (0, 90, 255)})
    assert config.colours["north"] == (0, 90, 255)
    assert config.colours["attention"] == looks.DEFAULT_COLOURS["attention"]
