"""Line surfaces: what the board sends the host, what the host sends the board, what a
person types. Unlike a file, each reaches something running, which must go on.

- ``serial-host``: lines injected on a real pseudo-terminal towards the companion's
  ``SerialLights`` (pyserial, the firmware under the MicroPython unix port on the
  other end), whose button events a live ``Companion`` takes; after each, the link
  must still answer a PING and no thread may have died.
- ``serial-firmware``: lines into the firmware itself under the MicroPython unix
  port; after each, it must still answer a PING (``FirmwareSession``).
- ``command``: a typed line into ``run_command`` on a game in progress.
"""

from __future__ import annotations

import atexit
import os
import random
import select
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Any

from companion.fuzz.mutate import mutate_bytes
from companion.fuzz.surfaces import Surface

BOARD_LINES = [
    b"! 1 PRESS north 3", b"! 2 HOLD south 9", b"! 3 PRESS south 1",
    b"! 0 READY battleline-lights 1.0.0 1 27 3 9", b"7 OK battleline-lights 1.0.0 1 27 3 9",
    b"8 ERR ARGS flag must be 1..9", b"- ERR SYNTAX no checksum", b"9 OK 123456",
]
HOST_LINES = [
    b"1 HELLO 1", b"2 FLAG 3 N", b"3 FLAGS NnSs!?...", b"4 COLOR north 255 0 0",
    b"5 BRIGHT 128", b"6 EFFECT won north breakthrough", b"7 EFFECT selftest", b"8 LAYOUT 4",
    b"9 RESET", b"10 PING", b"11 DUMP", b"12 PRESS south 4", b"13 TIME 5000", b"14 EFFECT idle",
]
COMMANDS = [b"claim 3 north", b"pass south", b"confirm 3", b"confirm",
            b"correct flag3.north R7 B2", b"undo", b"hints", b"claim 9 south"]


def framed(body: bytes) -> bytes:
    from hardware.framing import crc8

    return body + b"*%02X" % crc8(body)


def mutate_line(data: bytes, rng: random.Random, seeds: list[bytes]) -> bytes:
    """A spoilt line; most with a right checksum, so they reach past the framing."""
    body = data.rsplit(b"*", 1)[0] if data[-3:-2] == b"*" else data
    spoilt = mutate_bytes(body, rng, seeds)
    return framed(spoilt) if rng.random() < 0.8 else spoilt


# ---------------------------------------------------------------- the host side
class _HostRig:
    """The companion's lights on a real pty, the firmware at the far end, a game on."""

    def __init__(self) -> None:
        from companion.app import Companion
        from companion.records.journal import Journal
        from companion.rules.position import Player, Variant
        from companion.tracker import Tracker
        from companion.ui.terminal import NoView
        from hardware.config import LightsConfig
        from hardware.firmware_sim import FirmwareOnPty
        from hardware.serial_link import SerialLights

        self.died: list[str] = []
        threading.excepthook = lambda hook: self.died.append(repr(hook.exc_value))
        folder = Path(tempfile.mkdtemp(prefix="fuzz-host-"))
        self.board = FirmwareOnPty(folder)
        self.board.start(noisy=True)
        self.lights = SerialLights(LightsConfig(
            board="pico", serial_port=str(self.board.link), heartbeat_s=0.5,
            reply_timeout_s=1.0))
        if not self.lights.flush(10):
            raise RuntimeError(f"no handshake with the firmware: {self.board.stderr()}")
        self.companion = Companion(Tracker(Variant(), Player.SOUTH),
                                   Journal.create(folder, {"first": "south"}),
                                   self.lights, NoView())

    def check(self, data: bytes) -> str | None:
        from hardware.serial_link import BoardUnavailable

        self.board.inject(data + b"\n")
        try:
            reply = self.lights.request("PING", timeout=3.0)
        except BoardUnavailable as error:
            return f"the link did not answer after the line: {error}"
        self.companion.pump_buttons()
        if self.died:
            raise RuntimeError(f"a thread died: {self.died[-1]}")
        return None if reply.ok else f"PING answered {reply}"


_rig: _HostRig | None = None


def check_serial_host(data: bytes, _folder: Path) -> str | None:
    global _rig
    if _rig is None:
        _rig = _HostRig()
    return _rig.check(data)


# ---------------------------------------------------------------- the board side
class FirmwareSession:
    """The firmware under the MicroPython unix port, on pipes; one line at a time."""

    PING_SEQ = 65000

    def __init__(self, folder: Path) -> None:
        from hardware.firmware_sim import FIRMWARE_DIR, micropython_binary, micropython_env

        self.err_path = folder / "firmware-stderr.txt"
        with open(self.err_path, "wb") as err:
            self.proc = subprocess.Popen(
                [micropython_binary(), str(FIRMWARE_DIR / "unix_main.py")],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                env=micropython_env(FIRMWARE_DIR))
        self.buffer = b""

    def feed(self, data: bytes, timeout: float = 3.0) -> str:
        """"clean", "hang" or "crash" for one line, judged by a PING after it."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        ping = framed(b"%d PING" % self.PING_SEQ)
        try:
            self.proc.stdin.write(data + b"\n" + ping + b"\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            return "crash"
        fd = self.proc.stdout.fileno()
        wanted = b"%d OK" % self.PING_SEQ
        while wanted not in self.buffer:
            ready, _, _ = select.select([fd], [], [], timeout)
            if not ready:
                return "hang"
            chunk = os.read(fd, 65536)
            if not chunk:
                return "crash"
            self.buffer = (self.buffer + chunk)[-8192:]
        self.buffer = self.buffer[self.buffer.index(wanted) + len(wanted):]
        return "clean"

    def stderr(self) -> str:
        return self.err_path.read_text(errors="replace")[-2000:]

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                pipe.close()


# ---------------------------------------------------------------- typed commands
_game: Any = None


def check_command(data: bytes, _folder: Path) -> str | None:
    """A typed line on a game in progress: an answer, never an exception."""
    global _game
    from companion.commands import run_command

    if _game is None or _game.over:
        _game = _game_in_progress()
    said = run_command(_game, data.decode("utf-8", "replace"))
    return None if isinstance(said, str) else f"answered {said!r}"


def _game_in_progress() -> Any:
    from companion.app import Companion
    from companion.records.journal import Journal
    from companion.rules.position import Variant
    from companion.sim.simtable import script_game
    from companion.tracker import TrackedEvent, Tracker
    from companion.ui.terminal import NoView
    from hardware.config import LightsConfig
    from hardware.lights import NoLights

    script = script_game(5)
    tracker = Tracker(Variant(), script.first)
    for step in script.steps[:20]:
        tracker.apply(TrackedEvent(step.player, step.action))
    folder = Path(tempfile.mkdtemp(prefix="fuzz-command-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)  # the game's journal
    return Companion(tracker, Journal.create(folder, {"first": script.first.value}),
                     NoLights(LightsConfig(board="none")), NoView())


LINE_SURFACES: tuple[Surface, ...] = (
    Surface("serial-host", lambda _f: [framed(line) for line in BOARD_LINES],
            check_serial_host, extra={"mutate": mutate_line}),
    Surface("serial-firmware", lambda _f: [framed(line) for line in HOST_LINES],
            lambda _d, _f: None, extra={"mutate": mutate_line, "firmware": True}),
    Surface("command", lambda _f: list(COMMANDS), check_command),
)
