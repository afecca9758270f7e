"""The direct board: a bicolour LED per flag on two PWM pins of the Pi, and a
claim/confirm button per player, through gpiozero.

gpiozero picks the pin library: lgpio on a Pi 5 (and on a Pi 4 with current
Raspberry Pi OS), RPi.GPIO on older systems; `pin_factory` in the config
forces one. Off the Pi, gpiozero's own MockFactory with PWM mock pins stands in.
"""

from __future__ import annotations

import importlib
import logging
import threading
import time
from typing import Any

from hardware.config import RGB, LightsConfig
from hardware.lights import Clock, FlagLights
from hardware.states import PLAYERS, ButtonEvent, Player

log = logging.getLogger(__name__)

_FACTORIES = {
    "lgpio": ("gpiozero.pins.lgpio", "LGPIOFactory"),
    "rpigpio": ("gpiozero.pins.rpigpio", "RPiGPIOFactory"),
    "pigpio": ("gpiozero.pins.pigpio", "PiGPIOFactory"),
    "native": ("gpiozero.pins.native", "NativeFactory"),
}
BOUNCE_S = 0.02


def make_pin_factory(name: str | None) -> Any:
    """A gpiozero pin factory by name; None leaves the choice to gpiozero."""
    if name is None:
        return None
    if name == "mock":
        from gpiozero.pins.mock import MockFactory, MockPWMPin

        class LastStatePWMPin(MockPWMPin):  # type: ignore[misc]
            """A mock pin that keeps only its last change: gpiozero's keep every change
            for tests to assert on, which grows without end on a long run (a blinking
            flag changes its pins many times a second)."""

            def _change_state(self, value: float) -> bool:
                changed: bool = super()._change_state(value)
                del self.states[:-1]
                return changed

        return MockFactory(pin_class=LastStatePWMPin)
    module, cls = _FACTORIES[name]
    return getattr(importlib.import_module(module), cls)()


def die_levels(rgb: RGB, dies: tuple[RGB, RGB], brightness: float) -> tuple[float, float]:
    """PWM levels (0..1) of the two dies that come closest to `rgb`: each die gets
    the share of `rgb` along its own colour, so red on a red/green LED is
    (1, 0) and amber (255, 160, 0) is (1, 0.63)."""
    out = []
    for die in dies:
        along = sum(c * d for c, d in zip(rgb, die, strict=True)) / sum(d * d for d in die)
        out.append(round(min(1.0, max(0.0, along)) * brightness, 4))
    return (out[0], out[1])


class DirectLights(FlagLights):
    name = "direct board"

    def __init__(
        self,
        config: LightsConfig,
        pin_factory: Any = None,
        clock: Clock = time.monotonic,
        tick_s: float | None = 0.02,
    ) -> None:
        """`tick_s`: how often blinking and effects move on; None for never on its
        own (tests call `refresh` with a hand-driven clock instead)."""
        super().__init__(config, clock)
        from gpiozero import Button, PWMOutputDevice

        factory = pin_factory if pin_factory is not None else make_pin_factory(config.pin_factory)
        self._t0 = clock()
        self._devices: list[Any] = []
        self.leds: list[tuple[Any, Any]] = []
        try:
            for north_pin, south_pin in config.pins.flags:
                pair = tuple(
                    PWMOutputDevice(pin, active_high=config.active_high, initial_value=0,
                                    frequency=config.pwm_hz, pin_factory=factory)
                    for pin in (north_pin, south_pin))
                self._devices += pair
                self.leds.append((pair[0], pair[1]))
            self.buttons: dict[Player, Any] = {}
            for player in PLAYERS:
                button = Button(config.pins.buttons[player], pull_up=True, bounce_time=BOUNCE_S,
                                hold_time=config.hold_s, pin_factory=factory)
                button.when_pressed = self._handler(player, held=False)
                button.when_held = self._handler(player, held=True)
                self._devices.append(button)
                self.buttons[player] = button
        except Exception:
            self._close_devices()
            raise
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None
        with self._lock:
            self._show()
        if tick_s is not None:
            self._ticker = threading.Thread(
                target=self._tick, args=(tick_s,), name="flag-lights", daemon=True)
            self._ticker.start()

    def _handler(self, player: Player, held: bool) -> Any:
        def handle() -> None:
            self._emit(ButtonEvent(player, None, held))
        return handle

    def levels(self) -> list[tuple[float, float]]:
        """The (north die, south die) PWM level of each flag's LED right now."""
        return [(north.value, south.value) for north, south in self.leds]

    def refresh(self) -> None:
        """Bring the LEDs up to date with the state and the clock."""
        with self._lock:
            if self.closed:
                return
            now_ms = round((self.clock() - self._t0) * 1000)
            for (north, south), rgb in zip(self.leds, self.colours_now(now_ms), strict=True):
                a, b = die_levels(rgb, self.config.die_colours, self.config.brightness)
                if north.value != a:
                    north.value = a
                if south.value != b:
                    south.value = b

    def _show(self) -> None:
        self.refresh()

    def _tick(self, every: float) -> None:
        while not self._stop.wait(every):
            try:
                self.refresh()
            except Exception:  # keep the lights alive through a passing pin error
                log.exception("direct board: refreshing the LEDs failed")

    def close(self) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
        with self._lock:
            for north, south in self.leds:
                north.value = 0
                south.value = 0
            super().close()
            self._close_devices()

    def _close_devices(self) -> None:
        for device in self._devices:
            device.close()
        self._devices = []
