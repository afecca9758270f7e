"""What of a journal replays: every bad line named, and the part before the first one.

``walk`` applies a journal's lines through the tracker with the checks of
``replay`` (each event legal, each journaled position the rules' own). A line
that cannot be read, does not replay or disagrees with its position is a
problem naming the file and the line; ``walk`` either stops there or leaves
the line out and goes on (``replay --lenient``). ``resumable`` is what the
companion resumes on start: the whole journal, or for a damaged one the part
before its first bad line, to be carried on in a new file beside it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.i18n import _
from companion.messages import describe
from companion.records.journal import (
    JournalError,
    JournalRecord,
    cut_before,
    event_from,
    line_of,
    read_journal,
)
from companion.rules.errors import IllegalAction
from companion.rules.notation import dump_position
from companion.rules.position import Player
from companion.tracker import TrackedEvent, Tracker


@dataclass
class Walked:
    tracker: Tracker
    problems: list[tuple[int, str]] = field(default_factory=list)  # (line, named problem)


def tracker_for(record: JournalRecord) -> Tracker:
    first = record.first
    return Tracker(record.variant, first or Player.SOUTH, first_known=first is not None,
                   setup=record.setup)


def replayed_line(number: int, done: TrackedEvent) -> str:
    """One replayed event as the listing shows it, with the ruling of a granted claim."""
    text = f"{number:>4}. {done.describe()}"
    if done.ruling is not None:
        text += " — " + _("granted: {reason}").format(reason=done.ruling.reason.value)
    return text


def _step(tracker: Tracker, line: dict[str, Any], where: str, number: int) -> str | None:
    """Apply one line; what the listing shows of it. JournalError if it does not replay."""
    kind = line.get("type")
    if kind == "event":
        event = event_from(line, where)
        try:
            done = tracker.apply(event)
        except IllegalAction as error:
            raise JournalError(_("{where}: {event} does not replay: {error}").format(
                where=where, event=event.describe(), error=describe(error))) from None
        shown = replayed_line(number - 1, done)
    elif kind == "undo":
        undone = tracker.undo()
        shown = "      " + _("undo {event}").format(
            event=undone.describe() if undone else _("(nothing)"))
    else:
        return None
    if "position" in line and dump_position(tracker.position) != line["position"]:
        raise JournalError(_("{where}: the position after it differs from the journal's")
                           .format(where=where))
    return shown


def walk(record: JournalRecord, out: list[str] | None = None, *,
         stop_at_first: bool = False) -> Walked:
    """Replay ``record`` (read leniently, or not) through a tracker. An event that does not
    replay is left out; ``stop_at_first``: nothing after the first problem is applied."""
    walked = Walked(tracker_for(record))
    bad = dict(record.bad)
    kept = dict(zip(record.numbers, record.lines, strict=True))
    for number in sorted([*bad, *kept]):
        where = line_of(record.path, number)
        if number in bad:
            walked.problems.append((number, bad[number]))
        else:
            try:  # a position that differs is named; its event stays applied
                shown = _step(walked.tracker, kept[number], where, number)
            except JournalError as error:
                walked.problems.append((number, str(error)))
            else:
                if shown is not None and out is not None:
                    out.append(shown)
                continue
        if stop_at_first:
            break
    return walked


def resumable(path: Path) -> JournalRecord:
    """The journal to resume: all of it, or for a damaged one the part before its first
    bad line (``damage`` names that line). JournalError when not even the header reads."""
    record = read_journal(path, lenient=True)
    walked = walk(record, stop_at_first=True)
    if not walked.problems:
        return record
    number, problem = walked.problems[0]
    return cut_before(record, number, problem)
