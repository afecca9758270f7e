"""A full disk while journaling: the game goes on, the view and the lights say the journal
is not written, and writing resumes, nothing lost, when space returns.

Once on a real small file system (a tmpfs of 1 MiB, mounted in a mount namespace of our
own with ``unshare``; the disk filled by a real file), and once with ENOSPC raised at the
journal's ``os.write`` after half a line, which a real file system does not do on demand.
"""

from __future__ import annotations

import errno
import io
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from companion.app import Companion
from companion.records.journal import Journal, read_journal, variant_json
from companion.rules.position import Variant
from companion.sim.simtable import Step, TruthSnapshots, script_game
from companion.sim.simulate import Driver
from companion.tracker import Tracker
from companion.ui.terminal import TerminalView
from hardware.config import LightsConfig
from hardware.lights import NoLights
from hardware.states import FlagState

SEED = 4
FULL_AT, FREE_AT = 8, 20  # script steps


def play_through_full_disk(directory: Path, fill: Callable[[], None],
                           free: Callable[[], None]) -> dict[str, Any]:
    """A simulated game whose disk fills at step FULL_AT and has room again at FREE_AT."""
    script = script_game(SEED)
    said = io.StringIO()
    journal = Journal.create(directory, {"mode": "simulated", "first": script.first.value,
                                         "variant": variant_json(Variant()), "seed": SEED})
    lights = NoLights(LightsConfig(board="none"))
    companion = Companion(Tracker(Variant(), script.first), journal, lights,
                          TerminalView(said, live=False))
    seen: dict[str, Any] = {}

    def on_step(index: int, _step: Step) -> None:
        if index == FULL_AT:
            fill()
        elif index == FREE_AT:
            seen.update(
                trouble=journal.trouble, waiting=journal.waiting,
                lights=[state.name for state in lights.flags],
                texts=[str(s.text) for s in companion.statuses()],
                messages=[str(m) for m in companion.messages()],
                on_disk=len(read_journal(journal.path).events),  # strict: no half line
                played=len(companion.tracker.history))
            free()

    Driver(companion, script, TruthSnapshots(), on_step=on_step).run()
    journal.close()
    record = read_journal(journal.path)
    return {**seen, "said": said.getvalue(), "ended": record.ended,
            "trouble_after": journal.trouble, "lights_after": [s.name for s in lights.flags],
            "same": [(e.player.value, str(e.action)) for e in record.events]
            == [(s.player.value, str(s.action)) for s in script.steps]}


def _check(result: dict[str, Any]) -> None:
    assert result["trouble"] and "space" in result["trouble"].lower()
    assert result["waiting"] > 0 and result["played"] > FULL_AT  # the game went on
    assert result["on_disk"] < result["played"]  # a page of room may take a few more lines
    assert FlagState.ATTENTION.name in result["lights"]
    assert "journal not written" in result["texts"]
    assert result["messages"][0].startswith("journal: not being written")
    said = result["said"]
    assert said.count("journal: not being written") == 1  # said once, not at every event
    assert said.index("journal: written again") > said.index("journal: not being written")
    assert result["trouble_after"] is None and result["ended"] and result["same"]
    assert FlagState.ATTENTION.name not in result["lights_after"]


def test_enospc_at_the_write_seam(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    full = False
    real_write = os.write

    def write(fd: int, data: Any) -> int:
        if full and os.readlink(f"/proc/self/fd/{fd}").endswith(".jsonl"):
            real_write(fd, bytes(data[: len(data) // 2]))  # half a line, then no room
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)

    def fill() -> None:
        nonlocal full
        full = True

    def free() -> None:
        nonlocal full
        full = False

    monkeypatch.setattr(os, "write", write)
    _check(play_through_full_disk(tmp_path, fill, free))


INSIDE = """
import json, os, sys
from pathlib import Path
from tests.companion.test_full_disk import play_through_full_disk
disk = Path(sys.argv[1])
filler = disk / "filler"
def fill():
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"x" * 4096)
    except OSError as error:
        assert error.errno == 28  # ENOSPC: the disk is full
    finally:
        os.close(fd)
def free():
    filler.unlink()
print(json.dumps(play_through_full_disk(disk / "journal", fill, free)))
"""


def test_a_real_full_file_system(tmp_path: Path) -> None:
    unshare = shutil.which("unshare")
    probe = subprocess.run([unshare or "unshare", "-rm", "true"], capture_output=True) \
        if unshare else None
    if probe is None or probe.returncode != 0:
        pytest.skip("no mount namespace here (unshare -rm); the seam test covers ENOSPC")
    disk = tmp_path / "disk"
    disk.mkdir()
    done = subprocess.run(
        [unshare or "unshare", "-rm", "sh", "-c",
         'mount -t tmpfs -o size=1m tmpfs "$1" && exec "$2" -c "$3" "$1"', "sh",
         str(disk), sys.executable, INSIDE],
        capture_output=True, text=True, timeout=120, cwd=Path(__file__).parents[2])
    assert done.returncode == 0, done.stderr[-2000:]
    _check(json.loads(done.stdout.splitlines()[-1]))
