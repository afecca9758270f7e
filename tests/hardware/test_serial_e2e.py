"""End to end: hardware's serial backend drives the real firmware running under
the MicroPython unix port, through pyserial, over a real pseudo-terminal."""

from __future__ import annotations

import logging
import os
import random
import signal
import subprocess
import time
import tty
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import serial

from hardware import framing
from hardware.config import LightsConfig
from hardware.firmware_sim import FirmwareOnPty, micropython_binary
from hardware.protocol import BoardEvent, Reply, command, parse_line
from hardware.serial_link import SerialLights
from hardware.states import ButtonEvent, FlagState

S = FlagState
RED, GREEN, WHITE, BLACK = (255, 0, 0), (0, 255, 0), (255, 255, 255), (0, 0, 0)
AMBER = (255, 160, 0)
PER_FLAG = 2  # not the firmware's default of 3: the host must send LAYOUT


@pytest.fixture
def firmware(tmp_path: Path) -> Iterator[FirmwareOnPty]:
    sim = FirmwareOnPty(tmp_path)
    sim.start()
    yield sim
    sim.stop()


def config_for(sim: FirmwareOnPty, **changes: object) -> LightsConfig:
    settings: dict[str, object] = {
        "board": "pico", "serial_port": str(sim.link), "brightness": 1.0,
        "pixels_per_flag": PER_FLAG, "heartbeat_s": 0.2, "reply_timeout_s": 0.5,
    }
    settings.update(changes)
    return LightsConfig.from_mapping(settings)


@pytest.fixture
def lights(firmware: FirmwareOnPty) -> Iterator[SerialLights]:
    lights = SerialLights(config_for(firmware))
    assert lights.flush(5), f"no handshake; firmware stderr:\n{firmware.stderr()}"
    yield lights
    lights.close()


def wait_for(condition: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.005)
    return condition()


