"""The ``play`` command's options: its parser (help in the language shown) and how
the options override the settings file for one run."""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path
from typing import Any

from companion.config import BATTLEFIELDS, Config
from companion.i18n import EDITIONS, LANGUAGES, ArgumentParser, _


def _speed(text: str) -> float:
    if text == "max":
        return 0.0
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            _("{text}: a factor such as 2 or 0.5, or max").format(text=repr(text))) from None
    if value <= 0:
        raise argparse.ArgumentTypeError(_("the speed factor must be above 0 (or max)"))
    return value


def parser() -> argparse.ArgumentParser:
    """The options, their help in the language set when it is made."""
    ap = ArgumentParser(
        prog="battleline-companion play",
        description=_("Run the companion: the camera table if there is a camera, else seeded "
                      "bot games on the simulated table."),
    )
    ap.add_argument("--seed", type=int, default=1, help=_("simulated game's seed (default 1)"))
    ap.add_argument("--games", type=int, default=1, help=_("games in the match (default 1)"))
    ap.add_argument("--speed", type=_speed, default=1.0,
                    help=_("simulated players' pace: a factor (2 = twice as fast) or max"))
    ap.add_argument("--config", type=Path, default=None, help=_("settings file (TOML)"))
    ap.add_argument("--journal", type=Path, default=None, help=_("folder of game journals"))
    ap.add_argument("--new", action="store_true",
                    help=_("close an unfinished game, start anew"))
    ap.add_argument("--camera", choices=["auto", "simulated", "picamera2", "opencv", "folder"],
                    help=_("the camera (default: the settings', auto)"))
    ap.add_argument("--snapshots", choices=["vision", "truth"],
                    help=_("simulated table: read rendered frames with vision (default) or "
                           "use the table's truth"))
    ap.add_argument("--lights", choices=["auto", "direct", "pico", "mock", "none"],
                    help=_("the lights board (default: the settings', auto)"))
    ap.add_argument("--view", choices=["auto", "touchscreen", "terminal", "none"],
                    help=_("the view (default: the settings', auto: the touchscreen if there "
                           "is a display, else the terminal)"))
    ap.add_argument("--orientation", choices=["landscape", "portrait"],
                    help=_("touchscreen: 800x480 landscape or 720x1280 portrait"))
    screen = ap.add_mutually_exclusive_group()
    screen.add_argument("--fullscreen", dest="screen", action="store_const", const="fullscreen",
                        help=_("touchscreen: fill the screen"))
    screen.add_argument("--windowed", dest="screen", action="store_const", const="windowed",
                        help=_("touchscreen: in a window"))
    ap.add_argument("--north", choices=["greedy", "random"], default="greedy")
    ap.add_argument("--south", choices=["greedy", "random"], default="greedy")
    ap.add_argument("--auto-claim", action="store_true", default=None,
                    help=_("take a flag as soon as it is provable"))
    ap.add_argument("--advanced-claims", action="store_true", default=None,
                    help=_("advanced claim timing: claims only at the start of a turn"))
    ap.add_argument("--battlefield", choices=list(BATTLEFIELDS),
                    help=_("Battle Line: Medieval's terrain cards: none, laid at random "
                           "(shuffled) or placed in turn (hundred-years-war)"))
    ap.add_argument("--no-hints", action="store_true",
                    help=_("do not light the flags provable now"))
    ap.add_argument("--language", choices=["auto", *LANGUAGES],
                    help=_("the view's and the messages' language (auto: the system's)"))
    ap.add_argument("--edition", choices=list(EDITIONS),
                    help=_("the names on your cards: gmt (Phalanx) or medieval (Square)"))
    ap.add_argument("--quiet", action="store_true",
                    help=_("print only the results (and no view, unless --view names one)"))
    return ap


def with_arguments(config: Config, ns: argparse.Namespace) -> Config:
    """``config`` with the command line's options in place of the file's."""
    changes: dict[str, Any] = {}
    if ns.camera:
        changes["camera"] = ns.camera
    if ns.snapshots:
        changes["snapshots"] = ns.snapshots
    if ns.journal:
        changes["journal_dir"] = str(ns.journal)
    if ns.auto_claim:
        changes["auto_claim"] = True
    if ns.advanced_claims:
        changes["claim_timing"] = "advanced"
    if ns.battlefield:
        changes["battlefield"] = ns.battlefield
    if ns.no_hints:
        changes["hints"] = False
    if ns.lights:
        changes["lights"] = replace(config.lights, board=ns.lights)
    if ns.view:
        changes["view"] = ns.view
    elif ns.quiet and config.view == "auto":
        changes["view"] = "none"  # only the results: no window either, unless asked for
    if ns.language:
        changes["language"] = ns.language
    if ns.edition:
        changes["edition"] = ns.edition
    if ns.orientation:
        changes["orientation"] = ns.orientation
    if ns.screen:
        changes["screen"] = ns.screen
    return replace(config, **changes)
