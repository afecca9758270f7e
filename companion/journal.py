"""The journal: an append-only JSON-lines record of one game, safe against power cuts.

Line one is the game's header; then one line per event, each with its time
and the position after it (NOTATION.md ``battleline-position/1``); undo and
notes (attention, camera trouble, corrections) in between; an ``end`` line
closes a finished game. Every line is flushed and fsynced before the
companion goes on, so after a crash at most the line being written is torn —
and a torn last line is dropped on reading (and cut off before appending).

```
{"type": "game", "format": "battleline-journal/1", "first": "south", "variant": {...}, ...}
{"type": "event", "n": 1, "time": "2026-11-21T15:20:01.123+00:00", "player": "south",
 "action": "R7@3", "position": {"format": "battleline-position/1", ...}}
{"type": "undo", "n": 2, "time": "...", "undone": "claim 3", "position": {...}}
{"type": "note", "time": "...", "message": "flag 4: two cards at once: ..."}
{"type": "end", "time": "...", "winner": "north", "ending": "breakthrough", "flags": [3, 1]}
```
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, Final

from companion.rules.actions import Action, parse_action
from companion.rules.battlefield import Setup
from companion.rules.errors import NotationError
from companion.rules.game import Ending, Outcome
from companion.rules.notation import dump_position
from companion.rules.position import Player, Position, Variant
from companion.tracker import TrackedEvent

FORMAT: Final = "battleline-journal/1"
SUFFIX: Final = ".jsonl"


class JournalError(ValueError):
    """A journal that cannot be read; the message names the file, line and problem."""


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def variant_json(variant: Variant) -> dict[str, object]:
    return {f.name: getattr(variant, f.name) for f in fields(Variant)}


def variant_from(raw: object, where: str) -> Variant:
    if not isinstance(raw, dict):
        raise JournalError(f"{where}: variant must be an object")
    names = {f.name for f in fields(Variant)}
    unknown = set(raw) - names
    if unknown:
        raise JournalError(f"{where}: unknown rule option(s) {sorted(unknown)}")
    variant = Variant(**raw)
    if variant.claim_timing not in ("standard", "advanced"):
        raise JournalError(f"{where}: claim_timing must be standard or advanced")
    return variant


def outcome_json(outcome: Outcome) -> dict[str, object]:
    return {
        "winner": outcome.winner.value if outcome.winner else None,
        "ending": outcome.ending.value,
        "flags": list(outcome.flags),
    }


def outcome_from(raw: Mapping[str, Any]) -> Outcome:
    winner = raw.get("winner")
    flags = raw.get("flags", [0, 0])
    return Outcome(
        Player(winner) if winner else None, Ending(raw["ending"]), (int(flags[0]), int(flags[1]))
    )


def event_json(n: int, event: TrackedEvent, position: Position) -> dict[str, object]:
    line: dict[str, object] = {
        "type": "event",
        "n": n,
        "time": now(),
        "player": event.player.value,
        "action": event.notation(),
    }
    if event.pile is not None:
        line["pile"] = event.pile
    if event.ruling is not None:
        line["ruling"] = event.ruling.reason.value
    line["position"] = dump_position(position)
    return line


def event_from(line: Mapping[str, Any], where: str) -> TrackedEvent:
    try:
        player = Player(line["player"])
        action: Action = parse_action(str(line["action"]))
    except (KeyError, ValueError, NotationError) as error:
        raise JournalError(f"{where}: not an event ({error})") from None
    pile = line.get("pile")
    return TrackedEvent(player, action, str(pile) if pile else None)


@dataclass
class JournalRecord:
    """A journal as read: the header, the events standing (undos applied), how it ended."""

    path: Path
    header: dict[str, Any]
    lines: list[dict[str, Any]] = field(default_factory=list)
    events: list[TrackedEvent] = field(default_factory=list)
    outcome: Outcome | None = None
    ended: bool = False  # an end line: finished (or abandoned)
    torn: bool = False  # the last line was cut short and has been left out
    good_bytes: int = 0  # length of the file up to the last whole line

    @property
    def variant(self) -> Variant:
        return variant_from(self.header.get("variant", {}), f"{self.path}: line 1")

    @property
    def setup(self) -> Setup:
        """How the battlefield is laid out (``setup`` in the header; standard by default)."""
        raw = self.header.get("setup", Setup.STANDARD.value)
        try:
            return Setup(raw)
        except ValueError:
            choices = ", ".join(s.value for s in Setup)
            raise JournalError(f"{self.path}: line 1: setup must be {choices}, not {raw!r}") from None

    @property
    def first(self) -> Player | None:
        """Who plays first; None when the table decides (whoever lays the first card)."""
        first = self.header.get("first", "south")
        return None if first is None else Player(first)


def read_journal(path: Path) -> JournalRecord:
    """Read a journal; a torn last line is tolerated, any other bad line is an error."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise JournalError(f"{path}: cannot read ({error.strerror or error})") from None
    raw_lines = data.split(b"\n")
    complete = raw_lines[:-1]  # the part after the last newline is torn or empty
    tail = raw_lines[-1]
    record: JournalRecord | None = None
    good = 0
    torn = bool(tail.strip())
    for number, raw in enumerate(complete, start=1):
        where = f"{path}: line {number}"
        try:
            line = json.loads(raw.decode("utf-8"))
            if not isinstance(line, dict):
                raise ValueError("not a JSON object")
        except (ValueError, UnicodeDecodeError) as error:
            if number == len(complete) and not tail.strip():
                torn = True  # the last line, cut and then followed by a newline write
                break
            raise JournalError(f"{where}: not a JSON object ({error})") from None
        good += len(raw) + 1
        if record is None:
            if line.get("type") != "game" or line.get("format") != FORMAT:
                raise JournalError(f"{where}: expected a {FORMAT} header line")
            record = JournalRecord(path, line)
            continue
        record.lines.append(line)
        kind = line.get("type")
        if kind == "event":
            record.events.append(event_from(line, where))
        elif kind == "undo":
            if not record.events:
                raise JournalError(f"{where}: undo with no event to undo")
            record.events.pop()
        elif kind == "end":
            record.ended = True
            if line.get("ending"):
                record.outcome = outcome_from(line)
        elif kind != "note":
            raise JournalError(f"{where}: unknown line type {kind!r}")
    if record is None:
        raise JournalError(f"{path}: empty journal (no header line)")
    record.torn = torn
    record.good_bytes = good
    return record