def per_flag(pixels: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """One colour per flag, after checking each flag's pixels agree."""
    assert len(pixels) == 9 * PER_FLAG
    flags = [pixels[i:i + PER_FLAG] for i in range(0, len(pixels), PER_FLAG)]
    assert all(len(set(f)) == 1 for f in flags), flags
    return [f[0] for f in flags]


def frozen_at(lights: SerialLights, ms: int) -> list[tuple[int, int, int]]:
    """The strip with the firmware's clock stopped at `ms` (a debug command)."""
    assert lights.request("TIME", str(ms)).ok
    return per_flag(lights.dump_pixels())


def test_handshake_and_layout(lights: SerialLights) -> None:
    assert lights.board is not None
    assert (lights.board.name, lights.board.protocol) == ("battleline-lights", 1)
    assert lights.board.pixels == 9 * PER_FLAG  # LAYOUT took
    assert lights.dump_pixels() == [BLACK] * 9 * PER_FLAG


def test_every_state_on_the_strip(lights: SerialLights) -> None:
    lights.set_all([S.CLAIMED_NORTH, S.CLAIMABLE_NORTH, S.CLAIMED_SOUTH, S.CLAIMABLE_SOUTH,
                    S.ATTENTION, S.UNCERTAIN, S.OFF, S.OFF, S.OFF])
    assert lights.flush(2)
    shown = frozen_at(lights, 2000)
    assert shown == [RED, (64, 0, 0), GREEN, (0, 64, 0), AMBER, (51, 51, 51)] + [BLACK] * 3
    assert frozen_at(lights, 2250)[4] == BLACK  # attention blinks
    assert frozen_at(lights, 3000)[5] == WHITE  # uncertain breathes up to full
    lights.set_flag(9, S.CLAIMED_SOUTH)
    assert lights.flush(2)
    assert per_flag(lights.dump_pixels())[8] == GREEN


def test_every_effect_on_the_strip(lights: SerialLights) -> None:
    lights.set_all([S.CLAIMED_SOUTH] * 9)
    assert lights.request("TIME", "10000").ok
    lights.self_test()
    assert lights.flush(2)
    assert frozen_at(lights, 10000) == [RED] + [BLACK] * 8
    assert frozen_at(lights, 10000 + 1300) == [BLACK] * 4 + [GREEN] + [BLACK] * 4
    assert frozen_at(lights, 10000 + 1900) == [BLACK, WHITE] + [BLACK] * 7
    assert frozen_at(lights, 10000 + 2700) == [GREEN] * 9  # over: the flags again

    lights.won("north", "breakthrough")
    assert lights.flush(2)
    assert frozen_at(lights, 12700) == [RED] + [(64, 0, 0)] * 8
    assert frozen_at(lights, 12700 + 800) == [(64, 0, 0)] * 8 + [RED]
    lights.won("south", "envelopment")
    assert lights.flush(2)
    assert frozen_at(lights, 13500) == [GREEN] * 9
    assert frozen_at(lights, 14000) == [BLACK] * 9
    lights.idle()
    assert lights.flush(2)
    wave = frozen_at(lights, 15000)
    assert max(max(c) for c in wave) <= 64 and wave != [BLACK] * 9
    lights.clear_effect()
    assert lights.flush(2)
    assert per_flag(lights.dump_pixels()) == [GREEN] * 9


def test_presses_arrive_as_events(lights: SerialLights) -> None:
    seen: list[ButtonEvent] = []
    lights.on_event = seen.append
    assert lights.press("south", 4).ok
    assert lights.events.get(timeout=1) == ButtonEvent("south", 4)
    assert lights.press("north", 9, hold=True).ok
    assert lights.events.get(timeout=1) == ButtonEvent("north", 9)
    assert lights.events.get(timeout=1) == ButtonEvent("north", 9, held=True)
    assert seen == [ButtonEvent("south", 4), ButtonEvent("north", 9),
                    ButtonEvent("north", 9, held=True)]


def test_unplug_restart_reconnects_and_restores(firmware: FirmwareOnPty, lights: SerialLights,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    state = [S.CLAIMED_NORTH, S.CLAIMABLE_SOUTH, S.OFF, S.CLAIMED_SOUTH, S.OFF, S.OFF, S.OFF,
             S.CLAIMABLE_NORTH, S.CLAIMED_NORTH]
    lights.set_all(state)
    lights.won("south", "breakthrough")
    assert lights.flush(2)
    unplugged = time.monotonic()
    firmware.kill()
    assert wait_for(lambda: not lights.connected, 2), "the host did not notice the unplug"
    firmware.start()
    restarted = time.monotonic()
    assert wait_for(lambda: lights.connections == 2, 2), firmware.stderr()
    assert lights.flush(2)
    restored = time.monotonic()
    with capsys.disabled():
        print(f"\n  reconnect: unplug to state restored {restored - unplugged:.3f} s, "
              f"firmware start to state restored {restored - restarted:.3f} s")
    assert restored - unplugged < 2.0
    # The effect came back (one bright flag in a dim line, wherever the light runs)...
    shown = per_flag(lights.dump_pixels())
    assert sorted(shown) == [(0, 64, 0)] * 8 + [GREEN]
    assert lights.board is not None and lights.board.pixels == 9 * PER_FLAG
    # ... and so did the flags beneath it.
    lights.clear_effect()
    assert lights.flush(2)
    colours = {S.CLAIMED_NORTH: RED, S.CLAIMED_SOUTH: GREEN, S.OFF: BLACK,
               S.CLAIMABLE_NORTH: (64, 0, 0), S.CLAIMABLE_SOUTH: (0, 64, 0)}
    assert per_flag(lights.dump_pixels()) == [colours[s] for s in state]
    assert lights.press("north", 2).ok
    assert lights.events.get(timeout=1) == ButtonEvent("north", 2)


def test_heartbeat_notices_a_hung_board(firmware: FirmwareOnPty, lights: SerialLights) -> None:
    assert firmware.proc is not None
    lights.set_flag(1, S.CLAIMED_SOUTH)
    firmware.proc.send_signal(signal.SIGSTOP)  # hung: the port stays, answers stop
    try:
        # heartbeat 0.2 s + reply timeout 0.5 s
        assert wait_for(lambda: not lights.connected, 2)
    finally:
        firmware.proc.send_signal(signal.SIGCONT)
    assert wait_for(lambda: lights.connections == 2, 3)
    assert lights.flush(2)
    assert per_flag(lights.dump_pixels())[0] == GREEN


def test_replies_nobody_asked_for_are_logged_and_ignored(firmware: FirmwareOnPty, lights: SerialLights,
                                                caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="hardware")
    # Something else writes into the port from the side: the board answers the
    # junk with error replies the host did not ask for, then a junk line of ours.
    side = os.open(firmware.device, os.O_RDWR | os.O_NOCTTY)
    try:
        os.write(side, b"\x00\xff garbage\n" + b"9" * 300 + b"\n")
    finally:
        os.close(side)
    lights.set_flag(2, S.CLAIMED_NORTH)
    assert lights.flush(2)
    assert per_flag(lights.dump_pixels())[1] == RED
    assert lights.connections == 1  # no reconnect needed
    messages = " ".join(r.getMessage() for r in caplog.records)
    assert "did not send" in messages and "ERR SYNTAX" in messages and "ERR TOOLONG" in messages


def test_board_not_found_keeps_state_and_connects_later(tmp_path: Path) -> None:
    sim = FirmwareOnPty(tmp_path)
    lights = SerialLights(config_for(sim))
    try:
        lights.set_flag(5, S.CLAIMED_NORTH)  # nothing there yet: kept, not lost
        assert not lights.flush(0.3)
        sim.start()
        assert lights.flush(3), sim.stderr()
        assert per_flag(lights.dump_pixels())[4] == RED
    finally:
        lights.close()
        sim.stop()


def test_close_leaves_the_line_dark(firmware: FirmwareOnPty) -> None:
    lights = SerialLights(config_for(firmware))
    lights.set_all([S.CLAIMED_NORTH] * 9)
    assert lights.flush(5)
    lights.close()
    with serial.Serial(firmware.device, timeout=1) as port:
        port.write(command(1, "DUMP"))
        reply = parse_line(port.readline().rstrip(b"\n"))
    assert isinstance(reply, Reply) and reply.ok
    assert set(reply.words[0]) == {"0"}


def _talk(port: serial.Serial, data: bytes) -> list[Reply | BoardEvent]:
    port.write(data)
    port.write(command(9999, "PING"))
    out: list[Reply | BoardEvent] = []
    while True:
        line = port.readline()
        assert line.endswith(b"\n"), f"no reply, got {line!r}"
        item = parse_line(line.rstrip(b"\n"))
        out.append(item)
        if isinstance(item, Reply) and item.seq == 9999:
            return out


def test_firmware_answers_junk_with_errors_and_keeps_working(firmware: FirmwareOnPty) -> None:
    with serial.Serial(firmware.device, timeout=2) as port:
        port.reset_input_buffer()
        rng = random.Random(5)
        for _ in range(20):
            junk = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200)))
            replies = _talk(port, junk + b"\n")
            errors = [r for r in replies if isinstance(r, Reply) and not r.ok]
            assert errors, f"no error reply to {junk!r}"
            assert all(r.code in ("SYNTAX", "CHECKSUM", "TOOLONG", "UNKNOWN", "ARGS")
                       for r in errors)
            assert replies[-1].ok  # and the PING after it still works
        long_line = command(5, "FLAGS", "N" * 200)
        replies = _talk(port, long_line)
        assert replies[0] == Reply(None, False, (), "TOOLONG",
                                   f"line longer than {framing.MAX_LINE} bytes")
        bad = command(6, "FLAG", "1", "N")[:-3] + b"00\n"
        if bad == command(6, "FLAG", "1", "N"):
            bad = bad[:-3] + b"01\n"
        replies = _talk(port, bad)
        assert isinstance(replies[0], Reply) and (replies[0].seq, replies[0].code) == (6, "CHECKSUM")
        port.write(command(7, "FLAG", "1", "N") + command(8, "DUMP"))
        assert parse_line(port.readline().rstrip(b"\n")) == Reply(7, True)
        dump = parse_line(port.readline().rstrip(b"\n"))
        assert isinstance(dump, Reply) and dump.words[0].startswith("FF0000" * 3 + "000000")


