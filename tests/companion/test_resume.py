"""Killed with SIGKILL at random events and started again: the game resumes, nothing lost."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from companion.records.journal import read_journal
from companion.sim.simtable import script_game


def _command(journal: Path) -> list[str]:
    return [sys.executable, "-m", "companion.cli", "play", "--seed", "21", "--speed", "40",
            "--snapshots", "truth", "--lights", "none", "--journal", str(journal), "--quiet"]


def _events(journal: Path) -> list[str]:
    out = []
    for path in journal.glob("*.jsonl"):
        for raw in path.read_bytes().split(b"\n"):
            try:
                line = json.loads(raw)
            except ValueError:
                continue
            if line.get("type") == "event":
                out.append(f"{line['player']} {line['action']}")
    return out


@pytest.mark.slow
def test_sigkill_at_random_events_then_resume(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    journal = tmp_path / "journal"
    script = script_game(21)
    expected = [s.describe() for s in script.steps]
    rng = random.Random(5)
    kill_at = sorted(rng.sample(range(3, len(expected) - 5), 3))
    seen_before_kill: list[list[str]] = []
    for target in kill_at:
        proc = subprocess.Popen(_command(journal), env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while len(_events(journal)) < target and proc.poll() is None:
            assert time.monotonic() < deadline, "the companion made no progress"
            time.sleep(0.005)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        seen_before_kill.append(_events(journal))
        if target == kill_at[1]:
            # A power cut in the middle of a line: half a line, no newline.
            [path] = journal.glob("*.jsonl")
            with open(path, "ab") as f:
                f.write(b'{"type":"event","n":99,"time":"2026')
    done = subprocess.run(_command(journal), env=env, capture_output=True, text=True,
                          timeout=120, check=True)
    assert "Match score:" in done.stdout
    [path] = journal.glob("*.jsonl")  # one game, resumed in the same journal each time
    record = read_journal(path)
    assert record.ended and not record.torn
    final = [e.describe() for e in record.events]
    assert final == expected
    for before in seen_before_kill:  # nothing journaled before a kill was lost
        assert final[: len(before)] == before
    assert record.outcome == script.outcome
