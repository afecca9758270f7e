"""Finding the Pico's serial port."""

from __future__ import annotations

import glob
import os

from hardware.config import LightsConfig

BY_ID_PATTERN = "/dev/serial/by-id/*MicroPython*"


def find_port(config: LightsConfig) -> str | None:
    """The configured port if it exists now; else the first port with the Pico's USB
    id (2E8A:0005 for MicroPython); else a /dev/serial/by-id name saying MicroPython."""
    if config.serial_port:
        return config.serial_port if os.path.exists(config.serial_port) else None
    from serial.tools import list_ports

    for port in sorted(list_ports.comports(), key=lambda p: p.device):
        if (port.vid, port.pid) == config.usb_id:
            return str(port.device)
    found = sorted(glob.glob(BY_ID_PATTERN))
    return found[0] if found else None


def describe_search(config: LightsConfig) -> str:
    if config.serial_port:
        return f"the configured port {config.serial_port}"
    vid, pid = config.usb_id
    return f"a USB serial port with id {vid:04X}:{pid:04X} or {BY_ID_PATTERN}"


def on_raspberry_pi() -> bool:
    try:
        with open("/proc/device-tree/model", encoding="ascii", errors="replace") as f:
            return "Raspberry Pi" in f.read()
    except OSError:
        return False