def test_board_restart_on_the_same_port_gets_the_state_again(tmp_path: Path) -> None:
    sim = FirmwareOnPty(tmp_path)
    sim.start(noisy=True)
    lights = SerialLights(config_for(sim))
    try:
        lights.set_all([S.CLAIMED_SOUTH] * 9)
        assert lights.flush(5)
        # The board loses everything (RESET from the side) and says it started afresh.
        side = os.open(sim.device, os.O_RDWR | os.O_NOCTTY)
        os.write(side, command(500, "RESET"))
        os.close(side)
        assert wait_for(lambda: per_flag(lights.dump_pixels()) == [BLACK] * 9, 2)
        sim.inject(framing.frame("! 0 READY battleline-lights 1.0.0 1 27 3 9"))
        assert wait_for(lambda: per_flag(lights.dump_pixels()) == [GREEN] * 9, 2)
        assert lights.connections == 1
    finally:
        lights.close()
        sim.stop()


def test_junk_from_the_board_is_logged_and_ignored(tmp_path: Path,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="hardware")
    sim = FirmwareOnPty(tmp_path)
    sim.start(noisy=True)
    lights = SerialLights(config_for(sim))
    try:
        assert lights.flush(5)
        sim.inject(b"Traceback (most recent call last):\r\n\x00\xff\xfe\n>>> \n")
        lights.set_flag(3, S.CLAIMABLE_SOUTH)
        assert lights.flush(2)
        assert per_flag(lights.dump_pixels())[2] == (0, 64, 0)
        assert lights.press("north", 1).ok
        assert lights.events.get(timeout=1) == ButtonEvent("north", 1)
        junk = [r.getMessage() for r in caplog.records if "not the protocol" in r.getMessage()]
        assert len(junk) == 3 and "Traceback" in junk[0]
        assert lights.connections == 1
    finally:
        lights.close()
        sim.stop()


