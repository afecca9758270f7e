"""The files a user feeds the companion, each as a fuzzing surface.

A ``Surface`` has good inputs to start from (``seeds``, made in a working
folder), a way to spoil one (``mutate``) and a ``check`` that feeds one input
to the code a user reaches, the way the user reaches it (a command's ``main``,
or what ``play`` does at start). ``check`` returns None when the input was
taken or refused cleanly, a few words when the answer was not a clear one-line
message naming the file (exit status 1), and raises when a traceback escaped.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from companion.fuzz.mutate import json_text, mutate_bytes

Check = Callable[[bytes, Path], str | None]


@dataclass(frozen=True)
class Surface:
    name: str
    seeds: Callable[[Path], list[bytes]]
    check: Check
    structured: Callable[[bytes, random.Random], bytes] | None = None  # format-aware
    extra: dict[str, Any] = field(default_factory=dict)

    def mutate(self, data: bytes, rng: random.Random, seeds: list[bytes]) -> bytes:
        custom = self.extra.get("mutate")
        if custom is not None:
            result: bytes = custom(data, rng, seeds)
            return result
        if self.structured is not None and rng.random() < 0.5:
            try:
                return self.structured(data, rng)
            except ValueError:  # not the format after all: bytes then
                pass
        return mutate_bytes(data, rng, seeds)


def answer(code: object, err: str, name: str, *, lines: int | None = 1) -> str | None:
    """None for a clean answer: exit 0, or 1 with a message naming ``name``."""
    if code == 0:
        return None
    said = [line for line in err.splitlines() if line.strip()]
    if code != 1:
        return f"exit status {code!r}"
    if not said or (lines is not None and len(said) != lines):
        return f"{len(said)} lines of message: {err[:200]!r}"
    if not all(name in line for line in said):
        return f"the message does not name {name}: {said[0][:200]!r}"
    return None


def run_main(main: Callable[[list[str]], int], argv: list[str]) -> tuple[object, str]:
    """A command's exit status and what it wrote to stderr (stdout dropped)."""
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        try:
            code: object = main(argv)
        except SystemExit as leaving:  # argparse; counted as an exit status
            code = leaving.code
    return code, err.getvalue()


