"""`battleline-companion lights test` on the mock pins and on the firmware."""

from __future__ import annotations

import json
import re
import struct
import zlib
from pathlib import Path

import pytest

from companion.cli import main
from hardware.discovery import on_raspberry_pi
from hardware.firmware_sim import FirmwareOnPty


def test_walk_on_mock_pins(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lights", "test", "--board", "mock", "--step", "0"]) == 0
    out = capsys.readouterr().out
    assert "lights test on the mock board" in out
    lines = {line[:48].strip(): line[48:].strip() for line in out.splitlines()}
    half = " ".join(["0.50/0.00"] * 9)
    assert lines["all flags claimed by north (full north colour)"] == f"levels N/S {half}"
    assert lines["all flags off"] == "levels N/S " + " ".join(["0.00/0.00"] * 9)
    assert lines["flag 4 alone, claimed by north"].split()[2:][3] == "0.50/0.00"
    for words in ("claimable by south", "attention", "uncertain", "breakthrough", "envelopment",
                  "idle", "self-test"):
        assert words in out
    assert out.rstrip().endswith("done")


def test_walk_on_the_firmware(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sim = FirmwareOnPty(tmp_path)
    sim.start()
    # The unix port on a loaded test machine may take longer than a Pico's 1 s to
    # answer; the walk, not the board's speed (`bench lights`), is what is tested.
    config = tmp_path / "companion.toml"
    config.write_text("[lights]\nreply_timeout_s = 10.0\n")
    try:
        assert main(["lights", "test", "--port", str(sim.link), "--step", "0",
                     "--config", str(config)]) == 0
    finally:
        sim.stop()
    out = capsys.readouterr().out
    assert re.search(r"board: battleline-lights 1\.0\.0 on .*, 27 pixels", out)
    line = next(x for x in out.splitlines() if x.startswith("all flags claimed by south"))
    assert line.split()[-9:] == ["008000"] * 9  # south green at the default half brightness


def test_direct_board_off_the_pi_says_what_to_do(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["lights", "test", "--board", "direct", "--step", "0"])
    if on_raspberry_pi():
        assert code == 0
    else:
        assert code == 1
        assert "use board 'mock'" in capsys.readouterr().err


def test_bad_config_file_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "companion.toml"
    config.write_text('[lights]\nboard = "mock"\npixels_per_flag = 40\n')
    assert main(["lights", "test", "--config", str(config), "--step", "0"]) == 2
    assert "lights.pixels_per_flag: must be a whole number 1..16" in capsys.readouterr().err


def test_bench_lights_prints_json_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "lights", "--rounds", "5", "--unplugs", "1"]) == 0
    figures = json.loads(capsys.readouterr().out)
    pico = figures["pico_firmware_on_unix_port"]
    assert 0 < pico["unplug_to_state_restored"]["max_ms"] < 2000
    assert pico["state_change_to_ack"]["median_ms"] > 0
    assert figures["direct_board_mock_pins"]["refresh"]["median_ms"] > 0


def _read_png(path: Path) -> tuple[int, int, bytes]:
    """Width, height and RGB bytes of a PNG as picture.py writes it (filter 0 rows)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    idat = data.index(b"IDAT")
    size = struct.unpack(">I", data[idat - 4:idat])[0]
    raw = zlib.decompress(data[idat + 4:idat + 4 + size])
    stride = width * 3 + 1
    assert all(raw[y * stride] == 0 for y in range(height))
    return width, height, b"".join(raw[y * stride + 1:(y + 1) * stride] for y in range(height))


def test_walk_picture(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    picture = tmp_path / "walk.png"
    assert main(["lights", "test", "--board", "mock", "--step", "0", "--png", str(picture)]) == 0
    width, height, rgb = _read_png(picture)
    steps = sum(1 for line in capsys.readouterr().out.splitlines() if "levels N/S" in line)
    cell, gap = 24, 4
    assert (width, height) == (9 * cell + 10 * gap, steps * (cell + gap) + gap)

    def at(step: int, flag: int) -> tuple[int, ...]:
        x = gap + flag * (cell + gap) + cell // 2
        y = gap + step * (cell + gap) + cell // 2
        return tuple(rgb[(y * width + x) * 3:(y * width + x) * 3 + 3])

    # Step 4 is "all flags claimed by north": the red die at half brightness.
    assert [at(4, f) for f in range(9)] == [(128, 0, 0)] * 9
    assert at(1, 0) == (0, 0, 0)  # all off
