"""`battleline-companion bench lights`: figures for the lights, as one JSON object.

Drives the real firmware under the MicroPython unix port on a pseudo-terminal
(hardware.firmware_sim) through the serial backend, and the direct board on
gpiozero's mock pins. Needs the dev extras (the micropython binary).
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from hardware.config import LightsConfig
from hardware.direct import DirectLights, make_pin_factory
from hardware.firmware_sim import FirmwareOnPty
from hardware.serial_link import SerialLights
from hardware.states import FlagState


def _wait(condition: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.001)
    return True


def _reconnected(lights: SerialLights, times: int) -> bool:
    return lights.connections >= times


def _ms(seconds: list[float]) -> dict[str, float]:
    return {"median_ms": round(statistics.median(seconds) * 1000, 3),
            "max_ms": round(max(seconds) * 1000, 3)}


def serial_figures(workdir: Path, rounds: int, unplugs: int) -> dict[str, object]:
    sim = FirmwareOnPty(workdir)
    sim.start()
    config = LightsConfig(board="pico", serial_port=str(sim.link), heartbeat_s=0.5)
    started = time.monotonic()
    lights = SerialLights(config)
    try:
        if not lights.flush(10):
            raise RuntimeError(f"no handshake with the firmware: {sim.stderr()}")
        connect = time.monotonic() - started
        changes, pings = [], []
        states = [FlagState.CLAIMED_NORTH, FlagState.CLAIMABLE_SOUTH]
        for i in range(rounds):
            t = time.monotonic()
            lights.set_flag(i % 9 + 1, states[i % 2])
            lights.flush(2)
            changes.append(time.monotonic() - t)
            t = time.monotonic()
            lights.request("PING")
            pings.append(time.monotonic() - t)
        restores = []
        for n in range(unplugs):
            t = time.monotonic()
            sim.kill()
            _wait(lambda: not lights.connected, 5)
            sim.start()
            _wait(partial(_reconnected, lights, n + 2), 5)
            if not lights.flush(5):
                raise RuntimeError("the state was not restored after an unplug")
            restores.append(time.monotonic() - t)
    finally:
        lights.close()
        sim.stop()
    return {
        "connect_ms": round(connect * 1000, 3),
        "state_change_to_ack": _ms(changes),
        "command_round_trip": _ms(pings),
        "unplug_to_state_restored": _ms(restores),
        "rounds": rounds,
        "unplugs": unplugs,
    }


def direct_figures(rounds: int) -> dict[str, object]:
    config = LightsConfig(board="mock")
    lights = DirectLights(config, pin_factory=make_pin_factory("mock"), tick_s=None)
    try:
        lights.set_all([FlagState.ATTENTION, FlagState.UNCERTAIN] * 4 + [FlagState.OFF])
        times = []
        for _ in range(rounds):
            t = time.perf_counter()
            lights.refresh()
            times.append(time.perf_counter() - t)
    finally:
        lights.close()
    # The ticker refreshes 50 times a second: this is the share of one core it takes.
    return {"refresh": _ms(times), "cpu_share_at_50hz": round(statistics.median(times) * 50, 5)}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="battleline-companion bench lights")
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--unplugs", type=int, default=5)
    args = parser.parse_args(argv)
    # The unplugs are on purpose: their warnings would only bury the figures.
    logging.getLogger("hardware").setLevel(logging.ERROR)
    with tempfile.TemporaryDirectory() as workdir:
        figures = {
            "pico_firmware_on_unix_port": serial_figures(Path(workdir), args.rounds, args.unplugs),
            "direct_board_mock_pins": direct_figures(args.rounds),
        }
    print(json.dumps({"bench": "lights", **figures}, indent=2))
    return 0
