"""The lights' settings: a typed dataclass with documented defaults.

The app reads them from its TOML config (the `[lights]` table) and hands the
mapping to `LightsConfig.from_mapping`, which names any bad key. The defaults
are the wiring in hardware/WIRING.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from companion.i18n import _
from hardware import looks

RGB = tuple[int, int, int]
BOARDS = ("auto", "direct", "pico", "mock", "none")
PIN_FACTORIES = ("lgpio", "rpigpio", "pigpio", "native", "mock")

# BCM numbers, per flag (north die, south die). Leaves free: GPIO0/1 (HAT
# EEPROM), GPIO2/3 (I2C), GPIO14/15 (UART); the camera (CSI) and display (DSI)
# have connectors of their own. Flags 1..6 use the odd-numbered header pins
# 7..37, flags 7..9 the even pins 12..26: see hardware/WIRING.md.
DEFAULT_FLAG_PINS: tuple[tuple[int, int], ...] = (
    (4, 17), (27, 22), (10, 9), (11, 5), (6, 13), (19, 26), (18, 23), (24, 25), (8, 7),
)
DEFAULT_BUTTON_PINS: dict[str, int] = {"north": 12, "south": 16}
RESERVED_PINS = {0: "HAT EEPROM", 1: "HAT EEPROM", 2: "I2C SDA", 3: "I2C SCL",
                 14: "UART TX", 15: "UART RX"}


class ConfigError(ValueError):
    """A bad lights setting; the message names the key."""


@dataclass(frozen=True)
class PinMap:
    """Direct board: the two PWM pins (north die, south die) of each flag's bicolour
    LED, and each player's claim/confirm button (to ground, internal pull-up)."""

    flags: tuple[tuple[int, int], ...] = DEFAULT_FLAG_PINS
    buttons: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_BUTTON_PINS))

    def all_pins(self) -> list[int]:
        return [p for pair in self.flags for p in pair] + list(self.buttons.values())


@dataclass(frozen=True)
class LightsConfig:
    board: str = "auto"  # auto: a Pico if one is plugged in, else direct on a Pi, else mock
    pin_factory: str | None = None  # None: gpiozero's default (lgpio on a Pi 5)
    pins: PinMap = field(default_factory=PinMap)
    active_high: bool = True  # common-cathode LEDs; False for common-anode
    pwm_hz: int = 250
    hold_s: float = 1.0  # direct board: a press this long is also a hold
    die_colours: tuple[RGB, RGB] = ((255, 0, 0), (0, 255, 0))  # the LED's two dies
    colours: dict[str, RGB] = field(default_factory=lambda: dict(looks.DEFAULT_COLOURS))
    brightness: float = 0.5  # 0..1
    serial_port: str | None = None  # None: find the Pico by USB id
    usb_id: tuple[int, int] = (0x2E8A, 0x0005)  # Raspberry Pi Pico running MicroPython
    pixels_per_flag: int = 3
    heartbeat_s: float = 1.0  # PING when the link has been quiet this long
    reply_timeout_s: float = 1.0  # no answer this long: the link is taken as lost

    def __post_init__(self) -> None:
        # Any colour not given keeps its default, however the config was made.
        missing = {k: v for k, v in looks.DEFAULT_COLOURS.items() if k not in self.colours}
        if missing:
            object.__setattr__(self, "colours", {**missing, **self.colours})

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], where: str = "lights") -> LightsConfig:
        """A config from a TOML-like mapping; missing keys keep their defaults."""
        known = {f.name for f in fields(cls)}
        for key in data:
            if key not in known:
                raise ConfigError(_("{setting}: unknown setting (known: {known})").format(
                    setting=f"{where}.{key}", known=", ".join(sorted(known))))
        changes = {key: _PARSERS[key](value, f"{where}.{key}") for key, value in data.items()}
        return replace(cls(), **changes)


def _fail(key: str, problem: str) -> ConfigError:
    return ConfigError(f"{key}: {problem}")


def _choice(options: tuple[str, ...]) -> Any:
    def parse(value: Any, key: str) -> str:
        if value not in options:
            raise _fail(key, _("must be one of {options}, not {value}").format(
                options=", ".join(options), value=repr(value)))
        return str(value)
    return parse


def _optional(inner: Any) -> Any:
    def parse(value: Any, key: str) -> Any:
        return None if value is None or value == "" else inner(value, key)
    return parse


