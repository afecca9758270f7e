"""The flashing helper: what it copies, and the safe-mode request it sends first."""

from __future__ import annotations

import ast
import os
import tty
from pathlib import Path

import pytest

from hardware.firmware_sim import FirmwareOnPty
from hardware.flash import FILES, FIRMWARE_DIR, enter_safe_mode, main

ON_THE_PICO = {"machine", "micropython", "neopixel", "os", "select", "sys", "time"}


def test_every_module_main_needs_is_copied_and_main_goes_last() -> None:
    assert FILES[-1] == "main.py"
    for position, name in enumerate(FILES):
        tree = ast.parse((FIRMWARE_DIR / name).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                modules = [node.module or ""]
            else:
                continue
            for module in modules:
                if module in ON_THE_PICO:
                    continue
                assert f"{module}.py" in FILES[:position], f"{name} needs {module}.py copied first"


def test_safe_mode_request_stops_the_firmware(tmp_path: Path) -> None:
    sim = FirmwareOnPty(tmp_path)
    sim.start()
    try:
        assert enter_safe_mode(sim.device)
        assert sim.proc is not None and sim.proc.wait(timeout=3) == 0
    finally:
        sim.stop()


def test_a_board_that_does_not_answer_is_left_alone() -> None:
    master, slave = os.openpty()
    tty.setraw(slave)
    try:
        assert not enter_safe_mode(os.ttyname(slave))
    finally:
        os.close(master)
        os.close(slave)


def test_dry_run_prints_the_mpremote_command(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    port = tmp_path / "ttyACM0"
    port.touch()
    assert main(["--port", str(port), "--dry-run"]) == 0
    words = capsys.readouterr().out.split()
    assert words[1:3] == ["connect", str(port)]
    assert words[-3:] == [":", "+", "reset"]
    assert [Path(w).name for w in words[4:-3]] == list(FILES)


def test_no_board_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--port", str(tmp_path / "missing")]) == 1
    assert "no Pico found" in capsys.readouterr().err
