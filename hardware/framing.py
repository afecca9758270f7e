"""One protocol line: its body, a '*', and a CRC-8 of the body in two hex digits.

Shared by the host (hardware.serial_link) and the Pico firmware
(firmware/framing.py is a link to this file), so it keeps to the Python that
CPython and MicroPython both run. The protocol is in firmware/PROTOCOL.md.
"""

PROTOCOL_VERSION = 1
MAX_LINE = 96  # longest line the board accepts, in bytes, without the LF


def _table() -> bytes:
    # CRC-8/SMBUS: polynomial 0x07, initial value 0, no reflection, no final xor.
    table = bytearray(256)
    for i in range(256):
        crc = i
        for _ in range(8):
            crc = ((crc << 1) ^ 0x07) & 0xFF if crc & 0x80 else (crc << 1) & 0xFF
        table[i] = crc
    return bytes(table)


_CRC = _table()


def crc8(data: bytes) -> int:
    crc = 0
    for byte in data:
        crc = _CRC[crc ^ byte]
    return crc


def frame(body: str) -> bytes:
    """The bytes on the wire for one line whose text is `body`."""
    raw = body.encode()
    return raw + b"*" + (f"{crc8(raw):02X}").encode() + b"\n"


class FrameError(Exception):
    """A received line that is not a valid frame; `code` is the protocol's error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def unframe(line: bytes) -> str:
    """The checked body of one received line (without its LF).

    Raises FrameError with code SYNTAX (not printable ASCII, no checksum) or
    CHECKSUM (the checksum does not match the body).
    """
    for byte in line:
        if byte < 32 or byte > 126:
            raise FrameError("SYNTAX", f"byte 0x{byte:02X} is not printable ASCII")
    star = line.rfind(b"*")
    if star < 0 or len(line) - star != 3:
        raise FrameError("SYNTAX", "line does not end in *CC (two hex digits of CRC-8)")
    body = bytes(line[:star])
    text = bytes(line[star + 1 :]).decode()
    for char in text:
        if char not in "0123456789abcdefABCDEF":
            raise FrameError("SYNTAX", f"checksum {text} is not two hex digits")
    got = int(text, 16)
    want = crc8(body)
    if got != want:
        raise FrameError("CHECKSUM", f"checksum {text} does not match, expected {want:02X}")
    return body.decode()