def find_unfinished(directory: Path) -> Path | None:
    """The newest journal in ``directory`` without an end line, if any."""
    if not directory.is_dir():
        return None
    for path in sorted(directory.glob(f"*{SUFFIX}"), reverse=True):
        try:
            if not read_journal(path).ended:
                return path
        except JournalError:
            continue
    return None


class Journal:
    """Appends lines to one game's journal, each flushed and fsynced before returning."""

    def __init__(self, path: Path, handle: IO[str], count: int = 0) -> None:
        self.path = path
        self._handle = handle
        self.count = count  # event numbers given so far

    @classmethod
    def create(cls, directory: Path, header: Mapping[str, object]) -> Journal:
        directory.mkdir(parents=True, exist_ok=True)
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S-%f")
        path = directory / f"game-{stamp}{SUFFIX}"
        handle = open(path, "x", encoding="utf-8")  # noqa: SIM115 - kept open for the game
        journal = cls(path, handle)
        journal.write({"type": "game", "format": FORMAT, "started": now(), **header})
        _fsync_dir(directory)
        return journal

    @classmethod
    def reopen(cls, record: JournalRecord) -> Journal:
        """Append to a journal read with ``read_journal``, cutting off a torn last line."""
        with open(record.path, "r+b") as raw:
            raw.truncate(record.good_bytes)
            raw.flush()
            os.fsync(raw.fileno())
        handle = open(record.path, "a", encoding="utf-8")  # noqa: SIM115
        count = max((int(line.get("n", 0)) for line in record.lines), default=0)
        return cls(record.path, handle, count)

    def write(self, line: Mapping[str, object]) -> None:
        self._handle.write(json.dumps(line, separators=(",", ":")) + "\n")
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def event(self, event: TrackedEvent, position: Position) -> None:
        self.count += 1
        self.write(event_json(self.count, event, position))

    def undo(self, event: TrackedEvent, position: Position) -> None:
        self.count += 1
        self.write(
            {"type": "undo", "n": self.count, "time": now(), "undone": event.notation(),
             "position": dump_position(position)}
        )

    def note(self, message: str) -> None:
        self.write({"type": "note", "time": now(), "message": message})

    def end(self, outcome: Outcome | None, reason: str | None = None) -> None:
        line: dict[str, object] = {"type": "end", "time": now()}
        if outcome is not None:
            line.update(outcome_json(outcome))
        if reason:
            line["reason"] = reason
        self.write(line)

    def close(self) -> None:
        self._handle.close()


def _fsync_dir(directory: Path) -> None:
    """Make the new file's name itself survive a power cut."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