def test_a_port_that_cannot_be_opened_is_reported_once(tmp_path: Path,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="hardware")
    not_a_tty = tmp_path / "ttyACM0"
    not_a_tty.write_text("")
    lights = SerialLights(LightsConfig(board="pico", serial_port=str(not_a_tty)))
    try:
        time.sleep(0.5)  # several retries, 0.1 s apart
        assert not lights.connected
    finally:
        lights.close()
    reports = [r.getMessage() for r in caplog.records if "cannot open" in r.getMessage()]
    assert len(reports) == 1 and str(not_a_tty) in reports[0]


def test_a_bare_micropython_repl_is_refused_clearly_and_quietly(
        caplog: pytest.LogCaptureFixture) -> None:
    """A Pico with MicroPython but without our firmware: the real REPL answers."""
    caplog.set_level(logging.WARNING, logger="hardware")
    master, slave = os.openpty()
    tty.setraw(slave)
    repl = subprocess.Popen([micropython_binary()], stdin=master, stdout=master, stderr=master)
    os.close(master)
    lights = SerialLights(LightsConfig(board="pico", serial_port=os.ttyname(slave),
                                       reply_timeout_s=0.3))
    try:
        time.sleep(2.0)  # several handshake attempts
        assert not lights.connected
    finally:
        lights.close()
        repl.kill()
        repl.wait()
        os.close(slave)
    messages = [r.getMessage() for r in caplog.records]
    refusals = [m for m in messages if "no handshake" in m]
    assert len(refusals) == 1 and "Is the battle line firmware on the Pico?" in refusals[0]
    assert any(">>>" in m for m in messages)  # the junk is named...
    assert len(messages) <= 8  # ...but does not flood the log
