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

import contextlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from companion.i18n import _
from companion.messages import describe
from companion.records.safe_write import fsync_dir, write_atomic
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


def line_of(path: Path | str, number: int) -> str:
    """Where a problem is: the file and the line, as every message names them."""
    return _("{path}: line {number}").format(path=path, number=number)


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def variant_json(variant: Variant) -> dict[str, object]:
    return {f.name: getattr(variant, f.name) for f in fields(Variant)}


def variant_from(raw: object, where: str) -> Variant:
    if not isinstance(raw, dict):
        raise JournalError(_("{where}: variant must be an object").format(where=where))
    names = {f.name for f in fields(Variant)}
    unknown = set(raw) - names
    if unknown:
        raise JournalError(_("{where}: unknown rule options {options}").format(
            where=where, options=sorted(unknown)))
    for name in ("tactics", "terrain"):
        if not isinstance(raw.get(name, False), bool):
            raise JournalError(_("{where}: variant {name} must be true or false").format(
                where=where, name=name))
    if raw.get("claim_timing", "standard") not in ("standard", "advanced"):
        raise JournalError(_("{where}: claim_timing must be standard or advanced").format(
            where=where))
    if raw.get("edition", "gmt") not in ("gmt", "medieval"):
        raise JournalError(_("{where}: edition must be gmt or medieval").format(where=where))
    return Variant(**raw)


def outcome_json(outcome: Outcome) -> dict[str, object]:
    return {
        "winner": outcome.winner.value if outcome.winner else None,
        "ending": outcome.ending.value,
        "flags": list(outcome.flags),
    }


def outcome_from(raw: Mapping[str, Any], where: str = "outcome") -> Outcome:
    try:
        winner = raw.get("winner")
        flags = raw.get("flags", [0, 0])
        return Outcome(Player(winner) if winner else None, Ending(raw["ending"]),
                       (int(flags[0]), int(flags[1])))
    except (KeyError, IndexError, TypeError, ValueError, AttributeError, OverflowError) as error:
        raise JournalError(_("{where}: not a result ({error})").format(
            where=where, error=repr(error))) from None


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
        raise JournalError(_("{where}: not an event ({error})").format(
            where=where, error=describe(error))) from None
    pile = line.get("pile")
    return TrackedEvent(player, action, str(pile) if pile else None)


@dataclass
class JournalRecord:
    """A journal as read: the header, the events standing (undos applied), how it ended."""

    path: Path
    header: dict[str, Any]
    lines: list[dict[str, Any]] = field(default_factory=list)
    numbers: list[int] = field(default_factory=list)  # each kept line's number in the file
    events: list[TrackedEvent] = field(default_factory=list)
    outcome: Outcome | None = None
    ended: bool = False  # an end line: finished (or abandoned)
    torn: bool = False  # the last line was cut short and has been left out
    good_bytes: int = 0  # length of the file up to the last whole line
    bad: list[tuple[int, str]] = field(default_factory=list)  # lenient: (line, problem)
    # Set when this is the readable part of a damaged journal (``cut_before``): the
    # problem, named; the game carries on in a new file, this one is left untouched.
    damage: str | None = None

    @property
    def variant(self) -> Variant:
        return variant_from(self.header.get("variant", {}), line_of(self.path, 1))

    @property
    def setup(self) -> Setup:
        """How the battlefield is laid out (``setup`` in the header; standard by default)."""
        raw = self.header.get("setup", Setup.STANDARD.value)
        try:
            return Setup(raw)
        except (ValueError, TypeError):
            choices = ", ".join(s.value for s in Setup)
            raise JournalError(_("{where}: setup must be {choices}, not {value}").format(
                where=line_of(self.path, 1), choices=choices, value=repr(raw))) from None

    @property
    def first(self) -> Player | None:
        """Who plays first; None when the table decides (whoever lays the first card)."""
        first = self.header.get("first", "south")
        if first is None:
            return None
        try:
            return Player(first)
        except (ValueError, TypeError):
            raise JournalError(_("{where}: first must be north, south or null, not "
                                 "{value}").format(where=line_of(self.path, 1),
                                                   value=repr(first))) from None


def _json_object(raw: bytes) -> dict[str, Any]:
    """One line as a JSON object; ValueError saying why not."""
    try:
        line = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ValueError(_("not UTF-8 text")) from None
    except RecursionError:
        raise ValueError(_("nested too deeply")) from None
    if not isinstance(line, dict):
        raise ValueError(_("not a JSON object"))
    return line


