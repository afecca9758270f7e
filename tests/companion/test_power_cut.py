"""Pulling the plug on a writer: settings, deck profiles and exports are the old file or the
new one, never a torn one.

A real writer process rewrites one file over and over, two versions in turn, and is
killed (SIGKILL) at a random moment; the file left must be whole and be one of the two.
A writer that writes in place is killed the same way and does leave torn files, so the
test can tell.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from companion.config import DEFAULT_TOML
from tests.companion.test_damaged_journal import _unfinished

KILLS = 12

# Each writer gets the file and the two versions' sources; prints "go" once it writes.
WRITERS = {
    "settings": """
import sys
from pathlib import Path
from companion.config import save_settings
path = Path(sys.argv[1])
print("go", flush=True)
while True:
    for name in ("Alexandra", "Bo"):
        save_settings(path, {"players.north": name})
""",
    "profile": """
import sys
from pathlib import Path
from vision.profile import DeckProfile
path, a, b = (Path(p) for p in sys.argv[1:4])
versions = [DeckProfile.load(a), DeckProfile.load(b)]
print("go", flush=True)
while True:
    for profile in versions:
        profile.save(path)
""",
    "profile-in-place": """
import sys
from pathlib import Path
path, a, b = (Path(p) for p in sys.argv[1:4])
versions = [a.read_bytes(), b.read_bytes()]
print("go", flush=True)
while True:
    for data in versions:  # straight into the file, a piece at a time, as savez does
        with open(path, "wb") as fh:
            for at in range(0, len(data), 4096):
                fh.write(data[at:at + 4096])
""",
    "export": """
import sys
from companion.records.export import main
out, a, b = sys.argv[1:4]
print("go", flush=True)
while True:
    for journal in (a, b):
        main([journal, "--out", out])
""",
}


def _kill_at_random(kind: str, args: list[str], check: Callable[[], str | None],
                    rng: random.Random) -> list[str]:
    """Start the writer ``KILLS`` times, kill it at a random moment; what ``check`` found."""
    found = []
    for _ in range(KILLS):
        proc = subprocess.Popen([sys.executable, "-c", WRITERS[kind], *args],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=Path.cwd())
        assert proc.stdout is not None and proc.stdout.readline() == b"go\n"
        time.sleep(rng.uniform(0.0, 0.25))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
        problem = check()
        if problem:
            found.append(problem)
    return found


def _whole(path: Path, versions: list[bytes]) -> Callable[[], str | None]:
    def check() -> str | None:
        data = path.read_bytes()
        return None if data in versions else f"torn: {len(data)} bytes"

    return check


def test_settings_survive_a_pulled_plug(tmp_path: Path) -> None:
    from companion.config import load_config, save_settings

    path = tmp_path / "config.toml"
    # Long comments make each write take a while, so kills land in the middle of some.
    path.write_text(DEFAULT_TOML + "".join(f"# note {i}: {'x' * 70}\n" for i in range(4000)))
    versions = []
    for name in ("Alexandra", "Bo"):
        save_settings(path, {"players.north": name})
        versions.append(path.read_bytes())
    mode = path.stat().st_mode
    assert _kill_at_random("settings", [str(path)], _whole(path, versions),
                           random.Random(1)) == []
    assert load_config(path)[0].north_name in ("Alexandra", "Bo")
    assert path.stat().st_mode == mode


@pytest.fixture(scope="module")
def two_profiles(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    from dataclasses import replace

    from vision.profile import builtin_profile

    folder = tmp_path_factory.mktemp("profiles")
    profile = builtin_profile()
    a, b = folder / "a.npz", folder / "b.npz"
    profile.save(a)
    replace(profile, name="another", gray=profile.gray[::-1].copy()).save(b)
    return a, b


def test_deck_profiles_survive_a_pulled_plug(tmp_path: Path, two_profiles: tuple[Path, Path],
                                             ) -> None:
    from vision.profile import DeckProfile

    path = tmp_path / "deck.npz"
    a, b = two_profiles
    path.write_bytes(a.read_bytes())
    versions = [a.read_bytes(), b.read_bytes()]
    assert _kill_at_random("profile", [str(path), str(a), str(b)], _whole(path, versions),
                           random.Random(2)) == []
    assert DeckProfile.load(path).name in ("built-in companion", "another")
    # Whatever the kills left beside it are temporary files, never the profile's name.
    assert [p.name for p in tmp_path.iterdir() if not p.name.startswith(".deck.npz.")] == [
        "deck.npz"]


def test_a_writer_in_place_is_caught_tearing(tmp_path: Path, two_profiles: tuple[Path, Path],
                                            ) -> None:
    """The test above can fail: a writer in place leaves torn files."""
    path = tmp_path / "deck.npz"
    a, b = two_profiles
    versions = [a.read_bytes(), b.read_bytes()]
    torn = _kill_at_random("profile-in-place", [str(path), str(a), str(b)],
                           _whole(path, versions), random.Random(3))
    assert torn, "no kill landed in the middle of a write: the test cannot tell"


def test_exports_survive_a_pulled_plug(tmp_path: Path) -> None:
    from companion.records.export import export_text

    a, b = _unfinished(tmp_path / "a", 30), _unfinished(tmp_path / "b", 40)
    out = tmp_path / "game.txt"
    versions = [export_text(a).encode(), export_text(b).encode()]
    out.write_bytes(versions[0])
    assert _kill_at_random("export", [str(out), str(a), str(b)], _whole(out, versions),
                           random.Random(4)) == []
    assert os.path.getsize(out) > 0
