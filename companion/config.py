"""The companion's settings: one TOML file in the platform's config directory.

Every key has a documented default (``DEFAULT_TOML`` below is the whole
file with its defaults); a missing file means all defaults. ``auto`` values
are decided at start by ``detect``, which also says in plain words what it
chose and why: no camera → the simulated table, no display → the terminal
view, not a Raspberry Pi → mock pins.
"""

from __future__ import annotations

import glob
import json
import os
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import platformdirs

from companion import i18n
from companion.i18n import _
from companion.records.safe_write import write_atomic
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
kind = "auto"         # auto (touchscreen if a display is there, else terminal) | touchscreen | terminal | none
orientation = "landscape"  # touchscreen: landscape (800x480) | portrait (720x1280, turned if the panel is not)
screen = "auto"       # touchscreen: auto (a window on a desktop, else full screen) | fullscreen | windowed
language = "auto"     # auto (the system's, else English) | en | hu | cs | es | nl | ru
edition = "gmt"       # the names on your cards: gmt (Phalanx, Alexander) | medieval (Square, King of England)

[players]
north = ""            # the name shown for north; "" : North
south = ""            # the name shown for south; "" : South

[rules]
tactics = true
claim_timing = "standard"   # standard | advanced (claims only at the start of your turn)
battlefield = "none"  # none | shuffled | hundred-years-war: Battle Line: Medieval's terrain cards,
                      # laid at random, or placed in turn by the players (needs tactics)
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
VIEWS: Final = ("auto", "touchscreen", "terminal", "none")
ORIENTATIONS: Final = ("landscape", "portrait")
SCREENS: Final = ("auto", "fullscreen", "windowed")
TIMINGS: Final = ("standard", "advanced")
BATTLEFIELDS: Final = ("none", "shuffled", "hundred-years-war")
SNAPSHOTS: Final = ("vision", "truth")
LANGUAGES: Final = ("auto", *i18n.LANGUAGES)


class ConfigError(ValueError):
    """A bad setting; the message names the file and the key."""


@dataclass(frozen=True)
class Config:
    camera: str = "auto"
    device: int | str = 0
    folder: str = ""
    deck: str = "builtin"
    # Chosen from measurements (vision/README.md, "Simulated games on held designs").
    # A deck's learnt model names a card only at trust >= NAME_AT (0.995), so for an
    # enrolled deck min_confidence anywhere up to 0.99 asks nothing more; our printed
    # deck's templates named none wrong at >= 0.5 on the bench (22 904 cards) and named
    # every card at >= 0.99 in the simulated games, so 0.75 costs nothing and keeps a
    # margin. vote_frames 3 (fresh sensor noise on each frame, tune-00, 2 games) asked
    # as often (45 vs 46 corrections a game), kept the one card misread in every frame
    # (O7 read Y7 at 0.99+) and read 3 times as many frames (82 vs 67 s a game): 1.
    min_confidence: float = 0.75
    still_frames: int = 2
    vote_frames: int = 1
    view: str = "auto"
    orientation: str = "landscape"
    screen: str = "auto"
    language: str = "auto"
    edition: str = "gmt"
    north_name: str = ""
    south_name: str = ""
    tactics: bool = True
    claim_timing: str = "standard"
    battlefield: str = "none"
    auto_claim: bool = False
    hints: bool = True
    journal_dir: str = ""
    snapshots: str = "vision"
    think_s: float = 1.0
    lights: LightsConfig = field(default_factory=LightsConfig)

    def __post_init__(self) -> None:
        if self.battlefield == "hundred-years-war" and not self.tactics:
            # Each player's king is a leader, placed with the battlefield cards.
            raise ConfigError(_("rules.battlefield: the Hundred Years' War needs "
                                "rules.tactics = true (the kings are leaders)"))

    def journal_path(self) -> Path:
        if self.journal_dir:
            return Path(self.journal_dir).expanduser()
        return Path(platformdirs.user_data_dir(APP)) / "journal"


def decks_dir() -> Path:
    """Where the decks enrolled on the touchscreen are kept (beside the journal)."""
    return Path(platformdirs.user_data_dir(APP)) / "decks"


def config_path() -> Path:
    return Path(platformdirs.user_config_dir(APP)) / FILE_NAME


def _choice(options: tuple[str, ...]) -> Callable[[Any, str], str]:
    def parse(value: Any, key: str) -> str:
        if not isinstance(value, str) or value not in options:
            raise ConfigError(_("{key}: must be one of {options}, not {value}").format(
                key=key, options=", ".join(options), value=repr(value)))
        return value

    return parse


