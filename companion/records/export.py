"""``battleline-companion export FILE``: a journal as a readable game record.

The text is the rules library's table record (``battleline-table/1``,
``companion/rules/table_record.py``): headers, then one event per line with
its player, claims with the reason they were granted. A camera cannot see
hands or draws, so this is the table's game, not the full one
(``battleline-record/1``); ``parse_table_record`` reads it back and its
``replay`` checks every event with the rules, as ``replay`` does here.
"""

from __future__ import annotations

import sys
from pathlib import Path

from companion.i18n import ArgumentParser, _, ngettext, set_language
from companion.records.journal import JournalError, event_from, line_of, read_journal
from companion.records.safe_write import write_atomic
from companion.rules.claims import Reason
from companion.rules.table_record import TableEvent, TableRecord, result_text

_REASONS = {r.value: r for r in Reason}


def export_record(path: Path) -> TableRecord:
    """The journal's standing events (undone ones left out) as a table record."""
    record = read_journal(path)
    events: list[TableEvent] = []
    for number, line in enumerate(record.lines, start=2):
        if line.get("type") == "event":
            event = event_from(line, line_of(path, number))
            reason = _REASONS.get(str(line.get("ruling", "")))
            events.append(TableEvent(event.player, event.action, reason))
        elif line.get("type") == "undo" and events:
            events.pop()
    extra = [("Source", "battleline-journal/1"), ("Started", str(record.header.get("started", "")))]
    if "seed" in record.header:
        extra.append(("Seed", str(record.header["seed"])))
    return TableRecord(record.first, record.variant, tuple(events), record.setup,
                       result_text(record.outcome), tuple(extra))


def export_text(path: Path) -> str:
    return export_record(path).text()


def main(argv: list[str]) -> int:
    set_language("auto")  # the system's: export reads no settings
    ap = ArgumentParser(prog="battleline-companion export",
                                 description=_("Write a game journal as a readable game "
                                               "record (battleline-table/1)."))
    ap.add_argument("journal", type=Path)
    ap.add_argument("--out", type=Path, default=None,
                    help=_("file to write (default: print)"))
    ns = ap.parse_args(argv)
    try:
        text = export_text(ns.journal)
    except JournalError as error:
        print(_("export: {problem}").format(problem=error), file=sys.stderr)
        return 1
    if ns.out is None:
        sys.stdout.write(text)
    else:
        try:
            write_atomic(ns.out, text)  # the old file or the whole new one, never torn
        except OSError as error:
            print(_("export: {path}: cannot write ({error})").format(
                path=ns.out, error=error.strerror or error), file=sys.stderr)
            return 1
        count = text.count("\n")
        print(ngettext("{path}: {n} line", "{path}: {n} lines", count).format(
            path=ns.out, n=count))
    return 0
