"""``battleline-companion replay FILE``: a game replayed through the tracker and the rules.

FILE is a journal, a table record (``battleline-table/1``, what ``export``
writes) or a full game record (``battleline-record/1``). Every event of a
journal or table record is applied again with the same checks as at the
table; a journal's position after each event must equal the one it recorded,
a table record's claims must carry the rules' ruling and its result must be
the one the events lead to. A full game record replays through the game
engine (deals and draws included). Prints each event (claims with their
ruling), the result, and exits 1 naming the first line that does not replay.
"""

from __future__ import annotations

import sys
from pathlib import Path

from companion.app import result_line
from companion.i18n import ArgumentParser, _, ngettext, set_language
from companion.messages import describe
from companion.records.journal import JournalError, line_of, read_journal
from companion.records.salvage import replayed_line, walk
from companion.rules.errors import IllegalAction, NotationError
from companion.rules.game import Outcome
from companion.rules.position import Player
from companion.rules.record import RECORD_FORMAT, parse_record
from companion.rules.table_record import TABLE_RECORD_FORMAT, parse_table_record
from companion.tracker import TrackedEvent, Tracker

_TABLE_HEADER = f'[Format "{TABLE_RECORD_FORMAT}"]'
_FULL_HEADER = f'[Format "{RECORD_FORMAT}"]'


def _kind(path: Path) -> str:
    """``table``, ``full`` or ``journal``, from the file's first line that says."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            for raw in handle:
                line = raw.strip()
                if line and not line.startswith("#"):
                    if line == _TABLE_HEADER:
                        return "table"
                    return "full" if line == _FULL_HEADER else "journal"
    except OSError:
        pass  # read_journal says what is wrong with the file
    return "journal"


def _text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise JournalError(_("{path}: cannot read ({error})").format(
            path=path, error=error)) from None


def replay_table(path: Path, out: list[str]) -> Tracker:
    """Replay a table record through the rules and the tracker; JournalError names the line."""
    try:
        record = parse_table_record(_text(path))
        record.replay()
    except (NotationError, IllegalAction) as error:
        raise JournalError(f"{path}: {describe(error)}") from None
    first = record.first
    tracker = Tracker(record.variant, first or Player.SOUTH, first_known=first is not None,
                      setup=record.setup)
    for number, event in enumerate(record.events, start=1):
        try:
            done = tracker.apply(TrackedEvent(event.player, event.action))
        except IllegalAction as error:
            raise JournalError(f"{line_of(path, event.line)}: {describe(error)}") from None
        out.append(replayed_line(number, done))
    return tracker


def replay_full(path: Path, out: list[str]) -> Outcome | None:
    """Replay a full game record through the game engine; JournalError names the action."""
    try:
        record = parse_record(_text(path))
        state = record.replay()
    except (NotationError, IllegalAction) as error:
        raise JournalError(f"{path}: {describe(error)}") from None
    count = len(record.actions)
    out.append(ngettext("{n} action (deals and draws included) replayed",
                        "{n} actions (deals and draws included) replayed", count).format(n=count))
    return state.outcome


def replay(path: Path, out: list[str], problems: list[str] | None = None) -> Tracker:
    """Replay a journal; raises JournalError naming the first line that does not replay.
    With ``problems`` (``--lenient``), every bad line is listed there and the rest replayed."""
    lenient = problems is not None
    record = read_journal(path, lenient=lenient)
    walked = walk(record, out, stop_at_first=not lenient)
    if problems is not None:
        problems += [problem for _line, problem in walked.problems]
    elif walked.problems:
        raise JournalError(walked.problems[0][1])
    if record.torn:
        out.append(_("(the last line was cut short and is left out)"))
    return walked.tracker


def main(argv: list[str]) -> int:
    set_language("auto")  # the system's: replay reads no settings
    ap = ArgumentParser(
        prog="battleline-companion replay",
        description=_("Replay a game journal, table record or full game record through the "
                      "rules."),
    )
    ap.add_argument("journal", type=Path, help=_("a journal (.jsonl) or a game record"))
    ap.add_argument("--quiet", action="store_true", help=_("print only the result"))
    ap.add_argument("--lenient", action="store_true",
                    help=_("a journal: report every bad line and replay the rest"))
    ns = ap.parse_args(argv)
    lines: list[str] = []
    problems: list[str] | None = [] if ns.lenient else None
    kind = _kind(ns.journal)
    try:
        if kind == "full":
            outcome = replay_full(ns.journal, lines)
            what = _("every action legal")
        else:
            tracker = (replay_table(ns.journal, lines) if kind == "table"
                       else replay(ns.journal, lines, problems))
            outcome = tracker.outcome
            count = len(tracker.history)
            lines.append(ngettext("{n} event replayed", "{n} events replayed", count).format(
                n=count))
            what = (_("every event and ruling as the rules give") if kind == "table"
                    else _("every position as journaled"))
    except JournalError as error:
        print("\n".join(lines))
        print(_("replay: {problem}").format(problem=error), file=sys.stderr)
        return 1
    summary = lines.pop()
    if not ns.quiet:
        print("\n".join(lines))
    if problems:
        for problem in problems:
            print(_("replay: {problem}").format(problem=problem), file=sys.stderr)
        what = ngettext("{n} bad line left out", "{n} bad lines left out",
                        len(problems)).format(n=len(problems))
    if outcome is None:
        print(_("{summary}, {checked}; the game is unfinished").format(
            summary=summary, checked=what))
    else:
        print(_("{summary}, {checked}. {result}").format(
            summary=summary, checked=what, result=result_line(outcome)))
    return 1 if problems else 0