def _integer(low: int, high: int) -> Any:
    def parse(value: Any, key: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise _fail(key, _("must be a whole number {low}..{high}, not {value}").format(
                low=low, high=high, value=repr(value)))
        return value
    return parse


def _number(low: float, high: float) -> Any:
    def parse(value: Any, key: str) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
            raise _fail(key, _("must be a number {low}..{high}, not {value}").format(
                low=low, high=high, value=repr(value)))
        return float(value)
    return parse


def _boolean(value: Any, key: str) -> bool:
    if not isinstance(value, bool):
        raise _fail(key, _("must be true or false, not {value}").format(value=repr(value)))
    return value


def _text(value: Any, key: str) -> str:
    if not isinstance(value, str):
        raise _fail(key, _("must be text, not {value}").format(value=repr(value)))
    return value


def _rgb(value: Any, key: str) -> RGB:
    channel = _integer(0, 255)
    if not isinstance(value, list | tuple) or len(value) != 3:
        raise _fail(key, _("must be three numbers [r, g, b] of 0..255, not {value}").format(
            value=repr(value)))
    r, g, b = (channel(v, f"{key}[{i}]") for i, v in enumerate(value))
    return (r, g, b)


def _colours(value: Any, key: str) -> dict[str, RGB]:
    if not isinstance(value, Mapping):
        raise _fail(key, _("must be a table of colour names to [r, g, b]"))
    out = {}
    for name, rgb in value.items():
        if name not in looks.COLOUR_NAMES:
            raise _fail(f"{key}.{name}", _("unknown colour (known: {known})").format(
                known=", ".join(looks.COLOUR_NAMES)))
        out[name] = _rgb(rgb, f"{key}.{name}")
    return out


def _dies(value: Any, key: str) -> tuple[RGB, RGB]:
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise _fail(key, _("must be two colours [[r, g, b], [r, g, b]]: the north and south "
                           "die"))
    first, second = (_rgb(v, f"{key}[{i}]") for i, v in enumerate(value))
    if first == (0, 0, 0) or second == (0, 0, 0):
        raise _fail(key, _("a die's colour cannot be black"))
    return (first, second)


def _usb_id(value: Any, key: str) -> tuple[int, int]:
    # "2E8A:0005", as lsusb prints it
    parts = value.split(":") if isinstance(value, str) else []
    try:
        vid, pid = (int(p, 16) for p in parts)
    except ValueError:
        raise _fail(key, _("must be VID:PID in hex like 2E8A:0005, not {value}").format(
            value=repr(value))) from None
    return (vid, pid)


def _pin(value: Any, key: str) -> int:
    pin = _integer(0, 27)(value, key)
    if pin in RESERVED_PINS:
        raise _fail(key, _("GPIO{pin} is kept free for the {use}").format(
            pin=pin, use=RESERVED_PINS[pin]))
    return int(pin)


def _pins(value: Any, key: str) -> PinMap:
    if not isinstance(value, Mapping):
        raise _fail(key, _("must be a table with flags and buttons"))
    for sub in value:
        if sub not in ("flags", "buttons"):
            raise _fail(f"{key}.{sub}", _("unknown setting (known: {known})").format(
                known="buttons, flags"))
    pins = PinMap()
    flags = pins.flags
    if "flags" in value:
        raw = value["flags"]
        if not isinstance(raw, list | tuple) or len(raw) != looks.FLAGS:
            raise _fail(f"{key}.flags", _("must list {n} pairs [north pin, south pin]").format(
                n=looks.FLAGS))
        parsed = []
        for i, pair in enumerate(raw):
            where = f"{key}.flags[{i}]"
            if not isinstance(pair, list | tuple) or len(pair) != 2:
                raise _fail(where, _("must be a pair [north pin, south pin], not {value}")
                            .format(value=repr(pair)))
            parsed.append((_pin(pair[0], f"{where}[0]"), _pin(pair[1], f"{where}[1]")))
        flags = tuple(parsed)
    buttons = dict(pins.buttons)
    if "buttons" in value:
        raw_buttons = value["buttons"]
        if not isinstance(raw_buttons, Mapping):
            raise _fail(f"{key}.buttons", _("must be a table: north = pin, south = pin"))
        for player, pin in raw_buttons.items():
            if player not in ("north", "south"):
                raise _fail(f"{key}.buttons.{player}", _("players are north and south"))
            buttons[player] = _pin(pin, f"{key}.buttons.{player}")
    result = PinMap(flags=flags, buttons=buttons)
    seen: dict[int, str] = {}
    for pin in result.all_pins():
        if pin in seen:
            raise _fail(key, _("GPIO{pin} is used twice").format(pin=pin))
        seen[pin] = "used"
    return result


_PARSERS: dict[str, Any] = {
    "board": _choice(BOARDS),
    "pin_factory": _optional(_choice(PIN_FACTORIES)),
    "pins": _pins,
    "active_high": _boolean,
    "pwm_hz": _integer(50, 20000),
    "hold_s": _number(0.01, 10.0),
    "die_colours": _dies,
    "colours": _colours,
    "brightness": _number(0.0, 1.0),
    "serial_port": _optional(_text),
    "usb_id": _usb_id,
    "pixels_per_flag": _integer(1, 16),
    "heartbeat_s": _number(0.1, 60.0),
    "reply_timeout_s": _number(0.1, 60.0),
}
