"""Where the MicroPython tests and the firmware are, and how to run them."""

from __future__ import annotations

from pathlib import Path

from hardware.firmware_sim import FIRMWARE_DIR as FIRMWARE
from hardware.firmware_sim import micropython_binary as micropython
from hardware.firmware_sim import micropython_env as environment

MP_TESTS = Path(__file__).resolve().parent / "mp"

__all__ = ["FIRMWARE", "MP_TESTS", "environment", "micropython"]