def _file(data: bytes, folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(data)
    return path


def one_line(error: Exception, name: str) -> str | None:
    text = str(error)
    if "\n" in text.strip() or name not in text:
        return f"not one line naming {name}: {text[:200]!r}"
    return None


def _structured_json(data: bytes, rng: random.Random) -> bytes:
    return json_text(json.loads(data), rng)


# ---------------------------------------------------------------- the seeds
def _finished_journal(folder: Path, seed: int) -> Path:
    from companion.records.journal import Journal, variant_json
    from companion.rules.position import Variant
    from companion.sim.simtable import script_game
    from companion.tracker import TrackedEvent, Tracker

    script = script_game(seed)
    journal = Journal.create(folder, {
        "mode": "simulated", "first": script.first.value, "variant": variant_json(Variant()),
        "setup": "standard", "seed": seed, "north": "greedy", "south": "greedy",
        "snapshots": "truth", "match": {"seed": seed, "games": 1, "game": 0, "outcomes": []}})
    tracker = Tracker(Variant(), script.first)
    for step in script.steps:
        journal.event(tracker.apply(TrackedEvent(step.player, step.action)), tracker.position)
    journal.end(tracker.outcome)
    journal.close()
    return journal.path


def _journal_seeds(folder: Path) -> list[bytes]:
    whole = _finished_journal(folder / "seeds", 2).read_bytes()
    lines = whole.split(b"\n")
    return [whole, b"\n".join(lines[:25]) + b"\n"]  # finished, and unfinished


def _position_seeds(_folder: Path) -> list[bytes]:
    from companion.rules.notation import dump_position
    from companion.sim.simtable import script_game

    steps = script_game(3).steps
    return [json.dumps(dump_position(steps[i].position)).encode() for i in (5, 30, -1)]


def _record_seeds(folder: Path) -> list[bytes]:
    from companion.records.export import export_text
    from companion.rules.game import Dealer, GameState
    from companion.rules.position import Player
    from companion.rules.record import GameRecord
    from companion.sim.bots import GreedyBot

    table = export_text(_finished_journal(folder / "seeds", 4)).encode()
    record, state, dealer, bot = GameRecord(Player.NORTH), GameState.new(Player.NORTH), \
        Dealer(1), GreedyBot(1)
    while not state.is_over:
        action = dealer.reveal(state) if state.chance_outcomes() else bot.choose(state)
        state, record = state.apply(action), record.with_action(action)
    return [table, record.text().encode()]


def _settings_seeds(_folder: Path) -> list[bytes]:
    from companion.config import DEFAULT_TOML

    changed = DEFAULT_TOML.replace('kind = "auto"', 'kind = "terminal"').replace(
        "auto_claim = false", "auto_claim = true").replace('north = ""', 'north = "Ana"')
    return [DEFAULT_TOML.encode(), changed.encode(),
            b'[lights]\nboard = "pico"\nbrightness = 0.5\n[lights.colours]\nnorth = [1, 2, 3]\n']


# ---------------------------------------------------------------- the checks
def check_position(data: bytes, folder: Path) -> str | None:
    from companion.records.adjudicate import main

    path = _file(data, folder, "position.json")
    return answer(*run_main(main, [str(path)]), str(path))


def check_record(data: bytes, folder: Path) -> str | None:
    from companion.records.replay import main

    path = _file(data, folder, "game.txt")
    return answer(*run_main(main, [str(path), "--quiet"]), str(path))


def check_journal(data: bytes, folder: Path) -> str | None:
    """``replay``, ``replay --lenient``, and what ``play`` does with it at start."""
    from companion.records.journal import Journal
    from companion.records.replay import main
    from companion.records.salvage import tracker_for
    from companion.run import _unfinished

    directory = folder / "journal"
    if directory.exists():
        for old in directory.iterdir():
            old.unlink()
    path = _file(data, directory, "game-1.jsonl")
    problem = answer(*run_main(main, [str(path), "--quiet"]), str(path))
    problem = problem or answer(*run_main(main, [str(path), "--quiet", "--lenient"]),
                                str(path), lines=None)
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        record = _unfinished(directory, False, lambda _text: None)
        if record is not None:
            tracker = tracker_for(record)
            for event in record.events:
                tracker.apply(event)
            Journal.reopen(record).close()
    said = [line for line in err.getvalue().splitlines() if line.strip()]
    if problem is None and (len(said) > 1 or any(str(path) not in line for line in said)):
        problem = f"at start: {err.getvalue()[:200]!r}"
    return problem


def check_settings(data: bytes, folder: Path) -> str | None:
    """Read as ``play`` reads it, then a change made on the touchscreen saved as ``play``
    saves it: a file that could not be read is never written over."""
    from companion.config import Config, ConfigError, load_config
    from companion.ui.live_settings import LiveSettings
    from hardware.config import LightsConfig
    from hardware.lights import NoLights

    path = _file(data, folder, "config.toml")
    unreadable: str | None = None
    try:
        config = load_config(path)[0]
    except ConfigError as error:
        if problem := one_line(error, str(path)):
            return problem
        config, unreadable = Config(), str(error)
    lights = NoLights(LightsConfig(board="none"))
    live = LiveSettings(config, path, lights, lambda _c: lights, lambda _text: None, unreadable)
    live("hints", "off")
    live("name.north", "Zoë")
    if unreadable is not None and path.read_bytes() != data:
        return "a file that could not be read was written over"
    return None


def check_profile(data: bytes, folder: Path) -> str | None:
    """Loaded as ``play`` and ``read`` load it, then given to the reader."""
    from vision.profile import DeckProfile, ProfileError
    from vision.read import Reader

    path = _file(data, folder, "deck.npz")
    try:
        profile = DeckProfile.load(path)
    except ProfileError as error:
        return one_line(error, str(path))
    Reader(profile)
    return None


def check_image(data: bytes, folder: Path) -> str | None:
    """As a picture of the table for ``read``, and as a card's photo for ``enroll``."""
    from vision.cli import main

    path = _file(data, folder, "table.jpg")
    problem = answer(*run_main(main, ["read", str(path)]), str(path))
    photos = folder / "photos"
    _file(data, photos, "R1.jpg")
    if not (photos / "R2.jpg").exists():
        (photos / "R2.jpg").write_bytes(_card_photo())
    code, err = run_main(main, ["enroll", "--from-dir", str(photos), "--partial",
                                "--out", str(folder / "deck.npz")])
    if code not in (0, 1) or (code == 1 and "R1.jpg" not in err):
        # enroll lists every photo it refuses, a line each
        problem = problem or f"enroll: exit status {code!r}: {err[:200]!r}"
    return problem


@cache
def _card_photo() -> bytes:
    import cv2
    import numpy as np

    from vision.simulated.synth import card_photo

    photo = card_photo("R2", "companion", np.random.default_rng(2))
    return bytes(cv2.imencode(".jpg", photo)[1].tobytes())


def _profile_seeds(folder: Path) -> list[bytes]:
    from vision.profile import builtin_profile

    path = folder / "seeds" / "deck.npz"
    path.parent.mkdir(parents=True, exist_ok=True)
    builtin_profile().save(path)
    return [path.read_bytes()]


def _structured_profile(data: bytes, rng: random.Random) -> bytes:
    """The profile's arrays kept, its meta or one array spoilt, packed again."""
    import numpy as np

    with np.load(io.BytesIO(data), allow_pickle=False) as npz:
        arrays = {name: npz[name] for name in npz.files}
    name = rng.choice(sorted(arrays))
    if name == "meta":
        meta = json_text(json.loads(str(arrays["meta"])), rng).decode("utf-8", "replace")
        arrays["meta"] = np.array(meta)
    else:
        spoilt = arrays[name]
        arrays[name] = rng.choice([
            spoilt[: rng.randint(0, len(spoilt))], spoilt.reshape(-1), spoilt.astype(np.int8),
            np.full_like(spoilt, np.nan, dtype=np.float32), np.zeros((2, 3), np.float64),
            np.array("text")])
    out = io.BytesIO()
    np.savez(out, **arrays)  # type: ignore[arg-type]
    return out.getvalue()


def _image_seeds(_folder: Path) -> list[bytes]:
    import cv2

    from vision.simulated.synth import scene

    frame = scene(7)[1].image  # a table on the mat, as the camera sees it
    small = cv2.resize(frame, (frame.shape[1] // 8, frame.shape[0] // 8))
    return [cv2.imencode(ext, img)[1].tobytes()
            for ext, img in ((".jpg", small), (".png", small[:60, :80]), (".jpg", frame))]


def _structured_lines(data: bytes, rng: random.Random) -> bytes:
    """One JSON line of a journal spoilt as JSON, the others kept."""
    lines = data.split(b"\n")
    at = rng.randrange(len(lines))
    lines[at] = json_text(json.loads(lines[at]), rng)
    return b"\n".join(lines)


FILE_SURFACES: tuple[Surface, ...] = (
    Surface("position", _position_seeds, check_position, _structured_json),
    Surface("record", _record_seeds, check_record),
    Surface("journal", _journal_seeds, check_journal, _structured_lines),
    Surface("settings", _settings_seeds, check_settings),
    Surface("profile", _profile_seeds, check_profile, _structured_profile),
    Surface("image", _image_seeds, check_image),
)
