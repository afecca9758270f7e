"""``battleline-companion export FILE``: a journal as a readable game record.

The text is the rules library's game record format (``battleline-record/1``:
headers, then one action per line) with the player and time of each event as
comments. A camera cannot see hands or draws, so the record holds the table's
events only (no ``deal``/``draw`` lines): it reads back with ``parse_record``
but replays through the tracker (``replay``), not through ``GameState``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from companion.journal import JournalError, read_journal
from companion.rules.position import Player
from companion.rules.record import RECORD_FORMAT


def export_text(path: Path) -> str:
    record = read_journal(path)
    variant = record.variant
    outcome = record.outcome
    result = "*"
    if outcome is not None:
        winner = outcome.winner.value if outcome.winner else "none"
        result = f"{winner} {outcome.ending.value}"
    headers = {
        "Format": RECORD_FORMAT,
        "First": (record.first or (record.events[0].player if record.events else None)
                  or Player.SOUTH).value,
        "Tactics": "true" if variant.tactics else "false",
        "ClaimTiming": variant.claim_timing,
        "Edition": variant.edition,
        "Result": result,
        "Source": "battleline-journal/1 (table events only: no deals or draws)",
        "Started": str(record.header.get("started", "")),
    }
    if "seed" in record.header:
        headers["Seed"] = str(record.header["seed"])
    lines = [f'[{k} "{v}"]' for k, v in headers.items()] + [""]
    # The events that stand: undone ones are already gone from record.events.
    for number, event in enumerate(record.events, start=1):
        lines.append(f"# {number}. {event.player}")
        lines.append(event.notation())
    if outcome is not None:
        north, south = outcome.flags
        lines.append(f"# result: {result} ({north}–{south} in flags)")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="battleline-companion export",
                                 description="Write a game journal as a readable game record.")
    ap.add_argument("journal", type=Path)
    ap.add_argument("--out", type=Path, default=None, help="file to write (default: print)")
    ns = ap.parse_args(argv)
    try:
        text = export_text(ns.journal)
    except JournalError as error:
        print(f"export: {error}", file=sys.stderr)
        return 1
    if ns.out is None:
        sys.stdout.write(text)
    else:
        ns.out.write_text(text, encoding="utf-8")
        print(f"{ns.out}: {text.count(chr(10))} lines")
    return 0
