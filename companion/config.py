"""The companion's settings: one TOML file in the platform's config directory.

Every key has a documented default (``DEFAULT_TOML`` below is the whole
file with its defaults); a missing file means all defaults. ``auto`` values
are decided at start by ``detect``, which also says in plain words what it
chose and why: no camera → the simulated table, no display → the terminal
view, not a Raspberry Pi → mock pins.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import platformdirs

from hardware.config import ConfigError as LightsConfigError
from hardware.config import LightsConfig
from hardware.factory import resolve_board

APP: Final = "battleline-companion"
FILE_NAME: Final = "config.toml"

DEFAULT_TOML: Final = """\
# battleline-companion settings; every key shown with its default.

[camera]
source = "auto"       # auto | simulated | picamera2 | opencv | folder
device = 0            # opencv: camera index (or a video file path)
folder = ""           # folder: a folder of images, read in name order

[vision]
deck = "builtin"      # "builtin" (our printed deck) or a profile file made by 'enroll'
min_confidence = 0.75 # readings below this are uncertain: the companion asks
still_frames = 2      # still, hand-free frames before the table is read
vote_frames = 1       # reads voted into one snapshot

[view]
kind = "auto"         # auto | terminal | none

[rules]
tactics = true
claim_timing = "standard"   # standard | advanced (claims only at the start of your turn)
auto_claim = false    # take a flag as soon as it is provable
hints = true          # light the flags provable now, in the colour of who can claim

[journal]
dir = ""              # "" : the platform's data directory

[simulation]
snapshots = "vision"  # vision (rendered frames read by vision) | truth (the table's truth)
think_s = 1.0         # seconds a simulated player takes per move at --speed 1

