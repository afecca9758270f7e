"""``battleline-companion replay FILE``: a journal replayed through the tracker and the rules.

Every event is applied again with the same checks as at the table, and the
position after it must equal the one the journal recorded. Prints each event
(claims with their ruling), the result, and exits 1 naming the first line that
does not replay.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from companion.app import result_line
from companion.journal import JournalError, event_from, read_journal
from companion.rules.errors import IllegalAction
from companion.rules.notation import dump_position
from companion.rules.position import Player
from companion.tracker import Tracker


def replay(path: Path, out: list[str]) -> Tracker:
    """Replay ``path``; raises JournalError naming the first line that does not replay."""
    record = read_journal(path)
    first = record.first
    tracker = Tracker(record.variant, first or Player.SOUTH, first_known=first is not None)
    for number, line in enumerate(record.lines, start=2):
        where = f"{path}: line {number}"
        kind = line.get("type")
        if kind == "event":
            event = event_from(line, where)
            try:
                done = tracker.apply(event)
            except IllegalAction as error:
                raise JournalError(f"{where}: {event.describe()} does not replay: {error}") from None
            text = f"{number - 1:>4}. {done.describe()}"
            if done.ruling is not None:
                text += f" — granted: {done.ruling.reason.value}"
            out.append(text)
        elif kind == "undo":
            undone = tracker.undo()
            out.append(f"      undo {undone.describe() if undone else '(nothing)'}")
        else:
            continue
        if "position" in line and dump_position(tracker.position) != line["position"]:
            raise JournalError(f"{where}: the position after it differs from the journal's")
    if record.torn:
        out.append("(the last line was cut short and is left out)")
    return tracker


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="battleline-companion replay",
                                 description="Replay a game journal through tracker and rules.")
    ap.add_argument("journal", type=Path)
    ap.add_argument("--quiet", action="store_true", help="print only the result")
    ns = ap.parse_args(argv)
    lines: list[str] = []
    try:
        tracker = replay(ns.journal, lines)
    except JournalError as error:
        print("\n".join(lines))
        print(f"replay: {error}", file=sys.stderr)
        return 1
    if not ns.quiet:
        print("\n".join(lines))
    outcome = tracker.outcome
    events = len(tracker.history)
    if outcome is None:
        print(f"{events} events replayed, every position as journaled; the game is unfinished")
    else:
        print(f"{events} events replayed, every position as journaled. {result_line(outcome)}")
    return 0
