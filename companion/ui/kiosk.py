"""``battleline-companion kiosk``: the systemd unit that runs the touchscreen full screen.

On the Pi the companion draws straight to the display through SDL's kmsdrm
driver (no desktop needed) and starts at boot. ``kiosk`` prints the unit for
this installation; ``kiosk --install`` writes it to /etc/systemd/system and
enables it (through sudo, saying each command first).
"""

from __future__ import annotations

import argparse
import getpass
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

UNIT_NAME = "battleline-companion.service"

UNIT = """\
[Unit]
Description=Battle Line companion on the touchscreen
After=systemd-user-sessions.service network.target
Conflicts=getty@tty1.service

[Service]
User={user}
WorkingDirectory={home}
SupplementaryGroups=video input render gpio dialout
Environment=SDL_VIDEODRIVER=kmsdrm
Environment=SDL_NOMOUSE=1
ExecStart={exe} play --view touchscreen --orientation {orientation} --fullscreen
Restart=on-failure
RestartSec=3
StandardInput=tty
TTYPath=/dev/tty1

[Install]
WantedBy=multi-user.target
"""


def unit_text(exe: str, user: str, home: str, orientation: str = "landscape") -> str:
    return UNIT.format(exe=exe, user=user, home=home, orientation=orientation)


def _exe() -> str:
    beside = Path(sys.executable).with_name("battleline-companion")
    return str(beside) if beside.exists() else (shutil.which("battleline-companion") or
                                                str(beside))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="battleline-companion kiosk", description=__doc__)
    parser.add_argument("--orientation", choices=("landscape", "portrait"), default="landscape",
                        help="portrait for Touch Display 2 (720x1280); turned if the panel is not")
    parser.add_argument("--install", action="store_true",
                        help="write the unit to /etc/systemd/system and enable it (sudo)")
    ns = parser.parse_args(argv)
    text = unit_text(_exe(), getpass.getuser(), str(Path.home()), ns.orientation)
    if not ns.install:
        print(text, end="")
        return 0
    if shutil.which("systemctl") is None:
        print("kiosk: systemctl not found: this needs a systemd system (Raspberry Pi OS)",
              file=sys.stderr)
        return 1
    with tempfile.NamedTemporaryFile("w", suffix=".service", delete=False) as tmp:
        tmp.write(text)
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    steps = [
        [*sudo, "install", "-m", "644", tmp.name, f"/etc/systemd/system/{UNIT_NAME}"],
        [*sudo, "systemctl", "daemon-reload"],
        [*sudo, "systemctl", "enable", "--now", UNIT_NAME],
    ]
    try:
        for step in steps:
            print("+ " + " ".join(step))
            subprocess.run(step, check=True)
    except subprocess.CalledProcessError as error:
        print(f"kiosk: {' '.join(error.cmd)} failed ({error.returncode})", file=sys.stderr)
        return 1
    finally:
        os.unlink(tmp.name)
    return 0