def read_journal(path: Path, *, lenient: bool = False) -> JournalRecord:
    """Read a journal; a torn last line is tolerated. Any other bad line is an error, or,
    ``lenient``, left out and listed in ``bad`` (a bad header is always an error)."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise JournalError(_("{path}: cannot read ({error})").format(
            path=path, error=error.strerror or error)) from None
    return parse_journal(path, data, lenient=lenient)


def parse_journal(path: Path, data: bytes, *, lenient: bool = False) -> JournalRecord:
    raw_lines = data.split(b"\n")
    complete = raw_lines[:-1]  # the part after the last newline is torn or empty
    tail = raw_lines[-1]
    record: JournalRecord | None = None
    good = 0
    torn = bool(tail.strip())
    for number, raw in enumerate(complete, start=1):
        where = line_of(path, number)
        try:
            line = _json_object(raw)
        except ValueError as error:
            if number == len(complete) and not tail.strip() and record is not None:
                torn = True  # the last line, cut and then followed by a newline write
                break
            problem = _("{where}: not a JSON object ({error})").format(where=where, error=error)
            if record is None or not lenient:
                raise JournalError(problem) from None
            record.bad.append((number, problem))
            good += len(raw) + 1
            continue
        good += len(raw) + 1
        if record is None:
            record = _header(path, line, where)
            continue
        try:
            _take(record, line, where)
        except JournalError as error:
            if not lenient:
                raise
            record.bad.append((number, str(error)))
            continue
        record.lines.append(line)
        record.numbers.append(number)
    if record is None:
        raise JournalError(_("{path}: empty journal (no header line)").format(path=path))
    record.torn = torn
    record.good_bytes = good
    return record


def _header(path: Path, line: dict[str, Any], where: str) -> JournalRecord:
    if line.get("type") != "game" or line.get("format") != FORMAT:
        raise JournalError(_("{where}: expected a {format} header line").format(
            where=where, format=FORMAT))
    record = JournalRecord(path, line)
    _checked = record.variant, record.setup, record.first  # each names line 1 if it is bad
    return record


def _take(record: JournalRecord, line: dict[str, Any], where: str) -> None:
    """One line after the header, into ``record``; JournalError if it makes no sense."""
    kind = line.get("type")
    if kind == "event":
        record.events.append(event_from(line, where))
    elif kind == "undo":
        if not record.events:
            raise JournalError(_("{where}: undo with no event to undo").format(where=where))
        record.events.pop()
    elif kind == "end":
        record.ended = True
        if line.get("ending"):
            record.outcome = outcome_from(line, where)
    elif kind != "note":
        raise JournalError(_("{where}: unknown line type {kind}").format(
            where=where, kind=repr(kind)))


def cut_before(record: JournalRecord, number: int, problem: str) -> JournalRecord:
    """The part of a damaged journal before line ``number``: what can be resumed."""
    data = record.path.read_bytes()
    start = sum(len(raw) + 1 for raw in data.split(b"\n")[: number - 1])
    part = parse_journal(record.path, data[:start])
    part.damage = problem
    return part


def _ends(path: Path) -> bool:
    """Whether a journal whose header cannot be read still has an end line."""
    try:
        data = path.read_bytes()
    except OSError:
        return False
    for raw in data.split(b"\n")[1:]:
        try:
            if _json_object(raw).get("type") == "end":
                return True
        except ValueError:
            continue
    return False


def find_unfinished(directory: Path) -> Path | None:
    """The newest journal in ``directory`` without an end line, if any — damaged ones
    too (reading it then says what is wrong), but not one a later journal ``replaces``."""
    if not directory.is_dir():
        return None
    replaced: set[str] = set()
    for path in sorted(directory.glob(f"*{SUFFIX}"), reverse=True):
        if path.name in replaced:
            continue
        try:
            record = read_journal(path, lenient=True)
        except JournalError:
            if not _ends(path):
                return path
            continue
        if isinstance(record.header.get("replaces"), str):
            replaced.add(record.header["replaces"])
        if not record.ended:
            return path
    return None


def set_aside(path: Path, problem: str) -> Path | None:
    """A damaged journal of which nothing can be resumed, left as it was: a short closed
    journal ``replaces`` it, so it is not offered for resuming again (None if that
    cannot be written: then it is named again at the next start)."""
    directory = path.parent
    closed = _new_path(directory)
    lines = [{"type": "game", "format": FORMAT, "started": now(), "replaces": path.name},
             {"type": "end", "time": now(), "reason": f"nothing could be resumed: {problem}"}]
    try:
        write_atomic(closed, "".join(json.dumps(line) + "\n" for line in lines))
    except OSError:
        return None
    return closed


class Journal:
    """Appends lines to one game's journal, each flushed and fsynced before returning.

    A write that fails (a full disk) does not stop the game: the line waits in
    memory, ``trouble`` says why, the file is cut back to its last whole line,
    and the waiting lines go first at the next write or ``retry``.
    """

    def __init__(self, path: Path, fd: int, count: int = 0) -> None:
        self.path = path
        self._fd = fd
        self._size = os.fstat(fd).st_size  # bytes known to be on the disk
        self._waiting: list[bytes] = []
        self.trouble: str | None = None  # why the journal is not being written, if it is not
        self.count = count  # event numbers given so far

    @classmethod
    def create(cls, directory: Path, header: Mapping[str, object]) -> Journal:
        path = _new_path(directory)
        try:
            directory.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o666)
        except OSError as error:
            raise JournalError(_("{folder}: cannot start a journal there ({error})").format(
                folder=directory, error=error.strerror or error)) from None
        journal = cls(path, fd)
        journal.write({"type": "game", "format": FORMAT, "started": now(), **header})
        fsync_dir(directory)
        return journal

    @classmethod
    def reopen(cls, record: JournalRecord) -> Journal:
        """Append to a journal read with ``read_journal``, cutting off a torn last line.
        A damaged one's readable part (``cut_before``) is carried on in a new file."""
        try:
            if record.damage is not None:
                return cls._carry_on(record)
            with open(record.path, "r+b") as raw:
                raw.truncate(record.good_bytes)
                raw.flush()
                os.fsync(raw.fileno())
            fd = os.open(record.path, os.O_WRONLY | os.O_APPEND)
        except OSError as error:
            raise JournalError(_("{path}: cannot go on writing it ({error})").format(
                path=record.path, error=error.strerror or error)) from None
        return cls(record.path, fd, _last_number(record))

    @classmethod
    def _carry_on(cls, record: JournalRecord) -> Journal:
        """A new journal with the readable part, written whole (a crash meanwhile leaves
        the damaged journal the one to resume, as before), then appended to."""
        header = {**record.header, "replaces": record.path.name}
        note = {"type": "note", "time": now(),
                "message": f"resumed from {record.path.name}, which is kept as it was: "
                           f"{record.damage}"}
        text = "".join(json.dumps(line, separators=(",", ":")) + "\n"
                       for line in [header, *record.lines, note])
        path = _new_path(record.path.parent)
        write_atomic(path, text)
        return cls(path, os.open(path, os.O_WRONLY | os.O_APPEND), _last_number(record))

    def write(self, line: Mapping[str, object]) -> None:
        self._waiting.append((json.dumps(line, separators=(",", ":")) + "\n").encode("utf-8"))
        self.retry()

    def retry(self) -> bool:
        """Write the lines waiting, if any; whether the journal is written up to now."""
        while self._waiting:
            data = self._waiting[0]
            try:
                _write_all(self._fd, data)
                os.fsync(self._fd)
            except OSError as error:
                self.trouble = error.strerror or str(error)
                with contextlib.suppress(OSError):
                    os.ftruncate(self._fd, self._size)  # no half line left behind
                return False
            self._size += len(data)
            self._waiting.pop(0)
        self.trouble = None
        return True

    @property
    def waiting(self) -> int:
        """Lines not yet on the disk."""
        return len(self._waiting)

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
        self.retry()  # a last try: what still waits is lost, the game resumes before it
        os.close(self._fd)


def _new_path(directory: Path) -> Path:
    """A new journal's name: its start time, so names sort as games were started."""
    return directory / f"game-{datetime.now(UTC).strftime('%Y%m%d-%H%M%S-%f')}{SUFFIX}"


def _last_number(record: JournalRecord) -> int:
    numbers = (line.get("n", 0) for line in record.lines)
    return max((n for n in numbers if isinstance(n, int)), default=0)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
