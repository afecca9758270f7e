"""A picture of what the lights showed, step by step, as a PNG: for looking
at a bring-up walk without the hardware (zlib only: no imaging library)."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

RGB = tuple[int, int, int]
CELL = 24  # pixels per light, each way
GAP = 4  # dark space between steps and between flags


def _chunk(kind: bytes, data: bytes) -> bytes:
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))


def write_png(path: Path, steps: list[list[RGB]], group: int = 1) -> None:
    """One row of cells per step, one cell per light; every `group` lights
    (the pixels of one flag) are set apart by a gap."""
    width = max(len(row) for row in steps)
    groups = (width + group - 1) // group
    image_w = width * CELL + (groups + 1) * GAP
    image_h = len(steps) * (CELL + GAP) + GAP
    lines = []
    for row in steps:
        line = bytearray(image_w * 3)
        for i, rgb in enumerate(row):
            x = GAP + i * CELL + (i // group) * GAP
            line[x * 3:(x + CELL) * 3] = bytes(rgb) * CELL
        lines += [bytes(line)] * CELL + [bytes(image_w * 3)] * GAP
    raw = b"".join(b"\x00" + line for line in [bytes(image_w * 3)] * GAP + lines)
    header = struct.pack(">IIBBBBB", image_w, image_h, 8, 2, 0, 0, 0)  # 8-bit RGB
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header)
                     + _chunk(b"IDAT", zlib.compress(raw, 9)) + _chunk(b"IEND", b""))
