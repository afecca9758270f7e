"""Picks and opens the board the config names."""

from __future__ import annotations

import time
import warnings

from companion.i18n import _
from hardware import discovery
from hardware.config import LightsConfig
from hardware.lights import Clock, FlagLights, NoLights


class LightsUnavailable(RuntimeError):
    """The configured board cannot be opened here; the message says why and what to do."""


def resolve_board(config: LightsConfig) -> str:
    """'auto' becomes pico if one is plugged in, else direct on a Raspberry Pi, else mock."""
    if config.board != "auto":
        return config.board
    if discovery.find_port(config) is not None:
        return "pico"
    return "direct" if discovery.on_raspberry_pi() else "mock"


def open_lights(config: LightsConfig, clock: Clock = time.monotonic) -> FlagLights:
    board = resolve_board(config)
    if board == "none":
        return NoLights(config, clock)
    if board == "pico":
        from hardware.serial_link import SerialLights

        return SerialLights(config, clock)
    from gpiozero import GPIOZeroError

    from hardware.direct import DirectLights, make_pin_factory

    try:
        with warnings.catch_warnings():
            # gpiozero warns at each library it tries; the error below says what matters.
            warnings.simplefilter("ignore")
            factory = make_pin_factory("mock" if board == "mock" else config.pin_factory)
            return DirectLights(config, pin_factory=factory, clock=clock)
    except (GPIOZeroError, ImportError, OSError) as e:
        raise LightsUnavailable(_(
            "cannot drive the direct board's GPIO pins here ({error}). On a Raspberry Pi "
            "install python3-lgpio (make does); elsewhere use board 'mock' (mock pins) or "
            "'none'.").format(error=f"{type(e).__name__}: {e}")) from e
