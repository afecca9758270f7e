"""`battleline-companion lights test`: walk every state and effect on a board.

For bring-up: each step says what the line should show and reads back what the
board shows (PWM levels on the direct board, the strip's pixels on the Pico),
so it works just as well off the Pi with mock pins. It speaks the system's
language (``--language`` for another), as the companion does.
"""

from __future__ import annotations

import argparse
import logging
import queue
import sys
import time
import tomllib
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from companion.i18n import LANGUAGES, N_, _, ngettext, set_language
from hardware import looks
from hardware.config import BOARDS, RGB, ConfigError, LightsConfig
from hardware.factory import LightsUnavailable, open_lights, resolve_board
from hardware.lights import FlagLights
from hardware.picture import write_png
from hardware.states import ButtonEvent, FlagState

S = FlagState
STATE_WORDS = {  # translated where shown
    S.OFF: N_("off"),
    S.CLAIMABLE_NORTH: N_("claimable by north (dim north colour)"),
    S.CLAIMABLE_SOUTH: N_("claimable by south (dim south colour)"),
    S.CLAIMED_NORTH: N_("claimed by north (full north colour)"),
    S.CLAIMED_SOUTH: N_("claimed by south (full south colour)"),
    S.ATTENTION: N_("attention (blinking amber)"),
    S.UNCERTAIN: N_("uncertain reading (slow white pulse)"),
}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="battleline-companion lights", description="Flag lights and buttons.")
    sub = parser.add_subparsers(dest="action", required=True)
    test = sub.add_parser("test", help="walk every state and effect on the board")
    test.add_argument("--board", choices=BOARDS, help="which board (default: the config's, auto)")
    test.add_argument("--port", help="the Pico's serial port (default: found by USB id)")
    test.add_argument("--config", type=Path, help="a TOML file whose [lights] table to use")
    test.add_argument("--step", type=float, default=1.0, help="seconds per step (default 1)")
    test.add_argument("--png", type=Path, help="also save a picture of each step's lights")
    test.add_argument("--language", choices=["auto", *LANGUAGES], default="auto",
                      help="the language the steps are said in (default: the system's)")
    test.add_argument("--listen", type=float, default=0.0,
                      help="then print button presses for this many seconds")
    return parser


def _config(args: argparse.Namespace) -> LightsConfig:
    data: dict[str, object] = {}
    if args.config is not None:
        with open(args.config, "rb") as f:
            data = dict(tomllib.load(f).get("lights", {}))
    if args.board:
        data["board"] = args.board
    if args.port:
        data["serial_port"] = args.port
        data.setdefault("board", "pico")
    return LightsConfig.from_mapping(data)


def _readback(lights: FlagLights) -> tuple[str, list[RGB]]:
    """What the board itself shows: as text, one entry per flag, and as the
    colour of each light (each LED's two dies mixed, or each strip pixel)."""
    from hardware.direct import DirectLights
    from hardware.serial_link import SerialLights

    if isinstance(lights, DirectLights):
        levels = lights.levels()
        dies = lights.config.die_colours
        mixed = [(min(255, round(a * dies[0][0] + b * dies[1][0])),
                  min(255, round(a * dies[0][1] + b * dies[1][1])),
                  min(255, round(a * dies[0][2] + b * dies[1][2]))) for a, b in levels]
        return "levels N/S " + " ".join(f"{a:.2f}/{b:.2f}" for a, b in levels), mixed
    if isinstance(lights, SerialLights):
        lights.flush(2)
        pixels = lights.dump_pixels()
        per = max(1, len(pixels) // looks.FLAGS)
        return "pixels " + " ".join("{:02X}{:02X}{:02X}".format(*pixels[i])
                                    for i in range(0, len(pixels), per)), pixels
    return "(no board to read back)", []


def walk(lights: FlagLights, step: float, say: Callable[[str], None]) -> list[list[RGB]]:
    """Show every state and effect in turn; the colours read back at each step."""
    seen: list[list[RGB]] = []

    def show(what: str, seconds: float = step) -> None:
        text, colours = _readback(lights)
        say(f"{what:<48} {text}")
        seen.append(colours)
        time.sleep(seconds)

    lights.self_test()
    show(_("self-test: sweep in north, south, white"),
         max(step, looks.SELFTEST_MS / 1000) if step else 0)
    lights.clear_effect()  # with a short --step the sweep would hide the states
    for state in S:
        lights.set_all([state] * looks.FLAGS)
        show(_("all flags {state}").format(state=_(STATE_WORDS[state])))
    for flag in range(1, looks.FLAGS + 1):
        lights.set_all([S.CLAIMED_NORTH if i == flag else S.OFF for i in range(1, 10)])
        show(_("flag {flag} alone, claimed by north").format(flag=flag), step / 3)
    lights.set_all([S.CLAIMED_NORTH, S.CLAIMABLE_NORTH, S.OFF, S.ATTENTION, S.UNCERTAIN,
                    S.OFF, S.CLAIMABLE_SOUTH, S.CLAIMED_SOUTH, S.CLAIMED_SOUTH])
    show(_("a game in progress: N n . ! ? . s S S"))
    lights.won("north", "breakthrough")
    show(_("won by north, breakthrough (a light runs along)"), step * 2)
    lights.won("south", "envelopment")
    show(_("won by south, envelopment (the line flashes)"), step * 2)
    lights.idle()
    show(_("idle (a slow dim wave)"), step * 2)
    lights.clear_effect()
    lights.set_all([S.OFF] * looks.FLAGS)
    show(_("all off"), 0)
    return seen


def _listen(lights: FlagLights, seconds: float, say: Callable[[str], None]) -> None:
    say(_("press the buttons: listening for {seconds:g} s").format(seconds=seconds))
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        try:
            event: ButtonEvent = lights.events.get(timeout=left)
        except queue.Empty:
            break
        player = _("north") if event.player == "north" else _("south")
        if event.flag:
            text = (_("{player} held at flag {flag}") if event.held
                    else _("{player} pressed at flag {flag}"))
        else:
            text = _("{player} held") if event.held else _("{player} pressed")
        say("  " + text.format(player=player, flag=event.flag))


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    set_language(args.language)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
    try:
        config = _config(args)
    except (ConfigError, OSError, tomllib.TOMLDecodeError) as e:
        print(_("lights: bad configuration: {error}").format(error=e), file=sys.stderr)
        return 2
    board = resolve_board(config)
    config = replace(config, board=board)  # decide 'auto' once
    print(_("lights test on the {board} board (step {step:g} s)").format(board=board,
                                                                       step=args.step))
    try:
        lights = open_lights(config)
    except LightsUnavailable as e:
        print(f"lights: {e}", file=sys.stderr)
        return 1
    with lights:
        if board == "pico":
            from hardware.serial_link import SerialLights

            assert isinstance(lights, SerialLights)
            if not lights.flush(10):
                print(_("lights: no Pico answered within 10 s; see the messages above and "
                        "firmware/README.md"), file=sys.stderr)
                return 1
            info = lights.board
            if info is not None:
                print(ngettext("board: {name} {version} on {port}, {n} pixel",
                               "board: {name} {version} on {port}, {n} pixels", info.pixels)
                      .format(name=info.name, version=info.version, port=lights.port_path,
                              n=info.pixels))
        seen = walk(lights, args.step, print)
        if args.png is not None and any(seen):
            per_flag = max(1, max(len(row) for row in seen) // looks.FLAGS)
            write_png(args.png, seen, per_flag)
            print(_("picture of each step: {path}").format(path=args.png))
        if args.listen > 0:
            _listen(lights, args.listen, print)
    print(_("done"))
    return 0