[lights]              # see hardware/README.md for every key
board = "auto"        # auto | direct | pico | mock | none
"""

CAMERAS: Final = ("auto", "simulated", "picamera2", "opencv", "folder")
VIEWS: Final = ("auto", "terminal", "none")
TIMINGS: Final = ("standard", "advanced")
SNAPSHOTS: Final = ("vision", "truth")


class ConfigError(ValueError):
    """A bad setting; the message names the file and the key."""


@dataclass(frozen=True)
class Config:
    camera: str = "auto"
    device: int | str = 0
    folder: str = ""
    deck: str = "builtin"
    min_confidence: float = 0.75
    still_frames: int = 2
    vote_frames: int = 1
    view: str = "auto"
    tactics: bool = True
    claim_timing: str = "standard"
    auto_claim: bool = False
    hints: bool = True
    journal_dir: str = ""
    snapshots: str = "vision"
    think_s: float = 1.0
    lights: LightsConfig = field(default_factory=LightsConfig)

    def journal_path(self) -> Path:
        if self.journal_dir:
            return Path(self.journal_dir).expanduser()
        return Path(platformdirs.user_data_dir(APP)) / "journal"


def config_path() -> Path:
    return Path(platformdirs.user_config_dir(APP)) / FILE_NAME


def _choice(options: tuple[str, ...]) -> Callable[[Any, str], str]:
    def parse(value: Any, key: str) -> str:
        if not isinstance(value, str) or value not in options:
            raise ConfigError(f"{key}: must be one of {', '.join(options)}, not {value!r}")
        return value

    return parse


def _bool(value: Any, key: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{key}: must be true or false, not {value!r}")
    return value


def _text(value: Any, key: str) -> str:
    if not isinstance(value, str):
        raise ConfigError(f"{key}: must be a string, not {value!r}")
    return value


def _number(low: float, high: float) -> Callable[[Any, str], float]:
    def parse(value: Any, key: str) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
            raise ConfigError(f"{key}: must be a number {low}..{high}, not {value!r}")
        return float(value)

    return parse


def _count(low: int, high: int) -> Callable[[Any, str], int]:
    def parse(value: Any, key: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ConfigError(f"{key}: must be a whole number {low}..{high}, not {value!r}")
        return value

    return parse


def _device(value: Any, key: str) -> int | str:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ConfigError(f"{key}: must be a camera index or a video file path, not {value!r}")
    return value


# section -> key -> (Config field, parser)
_SCHEMA: Final[dict[str, dict[str, tuple[str, Callable[[Any, str], Any]]]]] = {
    "camera": {
        "source": ("camera", _choice(CAMERAS)),
        "device": ("device", _device),
        "folder": ("folder", _text),
    },
    "vision": {
        "deck": ("deck", _text),
        "min_confidence": ("min_confidence", _number(0.0, 1.0)),
        "still_frames": ("still_frames", _count(1, 30)),
        "vote_frames": ("vote_frames", _count(1, 15)),
    },
    "view": {"kind": ("view", _choice(VIEWS))},
    "rules": {
        "tactics": ("tactics", _bool),
        "claim_timing": ("claim_timing", _choice(TIMINGS)),
        "auto_claim": ("auto_claim", _bool),
        "hints": ("hints", _bool),
    },
    "journal": {"dir": ("journal_dir", _text)},
    "simulation": {
        "snapshots": ("snapshots", _choice(SNAPSHOTS)),
        "think_s": ("think_s", _number(0.0, 60.0)),
    },
}


def from_mapping(data: Mapping[str, Any], where: str = "config") -> Config:
    values: dict[str, Any] = {}
    for section, body in data.items():
        if section == "lights":
            if not isinstance(body, Mapping):
                raise ConfigError(f"{where}: [lights] must be a table")
            try:
                values["lights"] = LightsConfig.from_mapping(body)
            except LightsConfigError as error:
                raise ConfigError(f"{where}: {error}") from None
            continue
        keys = _SCHEMA.get(section)
        if keys is None:
            known = ", ".join([*_SCHEMA, "lights"])
            raise ConfigError(f"{where}: [{section}]: unknown section (known: {known})")
        if not isinstance(body, Mapping):
            raise ConfigError(f"{where}: [{section}] must be a table")
        for key, value in body.items():
            if key not in keys:
                raise ConfigError(
                    f"{where}: {section}.{key}: unknown setting (known: {', '.join(keys)})"
                )
            name, parse = keys[key]
            try:
                values[name] = parse(value, f"{section}.{key}")
            except ConfigError as error:
                raise ConfigError(f"{where}: {error}") from None
    return Config(**values)


def load_config(path: Path | None = None) -> tuple[Config, Path, bool]:
    """The settings from ``path`` (default: the platform config file); whether it existed."""
    path = path or config_path()
    if not path.exists():
        return Config(), path, False
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot read ({error})") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML ({error})") from None
    return from_mapping(data, str(path)), path, True


@dataclass(frozen=True)
class Choices:
    """What ``auto`` became here, and a sentence each on why."""

    camera: str
    view: str
    board: str
    notes: tuple[str, ...]


def _camera_present() -> str | None:
    """'picamera2' or 'opencv' when a camera is attached, else None."""
    if os.path.exists("/proc/device-tree/model"):
        try:
            with open("/proc/device-tree/model", encoding="ascii", errors="replace") as f:
                on_pi = "Raspberry Pi" in f.read()
        except OSError:
            on_pi = False
        if on_pi:
            try:
                from picamera2 import Picamera2  # type: ignore[import-not-found,unused-ignore]

                if Picamera2.global_camera_info():
                    return "picamera2"
            except Exception:  # not installed, or libcamera finds nothing
                pass
    if os.path.exists("/dev/video0"):
        try:
            import cv2

            capture = cv2.VideoCapture(0)
            try:
                if capture.isOpened() and capture.read()[0]:
                    return "opencv"
            finally:
                capture.release()
        except Exception:  # a device node that gives no frames is no camera
            pass
    return None


def _display_present() -> bool:
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def detect(config: Config) -> Choices:
    notes: list[str] = []
    camera = config.camera
    if camera == "auto":
        found = _camera_present()
        camera = found or "simulated"
        notes.append(
            f"camera: found one, using {found}"
            if found
            else "camera: none found, so the simulated table plays a bot game"
        )
    view = config.view
    if view == "auto":
        view = "terminal"
        notes.append(
            "view: a display is there, but the touchscreen view is not wired into this command yet: terminal view"
            if _display_present()
            else "view: no display, terminal view"
        )
    try:
        board = resolve_board(config.lights)
    except Exception as error:  # a serial port scan failing must not stop the game
        board = "none"
        notes.append(f"lights: cannot look for a board ({error}); no lights")
    if config.lights.board == "auto":
        why = {
            "pico": "a Pico is plugged in",
            "direct": "on a Raspberry Pi: the GPIO pins",
            "mock": "not a Raspberry Pi and no Pico: mock pins",
        }.get(board, board)
        notes.append(f"lights: {board} ({why})")
    return Choices(camera, view, board, tuple(notes))
