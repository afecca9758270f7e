"""LightsConfig: documented defaults, and every bad key named."""

from __future__ import annotations

from typing import Any

import pytest

from hardware.config import RESERVED_PINS, ConfigError, LightsConfig


def test_defaults() -> None:
    config = LightsConfig.from_mapping({})
    assert config == LightsConfig()
    assert config.board == "auto" and config.pixels_per_flag == 3
    assert config.usb_id == (0x2E8A, 0x0005)
    pins = config.pins.all_pins()
    assert len(pins) == len(set(pins)) == 20
    # Camera and display have their own connectors; I2C, UART and the HAT EEPROM stay free.
    assert not set(pins) & set(RESERVED_PINS)


def test_a_full_mapping() -> None:
    config = LightsConfig.from_mapping({
        "board": "pico", "serial_port": "/dev/ttyACM1", "pixels_per_flag": 5,
        "brightness": 1, "colours": {"north": [0, 80, 255]}, "usb_id": "2e8a:000a",
        "pins": {"buttons": {"south": 21}}, "pin_factory": "lgpio", "active_high": False,
        "die_colours": [[255, 0, 0], [0, 0, 255]],
    })
    assert config.board == "pico" and config.serial_port == "/dev/ttyACM1"
    assert config.colours["north"] == (0, 80, 255)
    assert config.colours["south"] == (0, 255, 0)  # the rest keep their defaults
    assert config.usb_id == (0x2E8A, 0x000A)
    assert config.pins.buttons == {"north": 12, "south": 21}
    assert config.brightness == 1.0 and config.pin_factory == "lgpio"


@pytest.mark.parametrize(("mapping", "named"), [
    ({"bord": "pico"}, "lights.bord: unknown setting"),
    ({"board": "arduino"}, "lights.board: must be one of"),
    ({"pixels_per_flag": 0}, "lights.pixels_per_flag: must be a whole number 1..16"),
    ({"pixels_per_flag": True}, "lights.pixels_per_flag"),
    ({"brightness": 1.5}, "lights.brightness"),
    ({"colours": {"north": [255, 0]}}, "lights.colours.north: must be three numbers"),
    ({"colours": {"north": [255, 0, 300]}}, r"lights.colours.north\[2\]"),
    ({"colours": {"purple": [1, 2, 3]}}, "lights.colours.purple: unknown colour"),
    ({"usb_id": "pico"}, "lights.usb_id: must be VID:PID"),
    ({"pins": {"flags": [[4, 17]] * 9}}, "lights.pins: GPIO4 is used twice"),
    ({"pins": {"buttons": {"north": 2}}}, "lights.pins.buttons.north: GPIO2 is kept free for the I2C"),
    ({"pins": {"buttons": {"east": 20}}}, "lights.pins.buttons.east"),
    ({"pins": {"flags": [[4, 17]]}}, "lights.pins.flags: must list 9 pairs"),
    ({"pins": {"led": 4}}, "lights.pins.led: unknown setting"),
    ({"die_colours": [[0, 0, 0], [0, 255, 0]]}, "lights.die_colours: a die's colour cannot be black"),
    ({"active_high": "yes"}, "lights.active_high: must be true or false"),
    ({"pin_factory": "wiringpi"}, "lights.pin_factory"),
])
def test_bad_settings_are_named(mapping: dict[str, Any], named: str) -> None:
    with pytest.raises(ConfigError, match=named):
        LightsConfig.from_mapping(mapping)
