"""Copy the firmware onto a connected Pico with mpremote.

    python -m hardware.flash [--port PORT] [--dry-run]      (or: make flash-pico)

The running firmware ignores Ctrl-C (every byte is data to it), so mpremote
could not stop it. If the board answers our handshake, it is first asked to
restart into safe mode (the SAFE command: REPL only, no watchdog); then the
files are copied, main.py last, and the board is reset to run them.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

from hardware import discovery, framing
from hardware.config import LightsConfig
from hardware.protocol import FIRMWARE_NAME, JunkLine, Reply, command, parse_line

FIRMWARE_DIR = Path(__file__).resolve().parent.parent / "firmware"
# Dependencies before the modules that import them; main.py last, so a copy cut
# short never boots into half a firmware.
FILES = ("framing.py", "looks.py", "linereader.py", "buttons.py", "controller.py", "main.py")


class _HungUp(Exception):
    """The board closed the port while we waited for its reply (it restarted)."""


def _ask(port_path: str, verb: str, timeout: float = 1.0) -> Reply | None:
    """Send one command; the board's reply, or None if nothing like it came back."""
    import serial

    with serial.Serial(port_path, 115200, timeout=0.05) as port:
        port.reset_input_buffer()
        port.write(b"\n" + command(1, verb))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = port.readline()
            except serial.SerialException as gone:
                raise _HungUp(port_path) from gone
            if not line.endswith(b"\n"):
                continue
            try:
                item = parse_line(line.rstrip(b"\r\n"))
            except JunkLine:
                continue  # a REPL echoing us, a banner: not our firmware
            if isinstance(item, Reply) and item.seq == 1:
                return item
    return None


def enter_safe_mode(port_path: str) -> bool:
    """If our firmware runs on the board at `port_path`, restart it into safe mode.
    True if it did; False if the board does not speak our protocol."""
    try:
        hello = _ask(port_path, f"HELLO {framing.PROTOCOL_VERSION}")
    except _HungUp:
        return False
    if hello is None or not hello.ok or not hello.words or hello.words[0] != FIRMWARE_NAME:
        return False
    try:
        reply = _ask(port_path, "SAFE")
    except _HungUp:
        return True  # it restarted before its reply was read: what SAFE asks
    return reply is not None and reply.ok


def mpremote_command(port_path: str, mpremote: str = "mpremote") -> list[str]:
    sources = [str(FIRMWARE_DIR / name) for name in FILES]
    return [mpremote, "connect", port_path, "cp", *sources, ":", "+", "reset"]


def _wait_for_port(config: LightsConfig, seconds: float) -> str | None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = discovery.find_port(config)
        if found is not None:
            return found
        time.sleep(0.2)
    return None


def main(argv: list[str] | None = None) -> int:
    import subprocess

    parser = argparse.ArgumentParser(prog="python -m hardware.flash", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", help="the Pico's serial port (default: found by USB id)")
    parser.add_argument("--dry-run", action="store_true", help="only print the mpremote command")
    args = parser.parse_args(argv)
    config = LightsConfig(serial_port=args.port)
    port = discovery.find_port(config)
    if port is None:
        print(f"flash: no Pico found (looked for {discovery.describe_search(config)}). "
              "Is it plugged in, with MicroPython on it? See firmware/README.md", file=sys.stderr)
        return 1
    mpremote = shutil.which("mpremote") or str(Path(sys.executable).with_name("mpremote"))
    if args.dry_run:
        print(" ".join(mpremote_command(port, mpremote)))
        return 0
    if not Path(mpremote).exists():
        print("flash: mpremote is not installed: pip install 'mpremote>=1.20,<2' "
              "(make flash-pico does it)", file=sys.stderr)
        return 1
    if enter_safe_mode(port):
        print(f"flash: the firmware on {port} restarts into safe mode")
        time.sleep(1.0)  # it resets and comes back on USB
        port = _wait_for_port(config, 10.0) or port
    print(f"flash: copying {', '.join(FILES)} to {port}")
    done = subprocess.run(mpremote_command(port, mpremote), check=False)
    if done.returncode != 0:
        print("flash: mpremote failed; if the board keeps running the old firmware, hold the "
              "north and south flag-1 buttons while plugging it in (safe mode) and try again",
              file=sys.stderr)
        return done.returncode
    print("flash: done; the board restarts with the new firmware")
    return 0


if __name__ == "__main__":
    sys.exit(main())
