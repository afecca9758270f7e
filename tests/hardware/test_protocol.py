"""The host's side of the protocol: parsing board lines, and finding the port."""

from __future__ import annotations

from pathlib import Path

import pytest
from serial.tools import list_ports
from serial.tools.list_ports_common import ListPortInfo

from hardware import discovery, framing
from hardware.config import LightsConfig
from hardware.discovery import describe_search, find_port
from hardware.protocol import BoardEvent, BoardInfo, JunkLine, Reply, command, parse_line


def line(body: str) -> bytes:
    return framing.frame(body)[:-1]


def test_command_framing() -> None:
    assert command(12, "FLAG", "3", "N") == b"12 FLAG 3 N*" + b"%02X\n" % framing.crc8(b"12 FLAG 3 N")


def test_replies_and_events() -> None:
    assert parse_line(line("4 OK")) == Reply(4, True)
    assert parse_line(line("5 OK 1234")) == Reply(5, True, ("1234",))
    assert parse_line(line("6 ERR ARGS FLAG: flag must be 1..9")) == Reply(
        6, False, (), "ARGS", "FLAG: flag must be 1..9")
    assert parse_line(line("- ERR SYNTAX no checksum")) == Reply(None, False, (), "SYNTAX",
                                                                 "no checksum")
    assert parse_line(line("! 17 PRESS north 3")) == BoardEvent(17, "PRESS", ("north", "3"))


@pytest.mark.parametrize(("raw", "why"), [
    (b">>> ", "does not end in"),
    (b"Traceback (most recent call last):", "does not end in"),
    (line("4 OK")[:-1] + b"0", "checksum"),
    (line("hello"), "a reply must start with a sequence number"),
    (line("4 MAYBE"), "OK or ERR"),
    (line("! x PRESS"), "an event must be"),
    (b"\x1b[0m*00", "not printable"),
])
def test_junk_is_named(raw: bytes, why: str) -> None:
    with pytest.raises(JunkLine, match=why):
        parse_line(raw)


def test_board_info() -> None:
    words = ("battleline-lights", "1.0.0", "1", "27", "3", "9")
    assert BoardInfo.from_words(words).pixels == 27
    with pytest.raises(JunkLine, match="expected 'battleline-lights"):
        BoardInfo.from_words(("some-other-firmware", "1", "1", "1", "1", "1"))


def test_configured_port_is_used_only_while_it_exists(tmp_path: Path) -> None:
    port = tmp_path / "ttyACM7"
    config = LightsConfig(serial_port=str(port))
    assert find_port(config) is None
    port.touch()
    assert find_port(config) == str(port)
    assert describe_search(config) == f"the configured port {port}"
    assert "2E8A:0005" in describe_search(LightsConfig())


def _port(device: str, vid: int | None, pid: int | None) -> ListPortInfo:
    info = ListPortInfo(device, skip_link_detection=True)
    info.vid, info.pid = vid, pid
    return info


def test_the_pico_is_found_by_usb_id(monkeypatch: pytest.MonkeyPatch) -> None:
    ports = [_port("/dev/ttyUSB0", 0x0403, 0x6001), _port("/dev/ttyACM1", 0x2E8A, 0x0005)]
    monkeypatch.setattr(list_ports, "comports", lambda: ports)
    assert find_port(LightsConfig()) == "/dev/ttyACM1"
    # A Pico 2 or a board with its own USB id: set usb_id.
    assert find_port(LightsConfig(usb_id=(0x0403, 0x6001))) == "/dev/ttyUSB0"


def test_else_by_its_by_id_name(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(list_ports, "comports", lambda: [_port("/dev/ttyS0", None, None)])
    monkeypatch.setattr(discovery, "BY_ID_PATTERN", str(tmp_path / "*MicroPython*"))
    assert find_port(LightsConfig()) is None
    link = tmp_path / "usb-MicroPython_Board_in_FS_mode_e6614c311b7e6f35-if00"
    link.symlink_to("/dev/ttyACM0")
    assert find_port(LightsConfig()) == str(link)
