"""firmware/main.py's wiring, run under the MicroPython unix port with
stand-ins for the three Pico-only modules (machine, neopixel: the unix port has
no pins; see tests/firmware/pico_standins). The controller behind it is the
real one; this checks that main.py wires it up and that safe mode works."""

from __future__ import annotations

import subprocess
from pathlib import Path

from hardware import framing
from hardware.protocol import BoardEvent, Reply, parse_line
from tests.firmware.mp_binary import FIRMWARE, environment, micropython

STANDINS = Path(__file__).resolve().parent / "pico_standins"


def _run_main(cwd: Path, commands: list[str]) -> subprocess.CompletedProcess[bytes]:
    data = b"".join(framing.frame(c) for c in commands)
    return subprocess.run([micropython(), str(FIRMWARE / "main.py")], input=data,
                          cwd=cwd, env=environment(STANDINS, FIRMWARE),
                          capture_output=True, timeout=20)


def test_main_serves_the_protocol_then_restarts_into_safe_mode(tmp_path: Path) -> None:
    done = _run_main(tmp_path, ["1 HELLO 1", "2 FLAGS N.......S", "3 DUMP", "4 SAFE"])
    lines = [parse_line(x) for x in done.stdout.splitlines()]
    assert lines[0] == BoardEvent(0, "READY", ("battleline-lights", "1.0.0", "1", "27", "3", "9"))
    assert lines[1:3] == [Reply(1, True, ("battleline-lights", "1.0.0", "1", "27", "3", "9")),
                          Reply(2, True)]
    assert lines[3] == Reply(3, True, ("FF0000" * 3 + "000000" * 21 + "00FF00" * 3,))
    assert lines[4] == Reply(4, True)
    assert done.returncode == 3, done.stderr.decode()  # the stand-in machine.reset()
    assert (tmp_path / "safe_mode").exists()
    # Next start: safe mode, straight to the REPL, no watchdog; the flag file is used up.
    again = _run_main(tmp_path, [])
    assert again.returncode == 0, again.stderr.decode()
    assert b"safe mode" in again.stdout
    assert not (tmp_path / "safe_mode").exists()
