"""framing.py, shared by host and firmware, under MicroPython."""

import framing


def test_crc8_is_smbus_check_value():
    # The published check value of CRC-8/SMBUS over the ASCII digits 1..9.
    assert framing.crc8(b"123456789") == 0xF4
    assert framing.crc8(b"") == 0


def test_frame_round_trip():
    line = framing.frame("7 FLAGS Nn.!?sS..")
    assert line.endswith(b"\n")
    assert framing.unframe(line[:-1]) == "7 FLAGS Nn.!?sS.."


def test_lowercase_checksum_accepted():
    line = framing.frame("1 PING")[:-1]
    assert framing.unframe(line[:-2] + line[-2:].lower()) == "1 PING"


def _code(line):
    try:
        framing.unframe(line)
    except framing.FrameError as e:
        return e.code
    return None


def test_wrong_checksum_is_refused():
    line = framing.frame("1 PING")[:-1]
    wrong = b"%02X" % ((framing.crc8(b"1 PING") + 1) % 256)
    assert _code(line[:-2] + wrong) == "CHECKSUM"


def test_changed_body_is_refused():
    line = framing.frame("1 FLAG 3 N")[:-1]
    assert _code(line.replace(b"3", b"4")) == "CHECKSUM"


def test_malformed_lines_are_syntax_errors():
    assert _code(b"1 PING") == "SYNTAX"
    assert _code(b"1 PING*Z1") == "SYNTAX"
    assert _code(b"1 PING* 1") == "SYNTAX"
    assert _code(b"1 PI\x00NG*00") == "SYNTAX"
    assert _code(b"1 PING*ABC") == "SYNTAX"