def _bool(value: Any, key: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(_("{key}: must be true or false, not {value}").format(
            key=key, value=repr(value)))
    return value


def _text(value: Any, key: str) -> str:
    if not isinstance(value, str):
        raise ConfigError(_("{key}: must be a string, not {value}").format(
            key=key, value=repr(value)))
    return value


def _name(value: Any, key: str) -> str:
    if not isinstance(value, str) or len(value) > 16:
        raise ConfigError(_("{key}: must be a name of at most 16 characters, not "
                            "{value}").format(key=key, value=repr(value)))
    return value


def _number(low: float, high: float) -> Callable[[Any, str], float]:
    def parse(value: Any, key: str) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
            raise ConfigError(_("{key}: must be a number {low}..{high}, not {value}").format(
                key=key, low=low, high=high, value=repr(value)))
        return float(value)

    return parse


def _count(low: int, high: int) -> Callable[[Any, str], int]:
    def parse(value: Any, key: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ConfigError(_("{key}: must be a whole number {low}..{high}, not "
                                "{value}").format(key=key, low=low, high=high, value=repr(value)))
        return value

    return parse


def _device(value: Any, key: str) -> int | str:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ConfigError(_("{key}: must be a camera index or a video file path, not "
                            "{value}").format(key=key, value=repr(value)))
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
    "view": {
        "kind": ("view", _choice(VIEWS)),
        "orientation": ("orientation", _choice(ORIENTATIONS)),
        "screen": ("screen", _choice(SCREENS)),
        "language": ("language", _choice(LANGUAGES)),
        "edition": ("edition", _choice(i18n.EDITIONS)),
    },
    "players": {"north": ("north_name", _name), "south": ("south_name", _name)},
    "rules": {
        "tactics": ("tactics", _bool),
        "claim_timing": ("claim_timing", _choice(TIMINGS)),
        "battlefield": ("battlefield", _choice(BATTLEFIELDS)),
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
                raise ConfigError(_("{where}: [lights] must be a table").format(where=where))
            try:
                values["lights"] = LightsConfig.from_mapping(body)
            except LightsConfigError as error:
                raise ConfigError(f"{where}: {error}") from None
            continue
        keys = _SCHEMA.get(section)
        if keys is None:
            known = ", ".join([*_SCHEMA, "lights"])
            raise ConfigError(_("{where}: [{section}]: unknown section (known: {known})").format(
                where=where, section=section, known=known))
        if not isinstance(body, Mapping):
            raise ConfigError(_("{where}: [{section}] must be a table").format(
                where=where, section=section))
        for key, value in body.items():
            if key not in keys:
                raise ConfigError(_("{where}: {setting}: unknown setting (known: "
                                    "{known})").format(where=where, setting=f"{section}.{key}",
                                                       known=", ".join(keys)))
            name, parse = keys[key]
            try:
                values[name] = parse(value, f"{section}.{key}")
            except ConfigError as error:
                raise ConfigError(f"{where}: {error}") from None
    try:
        return Config(**values)
    except ConfigError as error:
        raise ConfigError(f"{where}: {error}") from None


def load_config(path: Path | None = None) -> tuple[Config, Path, bool]:
    """The settings from ``path`` (default: the platform config file); whether it existed."""
    path = path or config_path()
    if not path.exists():
        return Config(), path, False
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(_("{path}: cannot read ({error})").format(
            path=path, error=error)) from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(_("{path}: not valid TOML ({error})").format(
            path=path, error=error)) from None
    except RecursionError:
        raise ConfigError(_("{path}: not valid TOML (nested too deeply)").format(
            path=path)) from None
    return from_mapping(data, str(path)), path, True


# ---------------------------------------------------------------- saving
TomlValue = bool | int | float | str | list[int]


def _toml(value: TomlValue) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a TOML basic string
    return "[" + ", ".join(str(int(v)) for v in value) + "]"


_HEADER = re.compile(r"^\s*\[\s*([A-Za-z0-9_.\s]+?)\s*\]\s*(#.*)?$")


def _comment_of(rest: str) -> str:
    """The comment after a value (``rest`` is what follows ``=``), found where the text
    before a ``#`` is a whole TOML value, so a ``#`` inside a string is not taken."""
    for at in [i for i, c in enumerate(rest) if c == "#"]:
        try:
            tomllib.loads("v = " + rest[:at])
        except tomllib.TOMLDecodeError:
            continue
        return rest[at:]
    return ""


def _set_line(lines: list[str], table: str, key: str, value: TomlValue) -> None:
    start = end = None
    for i, line in enumerate(lines):
        found = _HEADER.match(line)
        if found and start is not None:
            end = i
            break
        if found and found.group(1).replace(" ", "") == table:
            start = i
    text = f"{key} = {_toml(value)}"
    if start is None:
        lines += ["", f"[{table}]", text]
        return
    end = len(lines) if end is None else end
    keyed = re.compile(rf"^\s*{re.escape(key)}\s*=(.*)$")
    last = start
    for i in range(start + 1, end):
        match = keyed.match(lines[i])
        if match:
            comment = _comment_of(match.group(1))
            lines[i] = f"{text:<21} {comment}" if comment else text
            return
        if lines[i].strip() and not lines[i].lstrip().startswith("#"):
            last = i
    lines.insert(last + 1, text)


def save_settings(path: Path, changes: Mapping[str, TomlValue]) -> Config:
    """Writes ``changes`` (``"rules.hints"``, ``"lights.colours.north"``: the table's
    dotted name, then the key) into the settings file, keeping every other line and
    comment; a missing file starts as the documented defaults. The result is checked
    as a whole before it replaces the file, which is never left half written."""
    try:
        text = path.read_text(encoding="utf-8") if path.exists() else DEFAULT_TOML
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(_("{path}: cannot read ({error})").format(
            path=path, error=error)) from None
    lines = text.splitlines()
    for name, value in changes.items():
        table, _dot, key = name.rpartition(".")
        if not table or not key:
            raise ConfigError(f"{name}: a setting is named table.key")
        _set_line(lines, table, key, value)
    new = "\n".join(lines) + "\n"
    try:
        config = from_mapping(tomllib.loads(new), str(path))
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(_("{path}: the changed settings would not be valid TOML ({error}); "
                            "the file is left as it was").format(path=path, error=error)) from None
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, new)
    return config


@dataclass(frozen=True)
class Choices:
    """What ``auto`` became here, and a sentence each on why."""

    camera: str
    view: str
    board: str
    notes: tuple[str, ...]
    fullscreen: bool = False  # touchscreen: full screen (else a window)


def _on_pi() -> bool:
    try:
        with open("/proc/device-tree/model", encoding="ascii", errors="replace") as f:
            return "Raspberry Pi" in f.read()
    except OSError:
        return False


def _camera_present() -> str | None:
    """'picamera2' or 'opencv' when a camera is attached, else None."""
    if _on_pi():
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


CONSOLE_DRIVERS: Final = ("kmsdrm", "fbdev")


def display_kind() -> str | None:
    """Where the touchscreen can draw: "desktop" (an X11 or Wayland session), "console"
    (SDL straight to the screen: kmsdrm or fbdev, as on a Pi without a desktop), or None."""
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return "desktop"
    driver = os.environ.get("SDL_VIDEODRIVER", "")
    if driver in CONSOLE_DRIVERS:
        return "console"
    if driver == "" and _on_pi() and (glob.glob("/dev/dri/card*") or os.path.exists("/dev/fb0")):
        return "console"
    return None


def _view_choice(config: Config, notes: list[str]) -> tuple[str, bool]:
    """The view and, for the touchscreen, whether it fills the screen."""
    view = config.view
    where = display_kind() if view in ("auto", "touchscreen") else None
    if view == "auto":
        if where is None:
            notes.append(_("view: no display, terminal view"))
            return "terminal", False
        view = "touchscreen"
    if view != "touchscreen":
        return view, False
    fullscreen = config.screen == "fullscreen" or (config.screen == "auto" and where != "desktop")
    if config.view == "auto" or config.screen == "auto":
        shown = _("full screen") if fullscreen else _("in a window")
        orientation = _("landscape") if config.orientation == "landscape" else _("portrait")
        template = {"desktop": _("view: a desktop display: the touchscreen, {orientation}, "
                                 "{shown}"),
                    "console": _("view: the screen, through SDL: the touchscreen, "
                                 "{orientation}, {shown}")}.get(
            where or "", _("view: the touchscreen, {orientation}, {shown}"))
        notes.append(template.format(orientation=orientation, shown=shown))
    return view, fullscreen


def detect(config: Config) -> Choices:
    notes: list[str] = []
    camera = config.camera
    if camera == "auto":
        found = _camera_present()
        camera = found or "simulated"
        notes.append(
            _("camera: found one, using {camera}").format(camera=found)
            if found
            else _("camera: none found, so the simulated table plays a bot game")
        )
    view, fullscreen = _view_choice(config, notes)
    try:
        board = resolve_board(config.lights)
    except Exception as error:  # a serial port scan failing must not stop the game
        board = "none"
        notes.append(_("lights: cannot look for a board ({error}); no lights").format(
            error=error))
    if config.lights.board == "auto":
        why = {
            "pico": _("a Pico is plugged in"),
            "direct": _("on a Raspberry Pi: the GPIO pins"),
            "mock": _("not a Raspberry Pi and no Pico: mock pins"),
        }.get(board, board)
        notes.append(_("lights: {board} ({why})").format(board=board, why=why))
    return Choices(camera, view, board, tuple(notes), fullscreen)
